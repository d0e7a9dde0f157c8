"""The network's forward pass on this CPU: TensorFlow against ONNX Runtime and OpenVINO.

Connect Four networks of 64 filters x 5 blocks and 128 x 6 (``build_network``, random weights:
speed does not depend on them), batches 1, 8, 64 and 256. Engines, each called as the search
calls it (float32 planes in, numpy logits and win / draw / loss out):

    tensorflow          InferenceModel's default path: XLA up to batch 8, oneDNN above, float32
    tensorflow-xla      XLA at every batch
    tensorflow-bf16     bfloat16 at every batch (no XLA)
    onnxruntime         the Keras model exported to ONNX (tf2onnx), float32
    openvino            InferenceModel(engine="openvino"), float32
    openvino-bf16       the same in bfloat16 (what play.py uses on a CPU with native bfloat16)

The rounds are interleaved (every engine and batch once per round, in a rotating order), so a
machine whose load changes affects them alike; each cell is the median over rounds, and the
ratio is to ``tensorflow`` in the same cell. An engine that is not installed is skipped with
the command that installs it. Run:

    python benchmarks/inference_engines.py --rounds 5
    python benchmarks/inference_engines.py --threads 1   # every engine on one thread
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from alphazero.config.command_line import OneLineParser, integers

Forward = Callable[[np.ndarray], object]

ENGINES = (
    "tensorflow",
    "tensorflow-xla",
    "tensorflow-bf16",
    "onnxruntime",
    "openvino",
    "openvino-bf16",
)
INSTALL = {
    "onnxruntime": "pip install onnxruntime tf2onnx",
    "openvino": "pip install -e '.[fast]'",
}
NETWORKS = {"64x5": (64, 5), "128x6": (128, 6)}


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument(
        "--seconds", type=float, default=0.3, help="time per engine, batch and round"
    )
    parser.add_argument(
        "--batches", type=integers, default="1,8,64,256", help="comma-separated batch sizes"
    )
    parser.add_argument("--networks", default="64x5,128x6", help="of " + ", ".join(NETWORKS))
    parser.add_argument("--engines", default=",".join(ENGINES), help="of " + ", ".join(ENGINES))
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="threads per engine (TensorFlow's intra-op pool, ONNX Runtime's, OpenVINO's); "
        "0: each engine's default, every core",
    )
    args = parser.parse_args()
    batches = args.batches
    networks = args.networks.split(",")
    engines = args.engines.split(",")
    for name in networks:
        if name not in NETWORKS:
            parser.error(f"--networks: unknown {name!r}; known: {', '.join(NETWORKS)}")
    for name in engines:
        if name not in ENGINES:
            parser.error(f"--engines: unknown {name!r}; known: {', '.join(ENGINES)}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    if not args.seconds > 0:  # NaN too
        parser.error(f"--seconds must be above 0, got {args.seconds:g}")
    if args.threads < 0:
        parser.error(f"--threads must be at least 0, got {args.threads}")
    if min(batches) < 1:
        parser.error(f"--batches must be at least 1, got {min(batches)}")

    from alphazero.network import tf_setup  # noqa: F401  (TensorFlow, quietly)

    # isort: split
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")  # one tf.function per engine and network is no retracing
    if args.threads:  # before TensorFlow starts its pools
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)

    available = []
    for engine in engines:
        missing = _missing(engine)
        if missing:
            print(f"skipping {engine}: {missing} is not installed ({INSTALL[missing]})")
        else:
            available.append(engine)

    forwards: dict[tuple[str, str], Forward] = {}
    for name in networks:
        model = _network(name)
        for engine in available:
            forwards[name, engine] = _forward(engine, model, args.threads, max(batches))
    rng = np.random.default_rng(0)
    planes = {b: rng.integers(0, 2, size=(b, 6, 7, 3)).astype(np.float32) for b in batches}
    cells = [(n, e, b) for n in networks for b in batches for e in available]
    for network, engine, batch in cells:  # compile and warm every cell before timing
        for _ in range(3):
            forwards[network, engine](planes[batch])

    times: dict[tuple[str, str, int], list[float]] = {cell: [] for cell in cells}
    for round_index in range(args.rounds):
        shift = round_index % len(cells)
        for network, engine, batch in cells[shift:] + cells[:shift]:
            forward, x = forwards[network, engine], planes[batch]
            calls, start = 0, time.perf_counter()
            while (elapsed := time.perf_counter() - start) < args.seconds or calls < 3:
                forward(x)
                calls += 1
            times[network, engine, batch].append(elapsed / calls)
        print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr, flush=True)

    threads = f"{args.threads} thread(s)" if args.threads else "default threads"
    print(f"\nmedian over {args.rounds} interleaved rounds, {threads}; ms per call "
          "(positions/s), ratio = tensorflow's time / this engine's")  # fmt: skip
    for network in networks:
        print(f"\n{network}  " + "".join(f"{'batch ' + str(b):>28}" for b in batches))
        for engine in available:
            row = f"{engine:<16}"
            for batch in batches:
                ms = statistics.median(times[network, engine, batch]) * 1000
                base = statistics.median(times[network, "tensorflow", batch]) * 1000
                ratio = f"{base / ms:.2f}x" if "tensorflow" in available else ""
                row += f"{ms:>9.2f} ({batch / ms * 1000:>7,.0f}) {ratio:>7}"
            print(row)
    return 0


def _missing(engine: str) -> str | None:
    """The package an engine lacks, or None."""
    import importlib.util

    if engine == "onnxruntime":
        for package in ("onnxruntime", "tf2onnx"):
            if importlib.util.find_spec(package) is None:
                return "onnxruntime"
    if engine.startswith("openvino") and importlib.util.find_spec("openvino") is None:
        return "openvino"
    return None


def _network(name: str):  # -> keras.Model
    from alphazero.config import NetworkConfig
    from alphazero.games import make
    from alphazero.network.model import build_network

    filters, blocks = NETWORKS[name]
    game = make("connect4")
    return build_network(
        game.encode().shape, game.num_actions, NetworkConfig(filters=filters, blocks=blocks)
    )


def _forward(engine: str, model, threads: int, max_batch: int) -> Forward:
    from alphazero.network.model import InferenceModel

    if engine == "tensorflow":
        return InferenceModel(model, max_batch).evaluate
    if engine == "tensorflow-xla":
        return InferenceModel(model, max_batch, jit_compile=True).evaluate
    if engine == "tensorflow-bf16":
        return InferenceModel(model, max_batch, jit_compile=False, precision="bfloat16").evaluate
    if engine == "onnxruntime":
        return _onnxruntime(model, threads)
    bfloat16 = engine == "openvino-bf16"
    inference = InferenceModel(
        model, max_batch, precision="bfloat16" if bfloat16 else "float32", engine="openvino"
    )
    if threads:  # InferenceModel leaves OpenVINO its default threads; the option sets them
        from alphazero.network.engines import OpenVINORunner
        from alphazero.network.keras_graph import graph_of

        inference._runner = OpenVINORunner(graph_of(model), bfloat16=bfloat16, threads=threads)
    return inference.evaluate


def _onnxruntime(model, threads: int) -> Forward:
    """The Keras model exported to ONNX by Keras (tf2onnx), run by ONNX Runtime on the CPU."""
    import onnxruntime as ort

    path = Path(tempfile.mkdtemp(prefix="engines-")) / "model.onnx"
    model(np.zeros((1, *model.input_shape[1:]), dtype=np.float32))  # Keras exports called models
    model.export(str(path), format="onnx", verbose=False)
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    shutil.rmtree(path.parent)  # the session holds the model; the file is not needed again
    name = session.get_inputs()[0].name

    def forward(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, wdl = session.run(None, {name: planes})
        exp = np.exp(wdl - wdl.max(axis=1, keepdims=True))
        return logits, exp / exp.sum(axis=1, keepdims=True)

    return forward


if __name__ == "__main__":
    sys.exit(main())
