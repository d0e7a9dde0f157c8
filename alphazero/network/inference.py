"""The network a player searches with, loaded from a model file: read by OpenVINO straight
from the file when it is installed (no TensorFlow at all: ``play.py``'s first move no longer
waits for TensorFlow to import), else loaded by Keras and run by TensorFlow."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..training.checkpoints import load_model, model_file
from .engines import EngineError, OpenVINONetwork, native_bfloat16, resolve_engine
from .keras_graph import GraphError, read_keras_file
from .model_files import check_keras_file, check_shapes_fit

if TYPE_CHECKING:
    from ..games.base import Game
    from .model import InferenceModel


def load_inference(
    path: str | os.PathLike[str], game: Game, *, max_batch: int = 256, engine: str = "auto"
) -> OpenVINONetwork | InferenceModel:
    """The model at ``path`` (a run folder or a ``.keras`` file) for ``game``, run by
    ``engine`` (``auto``, ``openvino`` or ``tensorflow``), batches padded up to ``max_batch``.

    Every problem with the file is a one-line ``CheckpointError``. A file the TensorFlow-free
    reader does not understand (``keras_graph``) is loaded by Keras instead, which then runs
    it on OpenVINO if it can (``InferenceModel``).
    """
    file, shown = model_file(path, game)
    if resolve_engine(engine) == "openvino":
        check_keras_file(file, shown)
        try:
            graph = read_keras_file(file)
            output_sizes = graph.output_sizes
            network = OpenVINONetwork(graph, max_batch, bfloat16=native_bfloat16())
        except (GraphError, EngineError):
            pass  # Keras reads it below, and says what is wrong with it if anything is
        else:
            check_shapes_fit(graph.plane_shape, output_sizes, game, shown)
            return network
    from .model import InferenceModel  # TensorFlow: only when OpenVINO cannot run it

    model = load_model(file, game, compile=False)
    return InferenceModel(model, max_batch=max_batch, precision="auto", engine=engine)
