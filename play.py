"""Play a game in the terminal, or run a match between any two players.

python play.py --game connect4 --p1 human --p2 model:checkpoints/connect4
python play.py --game connect4 --p1 uct:1000 --p2 random --games 100
python play.py --game gomoku:size=8,n_in_row=5 --p1 rave:2000 --p2 uct:2000 --games 20
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from alphazero.players import SPEC_FORMS


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Play against a trained model or a baseline, or pit two players against "
        "each other. With two non-human players (or --games > 1) it runs a match and prints "
        "wins, draws, losses, the score with a 95%% confidence interval and the Elo difference.",
        epilog=f"Player specs: {SPEC_FORMS}.",
    )
    parser.add_argument(
        "--game",
        default="connect4",
        help="game name, with parameters if any: connect4, tictactoe, gomoku:size=8,n_in_row=5, "
        "dots_and_boxes:rows=3,cols=3 (default: connect4)",
    )
    parser.add_argument("--p1", default="human", help="the player who moves first in game 1")
    parser.add_argument(
        "--p2",
        default=None,
        help="the other player (default: the model in checkpoints/<game>, if trained)",
    )
    parser.add_argument(
        "--games", type=int, default=1, help="games to play; sides alternate (default 1)"
    )
    parser.add_argument("--json", type=Path, default=None, help="write the match result here")
    parser.add_argument("--seed", type=int, default=0, help="seed for the random players")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def parse_game(text: str):
    """``name[:key=value,...]`` -> a new game; ``ValueError`` with a one-line reason."""
    from alphazero.games import make

    name, _, rest = text.partition(":")
    params: dict[str, int] = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not value.strip().isdigit():
            raise ValueError(f"--game {text!r}: parameters are key=number, like size=8")
        params[key.strip()] = int(value)
    make(name, **params)  # validates
    return name, params


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from alphazero.checkpoints import CheckpointError
    from alphazero.games import GameError, make
    from alphazero.players import PlayerSpecError

    try:
        name, params = parse_game(args.game)
        if args.games < 1:
            raise ValueError(f"--games must be at least 1, got {args.games}")
        p2_spec = args.p2 or f"model:checkpoints/{name}"
        if args.p2 is None and not Path("checkpoints", name).exists():
            raise ValueError(
                f"no trained model for {name} in checkpoints/{name}: train one with "
                f"python train.py --config configs/{name}.yaml, or pick --p2 (e.g. uct:1000)"
            )
        from alphazero.players import make_player

        start = make(name, **params)
        p1 = make_player(args.p1, start, seed=args.seed)
        p2 = make_player(args.p2 or p2_spec, start, seed=args.seed + 1)
    except (ValueError, GameError, PlayerSpecError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    if "human" in (p1.name, p2.name):
        return play_interactively(p1, p2, lambda: make(name, **params), args.games)

    from alphazero.arena import play_match, save_results

    result = play_match(p1, p2, lambda: make(name, **params), args.games, not args.quiet)
    print(result.table())
    if args.json:
        save_results([result], args.json)
        print(f"written to {args.json}")
    return 0


def play_interactively(p1, p2, new_game, games: int) -> int:
    """A plain terminal game; the full experience is the terminal game's issue."""
    for number in range(games):
        seats = {1: p1, -1: p2} if number % 2 == 0 else {1: p2, -1: p1}
        game = new_game()
        print(game.render())
        while game.score is None:
            mover = seats[game.player]
            action = mover(game)
            game = game.sim_move(action)
            print(f"\n{mover.name} plays {game.format_move(action)}\n{game.render()}")
        winner = {1: seats[1].name, -1: seats[-1].name}.get(game.score)
        print("draw" if winner is None else f"{winner} wins")
    return 0


if __name__ == "__main__":
    sys.exit(main())
