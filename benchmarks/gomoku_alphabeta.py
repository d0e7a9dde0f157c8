"""Move time of the ``alphabeta`` Gomoku baseline by depth, on fixed 15x15 middle games.

The positions are ``benchmarks/data/gomoku_15x15_middle_games.txt``: one a line, the moves
from the empty board in the game's notation. ``--write-positions`` makes them again from
``--seed``: each game opens with 4 to 6 random stones within three points of the centre, then
``alphabeta:1`` plays both sides (its seed drawn from the same generator) up to a length drawn
from 16 to 30 stones; a game is kept only if it goes on there and the player to move has
no win in one, no four to block and no three to answer: the moves the search chooses from are
then all the points near the stones (an answer to a threat chooses among a few, and times
less than a move of the game's quiet stretches).

The shapes of lines are memoised for the whole process (``gomoku_patterns.Shapes``), as they
are over a match, so a first untimed ``alphabeta:2`` move in every position fills the memo
before anything is timed. Then for each depth from 1, one ``alphabeta:DEPTH`` move (seed 0) is
timed in every position, in
CPU seconds of this process (``time.process_time``: on a shared machine the wall clock also
counts the other processes), and the depth's median, 90th percentile and largest are printed
with the mean of nodes searched. Depths go up until one's median is over ``--limit`` seconds
(or ``--max-depth``); the last line names the deepest depth whose median is within the limit.

Run: ``python benchmarks/gomoku_alphabeta.py`` (``--limit 2 --max-depth 9``).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

from alphazero.baselines.alphabeta import AlphaBetaPlayer, AlphaBetaSearch
from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.games.gomoku import Gomoku, GomokuView
from alphazero.progress import bars

POSITIONS = Path(__file__).resolve().parent / "data" / "gomoku_15x15_middle_games.txt"
SIZE, N_IN_ROW, COUNT = 15, 5, 20


def make_positions(seed: int, count: int = COUNT) -> list[list[str]]:
    """``count`` middle games of 15x15 as move lists, the same for the same seed."""
    rng = np.random.default_rng(seed)
    centre = SIZE // 2
    near_centre = [
        r * SIZE + c for r in range(centre - 3, centre + 4) for c in range(centre - 3, centre + 4)
    ]
    view = GomokuView(Gomoku(SIZE, N_IN_ROW))
    games: list[list[str]] = []
    while len(games) < count:
        game = Gomoku(SIZE, N_IN_ROW)
        opening = rng.choice(near_centre, size=int(rng.integers(4, 7)), replace=False)
        length = int(rng.integers(16, 31))
        player = AlphaBetaPlayer(1, seed=int(rng.integers(1 << 31)))
        moves = [int(move) for move in opening]
        for move in moves:
            game = game.sim_move(move)
        while game.score is None and len(moves) < length:
            moves.append(player(game))
            game = game.sim_move(moves[-1])
        if game.score is None and not game.ending_moves() and not _forced(game):
            games.append([view.format_move(move) for move in moves])
    return games


def _forced(game: Gomoku) -> bool:
    """Whether the player to move has a four to block or a three to answer."""
    search = AlphaBetaSearch(game, 1, np.random.default_rng(0))
    return search.moves(game, inner=False)[1]


def read_positions(path: Path) -> list[Gomoku]:
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    view = GomokuView(Gomoku(SIZE, N_IN_ROW))
    return [view.from_moves(moves) for moves in lines]


def time_depth(depth: int, positions: list[Gomoku], show: bool) -> tuple[list[float], float]:
    """CPU seconds of one move in each position, and the mean nodes searched."""
    seconds, nodes = [], []
    bar = bars.bar(len(positions), f"depth {depth}", "position", enabled=show)
    for game in positions:
        player = AlphaBetaPlayer(depth, seed=0)
        start = time.process_time()
        player(game)
        seconds.append(time.process_time() - start)
        nodes.append(player.last_search.nodes if player.last_search else 0)
        bar.update(1)
    bar.close()
    return seconds, statistics.fmean(nodes)


def percentile(values: list[float], share: float) -> float:
    return float(np.percentile(values, 100 * share))


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--limit", type=float, default=2.0, help="CPU seconds a median move may take (2)"
    )
    parser.add_argument("--max-depth", type=int, default=9, help="deepest depth to time (9)")
    parser.add_argument(
        "--positions", type=Path, default=POSITIONS, help="the positions file (the committed one)"
    )
    parser.add_argument(
        "--write-positions",
        action="store_true",
        help="make the positions again from --seed, write them to --positions, and stop",
    )
    parser.add_argument(
        "--seed", type=non_negative_integer, default=0, help="seed of --write-positions (0)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    if not args.limit > 0:  # NaN too, which no median is within
        parser.error(f"--limit must be above 0, got {args.limit:g}")
    if args.max_depth < 1:
        parser.error("--max-depth must be at least 1")
    if args.write_positions:
        games = make_positions(args.seed)
        args.positions.parent.mkdir(parents=True, exist_ok=True)
        args.positions.write_text("".join(" ".join(moves) + "\n" for moves in games))
        print(f"wrote {len(games)} positions to {args.positions}")
        return 0
    try:
        positions = read_positions(args.positions)
    except OSError as error:
        parser.error(f"--positions: {error.strerror}: {args.positions}")
    except ValueError as error:  # a move that does not parse or is not legal
        parser.error(f"--positions {args.positions}: {error}")
    if not positions:
        parser.error(f"--positions {args.positions}: no positions in it")

    for game in positions:  # fill the shapes' memo, as the first moves of a match do
        AlphaBetaPlayer(2, seed=0)(game)
    print(f"{len(positions)} positions of 15x15, CPU seconds per move")
    print("| depth | median | p90 | largest | mean nodes |")
    print("|---:|---:|---:|---:|---:|")
    deepest = None
    for depth in range(1, args.max_depth + 1):
        seconds, nodes = time_depth(depth, positions, not args.no_progress)
        median = statistics.median(seconds)
        row = (
            f"| {depth} | {median:.3f} | {percentile(seconds, 0.9):.3f} | "
            f"{max(seconds):.3f} | {nodes:,.0f} |"
        )
        print(row, flush=True)
        if median > args.limit:
            break
        deepest = depth
    if deepest is None:
        print(f"no depth moves within {args.limit:g} s at the median")
    else:
        print(f"deepest depth with a median move within {args.limit:g} s: {deepest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
