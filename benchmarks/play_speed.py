"""How long ``play.py`` takes to answer a Connect Four move: its settings against the old ones.

The model (the shipped one by default) searches the positions of a game it plays against
itself, 20 moves by default; at each position both settings search it, in alternating order
(so a machine whose load changes affects them alike), timed as ``play.py`` calls them
(``ModelPlayer.think``: the search and the win / draw / loss estimate). The game goes on with
the new settings' move. Prints the median and mean seconds per move of each and the ratio,
the process's CPU seconds per move (on a loaded machine the wall clock counts the other
jobs' time too), and the positions the network evaluated per move (proven and finished
leaves need none).

    new   --leaves 4 --engine auto --cache 10000   (play.py's defaults: 4 leaves per network
                                      call with a virtual loss; OpenVINO when installed; the
                                      network's answers kept for 10,000 positions across moves)
    old   --old-leaves 1 --old-engine tensorflow --old-cache 0   (play.py's settings before)

Both at ``--sims`` 800, play.py's default. Run:

    python benchmarks/play_speed.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

from alphazero.config.command_line import OneLineParser
from alphazero.evaluation.model_player import ModelPlayer, ModelSource
from alphazero.evaluation.model_search import PlaySearch
from alphazero.games import make
from alphazero.network.engines import ENGINES, EngineError
from alphazero.play.defaults import (
    DEFAULT_CACHE,
    DEFAULT_ENGINE,
    DEFAULT_LEAVES,
    DEFAULT_SIMULATIONS,
)
from alphazero.search import EvaluationCache
from alphazero.training.run_errors import CheckpointError

DEFAULT_MODEL = Path("checkpoints", "pretrained", "connect4")


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model",
        type=Path,
        default=DEFAULT_MODEL,
        help="run folder or .keras (default: %(default)s)",
    )
    parser.add_argument("--moves", type=int, default=20, help="moves timed (default 20)")
    parser.add_argument(
        "--sims",
        type=int,
        default=DEFAULT_SIMULATIONS,
        help="simulations a move (default %(default)s)",
    )
    parser.add_argument(
        "--leaves",
        type=int,
        default=DEFAULT_LEAVES,
        help="play.py's leaves per network call (default %(default)s)",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=DEFAULT_ENGINE,
        help="play.py's inference engine (default %(default)s)",
    )
    parser.add_argument(
        "--old-leaves", type=int, default=1, help="leaves per call of the old settings (default 1)"
    )
    parser.add_argument(
        "--old-engine",
        choices=ENGINES,
        default="tensorflow",
        help="engine of the old settings (default tensorflow)",
    )
    parser.add_argument(
        "--cache",
        type=int,
        default=DEFAULT_CACHE,
        help="positions play.py keeps across moves (default %(default)s)",
    )
    parser.add_argument(
        "--old-cache", type=int, default=0, help="positions the old settings keep (default 0)"
    )
    args = parser.parse_args()
    if args.moves < 1:
        parser.error(f"--moves must be at least 1, got {args.moves}")
    if args.sims < 2:  # the first simulation only evaluates the root
        parser.error(f"--sims must be at least 2, got {args.sims}")
    if min(args.leaves, args.old_leaves) < 1:
        parser.error("--leaves and --old-leaves must be at least 1")

    game = make("connect4")
    players = {}
    try:
        for label, leaves, engine, cache in (
            ("new", args.leaves, args.engine, args.cache),
            ("old", args.old_leaves, args.old_engine, args.old_cache),
        ):
            source = ModelSource(args.model, engine=engine, cache=cache)
            player = ModelPlayer(source, game, args.sims, PlaySearch(leaves=leaves))
            player.think(game)  # compiles, traces and warms, as play.py's first move does
            players[label] = player
    except (CheckpointError, EngineError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for label, player in players.items():
        engine = getattr(player.network, "engine", "?")
        bfloat16 = engine == "openvino" and getattr(player.network, "bfloat16", False)
        cache = player.inference.capacity if isinstance(player.inference, EvaluationCache) else 0
        print(f"{label}: {player.leaves} leaves per call, engine {engine}"
              f"{' (bfloat16)' if bfloat16 else ''}, cache {cache} positions")  # fmt: skip

    evaluated = {"new": 0, "old": 0}
    for label, player in players.items():
        if isinstance(player.inference, EvaluationCache):  # count what reaches the network
            player.inference.entries.clear()  # the warm-up's answers: a fresh game's cache
            player.inference.policy = counting(player.inference.policy, evaluated, label)
        else:
            player.inference = counting(player.inference, evaluated, label)
    seconds: dict[str, list[float]] = {"new": [], "old": []}
    cpu: dict[str, list[float]] = {"new": [], "old": []}
    position = game
    for move in range(args.moves):
        order = ("new", "old") if move % 2 == 0 else ("old", "new")
        actions = {}
        for label in order:
            start, start_cpu = time.perf_counter(), time.process_time()
            actions[label] = players[label].think(position).action
            seconds[label].append(time.perf_counter() - start)
            cpu[label].append(time.process_time() - start_cpu)
        print(f"move {move + 1:>2}: new {seconds['new'][-1]:.3f} s, old {seconds['old'][-1]:.3f} s",
              file=sys.stderr, flush=True)  # fmt: skip
        position = position.sim_move(actions["new"])
        if position.score is not None:
            position = game  # a game over: the next moves time a new one
    print(f"\n{args.moves} moves, {args.sims} simulations; seconds per move")
    print(f"{'':<6}{'median':>8}{'mean':>8}{'CPU s median':>14}{'positions/move':>16}")
    for label in ("new", "old"):
        times, per_move = seconds[label], evaluated[label] / args.moves
        print(f"{label:<6}{statistics.median(times):>8.3f}{statistics.mean(times):>8.3f}"
              f"{statistics.median(cpu[label]):>14.3f}{per_move:>16.0f}")  # fmt: skip
    median = statistics.median(seconds["old"]) / statistics.median(seconds["new"])
    mean = statistics.mean(seconds["old"]) / statistics.mean(seconds["new"])
    print(f"old / new: {median:.2f}x by the medians, {mean:.2f}x by the means")
    return 0


def counting(inference, evaluated: dict[str, int], label: str):
    """``inference`` that adds the positions it is given to ``evaluated[label]``."""

    def count(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        evaluated[label] += len(planes)
        return inference(planes)

    return count


if __name__ == "__main__":
    sys.exit(main())
