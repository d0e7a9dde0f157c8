"""Learning-rate schedules a saved model's optimizer may hold, registered with Keras.

Beside the network rather than in the trainer: loading a model needs them registered.
"""

from __future__ import annotations

from . import tf_setup  # noqa: F401  (imports TensorFlow quietly, so it comes first)

# isort: split

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="alphazero")
class StepDecay(keras.optimizers.schedules.LearningRateSchedule):
    """``initial * factor ** floor(step / decay_steps)``, never below ``min_learning_rate``."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        factor: float = 0.1,
        min_learning_rate: float = 0.0,
        name: str = "StepDecay",
    ) -> None:
        super().__init__()
        if decay_steps < 1:
            raise ValueError(f"decay_steps must be >= 1, got {decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = int(decay_steps)
        self.factor = float(factor)
        self.min_learning_rate = float(min_learning_rate)
        self.name = name

    def __call__(self, step):
        step = ops.cast(step, "float32")
        drops = ops.floor(step / float(self.decay_steps))
        rate = self.initial_learning_rate * ops.power(ops.cast(self.factor, "float32"), drops)
        return ops.maximum(rate, self.min_learning_rate)

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "factor": self.factor,
            "min_learning_rate": self.min_learning_rate,
            "name": self.name,
        }
