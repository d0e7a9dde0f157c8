"""What the evaluation cache saves in Connect Four self-play: hit rate and CPU per game.

Self-play plays the same games with and without ``search.evaluation_cache`` (the cache
returns the network's own answers), so the only difference is the work. Interleaved rounds
of ``--games`` games each, cache off and on, for Gumbel (32 simulations) and PUCT (200), with
a trained network, the shipped model by default (its tree shapes, unlike a random
network's, are those of real self-play). Reports the median CPU seconds per game of each
and the ratio.
Run: ``python benchmarks/evaluation_cache.py`` (about 5 CPU minutes).
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from alphazero.config import SearchConfig, SelfPlayConfig
from alphazero.config.command_line import OneLineParser
from alphazero.games import make
from alphazero.network.model import InferenceModel
from alphazero.selfplay.loop import play_games
from alphazero.training.checkpoints import load_model
from alphazero.training.run_errors import CheckpointError

MODEL = Path(__file__).resolve().parents[1] / "checkpoints/pretrained/connect4/best.keras"


def main() -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=MODEL, help="a Connect Four .keras model")
    parser.add_argument("--games", type=int, default=32, help="games per round (all at once)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds of each setting (default 3)"
    )
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds must be at least 1")
    game = make("connect4")
    try:
        model = load_model(args.model, game, compile=False)
    except CheckpointError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    inference = InferenceModel(model, max_batch=args.games)
    selfplay = SelfPlayConfig(
        games_per_iteration=args.games,
        parallel_games=args.games,
        temperature_moves=20,
        random_opening_share=0.5,
        random_opening_moves=16,
    )
    searches = {
        "gumbel 32": SearchConfig(algorithm="gumbel", simulations=32),
        "puct 200": SearchConfig(simulations=200, dirichlet_alpha=1.0),
    }
    seconds: dict[tuple[str, int], list[float]] = {}
    hits: dict[str, list[float]] = {}
    for round_ in range(args.rounds):
        for name, search in searches.items():
            for cache in (0, 200_000):
                config = dataclasses.replace(search, evaluation_cache=cache)
                start = time.process_time()
                _, stats = play_games(
                    lambda: make("connect4"),
                    inference,
                    args.games,
                    config,
                    selfplay,
                    np.random.default_rng(round_),
                    progress=False,
                )
                per_game = (time.process_time() - start) / stats.games
                seconds.setdefault((name, cache), []).append(per_game)
                if cache:
                    hits.setdefault(name, []).append(stats.cache_hits / stats.cache_lookups)
    for name in searches:
        off = statistics.median(seconds[(name, 0)])
        on = statistics.median(seconds[(name, 200_000)])
        print(
            f"{name}: hit rate {statistics.median(hits[name]):.0%}, CPU per game "
            f"{off:.2f} s without the cache, {on:.2f} s with it: {off / on:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
