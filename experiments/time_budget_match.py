"""The opening given more time against even time, at equal seconds spent: is play's plan better?

One model plays itself. The plan side is ``play.py --game-time``: ``--game-time`` seconds a
game shared out by play's time manager (``alphazero.evaluation.time_budget.move_seconds``),
the first move ``--opening-weight`` times a middle-game move's, falling to even by its move
``--opening-moves``. The even side is ``play.py --move-time``: the same seconds every move,
that number chosen so that it spends, over the match, what the plan spends.

Why not the same seconds a game shared out evenly: the manager shares a game's seconds over
the most moves a player can make (21 in Connect Four), and a game that ends sooner never spends
the shares of the moves it did not make. The plan spends its shares early, so in a short game
it spends more of the same budget than an even share does (63% of it against 48% when the
game ends after 10 of its moves): it would win by spending more, not by spending where it
counts. So the even side's seconds a move are matched to the seconds the plan actually spent.
The games are played a pair at a time (each random opening twice, the sides swapped), and
before each pair the even side gets the seconds a move that would have had it spend, over the
games played so far, what the plan spent there (``matched_seconds``: its overrun past each
move's deadline, to the end of a chunk of simulations, counted). The first pair, before any
game, gets an even share of a whole game, ``--game-time`` / 21. The seconds are equal over the
match, not game by game: no plan can spend a short game's seconds without knowing it will be
short, so the plan still spends more than the even side in a short game and less in a long
one, which is what giving the opening more means. The seconds each side spent a game are
printed to check.

Both sides search with play's PUCT (its leaves per network call, its cache), each move on its
own until its seconds are spent (or its result is proven), counted by ``--clock`` (default CPU
seconds: steadier on a busy machine). Games start from different random openings of
``--opening`` moves, whose shares, the plan's largest, it never spends: it spends less than
``--game-time`` even in a game to the last cell, and the even side is matched to what it does
spend. Prints the plan's score against even time with its 95% interval, then for each side the
seconds it spent a game and the simulations a move it bought, in the opening and after, and
the even side's last seconds a move. Run:

    python experiments/time_budget_match.py --model checkpoints/pretrained/connect4 \\
        --game-time 20 --games 100 --json time_budget.json
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.arena import (
    MatchResult,
    play_match,
    random_openings,
    save_results,
    search_costs,
)
from alphazero.evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions
from alphazero.evaluation.model_search import PlaySearch, run_folder
from alphazero.evaluation.time_budget import (
    CLOCKS,
    MAX_SECONDS,
    MIN_SECONDS,
    OPENING_MOVES,
    OPENING_WEIGHT,
    Clock,
    SearchLog,
    TimeBudget,
)
from alphazero.games import Game, make
from alphazero.network.engines import ENGINES, EngineError
from alphazero.network.inference import load_inference
from alphazero.play.defaults import DEFAULT_CACHE, DEFAULT_ENGINE, DEFAULT_LEAVES
from alphazero.play.models import config_game
from alphazero.progress import bars as progress_bars
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
    and with seconds a move, at first an even share of a whole game of ``start``'s
    (``match`` matches them to what the plan spends); each with a cache of its own."""
    even = TimeBudget(even_share(plan, start))
    sides = []
    for budget, label in (
        (plan, f"plan {plan} (x{plan.opening_weight:g} falling over {plan.opening_moves} moves)"),
        (even, "even seconds a move (matched to what the plan spends)"),
    ):
        source = ModelSource(path, inference=network, cache=DEFAULT_CACHE)
        options = PlayerOptions(name=label, clock=clock)
        sides.append(ModelPlayer(source, start, budget, PlaySearch(leaves=leaves), options))
    return sides[0], sides[1]


def even_share(plan: TimeBudget, start: Game) -> float:
    """A game's seconds over the most moves a player makes in a game from ``start``."""
    return plan.seconds / math.ceil(start.plies[1] / 2)


def matched_seconds(plan: SearchLog, even: SearchLog, given: float) -> float | None:
    """The seconds a move that would have had the even side (``even``: what its moves cost;
    ``given``: the seconds they were given, summed) spend what the plan spent (``plan``) over
    the same games: the plan's seconds less the even side's overrun (what its moves spent
    past their deadlines, each search stopping at the end of a chunk of simulations), over
    the even side's moves. None before any move."""
    if even.moves == 0:
        return None
    overrun = even.seconds - given
    return min(max((plan.seconds - overrun) / even.moves, MIN_SECONDS), MAX_SECONDS)


def match(
    plan: ModelPlayer, even: ModelPlayer, starts: list[Game], progress: bool = True
) -> MatchResult:
    """Every start played twice, the sides swapped, a pair at a time; before each pair the
    even side's seconds a move become ``matched_seconds`` of the games before. The plan's
    result."""
    budget = even.simulations
    if not isinstance(budget, TimeBudget) or budget.per_game:
        raise ValueError(f"the even side searches seconds a move, not {budget}")
    result = MatchResult(player=plan.name, opponent=even.name)
    given = 0.0
    bar = progress_bars.bar(len(starts), f"{plan.name} vs {even.name}", "pair", enabled=progress)
    for start in starts:
        before = even.log.moves
        pair = play_match(plan, even, lambda start=start: start, 2, progress=False)
        given += budget.seconds * (even.log.moves - before)
        seconds = matched_seconds(plan.log, even.log, given)
        if seconds is not None:
            budget = TimeBudget(seconds)
            even.simulations = budget  # read afresh by each search
        for name in ("wins", "draws", "losses", "wins_first", "games_first"):
            setattr(result, name, getattr(result, name) + getattr(pair, name))
        result.moves += pair.moves
        bar.update(1)
    bar.close()
    return result


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
    """The plan's score with its 95% interval, then each side's seconds spent a game and
    simulations a move in the opening and after, and the even side's last seconds a move."""
    low, high = result.score_interval()
    lines = [
        f"{result.player} vs {result.opponent}: {result.wins}/{result.draws}/{result.losses}, "
        f"the plan's score {result.score:.1%} (95% CI {low:.1%}-{high:.1%})"
    ]
    for side in sides:
        seconds = side.log.seconds / max(result.games, 1)
        lines.append(f"{side.name}: {seconds:.2f} s spent a game; {phases(side.log, opening)}")
    lines.append(f"the even side's seconds a move at the end: {sides[1].simulations}")
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a run folder")
    parser.add_argument(
        "--game-time",
        type=float,
        default=20.0,
        help="the plan's seconds a game; the even side spends as much (default 20)",
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
    parser.add_argument(
        "--seed", type=non_negative_integer, default=0, help="seed of the random openings"
    )
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
    if args.opening < 0:
        return fail(f"--opening must be at least 0, got {args.opening}")
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
        rng = np.random.default_rng(args.seed)
        starts = [o.game for o in random_openings(start, args.games // 2, args.opening, rng)]
    except ValueError as error:
        return fail(f"--opening {args.opening}: {error}")
    sides = players(args.model, network, start, plan, CLOCKS[args.clock])
    result = match(*sides, starts, progress=not args.quiet)
    print(f"{args.model}, the plan {args.game_time:g} {args.clock} seconds a game, the even side "
          f"what it spends, {result.games} games from {args.opening}-move openings "
          f"(seed {args.seed})")  # fmt: skip
    print(report(result, sides, 2 * plan.opening_moves))
    if args.json:
        save_results([result], args.json, [search_costs(*sides)])
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
