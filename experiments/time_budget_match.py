"""The opening given more time against even time, at equal seconds a game: is play's plan better?

One model plays itself. One side has ``--game-time`` seconds a game shared out by play's time
manager (``alphazero.evaluation.time_budget.move_seconds``, as ``play.py --game-time``): the
first move ``--opening-weight`` times a middle-game move's, falling to even by its move
``--opening-moves``. The other has the same seconds a game shared out evenly: the same manager
with weight 1, each move ``game_time / moves`` for the most moves a player can make (21 in
Connect Four). A game that lasts to its end costs each side the same seconds; a shorter one
leaves each some unspent, so the seconds each side spent a game are printed too.

Both sides search with play's PUCT (its leaves per network call, its cache), each move on its
own until its seconds are spent, counted by ``--clock`` (default CPU seconds: steadier on a
busy machine). Games start from different random openings of ``--opening`` moves, each played
twice with the sides swapped. Prints the plan's score against even time with its 95% interval,
then for each side the seconds it spent a game and the simulations a move it bought, in the
opening and after. Run:

    python experiments/time_budget_match.py --model checkpoints/pretrained/connect4 \\
        --game-time 20 --games 100 --json time_budget.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from play_search import openings  # experiments/

from alphazero.evaluation.arena import MatchResult, play_match, save_results, search_costs
from alphazero.evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions
from alphazero.evaluation.model_search import PlaySearch, run_folder
from alphazero.evaluation.time_budget import (
    CLOCKS,
    OPENING_MOVES,
    OPENING_WEIGHT,
    Clock,
    SearchLog,
    TimeBudget,
)
from alphazero.games import Game, make
from alphazero.network.engines import ENGINES, EngineError
from alphazero.network.inference import load_inference
from alphazero.play.models import config_game
from alphazero.play.options import DEFAULT_CACHE, DEFAULT_ENGINE, DEFAULT_LEAVES
from alphazero.search import Policy
from alphazero.training.run_errors import CheckpointError


def players(
    path: Path,
    network: Policy,
    start: Game,
    plan: TimeBudget,
    clock: Clock,
    leaves: int = DEFAULT_LEAVES,
) -> tuple[ModelPlayer, ModelPlayer]:
    """The model at ``path`` (its ``network`` loaded once) with ``plan``, a game's seconds,
    and with the same seconds shared out evenly; each with a cache of its own."""
    even = TimeBudget(plan.seconds, per_game=True, opening_weight=1.0)
    sides = []
    for budget, name in ((plan, "plan"), (even, "even")):
        source = ModelSource(path, inference=network, cache=DEFAULT_CACHE)
        label = f"{name} {budget}"
        if name == "plan":
            label += f" (x{plan.opening_weight:g} falling over {plan.opening_moves} moves)"
        options = PlayerOptions(name=label, clock=clock)
        sides.append(ModelPlayer(source, start, budget, PlaySearch(leaves=leaves), options))
    return sides[0], sides[1]


def match(
    plan: ModelPlayer, even: ModelPlayer, starts: list[Game], progress: bool = True
) -> MatchResult:
    """Every start played twice, the sides swapped: the plan's result."""
    queue = iter([game for game in starts for _ in range(2)])
    return play_match(plan, even, lambda: next(queue), 2 * len(starts), progress)


def phases(log: SearchLog, opening_plies: int) -> str:
    """The simulations a move bought before ``opening_plies`` and from there on."""
    parts = []
    for name, plies in (
        ("opening", [p for p in log.by_ply if p < opening_plies]),
        ("after", [p for p in log.by_ply if p >= opening_plies]),
    ):
        moves = sum(log.by_ply[p][0] for p in plies)
        simulations = sum(log.by_ply[p][1] for p in plies)
        shown = f"{simulations / moves:,.0f}" if moves else "-"
        parts.append(f"{name} {shown} simulations a move ({int(moves)} moves)")
    return ", ".join(parts)


def report(result: MatchResult, sides: tuple[ModelPlayer, ModelPlayer], opening: int) -> str:
    """The plan's score with its 95% interval, then each side's seconds a game and
    simulations a move in the opening and after."""
    low, high = result.score_interval()
    lines = [
        f"{result.player} vs {result.opponent}: {result.wins}/{result.draws}/{result.losses}, "
        f"the plan's score {result.score:.1%} (95% CI {low:.1%}-{high:.1%})"
    ]
    for side in sides:
        seconds = side.log.seconds / max(result.games, 1)
        lines.append(f"{side.name}: {seconds:.2f} s spent a game; {phases(side.log, opening)}")
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a run folder")
    parser.add_argument(
        "--game-time", type=float, default=20.0, help="seconds a game, each side (default 20)"
    )
    parser.add_argument(
        "--opening-weight",
        type=float,
        default=OPENING_WEIGHT,
        help=f"the plan's first move, in middle-game moves' seconds (default {OPENING_WEIGHT:g})",
    )
    parser.add_argument(
        "--opening-moves",
        type=int,
        default=OPENING_MOVES,
        help=f"the player's moves over which the plan's extra falls to none (default "
        f"{OPENING_MOVES})",
    )
    parser.add_argument("--games", type=int, default=100, help="games (an even number)")
    parser.add_argument(
        "--opening", type=int, default=3, help="random moves before each game (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random openings")
    parser.add_argument(
        "--clock", choices=tuple(CLOCKS), default="cpu", help="what is counted (default cpu)"
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=DEFAULT_ENGINE,
        help=f"what runs the network (default {DEFAULT_ENGINE}, play's)",
    )
    parser.add_argument("--json", type=Path, help="write the result and both sides' costs here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser.parse_args()


def fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def main() -> int:
    args = parse_args()
    if args.games < 2:
        return fail(f"--games must be at least 2, got {args.games}")
    folder = run_folder(args.model)
    found = config_game(folder / "config.yaml") if folder is not None else None
    if found is None:
        return fail(f"--model {args.model}: no run's config.yaml naming a game")
    start = make(found[0], **found[1])
    try:
        plan = TimeBudget(args.game_time, True, args.opening_weight, args.opening_moves)
        network = load_inference(args.model, start, engine=args.engine)
        network(start.encode()[None])  # its start-up, before any move's seconds count
    except (ValueError, CheckpointError, EngineError) as error:
        return fail(str(error))
    try:
        starts = openings(start, args.games // 2, args.opening, np.random.default_rng(args.seed))
    except ValueError as error:
        return fail(f"--opening {args.opening}: {error}")
    sides = players(args.model, network, start, plan, CLOCKS[args.clock])
    result = match(*sides, starts, progress=not args.quiet)
    print(f"{args.model}, {args.game_time:g} {args.clock} seconds a game each, {result.games} "
          f"games from {args.opening}-move openings (seed {args.seed})")  # fmt: skip
    print(report(result, sides, 2 * plan.opening_moves))
    if args.json:
        save_results([result], args.json, [search_costs(*sides)])
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
