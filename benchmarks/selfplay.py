"""Where self-play time goes: the network alone, our batched search, and one leaf per call.

Measured in one run on Connect Four with one network (``--network``: 64 filters x 5 residual
blocks by default, random weights: speed does not depend on them) and, by ``--algorithm``,
PUCT with 200 simulations per move (the default) or Gumbel search with 32:

  (a) network  raw InferenceModel throughput at the self-play batch size (positions/s)
  (b) batched  self-play search over ``--parallel-games`` games, one network call per step
               for all their leaves (simulations/s): PUCT keeps each move's subtree and
               adds root noise; Gumbel starts each move from a rerooted tree, Gumbel noise
  (c) explore  the same search, one game, one leaf per call through the same compiled
               inference: the write-up's sequential ``explore`` (simulations/s)
  (d) predict  one Keras ``model.predict`` call per leaf, as popular Python AlphaZero
               projects do (simulations/s, a short run: it is slow)

(a) and (b) alternate, round after round, and the output ends with the median of the rounds'
(b) / (a) ratios as one line, ``selfplay/network: 0.NN``: how close the search comes to the
network's own speed (the rest is the search's Python). (b) holds full garbage collections back
for all its moves, as self-play does (``rare_full_collections``), and each timing starts after
an untimed full collection, so that neither pays for the other's garbage. The bars (issue 3):
(b) >= 50% of (a), and (b) >= 5x (c); issue 26: (b) >= 75% of (a). Run:
``python benchmarks/selfplay.py`` (about two minutes on 2 cores, and two more for (e));
``--ratio-only`` runs (a) and (b) alone, e.g.
``python benchmarks/selfplay.py --ratio-only --algorithm gumbel --network 128x6``.

  (e) workers  whole self-play games per hour through the training loop's backends:
               in this process (``LocalBackend``), and ``ProcessBackend`` with 1 and 2
               worker processes (``selfplay.workers``), ``--workers-games`` full games of
               ``--workers-simulations`` simulations per move each, the learner's weights
               sent every round as in training; with the CPU seconds spent per game
               (driver and workers). The bar: 2 workers >= 1 process.
               ``--oversubscribe`` adds 2 workers whose TensorFlow uses every core each
               (its default), to show why the workers are given cores // workers threads.
               ``python benchmarks/selfplay.py --only-workers`` runs (e) alone.
"""

from __future__ import annotations

import argparse
import gc
import os
import time

import numpy as np

from alphazero.config import ConfigError, NetworkConfig
from alphazero.config.command_line import OneLineParser
from alphazero.games import make
from alphazero.network.model import InferenceModel, build_network
from alphazero.search import Node, Policy, RootNoise, SearchParams, search
from alphazero.search.collector import rare_full_collections

SIMULATIONS = {"puct": 200, "gumbel": 32}
"""Simulations per move of each ``--algorithm`` (PUCT's is ``--simulations``)."""


def network_throughput(inference: InferenceModel, planes: np.ndarray, seconds: float) -> float:
    inference(planes)  # warm the bucket
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        inference(planes)
        done += len(planes)
    return done / (time.perf_counter() - start)


def batched_search(policy: Policy, parallel_games: int, simulations: int, moves: int) -> float:
    """Simulations/s of ``parallel_games`` games searched together with PUCT for ``moves``
    moves."""
    rng = np.random.default_rng(0)
    roots = [Node(make("connect4")) for _ in range(parallel_games)]
    total, start = 0, time.perf_counter()
    params = SearchParams(noise=RootNoise(1.0, 0.25))
    with rare_full_collections:  # held from the first move to the last, as self-play does
        for _ in range(moves):
            before = sum(r.N for r in roots)
            found = search(roots, policy, params, simulations, rng, tau=1.0, explore=True)
            total += sum(r.N for r in found.roots) - before
            roots = list(found.chosen)
    return total / (time.perf_counter() - start)


def batched_gumbel(policy: Policy, parallel_games: int, simulations: int, moves: int) -> float:
    """Simulations/s of ``parallel_games`` games searched together with Gumbel search for
    ``moves`` moves, each from a rerooted tree as self-play does it."""
    rng = np.random.default_rng(0)
    nodes = [Node(make("connect4")) for _ in range(parallel_games)]
    total, start = 0, time.perf_counter()
    params = SearchParams(algorithm="gumbel")
    with rare_full_collections:  # held from the first move to the last, as self-play does
        for _ in range(moves):
            found = search(nodes, policy, params, simulations, rng, explore=True)
            # Each search starts from a fresh root: every visit of its root is this move's.
            total += sum(n.N for n in found.roots)
            nodes = list(found.chosen)
    return total / (time.perf_counter() - start)


def sequential_search(policy, simulations: int, moves: int) -> float:
    """Simulations/s of one game searched with ``explore``: one leaf per network call."""
    rng = np.random.default_rng(0)
    root = Node(make("connect4"))
    total, start = 0, time.perf_counter()
    for _ in range(moves):
        for _ in range(simulations):
            root.explore(policy)
        total += simulations
        root = root.next(1.0, rng).node
    return total / (time.perf_counter() - start)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of this process and of the processes ``pids`` (Linux)."""
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def workers_benchmark(args: argparse.Namespace) -> None:
    """(e): games per hour of the self-play backends, interleaved rounds, median."""
    from alphazero.config import config_from_dict
    from alphazero.workers import LocalBackend
    from alphazero.workers.processes import ProcessBackend, available_cores

    games = args.workers_games

    def config(workers: int):
        return config_from_dict(
            {
                "game": {"name": "connect4"},
                "network": {"filters": args.filters, "blocks": args.blocks},
                "search": {
                    "simulations": args.workers_simulations,
                    "inference_precision": args.precision,
                },
                "selfplay": {
                    "games_per_iteration": games,
                    "parallel_games": games,
                    "workers": workers,
                },
                "evaluation": {"every": 0},
            }
        )

    game = make("connect4")
    model = build_network(game.plane_shape, game.num_actions, config(1).network)
    inference = InferenceModel(model, max_batch=games, precision=args.precision)
    inference.warmup()
    cores = available_cores()
    backends = {"in-process (LocalBackend)": LocalBackend(config(1), inference, False)}
    backends["1 worker process"] = ProcessBackend(config(1), model, False)
    backends["2 worker processes"] = ProcessBackend(config(2), model, False)
    if args.oversubscribe:
        backends[f"2 workers x {cores} TF threads"] = ProcessBackend(
            config(2), model, False, threads=cores
        )
    threads = {name: getattr(b, "threads", None) for name, b in backends.items()}
    rates: dict[str, list[float]] = {name: [] for name in backends}
    sims: dict[str, list[float]] = {name: [] for name in backends}
    cpu: dict[str, list[float]] = {name: [] for name in backends}
    try:
        for round_ in range(args.workers_rounds):
            for name, backend in backends.items():
                pids = getattr(backend, "pids", [])
                cpu_start = cpu_seconds(pids)
                _, stats = backend.play(games, np.random.default_rng(round_))
                cpu[name].append((cpu_seconds(pids) - cpu_start) / stats.games)
                rates[name].append(stats.games / stats.seconds * 3600)
                sims[name].append(stats.simulations / stats.seconds)
    finally:
        for backend in backends.values():
            backend.close()

    print(
        f"(e) Connect Four self-play, {args.blocks} blocks x {args.filters} filters, "
        f"{args.workers_simulations} simulations per move, {games} full games per round "
        f"(all at once, split between the workers), {cores} cores, "
        f"median of {args.workers_rounds} interleaved rounds"
    )
    base = float(np.median(rates["1 worker process"]))
    local = float(np.median(rates["in-process (LocalBackend)"]))
    for name in backends:
        rate = float(np.median(rates[name]))
        n = threads[name]
        tf_threads = f"TF intra-op threads: {n} per process" if n else "TF threads: default"
        print(
            f"    {name:<28} {rate:>8,.0f} games/h  {np.median(sims[name]):>7,.0f} sims/s  "
            f"{np.median(cpu[name]):5.2f} CPU s/game  "
            f"x{rate / base:.2f} vs 1 worker, x{rate / local:.2f} vs in-process  ({tf_threads})"
        )
        print("        runs: " + ", ".join(f"{x:,.0f}" for x in rates[name]))
    two = float(np.median(rates["2 worker processes"]))
    print(f"2 workers / 1 worker = {two / base:.2f}x   (bar: >= 1.0x)")


def main() -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--network",
        default="64x5",
        metavar="FILTERSxBLOCKS",
        help="filters x residual blocks, as the docs name networks (default 64x5, the "
        "flagship's size; 128x6 is the larger network of the experiments)",
    )
    parser.add_argument(
        "--algorithm",
        choices=sorted(SIMULATIONS),
        default="puct",
        help="the search of (b): PUCT 200 simulations per move, or Gumbel 32 (default puct)",
    )
    parser.add_argument(
        "--simulations", type=int, help="per move (default: 200 with PUCT, 32 with Gumbel)"
    )
    parser.add_argument(
        "--ratio-only",
        action="store_true",
        help="(a) and (b) alone, then the selfplay/network line",
    )
    parser.add_argument("--parallel-games", type=int, default=128, help="games searched at once")
    parser.add_argument("--moves", type=int, default=3, help="moves per game in (b) and (c)")
    parser.add_argument("--predict-simulations", type=int, default=100, help="leaves in (d)")
    parser.add_argument("--seconds", type=float, default=5.0, help="time for (a)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument(
        "--precision",
        choices=["auto", "float32", "bfloat16"],
        default="auto",
        help="arithmetic of the large batches, as search.inference_precision (default auto)",
    )
    parser.add_argument("--workers-games", type=int, default=32, help="games per round in (e)")
    parser.add_argument("--workers-simulations", type=int, default=50, help="per move in (e)")
    parser.add_argument("--workers-rounds", type=int, default=3, help="rounds in (e)")
    parser.add_argument(
        "--oversubscribe",
        action="store_true",
        help="(e) also with 2 workers whose TensorFlow uses every core",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--only-workers", action="store_true", help="run (e) alone")
    which.add_argument("--skip-workers", action="store_true", help="run (a)-(d) alone")
    args = parser.parse_args()
    try:
        network = NetworkConfig.from_size(args.network)
    except ConfigError as error:
        parser.error(f"--network: {error}")
    args.filters, args.blocks = network.filters, network.blocks
    if args.simulations is None:
        args.simulations = SIMULATIONS[args.algorithm]
    counts = ("parallel_games", "moves", "predict_simulations", "rounds", "workers_games")
    for dest in (*counts, "workers_simulations", "workers_rounds"):
        if getattr(args, dest) < 1:
            option = "--" + dest.replace("_", "-")
            parser.error(f"{option} must be at least 1, got {getattr(args, dest)}")
    if args.simulations < 2:  # the first simulation only evaluates the root
        parser.error(f"--simulations must be at least 2, got {args.simulations}")
    if not args.seconds > 0:  # NaN too
        parser.error(f"--seconds must be above 0, got {args.seconds:g}")

    ratio = None
    if not args.only_workers:
        ratio = search_benchmark(args)
    if not (args.skip_workers or args.ratio_only):
        workers_benchmark(args)
    if ratio is not None:  # last, so that scripts can read it from the final line
        print(f"selfplay/network: {ratio:.2f}")


def search_benchmark(args: argparse.Namespace) -> float:
    """(a)-(d), or (a) and (b) with ``--ratio-only``; the median of the rounds' (b) / (a)."""
    game = make("connect4")
    config = NetworkConfig(filters=args.filters, blocks=args.blocks)
    model = build_network(game.plane_shape, game.num_actions, config)
    inference = InferenceModel(model, max_batch=args.parallel_games, precision=args.precision)
    inference.warmup()
    planes = np.random.default_rng(0).integers(0, 2, (args.parallel_games, *game.plane_shape))
    planes = planes.astype(np.float32)

    def predict(batch: np.ndarray):
        logits, values = model.predict(batch, verbose=0)
        return logits, values.reshape(-1)

    batched = batched_gumbel if args.algorithm == "gumbel" else batched_search
    keys = "ab" if args.ratio_only else "abcd"
    samples: dict[str, list[float]] = {key: [] for key in keys}
    for _ in range(args.rounds):
        # A full collection before each timing, untimed: neither pays for the other's
        # garbage, and a collection the search held back cannot land in the network's time.
        gc.collect()
        samples["a"].append(network_throughput(inference, planes, args.seconds))
        gc.collect()
        samples["b"].append(batched(inference, args.parallel_games, args.simulations, args.moves))
        if not args.ratio_only:
            puct_simulations = args.simulations if args.algorithm == "puct" else 200
            samples["c"].append(sequential_search(inference, puct_simulations, args.moves))
            samples["d"].append(sequential_search(predict, args.predict_simulations, 1))
    median = {key: float(np.median(samples[key])) for key in keys}
    ratios = [b / a for a, b in zip(samples["a"], samples["b"], strict=True)]

    print(
        f"Connect Four, {args.blocks} blocks x {args.filters} filters, (b) {args.algorithm} "
        f"with {args.simulations} simulations per move, {args.parallel_games} games at once, "
        f"median of {args.rounds} interleaved rounds"
    )
    large = "bfloat16" if inference.uses_bfloat16(args.parallel_games) else "float32"
    small = "float32 + XLA" if inference.uses_xla(1) else "float32"
    print(f"inference: batch {args.parallel_games} in {large}, batch 1 in {small}")
    print(f"(a) network alone, batch {args.parallel_games:<4}  {median['a']:>9,.0f} positions/s")
    print(f"(b) batched self-play search       {median['b']:>9,.0f} simulations/s")
    if not args.ratio_only:
        c, d = median["c"], median["d"]
        print(f"(c) sequential PUCT explore, 1 leaf/call {c:>8,.0f} simulations/s")
        print(f"(d) model.predict per leaf         {d:>9,.0f} simulations/s")
        print(f"(b)/(c) = {median['b'] / c:.1f}x   (bar: >= 5x)")
        print(f"(b)/(d) = {median['b'] / d:.0f}x")
    for key in keys:
        print(f"  runs {key}: " + ", ".join(f"{x:,.0f}" for x in samples[key]))
    print("  (b)/(a) by round: " + ", ".join(f"{r:.2f}" for r in ratios))
    print("(b)/(a): bars >= 0.50 (issue 3), >= 0.75 (issue 26)")
    return float(np.median(ratios))


if __name__ == "__main__":
    main()
