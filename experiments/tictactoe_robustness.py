"""Does a tic-tac-toe recipe reach perfect play whatever the seed and the arithmetic?

Trains ``--config`` once per seed and inference precision (the CI learning test's recipe is
``configs/tictactoe.yaml``), then plays the run's model (its best.keras, as the test loads
it) with search against a perfect player along every optimal reply, from both sides, as
``tests/test_learning.py`` does. Prints one line per run (losses first / second, CPU
minutes) and the count of perfect runs. Run:

    python experiments/tictactoe_robustness.py --config configs/tictactoe.yaml --seeds 0-4
    python experiments/tictactoe_robustness.py --config configs/experiments/tictactoe_puct.yaml
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
import typing
from pathlib import Path

import numpy as np

from alphazero.baselines.perfect import losses_against_perfect_play
from alphazero.config import ConfigError, load_config
from alphazero.config.command_line import NumberError, OneLineParser
from alphazero.games import Game, make
from alphazero.network.model import InferenceModel, Precision
from alphazero.search import Node, SearchParams, search
from alphazero.training.checkpoints import load_model
from alphazero.training.loop import train

SIMULATIONS = 64  # as tests/test_learning.py's model
PRECISIONS = typing.get_args(Precision)
"""search.inference_precision's values."""


def model_move(policy, game: Game) -> int:
    found = search([Node(game)], policy, SearchParams(), SIMULATIONS, np.random.default_rng(0))
    return int(found.actions[0])


def seeds(text: str) -> list[int]:
    """``"0-4"`` as ``[0, 1, 2, 3, 4]``, ``"3"`` as ``[3]``; ``"5-2"``, which would train
    nothing, and ``"3-"``, which names no last seed, are refused."""
    low, dash, high = text.partition("-")
    try:
        # After a dash HIGH must follow: "3-" read as "3" would train one seed unasked.
        found = list(range(int(low), int(high if dash else low) + 1))
    except ValueError:
        raise NumberError(f"expected a seed or LOW-HIGH such as 0-4, got {text!r}") from None
    if not found:
        raise NumberError(f"expected LOW-HIGH with LOW at most HIGH, such as 0-4, got {text!r}")
    return found


def main() -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config", default="configs/tictactoe.yaml", help="the recipe trained from each seed"
    )
    parser.add_argument("--seeds", type=seeds, default=seeds("0-4"), help="e.g. 0-4")
    parser.add_argument(
        "--precisions",
        nargs="+",
        choices=PRECISIONS,
        default=["float32", "bfloat16"],
        help="inference precisions, as search.inference_precision (default float32 bfloat16)",
    )
    args = parser.parse_args()
    try:
        base = load_config(args.config)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    perfect = runs = 0
    for precision in args.precisions:
        for seed in args.seeds:
            config = dataclasses.replace(
                base,
                seed=seed,
                search=dataclasses.replace(base.search, inference_precision=precision),
            )
            start = time.process_time()
            with tempfile.TemporaryDirectory() as folder:
                train(config, Path(folder) / "run", progress=False)
                policy = InferenceModel(load_model(Path(folder) / "run"), max_batch=16)
                lost = [
                    losses_against_perfect_play(
                        lambda game, policy=policy: model_move(policy, game),
                        make("tictactoe"),
                        side,
                    )[0]
                    for side in (1, -1)
                ]
            minutes = (time.process_time() - start) / 60
            runs += 1
            perfect += lost == [0, 0]
            print(
                f"{precision:8s} seed {seed}: lost {lost[0]} first, {lost[1]} second "
                f"({minutes:.1f} CPU min in this process)",
                flush=True,
            )
    print(f"{perfect} of {runs} runs play perfectly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
