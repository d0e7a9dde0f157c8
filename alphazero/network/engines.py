"""Inference engines besides TensorFlow: the network's forward pass run by OpenVINO.

The ``.keras`` model stays the checkpoint format and TensorFlow stays the trainer; OpenVINO
only runs the forward pass, on a copy of the network built from the Keras model's layers and
weights (``openvino_model``) whenever they are new. It answers the small batches of play
(1-8 positions) much faster than TensorFlow, which is what a person waiting for a move feels;
at self-play's batches of 64-256 it is no faster than TensorFlow's own bfloat16 path, so
training keeps TensorFlow (``benchmarks/
inference_engines.py``, docs/research/benchmarks.md). It is a dependency of the package;
without it (``EngineError`` names ``INSTALL_HINT``) ``auto`` runs TensorFlow.

``play.py`` and the page read the ``.keras`` file themselves (``keras_graph``) and run it here
(``OpenVINONetwork``), so that playing loads no TensorFlow at all; ``InferenceModel`` runs
the same copy of a Keras model in memory.

The copy is built node by node with OpenVINO's operation set rather than by
``openvino.convert_model``: that converter reports usage to Intel's telemetry server unless
the user opted out, and this project makes no network connection of its own accord. Building
it directly also needs no TensorFlow tracing (milliseconds, not seconds), so a model whose
weights change is cheap to copy again. It knows the layers ``build_network`` uses (``Conv2D``,
``BatchNormalization``, ``ReLU``, ``Add``, ``Flatten``, ``Dense``); any other model raises
``EngineError`` and ``auto`` keeps it on TensorFlow.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from .keras_graph import LayerSpec, NetworkGraph

Engine = Literal["auto", "tensorflow", "openvino"]
ENGINES: tuple[str, ...] = ("auto", "tensorflow", "openvino")
INSTALL_HINT = "pip install -e '.[fast]' (or pip install openvino)"


ONE_THREAD_MAX_BATCH = 8
"""By default OpenVINO runs batches up to this size on one thread, larger ones on every core.

A batch of a few positions is too little work to share: on the 2-core development machine,
loaded by a training run, a Connect Four move of play.py (800 simulations, 4 leaves per call,
128x6 network in bfloat16) took 1.8 s on one thread and 4.1 s on OpenVINO's default threads,
whose threads wait for each other when the machine has no core to spare (0.7 and 1.0 CPU
seconds). Self-play's large batches do have work to share.
"""


def native_bfloat16() -> bool:
    """Whether this CPU does bfloat16 arithmetic natively (AVX-512 BF16 or AMX).

    Elsewhere bfloat16 is emulated and slower than float32, so ``auto`` keeps float32.
    """
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            flags = next((line for line in cpuinfo if line.startswith("flags")), "").split()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def next_power_of_two(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


class EngineError(ValueError):
    """An engine that cannot be used: not installed, or a model it cannot run. One line."""


def openvino_installed() -> bool:
    """Whether OpenVINO can be imported (without importing it: that takes a second)."""
    return importlib.util.find_spec("openvino") is not None


def resolve_engine(engine: str) -> Literal["tensorflow", "openvino"]:
    """``auto`` -> OpenVINO when installed, else TensorFlow; ``openvino`` not installed ->
    ``EngineError`` saying how to install it."""
    if engine not in ENGINES:
        raise EngineError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "tensorflow":
        return "tensorflow"
    if openvino_installed():
        return "openvino"
    if engine == "openvino":
        raise EngineError(f"the openvino engine is not installed: {INSTALL_HINT}")
    return "tensorflow"


# ------------------------------------------------------------------------- the graph
def openvino_model(graph: NetworkGraph) -> Any:
    """An ``openvino.Model`` computing what ``InferenceModel``'s forward pass computes:
    ``planes [B, H, W, C]`` -> ``(policy logits [B, A], win / draw / loss probabilities
    [B, 3])``, float32, the batch dimension left dynamic.

    ``graph`` is the network's layers and weights (``keras_graph``: read from a ``.keras`` file
    or taken from a Keras model). Convolutions run in OpenVINO's NCHW layout: the planes are
    transposed once on the way in, and back before a ``Flatten``, so that flattening orders
    the features as Keras does. ``EngineError`` for a layer it does not know.
    """
    import openvino as ov
    import openvino.opset13 as ops

    planes = ops.parameter([-1, *graph.plane_shape], ov.Type.f32, name="planes")

    def const(array: np.ndarray) -> Any:
        return ops.constant(np.ascontiguousarray(array, dtype=np.float32))

    # Each layer's OpenVINO output, 4-D ones in NCHW.
    values: dict[str, Any] = {
        graph.input_name: ops.transpose(planes, ops.constant(np.array([0, 3, 1, 2], np.int64)))
    }
    for layer in graph.layers:
        inputs = [values[name] for name in layer.inputs]
        values[layer.name] = _layer(ops, layer, inputs, const)

    logits = ops.result(values[graph.outputs[0]], name="logits")
    wdl = ops.result(ops.softmax(values[graph.outputs[1]], 1), name="wdl")
    return ov.Model([logits, wdl], [planes], "alphazero")


def _layer(ops: Any, layer: LayerSpec, inputs: list[Any], const: Any) -> Any:
    """One Keras layer as OpenVINO operations on its inputs' outputs."""
    config, weights, x = layer.config, layer.weights, inputs[0]
    if layer.kind == "Conv2D":
        if (
            tuple(config["strides"]) != (1, 1)
            or tuple(config["dilation_rate"]) != (1, 1)
            or config["groups"] != 1
            or config["data_format"] != "channels_last"
        ):
            raise EngineError(f"layer {layer.name!r}: only plain stride-1 convolutions")
        kernel = np.transpose(weights[0], (3, 2, 0, 1))  # HWIO -> OIHW
        auto_pad = "same_upper" if config["padding"] == "same" else "valid"
        x = ops.convolution(x, const(kernel), [1, 1], [0, 0], [0, 0], [1, 1], auto_pad)
        if config["use_bias"]:
            x = ops.add(x, const(weights[1].reshape(1, -1, 1, 1)))
        return _activation(ops, x, config["activation"], layer.name)
    if layer.kind == "BatchNormalization":
        if config["axis"] not in (-1, 3) or not config["center"] or not config["scale"]:
            raise EngineError(f"layer {layer.name!r}: only channel-wise batch norm")
        gamma, beta, mean, variance = weights
        scale = gamma / np.sqrt(variance + config["epsilon"])
        # One multiply-add per channel; OpenVINO folds it into the convolution before it.
        x = ops.multiply(x, const(scale.reshape(1, -1, 1, 1)))
        return ops.add(x, const((beta - mean * scale).reshape(1, -1, 1, 1)))
    if layer.kind == "ReLU":
        if config.get("max_value") is not None or config.get("negative_slope", 0) != 0:
            raise EngineError(f"layer {layer.name!r}: only a plain ReLU")
        return ops.relu(x)
    if layer.kind == "Add":
        for other in inputs[1:]:
            x = ops.add(x, other)
        return x
    if layer.kind == "Flatten":
        x = ops.transpose(x, ops.constant(np.array([0, 2, 3, 1], dtype=np.int64)))
        return ops.reshape(x, ops.constant(np.array([0, -1], dtype=np.int64)), True)
    if layer.kind == "Dense":
        x = ops.matmul(x, const(weights[0]), False, False)
        if config["use_bias"]:
            x = ops.add(x, const(weights[1]))
        return _activation(ops, x, config["activation"], layer.name)
    raise EngineError(f"OpenVINO cannot copy layer {layer.name!r} ({layer.kind})")


def _activation(ops: Any, x: Any, name: str, layer: str) -> Any:
    if name == "linear":
        return x
    if name == "relu":
        return ops.relu(x)
    raise EngineError(f"layer {layer!r}: activation {name!r} is not copied to OpenVINO")


# -------------------------------------------------------------------------- running
class OpenVINORunner:
    """The network on OpenVINO's CPU device, compiled once per batch size it is given.

    One compiled copy per batch size, as TensorFlow traces one function per bucket:
    ``InferenceModel`` pads every batch to a power of two, so there are few.
    ``bfloat16`` computes in bfloat16 (inputs and outputs stay float32); ``threads`` 0: one
    thread up to ``ONE_THREAD_MAX_BATCH`` rows, every core above.
    """

    def __init__(self, graph: NetworkGraph, *, bfloat16: bool = False, threads: int = 0) -> None:
        import openvino as ov

        self._core = ov.Core()
        self._model = openvino_model(graph)
        self._config: dict[str, Any] = {
            "INFERENCE_PRECISION_HINT": "bf16" if bfloat16 else "f32",
            # Search waits for each answer before it asks again: latency, not throughput.
            "PERFORMANCE_HINT": "LATENCY",
        }
        self.threads = threads
        self._requests: dict[int, Any] = {}

    def _request(self, batch: int) -> Any:
        request = self._requests.get(batch)
        if request is None:
            shaped = self._model.clone()
            rest = [d.get_length() for d in list(shaped.input(0).get_partial_shape())[1:]]
            shaped.reshape({0: [batch, *rest]})
            threads = self.threads or (1 if batch <= ONE_THREAD_MAX_BATCH else 0)
            config = {**self._config, "INFERENCE_NUM_THREADS": threads} if threads else self._config
            compiled = self._core.compile_model(shaped, "CPU", config)
            request = compiled.create_infer_request()
            self._requests[batch] = request
        return request

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits [B, A], win / draw / loss [B, 3])`` for float32 planes ``[B, H, W, C]``;
        arrays of their own (the request's output buffers are reused by the next call)."""
        request = self._request(planes.shape[0])
        request.infer({0: np.ascontiguousarray(planes, dtype=np.float32)}, share_inputs=True)
        return request.get_output_tensor(0).data.copy(), request.get_output_tensor(1).data.copy()


class OpenVINONetwork:
    """A network read from its file and run by OpenVINO alone, with no TensorFlow loaded:
    what ``play.py`` and the page search with when OpenVINO is installed.

    The same calls as ``network.InferenceModel``: ``inference(planes [B, H, W, C]) ->
    (logits [B, A], values [B])`` and ``evaluate`` for win / draw / loss ``[B, 3]``, from the
    mover's point of view. Rows are padded to the next power of two up to ``max_batch`` (so
    few batch sizes are compiled) and larger batches cut into chunks of ``max_batch``.
    """

    def __init__(self, graph: NetworkGraph, max_batch: int = 256, *, bfloat16: bool) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        self.max_batch = next_power_of_two(max_batch)
        self.plane_shape: tuple[int, ...] = tuple(graph.plane_shape)
        self.num_actions = graph.output_sizes[0]
        self.engine = "openvino"
        self.bfloat16 = bfloat16
        self._runner = OpenVINORunner(graph, bfloat16=bfloat16)

    def _run(self, chunk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = chunk.shape[0]
        size = next_power_of_two(rows)
        if size != rows:
            padded = np.zeros((size, *self.plane_shape), dtype=np.float32)
            padded[:rows] = chunk
            chunk = padded
        logits, wdl = self._runner(chunk)
        return logits[:rows], wdl[:rows]

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``[B, A]`` and values ``P(win) - P(loss)`` ``[B]`` for the mover."""
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
        if planes.shape[0] == 0:
            return (
                np.zeros((0, self.num_actions), dtype=np.float32),
                np.zeros((0, 3), dtype=np.float32),
            )
        parts = [
            self._run(planes[i : i + self.max_batch]) for i in range(0, len(planes), self.max_batch)
        ]
        if len(parts) == 1:
            return parts[0]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
