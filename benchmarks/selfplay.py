"""Where self-play time goes: the network alone, our batched search, and one leaf per call.

Measured in one run on Connect Four with one network (5 residual blocks x 64 filters by
default, random weights: speed does not depend on them) and 200 simulations per move:

  (a) network  raw InferenceModel throughput at the self-play batch size (positions/s)
  (b) batched  self-play search over ``--parallel-games`` games, one network call per step
               for all their leaves (simulations/s)
  (c) explore  the same search, one game, one leaf per call through the same compiled
               inference: the write-up's sequential ``explore`` (simulations/s)
  (d) predict  one Keras ``model.predict`` call per leaf, as popular Python AlphaZero
               projects do (simulations/s, a short run: it is slow)

The bars (issue 3): (b) >= 50% of (a), and (b) >= 5x (c). Run:
``python benchmarks/selfplay.py`` (about two minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from alphazero.config import NetworkConfig
from alphazero.games import make
from alphazero.network import InferenceModel, build_network
from alphazero.search import Node, run_simulations


def network_throughput(inference: InferenceModel, planes: np.ndarray, seconds: float) -> float:
    inference(planes)  # warm the bucket
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        inference(planes)
        done += len(planes)
    return done / (time.perf_counter() - start)


def batched_search(policy, parallel_games: int, simulations: int, moves: int) -> float:
    """Simulations/s of ``parallel_games`` games searched together for ``moves`` moves."""
    rng = np.random.default_rng(0)
    roots = [Node(make("connect4")) for _ in range(parallel_games)]
    total, start = 0, time.perf_counter()
    for _ in range(moves):
        before = sum(r.N for r in roots)
        run_simulations(roots, policy, simulations, 1.5, noise=(1.0, 0.25, rng))
        total += sum(r.N for r in roots) - before
        roots = [r.next(1.0, rng).node for r in roots]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filters", type=int, default=64)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--simulations", type=int, default=200, help="per move")
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
    args = parser.parse_args()

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

    samples: dict[str, list[float]] = {"a": [], "b": [], "c": [], "d": []}
    for _ in range(args.rounds):
        samples["a"].append(network_throughput(inference, planes, args.seconds))
        samples["b"].append(
            batched_search(inference, args.parallel_games, args.simulations, args.moves)
        )
        samples["c"].append(sequential_search(inference, args.simulations, args.moves))
        samples["d"].append(sequential_search(predict, args.predict_simulations, 1))
    a, b, c, d = (float(np.median(samples[k])) for k in "abcd")

    print(
        f"Connect Four, {args.blocks} blocks x {args.filters} filters, "
        f"{args.simulations} simulations per move, {args.parallel_games} games at once, "
        f"median of {args.rounds} interleaved rounds"
    )
    large = "bfloat16" if inference.uses_bfloat16(args.parallel_games) else "float32"
    small = "float32 + XLA" if inference.uses_xla(1) else "float32"
    print(f"inference: batch {args.parallel_games} in {large}, batch 1 in {small}")
    print(f"(a) network alone, batch {args.parallel_games:<4}  {a:>9,.0f} positions/s")
    print(f"(b) batched self-play search       {b:>9,.0f} simulations/s")
    print(f"(c) sequential explore, 1 leaf/call {c:>8,.0f} simulations/s")
    print(f"(d) model.predict per leaf         {d:>9,.0f} simulations/s")
    print(f"(b)/(a) = {b / a:.0%}   (bar: >= 50%)")
    print(f"(b)/(c) = {b / c:.1f}x   (bar: >= 5x)")
    print(f"(b)/(d) = {b / d:.0f}x")
    for key in "abcd":
        print(f"  runs {key}: " + ", ".join(f"{x:,.0f}" for x in samples[key]))


if __name__ == "__main__":
    main()
