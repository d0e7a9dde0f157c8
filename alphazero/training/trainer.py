"""Training the policy-value network on replay examples.

Targets follow the project's point-of-view rule: for each position, ``policies [B, A]`` is the
search's visit distribution (rows sum to 1) and ``values [B]`` is the game result in
``[-1, 1]`` from the point of view of the player to move in that position.

The optimizer is attached to the model with ``model.compile(optimizer=...)``, so
``model.save("x.keras")`` stores its state (iterations, slot variables) and
``keras.models.load_model`` (or ``alphazero.network.model.load_model``) brings it back; a
``Trainer`` built on a loaded, compiled model reuses that optimizer and resumes exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..network import tf_setup  # noqa: F401  (imports TensorFlow quietly, so it comes first)

# isort: split

import keras
import numpy as np
import tensorflow as tf

from ..config import TrainConfig
from ..network.model import wdl_targets, wdl_value
from ..network.schedules import StepDecay
from ..progress import bars as progress_bars
from .interrupts import raise_if_interrupted

METRICS = ("policy_loss", "value_loss", "value_mse", "l2_loss", "total_loss", "policy_entropy")


# ------------------------------------------------------------------------- schedules
def make_schedule(config: TrainConfig) -> float | keras.optimizers.schedules.LearningRateSchedule:
    """The learning rate (``constant``) or schedule (``cosine``, ``step``) of ``config``.

    ``cosine`` decays from ``learning_rate`` to ``learning_rate * lr_min_factor`` over
    ``lr_decay_steps`` and then stays there; ``step`` multiplies by 0.1 every
    ``lr_decay_steps``, floored at ``learning_rate * lr_min_factor``.
    """
    lr = float(config.learning_rate)
    if config.lr_schedule == "constant":
        return lr
    if config.lr_schedule == "cosine":
        return keras.optimizers.schedules.CosineDecay(
            initial_learning_rate=lr, decay_steps=config.lr_decay_steps, alpha=config.lr_min_factor
        )
    if config.lr_schedule == "step":
        return StepDecay(lr, config.lr_decay_steps, 0.1, lr * config.lr_min_factor)
    raise ValueError(f"unknown lr_schedule {config.lr_schedule!r}")


def make_optimizer(config: TrainConfig) -> keras.optimizers.Optimizer:
    """Adam (Keras's default betas) with the learning-rate schedule of ``config``. Every run
    here trained with Adam; SGD with momentum, AlphaZero's, was never tried on this scale."""
    return keras.optimizers.Adam(learning_rate=make_schedule(config))


def set_schedule(optimizer: keras.optimizers.Optimizer, config: TrainConfig) -> None:
    """Give a resumed ``optimizer`` the learning rate or schedule of ``config``.

    The step count and slot variables stay as saved; only the rate changes. With the config
    a run was saved with this gives the same rates, so a resume stays exact; with an edited
    one (say ``lr_schedule: step`` to drop the rate from here on) the edit takes effect.
    Schedules are functions of the optimizer's total step count, not of this session's.
    """
    schedule = make_schedule(config)
    try:
        optimizer.learning_rate = schedule
    except TypeError:
        # Keras cannot turn a schedule back into a plain rate: a step decay that never
        # decays is that constant rate.
        optimizer.learning_rate = StepDecay(float(schedule), decay_steps=1, factor=1.0)


# --------------------------------------------------------------------------- trainer
class Trainer:
    """Gradient steps on ``policy CE + win/draw/loss CE + L2`` for a ``build_network`` model:
    the two heads weigh the same, as in AlphaGo Zero (a heavier value term did not win on
    Connect Four: docs/research/learning_speed/connect4.md).

    If ``model`` is already compiled with an optimizer (as after ``keras.models.load_model``
    of a model saved by this project), that optimizer is reused, so its step count and slot
    variables resume exactly, and ``set_schedule`` gives it the learning rate of ``config``
    (an edited ``config.yaml`` takes effect on ``--resume``). Otherwise
    ``make_optimizer(config)`` is attached with ``model.compile``, so that ``model.save``
    stores its state.

    The train step is one ``tf.function`` with a batch dimension of ``None``: batches of any
    size, including a short one, use the same single trace (``trace_count`` stays 1). It is
    not XLA-compiled, which was slower on the target CPU (docs/research/benchmarks.md).
    """

    def __init__(self, model: keras.Model, config: TrainConfig) -> None:
        self.model = model
        self.config = config
        optimizer = getattr(model, "optimizer", None)
        if optimizer is None or not getattr(model, "compiled", False):
            model.compile(optimizer=make_optimizer(config))
        else:
            set_schedule(optimizer, config)
        self.optimizer: keras.optimizers.Optimizer = model.optimizer
        if not self.optimizer.built:
            self.optimizer.build(model.trainable_variables)
        shape = tuple(int(d) for d in model.input_shape[1:])
        actions = int(model.output_shape[0][-1])
        self.trace_count = 0
        self.steps_taken = 0
        """Steps ``train`` has taken in its current (or last) call: how many a Ctrl-C
        in the middle of it throws away."""
        self._step = tf.function(
            self._step_python,
            input_signature=[
                tf.TensorSpec([None, *shape], tf.float32),
                tf.TensorSpec([None, actions], tf.float32),
                tf.TensorSpec([None], tf.float32),
            ],
            reduce_retracing=False,
            autograph=False,  # no tensor-dependent Python control flow; see InferenceModel
        )

    @property
    def iterations(self) -> int:
        """Optimizer steps taken so far (saved with the model)."""
        return int(self.optimizer.iterations.numpy())

    def _step_python(
        self, planes: tf.Tensor, policies: tf.Tensor, values: tf.Tensor
    ) -> dict[str, tf.Tensor]:
        self.trace_count += 1  # runs only while tracing
        variables = self.model.trainable_variables
        learning_rate = tf.cast(tf.convert_to_tensor(self.optimizer.learning_rate), tf.float32)
        with tf.GradientTape() as tape:
            logits, wdl_logits = self.model(planes, training=True)
            logits = tf.cast(logits, tf.float32)
            wdl_logits = tf.cast(wdl_logits, tf.float32)
            policy_loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(labels=policies, logits=logits)
            )
            value_loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(
                    labels=wdl_targets(values), logits=wdl_logits
                )
            )
            losses = self.model.losses
            l2_loss = tf.add_n([tf.cast(x, tf.float32) for x in losses]) if losses else 0.0
            l2_loss = tf.convert_to_tensor(l2_loss, tf.float32)
            total_loss = policy_loss + value_loss + l2_loss
        gradients = tape.gradient(total_loss, variables)
        self.optimizer.apply_gradients(zip(gradients, variables, strict=True))
        log_probs = tf.nn.log_softmax(logits)
        entropy = -tf.reduce_mean(tf.reduce_sum(tf.exp(log_probs) * log_probs, axis=-1))
        value, _ = wdl_value(wdl_logits)
        return {
            "policy_loss": policy_loss,
            "value_loss": value_loss,
            "value_mse": tf.reduce_mean(tf.square(value - values)),
            "l2_loss": l2_loss,
            "total_loss": total_loss,
            "policy_entropy": entropy,
            "learning_rate": learning_rate,
        }

    def train_step(
        self, planes: np.ndarray, policies: np.ndarray, values: np.ndarray
    ) -> dict[str, float]:
        """One gradient step on a batch; returns its losses as floats.

        ``planes [B, H, W, C]`` float32 (mover's point of view), ``policies [B, A]`` target
        visit distributions, ``values [B]`` game results in ``[-1, 1]`` for the mover.
        Returns ``policy_loss`` (mean softmax cross-entropy against ``policies``),
        ``value_loss`` (cross-entropy of the win/draw/loss head against the result),
        ``value_mse`` (squared error of ``P(win) - P(loss)``), ``l2_loss`` (sum of the
        kernels' L2 penalties), ``total_loss`` (what the step minimizes: policy + value +
        L2), ``policy_entropy`` (mean entropy of the network's policy) and ``learning_rate``
        (the rate this step used). BatchNorm runs in training mode.
        """
        out = self._step(
            tf.convert_to_tensor(np.asarray(planes, dtype=np.float32)),
            tf.convert_to_tensor(np.asarray(policies, dtype=np.float32)),
            tf.convert_to_tensor(np.asarray(values, dtype=np.float32).reshape(-1)),
        )
        return {name: float(tensor.numpy()) for name, tensor in out.items()}

    def train(
        self,
        sample: Callable[[int], tuple[np.ndarray, np.ndarray, np.ndarray]],
        steps: int,
        progress: bool = True,
    ) -> dict[str, float]:
        """Run ``steps`` train steps, each on ``sample(config.batch_size)``.

        ``sample(n)`` returns ``(planes [n, H, W, C], policies [n, A], values [n])`` as in
        ``train_step``; returning fewer rows is fine (same trace, smaller batch). Shows a
        progress bar "train" with the running losses unless ``progress`` is False. Returns the
        mean of each metric over the steps and the ``learning_rate`` of the last step; an
        empty dict when ``steps`` is 0.
        """
        sums = dict.fromkeys(METRICS, 0.0)
        learning_rate = math.nan
        done = self.steps_taken = 0
        with progress_bars.bar(steps, "train", "step", enabled=progress) as bar:
            for _ in range(steps):
                raise_if_interrupted()
                planes, policies, values = sample(self.config.batch_size)
                metrics = self.train_step(planes, policies, values)
                for name in METRICS:
                    sums[name] += metrics[name]
                learning_rate = metrics["learning_rate"]
                done = self.steps_taken = done + 1
                bar.update(1)
                bar.set_postfix(
                    policy=f"{metrics['policy_loss']:.3f}",
                    value=f"{metrics['value_loss']:.3f}",
                    lr=f"{learning_rate:.2e}",
                    refresh=False,
                )
        if done == 0:
            return {}
        result = {name: total / done for name, total in sums.items()}
        result["learning_rate"] = learning_rate
        return result
