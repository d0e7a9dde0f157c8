"""The run folder's errors, in a module of their own so that ``train.py`` catches them without
importing TensorFlow, and every module of the run folder raises the same ones."""

from __future__ import annotations


class CheckpointError(Exception):
    """A run folder, checkpoint or model that cannot be used; the message is one line."""


class TrainingDiverged(Exception):
    """The training losses became NaN or infinite: the network's weights are unusable, so the
    run stops before saving them."""
