"""Where self-play and training spend their CPU, config against config (issue 59: 15x15 Gomoku
against 8x8 by default).

Four parts, each alone with ``--only``; every figure is CPU-seconds of this process (all its
threads, ``time.process_time``), never wall time: a loaded machine slows the run much more
than it moves these figures, though it moves them some, so compare figures taken side by
side. TensorFlow gets ``--threads`` intra-op threads (default 1: each of a run's two
self-play workers has one core).

``selfplay``: each config's own self-play (``play_games`` with its search, simulations,
playout cap, evaluation cache and symmetries) over the games one worker has in flight
(``games_per_iteration / workers``, at most ``parallel_games``), the config's network with
random weights. Rounds alternate between the configs; each round starts fresh games and stops
once it has spent ``--cpu-seconds`` (or, with ``--whole-games``, when they have all ended).
It reports moves per CPU-second, and where the CPU went, measured with accumulating CPU
timers: the benchmark wraps the functions below (``unittest.mock.patch``; the package is not
changed), and each timer counts its own time less that of the timed calls inside it, so the
parts add up to the round's CPU:

  (a) network   ``InferenceModel.__call__``: the forward pass, padding and copies included
  (b) tree      ``search_step`` (select, expand, backup), ``SearchPolicy.begin`` (Gumbel's
                re-rooting and root schedule) and the move choice (``gumbel_choice``,
                ``Node.next``), less the calls below that they make
  (c) legal     the game's ``available_moves``, ``mask_batch`` and ``ending_moves``
  (d) encoding  the game's ``encode_batch`` and ``encode``
  (e) rest      the masked softmax of the priors (``process_policies``), the evaluation
                cache, the child positions (``sim_legal_move``), the random openings
                (``random_opening``, all of it), the eight symmetries of each example
                (``symmetries``), and the self-play loop itself

The timers cost a few microseconds a call; the script measures that and prints it as a
share of the CPU (``instrumentation``).

``training``: CPU per training step (``Trainer.train_step``) at each config's batch size and
network, in float32 and under Keras's ``mixed_bfloat16`` policy, rounds interleaved.

``precision``: CPU per position of the forward pass (``InferenceModel``) in float32 and in
bfloat16 (``search.inference_precision``), at the batches of ``--forward-batches``.

``metrics``: a run's own split of its CPU between self-play and training, from its
``metrics.jsonl`` (``--metrics RUN_FOLDER ...``).

Run (CPU-seconds each, on the 2-core AVX2 machine):

    python benchmarks/selfplay_cost.py --only selfplay --rounds 2 --cpu-seconds 10  # 55
    python benchmarks/selfplay_cost.py --only training --rounds 2 --steps 3  # 320: bfloat16's
    python benchmarks/selfplay_cost.py --only precision  # 25
    python benchmarks/selfplay_cost.py --only metrics --metrics checkpoints/pretrained/connect4
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import math
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

import numpy as np

from alphazero.config.command_line import OneLineParser, integers, non_negative_integer

if TYPE_CHECKING:
    import keras

    from alphazero.config import Config
    from alphazero.games.base import Game
    from alphazero.network.model import InferenceModel

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("configs/gomoku_15x15.yaml", "configs/gomoku_8x8.yaml")
PARTS = {
    "network": "(a) network forward pass",
    "tree": "(b) tree walk (search/)",
    "legal": "(c) legal moves",
    "encoding": "(d) encoding planes",
    "priors": "(e) masked softmax of priors",
    "cache": "(e) evaluation cache",
    "moves": "(e) child positions",
    "opening": "(e) random openings",
    "augment": "(e) 8 symmetries of examples",
    "loop": "(e) self-play loop, other",
}
GAME_TIMERS = {
    "available_moves": "legal",
    "mask_batch": "legal",
    "ending_moves": "legal",
    "encode_batch": "encoding",
    "encode": "encoding",
    "sim_legal_move": "moves",
    "symmetries": "augment",
}


class CpuLedger:
    """Accumulating CPU timers: each wrapped call adds its CPU time, less that of the wrapped
    calls made inside it, to its part; calls and rows (a batch's length) by function."""

    def __init__(self) -> None:
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self.rows: Counter[str] = Counter()
        self.padded: Counter[str] = Counter()
        """Rows padded to the next power of two, as ``InferenceModel`` runs them."""
        self._inner: list[float] = []  # CPU of the timed calls inside each open timer
        self._quiet = False  # inside a ``whole`` timer

    def wrap(
        self, part: str, name: str, function: Callable, rows: bool = False, whole: bool = False
    ) -> Callable:
        """``function`` timed into ``part``; ``whole``: the timed calls inside it count in
        ``part`` too (they are not timed on their own)."""
        clock, inner = time.process_time, self._inner

        def timed(*args: Any, **kwargs: Any) -> Any:
            if self._quiet:
                return function(*args, **kwargs)
            start = clock()
            inner.append(0.0)
            self._quiet = whole
            try:
                return function(*args, **kwargs)
            finally:
                self._quiet = False
                spent = clock() - start
                self.seconds[part] += spent - inner.pop()
                if inner:
                    inner[-1] += spent
                self.calls[name] += 1
                if rows:
                    count = len(args[1])
                    self.rows[name] += count
                    self.padded[name] += 1 << (count - 1).bit_length() if count else 0

        return timed

    def patch(
        self,
        stack: contextlib.ExitStack,
        owner: Any,
        attribute: str,
        part: str,
        rows: bool = False,
        whole: bool = False,
    ) -> None:
        """Time ``owner.attribute`` (a function, method, property or classmethod) while
        ``stack`` is open."""
        raw = inspect.getattr_static(owner, attribute)
        name = f"{getattr(owner, '__name__', owner)}.{attribute}"
        if isinstance(raw, property):
            new: Any = property(self.wrap(part, name, raw.fget))
        elif isinstance(raw, classmethod):
            new = classmethod(self.wrap(part, name, raw.__func__))
        else:
            new = self.wrap(part, name, raw, rows, whole)
        stack.enter_context(mock.patch.object(owner, attribute, new))


@contextlib.contextmanager
def timed_selfplay(ledger: CpuLedger, game_class: type) -> Iterator[None]:
    """The self-play code with ``ledger``'s timers around the parts of the docstring."""
    from alphazero.network.model import InferenceModel
    from alphazero.search import EvaluationCache, Node, SearchPolicy, batched, policies
    from alphazero.selfplay import loop, moves

    with contextlib.ExitStack() as stack:
        ledger.patch(stack, InferenceModel, "__call__", "network", rows=True)
        ledger.patch(stack, EvaluationCache, "__call__", "cache", rows=True)
        ledger.patch(stack, loop, "search_step", "tree")
        ledger.patch(stack, SearchPolicy, "begin", "tree")
        ledger.patch(stack, policies, "gumbel_choice", "tree")
        ledger.patch(stack, Node, "next", "tree")
        ledger.patch(stack, batched, "process_policies", "priors")
        ledger.patch(stack, moves, "random_opening", "opening", whole=True)
        for attribute, part in GAME_TIMERS.items():
            ledger.patch(stack, game_class, attribute, part)
        yield


def timer_overhead(calls: int = 20000) -> float:
    """CPU-seconds one timed call adds to a bare call."""
    ledger = CpuLedger()
    timed = ledger.wrap("x", "x", lambda: None)
    bare = lambda: None  # noqa: E731
    costs = []
    for function in (bare, timed):
        start = time.process_time()
        for _ in range(calls):
            function()
        costs.append(time.process_time() - start)
    return max(costs[1] - costs[0], 0.0) / calls


@dataclass
class Setup:
    """One config, built: its game, network and inference."""

    path: str
    config: Config
    game: Game
    model: keras.Model
    inference: InferenceModel
    games: int
    """Games one self-play worker has in flight."""

    @property
    def label(self) -> str:
        params = self.config.game.params
        size = f" {params['size']}x{params['size']}" if "size" in params else ""
        net = self.config.network
        return f"{self.config.game.name}{size} ({net.filters}x{net.blocks})"


def build(path: str, warmup: bool) -> Setup:
    """The config at ``path`` built; ``warmup``: its inference traced for every batch."""
    from alphazero.config import load_config
    from alphazero.games import make
    from alphazero.network.model import InferenceModel, build_network

    config = load_config(path)
    game = make(config.game.name, **config.game.params)
    model = build_network(game.plane_shape, game.num_actions, config.network)
    selfplay = config.selfplay
    games = min(selfplay.parallel_games, math.ceil(selfplay.games_per_iteration / selfplay.workers))
    inference = InferenceModel(model, max_batch=games, precision=config.search.inference_precision)
    if warmup:
        inference.warmup()
    return Setup(path, config, game, model, inference, games)


class _Spent(Exception):
    """A round's CPU budget is spent."""


def selfplay_round(setup: Setup, seed: int, budget: float) -> dict[str, Any]:
    """One round of ``setup``'s self-play, timed by part; ``budget`` inf: whole games."""
    from alphazero.games import make
    from alphazero.selfplay.loop import play_games

    config, ledger, played = setup.config, CpuLedger(), [0]

    def new_game() -> Game:
        return make(config.game.name, **config.game.params)

    start = time.process_time()

    def on_step(moves: int) -> None:
        played[0] = moves
        if time.process_time() - start >= budget:
            raise _Spent

    rng = np.random.default_rng(seed)
    with timed_selfplay(ledger, type(setup.game)), contextlib.suppress(_Spent):
        play_games(
            new_game, setup.inference, setup.games, config.search, config.selfplay, rng,
            progress=False, on_step=on_step,
        )  # fmt: skip
    cpu = time.process_time() - start
    seconds = dict(ledger.seconds)
    seconds["loop"] = cpu - sum(seconds.values())
    name = type(setup.game).__name__
    return {
        "cpu": cpu,
        "moves": played[0],
        "examples": ledger.calls[f"{name}.encode"],
        "seconds": seconds,
        "network_rows": ledger.rows["InferenceModel.__call__"],
        "network_padded": ledger.padded["InferenceModel.__call__"],
        "network_calls": ledger.calls["InferenceModel.__call__"],
        "cache_rows": ledger.rows["EvaluationCache.__call__"],
        "timed_calls": sum(ledger.calls.values()),
    }


def selfplay_part(setups: list[Setup], args: argparse.Namespace) -> None:
    budget = math.inf if args.whole_games else args.cpu_seconds
    results: dict[str, list[dict[str, Any]]] = {s.path: [] for s in setups}
    for r in range(args.rounds):
        for setup in setups[r % len(setups) :] + setups[: r % len(setups)]:
            result = selfplay_round(setup, args.seed + r, budget)
            results[setup.path].append(result)
            print(
                f"round {r + 1}: {setup.label}: {result['moves']} moves in "
                f"{result['cpu']:.1f} CPU-s",
                flush=True,
            )
    overhead = timer_overhead()
    print(
        f"\nself-play, TensorFlow intra-op threads: {args.threads}, {args.rounds} rounds of "
        + ("whole games" if args.whole_games else f"{args.cpu_seconds:g} CPU-s")
        + " per config (sums over the rounds)"
    )
    header = f"{'':32}" + "".join(f"{s.label:>24}" for s in setups)
    print(header)
    totals = {path: _sum(rounds) for path, rounds in results.items()}
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("games in flight", lambda t: f"{t['games']}"),
        ("moves per CPU-second", lambda t: f"{t['moves'] / t['cpu']:.1f}"),
        ("examples per CPU-second", lambda t: f"{t['examples'] / t['cpu']:.1f}"),
        ("CPU ms per move", lambda t: f"{1000 * t['cpu'] / max(t['moves'], 1):.1f}"),
        ("positions per network call", lambda t: f"{t['network_rows'] / t['calls']:.1f}"),
        ("padded to a power of two", lambda t: f"{t['network_padded'] / t['network_rows']:.2f}x"),
        (
            "evaluation cache hits",
            lambda t: (
                f"{1 - t['network_rows'] / t['cache_rows']:.0%}" if t["cache_rows"] else "no cache"
            ),
        ),
        ("network ms per position", lambda t: f"{1000 * t['network'] / t['network_rows']:.2f}"),
    ]
    for setup in setups:
        totals[setup.path]["games"] = setup.games
    for label, cell in rows:
        print(f"{label:32}" + "".join(f"{cell(totals[s.path]):>24}" for s in setups))
    print("CPU share by part:")
    for part, label in PARTS.items():
        cells = "".join(
            f"{totals[s.path]['seconds'][part] / totals[s.path]['cpu']:>24.1%}" for s in setups
        )
        print(f"  {label:30}{cells}")
    shares = [totals[s.path]["timed_calls"] * overhead / totals[s.path]["cpu"] for s in setups]
    print(f"  {'instrumentation (in the above)':30}" + "".join(f"{x:>24.1%}" for x in shares))


def _sum(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {"seconds": Counter()}
    for result in rounds:
        keys = ("cpu", "moves", "examples", "network_rows", "network_padded", "cache_rows")
        for key in (*keys, "timed_calls"):
            total[key] = total.get(key, 0) + result[key]
        total["calls"] = total.get("calls", 0) + result["network_calls"]
        total["seconds"].update(result["seconds"])
    total["network"] = total["seconds"]["network"]
    return total


def train_step_cpu(model: keras.Model, config: Config, batch: int, steps: int) -> float:
    """CPU-seconds per ``Trainer.train_step`` on random examples, after 2 untimed steps."""
    from alphazero.training.trainer import Trainer

    trainer = Trainer(model, config.train)
    rng = np.random.default_rng(0)
    shape = tuple(int(d) for d in model.input_shape[1:])
    actions = int(model.output_shape[0][-1])
    planes = rng.integers(0, 2, (batch, *shape)).astype(np.float32)
    policies = rng.dirichlet(np.ones(actions), batch).astype(np.float32)
    values = rng.choice(np.array([-1.0, 0.0, 1.0], np.float32), batch)
    for _ in range(2):
        trainer.train_step(planes, policies, values)
    start = time.process_time()
    for _ in range(steps):
        trainer.train_step(planes, policies, values)
    return (time.process_time() - start) / steps


def training_part(setups: list[Setup], args: argparse.Namespace) -> None:
    import keras

    from alphazero.network.model import build_network

    cells = [(s, policy) for s in setups for policy in ("float32", "mixed_bfloat16")]
    models = {}
    for setup, policy in cells:
        keras.mixed_precision.set_global_policy(policy)
        try:
            models[setup.path, policy] = build_network(
                setup.game.plane_shape, setup.game.num_actions, setup.config.network
            )
        finally:
            keras.mixed_precision.set_global_policy("float32")
    cpu: dict[tuple[str, str], list[float]] = {(s.path, p): [] for s, p in cells}
    for r in range(args.rounds):
        for setup, policy in cells[r % len(cells) :] + cells[: r % len(cells)]:
            batch = setup.config.train.batch_size
            seconds = train_step_cpu(models[setup.path, policy], setup.config, batch, args.steps)
            cpu[setup.path, policy].append(seconds)
            print(f"round {r + 1}: {setup.label} {policy}: {seconds:.2f} CPU-s a step", flush=True)
    print(f"\ntraining step, median of {args.rounds} rounds of {args.steps} steps (CPU-s a step)")
    for setup in setups:
        plain = statistics.median(cpu[setup.path, "float32"])
        mixed = statistics.median(cpu[setup.path, "mixed_bfloat16"])
        print(
            f"  {setup.label:24} batch {setup.config.train.batch_size}, "
            f"{setup.game.num_actions} actions: float32 {plain:.2f}, mixed_bfloat16 {mixed:.2f}"
            f" ({plain / mixed:.2f}x)"
        )


def forward_cpu(inference: InferenceModel, batch: int, calls: int) -> float:
    """CPU-seconds per position of ``inference`` at ``batch`` rows."""
    planes = np.random.default_rng(0).integers(0, 2, (batch, *inference.plane_shape))
    planes = planes.astype(np.float32)
    inference(planes)
    start = time.process_time()
    for _ in range(calls):
        inference(planes)
    return (time.process_time() - start) / (calls * batch)


def precision_part(setups: list[Setup], args: argparse.Namespace) -> None:
    from alphazero.network.engines import native_bfloat16
    from alphazero.network.model import InferenceModel

    batches = args.forward_batches
    engines = {
        (s.path, p): InferenceModel(s.model, max_batch=max(batches), precision=p)
        for s in setups
        for p in ("float32", "bfloat16")
    }
    cpu: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for r in range(args.rounds):
        for (path, precision), inference in engines.items():
            for batch in batches:
                calls = max(2, 512 // batch)
                cpu[path, precision, batch].append(forward_cpu(inference, batch, calls))
        print(f"round {r + 1} done", flush=True)
    print(
        f"\nforward pass, CPU ms per position, median of {args.rounds} rounds "
        f"(this CPU native bfloat16: {native_bfloat16()})"
    )
    for setup in setups:
        for batch in batches:
            plain = statistics.median(cpu[setup.path, "float32", batch])
            half = statistics.median(cpu[setup.path, "bfloat16", batch])
            print(
                f"  {setup.label:24} batch {batch:>4}: float32 {1000 * plain:.3f}, "
                f"bfloat16 {1000 * half:.3f} ({plain / half:.2f}x)"
            )


def metrics_part(folders: list[Path]) -> None:
    """The self-play and training shares of each run's CPU (``cpu_seconds`` is cumulative:
    all processes, workers included)."""
    print(
        f"{'run':40} {'iterations':>10} {'CPU-h':>6} {'self-play':>9} {'training':>9} "
        f"{'other':>6} {'CPU-s/step':>10} {'moves/CPU-s':>11}"
    )
    for folder in folders:
        rows = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
        total = rows[-1]["cpu_seconds"]
        selfplay = sum(r["selfplay"]["cpu_seconds"] for r in rows)
        train = sum(r["train_cpu_seconds"] for r in rows)
        moves = sum(r["selfplay"]["moves"] for r in rows)
        steps = _steps_per_iteration(folder)
        trained = [r["train_cpu_seconds"] for r in rows if r.get("train")]
        per_step = f"{sum(trained) / (len(trained) * steps):.2f}" if steps and trained else "?"
        print(
            f"{folder!s:40} {len(rows):>10} {total / 3600:>6.2f} {selfplay / total:>9.1%} "
            f"{train / total:>9.1%} {1 - (selfplay + train) / total:>6.1%} {per_step:>10} "
            f"{moves / selfplay:>11.1f}"
        )


def _steps_per_iteration(folder: Path) -> int | None:
    from alphazero.config import ConfigError, read_recorded_config

    try:
        return read_recorded_config(folder / "config.yaml").config.train.steps_per_iteration
    except (ConfigError, OSError):
        return None


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "configs",
        nargs="*",
        default=[str(ROOT / path) for path in CONFIGS],
        help="configs compared (default: " + " and ".join(CONFIGS) + ")",
    )
    parser.add_argument(
        "--only",
        choices=["selfplay", "training", "precision", "metrics"],
        help="one part (default: selfplay, training and precision)",
    )
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds (default 2)")
    parser.add_argument(
        "--cpu-seconds", type=float, default=10.0, help="self-play CPU per config and round"
    )
    parser.add_argument(
        "--whole-games", action="store_true", help="self-play rounds play their games to the end"
    )
    parser.add_argument("--steps", type=int, default=3, help="timed training steps a round")
    parser.add_argument(
        "--forward-batches",
        type=integers,
        default=[16, 64, 256],
        help="batches of the precision part, comma-separated (default 16,64,256)",
    )
    parser.add_argument("--threads", type=int, default=1, help="TensorFlow intra-op threads")
    parser.add_argument(
        "--seed", type=non_negative_integer, default=0, help="self-play seed of the first round"
    )
    parser.add_argument(
        "--metrics", type=Path, nargs="+", default=[], help="run folders for the metrics part"
    )
    args = parser.parse_args()
    for flag in ("rounds", "steps", "threads"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be at least 1, got {getattr(args, flag)}")
    if not args.cpu_seconds > 0:  # NaN too
        parser.error(f"--cpu-seconds must be above 0, got {args.cpu_seconds:g}")
    if min(args.forward_batches) < 1:
        parser.error("--forward-batches must all be at least 1")
    for folder in args.metrics:
        if not (folder / "metrics.jsonl").is_file():
            parser.error(f"--metrics {folder}: no metrics.jsonl there")
    if args.only == "metrics":
        if not args.metrics:
            parser.error("--only metrics needs --metrics RUN_FOLDER ...")
        metrics_part(args.metrics)
        return 0
    for path in args.configs:
        if not Path(path).is_file():
            parser.error(f"{path}: no such config")

    from alphazero.workers.processes import limit_tensorflow_threads

    limit_tensorflow_threads(args.threads)
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")  # the warm-up traces every bucket on purpose
    setups = [build(path, warmup=args.only in (None, "selfplay")) for path in args.configs]
    parts = {"selfplay": selfplay_part, "training": training_part, "precision": precision_part}
    for name, part in parts.items():
        if args.only in (None, name):
            part(setups, args)
    if args.metrics:
        metrics_part(args.metrics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
