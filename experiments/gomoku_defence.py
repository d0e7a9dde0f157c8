"""How close to perfect does a Gomoku model play on a small board, on each side?

Plays ``--games`` games of the model against ``--opponent`` (sides alternating), then checks
every move of the model's with the exact forced-win search (``forced_win``, beside this script):

* **moving first**, where the position before its move is a proven win: does every reply
  to the move still lose (within ``--depth``), so that the move kept the win?
* **moving second**: is the move one of the replies that hold out longest (the first
  player's quickest forced win after it is the latest, or none within the depth searched)?

Positions without a proven result are counted apart: moving first, one with no forced win
within the depth (the win was thrown away before, or lies deeper); moving second, one where
no reply loses within the depth. On 6x6 four in a row (a first-player win by its 6th stone,
``experiments/gomoku_solve.py``, so the default depth decides the empty board) this measures
the model against perfect play, whatever the opponent's mistakes do to the score.
Run:

    python experiments/gomoku_defence.py --model checkpoints/pretrained/gomoku_6x6 --games 20

(about 4 minutes on 6x6 four: 1 for the games, 3 for the search).
"""

from __future__ import annotations

import sys
import time

from forced_win import ForcedWinSearch, shortest_forced_win
from tqdm import tqdm

from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.arena import play_match
from alphazero.evaluation.model_player import ModelPlayer, PlayerOptions
from alphazero.evaluation.players import PlayerSpecError, make_player
from alphazero.games import Gomoku
from alphazero.training.run_errors import CheckpointError


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a run folder or a .keras file")
    parser.add_argument("--opponent", default="uct:5000", help="player spec (default uct:5000)")
    parser.add_argument("--games", type=int, default=20, help="games, sides alternating")
    parser.add_argument("--sims", type=int, default=800, help="model simulations per move")
    parser.add_argument("--size", type=int, default=6, help="board size (default 6)")
    parser.add_argument("--n-in-row", type=int, default=4, help="line length (default 4)")
    parser.add_argument(
        "--depth", type=int, default=6, help="first-player moves searched per position (default 6)"
    )
    parser.add_argument("--seed", type=non_negative_integer, default=0, help="seed of both players")
    args = parser.parse_args()
    for name, least in (("games", 1), ("sims", 2), ("depth", 1)):
        if getattr(args, name) < least:
            parser.error(f"--{name} must be at least {least}, got {getattr(args, name)}")

    def new_game() -> Gomoku:
        return Gomoku(size=args.size, n_in_row=args.n_in_row)

    try:
        options = PlayerOptions(seed=args.seed)
        model = ModelPlayer(args.model, new_game(), args.sims, options=options)
        opponent = make_player(args.opponent, new_game(), seed=args.seed)
    except (CheckpointError, PlayerSpecError, ValueError) as error:
        parser.error(str(error))
    result = play_match(model, opponent, new_game, args.games)
    print(f"{model.name} vs {opponent.name}: {result.wins}/{result.draws}/{result.losses}")

    search = ForcedWinSearch(args.size, args.n_in_row)

    def quickest_win(moves: list[int]) -> int | None:
        """The first player's quickest forced win after ``moves``, in its own moves (0: it
        has won); None if it has none within the depth, or the game ended otherwise."""
        game = Gomoku.from_moves(moves, size=args.size, n_in_row=args.n_in_row)
        if game.score is not None:
            return 0 if game.score == 1 else None
        if game.player == 1:
            return shortest_forced_win(game, args.depth, search)
        # The second player to move: the first wins once every reply loses.
        latest = [quickest_win([*moves, a]) for a in game.available_moves]
        return None if None in latest else max(latest)  # type: ignore[type-var]

    start = time.perf_counter()
    first = {"kept": 0, "not kept": 0, "undecided": 0}
    second = {"longest": 0, "shorter": 0, "undecided": 0}
    for index, moves in enumerate(tqdm(result.moves, desc="checking moves", unit="game")):
        model_side = 0 if index % 2 == 0 else 1  # model moves at even plies in even games
        for ply in range(model_side, len(moves), 2):
            before = moves[:ply]
            if model_side == 0:
                if quickest_win(before) is None:
                    first["undecided"] += 1
                    continue
                after = quickest_win(moves[: ply + 1])  # every reply, not just the one played
                first["kept" if after is not None else "not kept"] += 1
            else:
                game = Gomoku.from_moves(before, size=args.size, n_in_row=args.n_in_row)
                holds = {a: quickest_win([*before, a]) for a in game.available_moves}
                if all(v is None for v in holds.values()):
                    second["undecided"] += 1  # no reply loses within the depth searched
                elif holds[moves[ply]] is None:
                    second["longest"] += 1  # holds out beyond the depth searched
                else:
                    longest = max(v for v in holds.values() if v is not None)
                    beyond = None in holds.values()
                    kept = not beyond and holds[moves[ply]] == longest
                    second["longest" if kept else "shorter"] += 1
    print(
        f"moving first, from a proven win, moves after which every reply still loses: "
        f"{first['kept']} of {first['kept'] + first['not kept']} "
        f"({first['undecided']} positions with no forced win within the depth)"
    )
    print(
        f"moving second, replies that hold out longest: {second['longest']} of "
        f"{second['longest'] + second['shorter']} "
        f"({second['undecided']} positions where no reply loses within the depth)"
    )
    print(f"{search.nodes:,} positions searched in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
