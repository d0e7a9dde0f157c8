"""Does the player to move force n in a row on a small Gomoku board, and how soon?

Deepens ``forced_win`` (beside this script) one move at a time from a position (the empty
board by default) and prints, for each number of the mover's own moves, whether that many
force a line, with the positions searched and the time taken. On 6x6 four in a row it
proves the first player wins with its 6th stone at the latest, whatever the second player
does (about 25 s on one core), which is why a model playing second can only win there when
its opponent throws a won game away. Run:

    python experiments/gomoku_solve.py                      # 6x6 four, empty board
    python experiments/gomoku_solve.py --moves d4 c3        # after the centre and its best reply
"""

from __future__ import annotations

import sys
import time

from forced_win import ForcedWinSearch, shortest_forced_win

from alphazero.config.command_line import OneLineParser
from alphazero.games import Gomoku, MoveParseError, view_for


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=6, help="board size (default 6)")
    parser.add_argument("--n-in-row", type=int, default=4, help="line length (default 4)")
    parser.add_argument(
        "--moves", nargs="*", default=[], help="moves from the empty board, e.g. d4 c3"
    )
    parser.add_argument(
        "--max-moves", type=int, default=8, help="deepest number of own moves tried (default 8)"
    )
    args = parser.parse_args()
    if args.max_moves < 1:
        parser.error(f"--max-moves must be at least 1, got {args.max_moves}")
    try:
        view = view_for(Gomoku(size=args.size, n_in_row=args.n_in_row))
        game = view.from_moves(args.moves)
    except (MoveParseError, ValueError) as error:
        parser.error(str(error))
    if game.score is not None:
        parser.error("the game is already over after those moves")
    print(view.render(game))
    mover = "first" if game.player == 1 else "second"
    search = ForcedWinSearch(args.size, args.n_in_row)
    start = last = time.perf_counter()
    nodes = 0

    def report(moves: int, won: bool) -> None:
        nonlocal last, nodes
        now = time.perf_counter()
        print(
            f"the {mover} player (to move) forces a line within {moves} of its own moves: "
            f"{'yes' if won else 'no '}  ({search.nodes - nodes:,} positions, {now - last:.1f} s)",
            flush=True,
        )
        last, nodes = now, search.nodes

    moves = shortest_forced_win(game, args.max_moves, search, report)
    total = time.perf_counter() - start
    if moves is None:
        print(f"no forced win within {args.max_moves} own moves ({total:.1f} s)")
    else:
        print(
            f"proven: the {mover} player forces a line within {moves} of its own moves from "
            f"here, and not within {moves - 1} against the best defence ({total:.1f} s in all)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
