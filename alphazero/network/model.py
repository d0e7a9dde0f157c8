"""The policy-value network shared by every game, and the fast forward pass that search uses.

``build_network`` makes one residual tower for any game from its plane shape and action count.
The model maps planes ``[B, H, W, C]`` (float32, from the point of view of the player to move,
as ``Game.encode`` gives them) to ``[policy_logits [B, num_actions], wdl_logits [B, 3]]``:
the policy logits are unmasked (the caller masks illegal moves), and the win / draw / loss
logits give the value ``P(win) - P(loss)`` in ``[-1, 1]``, from the point of view of the
player to move in the position it describes.

``InferenceModel`` wraps a model for search: a ``tf.function`` compiled once per batch bucket
(powers of two), reading the model's live variables, returning numpy arrays.
"""

from __future__ import annotations

import functools
import os
from typing import Literal

from . import tf_setup  # noqa: F401  (imports TensorFlow quietly, so it comes first)

# isort: split

import keras
import numpy as np
import tensorflow as tf

from ..config import NetworkConfig
from . import schedules  # noqa: F401  (registers the learning-rate schedules with Keras)
from .engines import (
    EngineError,
    OpenVINORunner,
    native_bfloat16,
    next_power_of_two,
    resolve_engine,
)
from .keras_graph import GraphError, graph_of

XLA_MAX_BUCKET = 8
"""By default ``InferenceModel`` compiles buckets up to this size with XLA, larger ones without.

XLA has less per-call overhead, so it wins on tiny batches; the default (oneDNN) kernels use
both cores better and win from batch 16 up. Measurements in ``InferenceModel``'s docstring.
"""


# ------------------------------------------------------------------------------ model
def _conv(filters: int, kernel: int, l2: float, name: str) -> keras.layers.Conv2D:
    return keras.layers.Conv2D(
        filters,
        kernel,
        padding="same",
        use_bias=False,
        kernel_initializer="he_normal",
        kernel_regularizer=keras.regularizers.L2(l2) if l2 > 0 else None,
        name=name,
    )


def _bn(name: str) -> keras.layers.BatchNormalization:
    return keras.layers.BatchNormalization(name=name)


POLICY_CHANNELS = 2
"""Channels of the policy head's 1x1 convolution: AlphaZero's 2. Sixteen fitted held-out
positions better in a supervised probe but trailed as a whole Connect Four run
(docs/research/learning_speed/connect4.md), so every run has 2."""


def build_network(
    plane_shape: tuple[int, int, int],
    num_actions: int,
    config: NetworkConfig,
    *,
    policy_channels: int = POLICY_CHANNELS,
) -> keras.Model:
    """A residual policy-value network for planes ``[H, W, C]`` and ``num_actions`` moves.

    Tower: 3x3 conv stem (``config.filters``) + BN + ReLU, then ``config.blocks`` residual
    blocks (conv-BN-ReLU-conv-BN, add the skip, ReLU). Policy head: 1x1 conv
    (``policy_channels``, for experiments only) BN ReLU, flatten, ``Dense(num_actions)``
    -> logits, layer ``"policy"``. Value head: 1x1 conv
    (``config.value_channels``; AlphaZero's is 1) BN ReLU, flatten,
    ``Dense(config.value_hidden, relu)``, ``Dense(3)`` -> win / draw / loss logits, layer
    ``"value"``. Every conv and dense kernel carries an L2 penalty ``config.l2``
    (in ``model.losses``).

    Inputs ``planes [B, H, W, C]`` float32 from the mover's point of view; outputs
    ``[policy_logits [B, num_actions], wdl_logits [B, 3]]``, the win, draw and loss of the
    mover. The scalar value the search uses is ``P(win) - P(loss)`` (``wdl_value``): a draw
    is its own outcome rather than the middle of a tanh, which is what lets the terminal game
    show a win / draw / loss estimate.
    """
    height, width, channels = (int(d) for d in plane_shape)
    if num_actions < 1:
        raise ValueError(f"num_actions must be >= 1, got {num_actions}")
    l2 = float(config.l2)
    reg = keras.regularizers.L2(l2) if l2 > 0 else None

    planes = keras.Input(shape=(height, width, channels), dtype="float32", name="planes")
    x = _conv(config.filters, 3, l2, "stem_conv")(planes)
    x = _bn("stem_bn")(x)
    x = keras.layers.ReLU(name="stem_relu")(x)
    for i in range(config.blocks):
        skip = x
        x = _conv(config.filters, 3, l2, f"block{i}_conv1")(x)
        x = _bn(f"block{i}_bn1")(x)
        x = keras.layers.ReLU(name=f"block{i}_relu1")(x)
        x = _conv(config.filters, 3, l2, f"block{i}_conv2")(x)
        x = _bn(f"block{i}_bn2")(x)
        x = keras.layers.Add(name=f"block{i}_add")([x, skip])
        x = keras.layers.ReLU(name=f"block{i}_relu2")(x)

    p = _conv(policy_channels, 1, l2, "policy_conv")(x)
    p = _bn("policy_bn")(p)
    p = keras.layers.ReLU(name="policy_relu")(p)
    p = keras.layers.Flatten(name="policy_flatten")(p)
    policy = keras.layers.Dense(num_actions, kernel_regularizer=reg, name="policy")(p)

    v = _conv(config.value_channels, 1, l2, "value_conv")(x)
    v = _bn("value_bn")(v)
    v = keras.layers.ReLU(name="value_relu")(v)
    v = keras.layers.Flatten(name="value_flatten")(v)
    v = keras.layers.Dense(
        config.value_hidden, activation="relu", kernel_regularizer=reg, name="value_hidden"
    )(v)
    value = keras.layers.Dense(3, kernel_regularizer=reg, name="value")(v)

    return keras.Model(inputs=planes, outputs=[policy, value], name="alphazero_resnet")


def network_shape(model: keras.Model) -> dict[str, int] | None:
    """``filters``, ``blocks``, ``value_hidden``, ``value_channels`` and ``policy_channels``
    of a model ``build_network`` made (read from its layers, so from any saved run); None for
    a model made some other way."""
    names = {layer.name: layer for layer in model.layers}
    if "stem_conv" not in names or "value_hidden" not in names:
        return None
    blocks = 0
    while f"block{blocks}_conv1" in names:
        blocks += 1
    return {
        "filters": int(names["stem_conv"].filters),
        "blocks": blocks,
        "value_hidden": int(names["value_hidden"].units),
        "value_channels": int(names["value_conv"].filters),
        "policy_channels": int(names["policy_conv"].filters),
    }


def wdl_value(wdl_logits: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """``(P(win) - P(loss) [B], probabilities [B, 3])`` from win/draw/loss logits ``[B, 3]``."""
    probabilities = tf.nn.softmax(tf.cast(wdl_logits, tf.float32), axis=-1)
    return probabilities[:, 0] - probabilities[:, 2], probabilities


def wdl_targets(values: tf.Tensor) -> tf.Tensor:
    """Win / draw / loss distributions ``[B, 3]`` whose expected score is ``values [B]``.

    A result (+1, 0, -1) becomes one-hot; a value in between (a soft target) splits its
    mass between the result it leans to and a draw.
    """
    values = tf.clip_by_value(tf.cast(values, tf.float32), -1.0, 1.0)
    win, loss = tf.nn.relu(values), tf.nn.relu(-values)
    return tf.stack([win, 1.0 - win - loss, loss], axis=-1)


def load_model(path: str | os.PathLike) -> keras.Model:
    """``keras.models.load_model`` with this project's serializable classes registered
    (``alphazero.network.schedules``, imported above), so a model saved with its optimizer
    (``model.save("x.keras")``) loads with that state."""
    return keras.models.load_model(path)


# -------------------------------------------------------------------------- inference
Precision = Literal["auto", "float32", "bfloat16"]


def _bfloat16_copy(model: keras.Model) -> keras.Model:
    """The same network computing in bfloat16 (variables stay float32)."""

    def with_bfloat16(layer: keras.layers.Layer) -> keras.layers.Layer:
        config = layer.get_config()
        config["dtype"] = "mixed_bfloat16"
        return layer.__class__.from_config(config)

    return keras.models.clone_model(model, clone_function=with_bfloat16)


class InferenceModel:
    """A fast, fixed-shape forward pass of ``model`` for search.

    ``inference(planes [B, H, W, C]) -> (logits [B, A], values [B])``, numpy float32, the value
    from the point of view of the player to move in each position. The forward pass is a
    ``tf.function`` (``training=False``) traced once per batch bucket: the powers of two
    ``1, 2, 4, ..., max_batch``. ``B`` rows are padded with zeros to the next bucket, and more
    than ``max_batch`` rows are cut into chunks of ``max_batch``. ``trace_count`` counts the
    traces, so it never exceeds ``len(buckets)``.

    The function reads the model's variables, not a copy: after training, the next call uses
    the new weights without rebuilding anything.

    ``jit_compile``: ``True`` or ``False`` for every bucket, or ``None`` (default) for XLA on
    buckets up to ``XLA_MAX_BUCKET`` and the default kernels above: XLA pays off at the
    small batches only (``benchmarks/inference_engines.py``, docs/research/benchmarks.md).

    ``engine``: ``tensorflow`` (default), ``openvino`` (``pip install -e .[fast]``; else
    ``EngineError``) or ``auto`` (OpenVINO when installed and able to copy the model, else
    TensorFlow). OpenVINO runs a copy of the network made from the Keras model's weights when
    the model is loaded, and made again after they change (an optimizer step, or
    ``weights_changed()``); with bfloat16 it computes every bucket in bfloat16, since there
    it is faster at batch 1 too. ``jit_compile`` is TensorFlow's alone. See
    ``alphazero.network.engines`` and ``benchmarks/inference_engines.py``.
    """

    def __init__(
        self,
        model: keras.Model,
        max_batch: int = 256,
        *,
        jit_compile: bool | None = None,
        precision: Precision = "float32",
        engine: str = "tensorflow",
    ) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        if precision not in ("auto", "float32", "bfloat16"):
            raise ValueError(f"precision must be auto, float32 or bfloat16, got {precision!r}")
        self.model = model
        self.bfloat16 = precision == "bfloat16" or (precision == "auto" and native_bfloat16())
        self._twin: keras.Model | None = None  # bfloat16 copy for the large buckets
        self._twin_step = -1
        self.max_batch = next_power_of_two(max_batch)
        self.buckets: tuple[int, ...] = tuple(1 << i for i in range(self.max_batch.bit_length()))
        self.plane_shape: tuple[int, ...] = tuple(int(d) for d in model.input_shape[1:])
        self.num_actions = int(model.output_shape[0][-1])
        self.jit_compile = jit_compile
        self.trace_count = 0
        # autograph=False: the forward pass has no tensor-dependent Python control flow, and
        # autograph would reread this file to trace a new bucket, so editing it during a run
        # would compile whatever code now sits at the old line numbers.
        trace = functools.partial(tf.function, autograph=False, reduce_retracing=False)
        self._plain = trace(self._forward_python, jit_compile=False)
        self._xla = trace(self._forward_python, jit_compile=True)
        self._bf16 = trace(self._forward_twin, jit_compile=False)
        self._runner: OpenVINORunner | None = None
        self._runner_step = -1
        self.engine = resolve_engine(engine)
        if self.engine == "openvino":
            try:
                self._fresh_runner()  # copy the model now: one that cannot be copied fails here
            except EngineError:
                if engine != "auto":
                    raise
                self.engine = "tensorflow"

    def uses_xla(self, bucket: int) -> bool:
        """Whether the forward pass for ``bucket`` rows is compiled with XLA."""
        if self.jit_compile is None:
            return bucket <= XLA_MAX_BUCKET
        return self.jit_compile

    def uses_bfloat16(self, bucket: int) -> bool:
        """Whether ``bucket`` rows run on the bfloat16 copy (large buckets only: at batch 1
        bfloat16 is no faster, and XLA in float32 wins)."""
        return self.bfloat16 and not self.uses_xla(bucket)

    def _forward_python(self, planes: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        self.trace_count += 1  # runs only while tracing
        logits, wdl = self.model(planes, training=False)
        return tf.cast(logits, tf.float32), tf.nn.softmax(tf.cast(wdl, tf.float32), axis=-1)

    def _forward_twin(self, planes: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        self.trace_count += 1
        assert self._twin is not None
        logits, wdl = self._twin(planes, training=False)
        return tf.cast(logits, tf.float32), tf.nn.softmax(tf.cast(wdl, tf.float32), axis=-1)

    def weights_changed(self) -> None:
        """Say that the model's weights were set from outside (a worker given the learner's):
        with no optimizer step to show it, the bfloat16 and OpenVINO copies would otherwise
        stay stale."""
        self._twin_step = -1
        self._runner_step = -1

    def _weights_step(self) -> int:
        """The optimizer's step counter, which says when the weights changed (0 for a model
        without an optimizer, loaded to play, whose weights never change)."""
        optimizer = getattr(self.model, "optimizer", None)
        return int(optimizer.iterations.numpy()) if optimizer is not None else 0

    def _fresh_runner(self) -> OpenVINORunner:
        """The OpenVINO copy of the network, made again when the weights have changed."""
        step = self._weights_step()
        if self._runner is None or step != self._runner_step:
            try:
                graph = graph_of(self.model)
            except GraphError as error:  # to the callers, a model OpenVINO cannot run
                raise EngineError(str(error)) from None
            self._runner = OpenVINORunner(graph, bfloat16=self.bfloat16)
            self._runner_step = step
        return self._runner

    def _fresh_twin(self) -> None:
        """Build the bfloat16 copy once, and copy the weights again after training steps.

        The optimizer's step counter says when the weights changed; a model without an
        optimizer (loaded to play) never changes, so it is copied once.
        """
        step = self._weights_step()
        if self._twin is None:
            self._twin = _bfloat16_copy(self.model)
        elif step == self._twin_step:
            return
        self._twin.set_weights(self.model.get_weights())
        self._twin_step = step

    def bucket(self, rows: int) -> int:
        """The padded batch size used for ``rows`` (``rows <= max_batch``)."""
        return next_power_of_two(rows)

    def _run(self, chunk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = chunk.shape[0]
        size = self.bucket(rows)
        if size != rows:
            padded = np.zeros((size, *self.plane_shape), dtype=np.float32)
            padded[:rows] = chunk
            chunk = padded
        if self.engine == "openvino":
            logits, wdl = self._fresh_runner()(chunk)
            return logits[:rows], wdl[:rows]
        if self.uses_bfloat16(size):
            self._fresh_twin()
            forward = self._bf16
        else:
            forward = self._xla if self.uses_xla(size) else self._plain
        logits, wdl = forward(tf.constant(chunk))
        return logits.numpy()[:rows], wdl.numpy()[:rows]

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``[B, A]`` and values ``[B]`` (float32 numpy) for planes ``[B, H, W, C]``.

        The value is ``P(win) - P(loss)`` for the mover, in ``[-1, 1]``.
        """
        logits, wdl = self.evaluate(planes)
        return logits, wdl[:, 0] - wdl[:, 2]

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``[B, A]`` and win / draw / loss probabilities ``[B, 3]`` for the mover."""
        planes = np.asarray(planes, dtype=np.float32)
        if planes.ndim != 4 or tuple(planes.shape[1:]) != self.plane_shape:
            raise ValueError(
                f"expected planes of shape [B, {', '.join(map(str, self.plane_shape))}], "
                f"got {list(planes.shape)}"
            )
        rows = planes.shape[0]
        if rows == 0:
            return (
                np.zeros((0, self.num_actions), dtype=np.float32),
                np.zeros((0, 3), dtype=np.float32),
            )
        if rows <= self.max_batch:
            return self._run(planes)
        parts = [self._run(planes[i : i + self.max_batch]) for i in range(0, rows, self.max_batch)]
        return (
            np.concatenate([p[0] for p in parts], axis=0),
            np.concatenate([p[1] for p in parts], axis=0),
        )

    def warmup(self) -> None:
        """Trace every bucket now, so that no search call pays for a trace."""
        for size in self.buckets:
            self._run(np.zeros((size, *self.plane_shape), dtype=np.float32))
