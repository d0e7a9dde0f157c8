"""The search's own Python: CPU per simulation with a policy that costs (next to) nothing.

Self-play's search is the network plus Python walking trees; this times the Python alone.
Connect Four from the empty board, ``--games`` games searched together as self-play does it
(one policy call per step for all their leaves), for ``--moves`` moves each:

  puct    200 simulations per move, root noise, the chosen subtree kept
  gumbel  32 simulations per move, each move from a rerooted tree, Gumbel noise

The policy is a fixed random linear map of the planes (so trees have the shapes of real
ones: the value varies from position to position); the CPU it takes is measured and left
out. By default TensorFlow is loaded and the 64x5 network built first (and left unused), as
in self-play: its ~350,000 objects are what the garbage collector walks on a full
collection. ``--bare`` leaves TensorFlow out. Rounds alternate the algorithms; medians.

``python benchmarks/search_python.py`` (about a minute on 2 cores).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import numpy as np

from alphazero.config.command_line import OneLineParser
from alphazero.games import Game, make
from alphazero.search import Node, Policy, RootNoise, SearchParams, search


class TimedPolicy:
    """A fixed random linear policy that counts the CPU seconds spent in it."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        size = int(np.prod(game.encode().shape))
        self.weights = rng.normal(0.0, 0.3, (size, game.num_actions))
        self.value_weights = rng.normal(0.0, 0.1, size)
        self.seconds = 0.0

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        start = time.process_time()
        flat = np.asarray(planes, dtype=np.float64).reshape(len(planes), -1)
        answer = flat @ self.weights, np.tanh(flat @ self.value_weights)
        self.seconds += time.process_time() - start
        return answer


def _going_on(node: Node) -> Node:
    """``node``, or a new game in its place if its game is over (as in self-play), of the
    same class as ``node``."""
    return node if node.game.score is None else type(node)(make("connect4"))


PUCT = SearchParams(noise=RootNoise(1.0, 0.25))
GUMBEL = SearchParams(algorithm="gumbel")


def puct(policy: Policy, games: int, moves: int, rng: np.random.Generator) -> int:
    """PUCT self-play's search, 200 simulations a move; the simulations run."""
    roots = [Node(make("connect4")) for _ in range(games)]
    total = 0
    for _ in range(moves):
        before = sum(r.N for r in roots)
        found = search(roots, policy, PUCT, 200, rng, tau=1.0, explore=True)
        total += sum(r.N for r in found.roots) - before
        roots = [_going_on(node) for node in found.chosen]
    return total


def gumbel(policy: Policy, games: int, moves: int, rng: np.random.Generator) -> int:
    """Gumbel self-play's search, 32 simulations a move; the simulations run."""
    nodes = [Node(make("connect4")) for _ in range(games)]
    total = 0
    for _ in range(moves):
        found = search(nodes, policy, GUMBEL, 32, rng, explore=True)
        total += sum(n.N for n in found.roots)  # each from a fresh root
        nodes = [_going_on(node) for node in found.chosen]
    return total


SEARCHES: dict[str, Callable[[Policy, int, int, np.random.Generator], int]] = {
    "puct": puct,
    "gumbel": gumbel,
}


def measure(name: str, games: int, moves: int) -> tuple[float, int]:
    """CPU microseconds per simulation outside the policy, and full collections made."""
    policy = TimedPolicy(make("connect4"))
    full_collections = gc.get_stats()[2]["collections"]
    start = time.process_time()
    simulations = SEARCHES[name](policy, games, moves, np.random.default_rng(0))
    seconds = time.process_time() - start - policy.seconds
    return seconds / simulations * 1e6, gc.get_stats()[2]["collections"] - full_collections


def main() -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=128, help="games searched at once")
    parser.add_argument("--moves", type=int, default=4, help="moves per game and round")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds of each search (default 3)"
    )
    parser.add_argument("--only", choices=sorted(SEARCHES), help="one algorithm")
    parser.add_argument("--bare", action="store_true", help="without TensorFlow loaded")
    args = parser.parse_args()
    for dest in ("games", "moves", "rounds"):
        if getattr(args, dest) < 1:
            parser.error(f"--{dest} must be at least 1, got {getattr(args, dest)}")
    if not args.bare:
        from alphazero.config import NetworkConfig
        from alphazero.network.model import build_network

        game = make("connect4")
        model = build_network(game.plane_shape, game.num_actions, NetworkConfig())  # noqa: F841
    names = [args.only] if args.only else list(SEARCHES)
    results: dict[str, list[tuple[float, int]]] = {name: [] for name in names}
    for _ in range(args.rounds):
        for name in names:
            results[name].append(measure(name, args.games, args.moves))
    print(
        f"Connect Four, {args.games} games x {args.moves} moves, "
        f"{len(gc.get_objects()):,} objects tracked by the collector"
        f"{' (no TensorFlow)' if args.bare else ' (TensorFlow and a 64x5 network loaded)'}, "
        f"median of {args.rounds} rounds"
    )
    for name in names:
        micros = [m for m, _ in results[name]]
        print(
            f"  {name:<7} {np.median(micros):6.1f} us CPU per simulation   "
            f"runs: {', '.join(f'{m:.1f}' for m in micros)}   "
            f"full collections per round: {', '.join(str(c) for _, c in results[name])}"
        )


if __name__ == "__main__":
    main()
