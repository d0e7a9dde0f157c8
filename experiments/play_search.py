"""PUCT against Gumbel search for one model, head to head: which should play.py use?

Both players search with the same network and the run's own settings (``config.yaml``:
``c_puct``, Gumbel's constants), ``--sims`` simulations a move, without noise. Games start
from different random openings of ``--opening`` moves, each played twice with the sides
swapped (two searches without noise would otherwise replay the same game). Prints the score
of PUCT with its 95% interval and each side's CPU seconds a move. Run:

    python experiments/play_search.py --model checkpoints/pretrained/connect4 --games 100

``--speed N`` measures instead each search's CPU seconds a move as ``play.py`` searches, one
position at a time (PUCT with play's 4 leaves per network call), over N opening positions.

The correct-move shares of the two searches come from ``benchmarks/connect4_positions.py
--search puct|gumbel``; both are in docs/research/play_search.md.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.arena import play_openings, random_openings
from alphazero.evaluation.model_player import ModelPlayer, ModelSource
from alphazero.evaluation.model_search import run_folder, trained_search
from alphazero.games import Game, make
from alphazero.network.model import InferenceModel
from alphazero.play.defaults import DEFAULT_LEAVES
from alphazero.play.models import config_game
from alphazero.training.checkpoints import load_model
from alphazero.training.run_errors import CheckpointError


class Timed:
    """A player with the CPU seconds its moves took."""

    def __init__(self, player: ModelPlayer) -> None:
        self.player, self.name, self.cpu, self.moves = player, player.name, 0.0, 0

    def batch_moves(self, games: list[Game]) -> list[int]:
        began = time.process_time()
        actions = self.player.batch_moves(games)
        self.cpu += time.process_time() - began
        self.moves += len(games)
        return actions

    def __call__(self, game: Game) -> int:
        return self.batch_moves([game])[0]


def speed(players: dict[str, Timed], positions: list[Game]) -> int:
    """Each player's CPU seconds a move, one position at a time, alternating."""
    for game in positions:
        for timed in players.values():
            timed(game)
    for name, timed in players.items():
        print(f"{name} ({timed.player.search.describe()}): {timed.cpu / timed.moves:.3f} "
              f"CPU-s a move, one position at a time ({timed.moves} positions)")  # fmt: skip
    return 0


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a run folder")
    parser.add_argument("--sims", type=int, default=800, help="simulations a move, both sides")
    parser.add_argument("--games", type=int, default=100, help="games (an even number)")
    parser.add_argument(
        "--opening",
        type=int,
        default=3,
        help="random moves before each game (default 3: Connect Four has only 49 different "
        "positions 2 moves in)",
    )
    parser.add_argument(
        "--seed", type=non_negative_integer, default=0, help="seed of the random openings"
    )
    parser.add_argument(
        "--speed",
        type=int,
        default=0,
        metavar="N",
        help="instead of a match: CPU seconds a move of each search, one position at a time "
        "as play.py searches (PUCT with its --leaves default), over N opening positions",
    )
    args = parser.parse_args()
    for option, value, least in (
        ("--sims", args.sims, 2),  # the first simulation evaluates the root: one visits no move
        ("--games", args.games, 1),
        ("--opening", args.opening, 0),
        ("--speed", args.speed, 0),  # 0: the match
    ):
        if value < least:
            parser.error(f"{option} must be at least {least}, got {value}")
    folder = run_folder(args.model)
    found = config_game(folder / "config.yaml") if folder is not None else None
    if found is None:
        parser.error(f"--model {args.model}: no run's config.yaml naming a game")

    start = make(found[0], **found[1])
    try:
        trained = trained_search(args.model)
        network = InferenceModel(load_model(args.model, start, compile=False), max_batch=1024)
    except CheckpointError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    players = {}
    for algorithm in ("puct", "gumbel"):
        leaves = DEFAULT_LEAVES if args.speed else 1
        search = dataclasses.replace(trained, algorithm=algorithm, leaves_per_tree=leaves)
        player = ModelPlayer(ModelSource(args.model, inference=network), start, args.sims, search)
        player.name = f"{algorithm}:{args.sims}"
        players[algorithm] = Timed(player)
    rng = np.random.default_rng(args.seed)
    try:
        found = random_openings(start, args.speed or (args.games + 1) // 2, args.opening, rng)
    except ValueError as error:
        parser.error(f"--opening {args.opening}: {error}")
    if args.speed:
        return speed(players, [opening.game for opening in found])
    puct, gumbel = players["puct"], players["gumbel"]
    result = play_openings(puct, gumbel, found)  # type: ignore[arg-type]
    low, high = result.score_interval()
    print(f"{args.model}, {args.sims} simulations, {2 * len(found)} games from "
          f"{args.opening}-move openings (seed {args.seed})")  # fmt: skip
    print(f"puct vs gumbel: {result.wins}/{result.draws}/{result.losses}, PUCT's score "
          f"{result.score:.1%} (95% CI {low:.1%}-{high:.1%})")  # fmt: skip
    for name, timed in players.items():
        print(f"{name}: {timed.cpu / max(timed.moves, 1):.3f} CPU-s a move ({timed.moves} moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
