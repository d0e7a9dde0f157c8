"""Fixed-seed self-play games, every example recorded, to hold self-play to its results.

``tests/test_selfplay_regression.py`` plays these cases again and compares them with
``tests/selfplay_regression.json``, written by running this module (``python
tests/selfplay_regression.py`` rewrites it: only do that for a change meant to alter the
games a seed gives, and say so in the commit). The network is the fixed linear one of
``search_regression.py``, exact in any batch, so the games depend on self-play and the
search alone.

Each case covers a piece of the loop: PUCT with root noise and temperature, playout cap
randomisation, random openings, the value-target mix, Gumbel search, the evaluation cache.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from search_regression import linear_policy

from alphazero.config import SearchConfig, SelfPlayConfig
from alphazero.games import make
from alphazero.selfplay.loop import play_games

FIXTURE = Path(__file__).with_name("selfplay_regression.json")


def _games(
    name: str, params: dict[str, int], games: int, seed: int, search: dict, selfplay: dict
) -> dict[str, Any]:
    """The examples of every game (in the order the games ended) and the counters."""
    finished: list[dict[str, Any]] = []

    def on_game(examples, _stats) -> None:
        finished.append({
            "planes": hashlib.sha256(examples.planes.astype(np.float32).tobytes()).hexdigest(),
            "policies": [[round(float(p), 7) for p in row] for row in examples.policies],
            "values": [round(float(v), 7) for v in examples.values],
        })  # fmt: skip

    _, stats = play_games(
        lambda: make(name, **params),
        linear_policy(make(name, **params)),
        games,
        SearchConfig(**search),
        SelfPlayConfig(**selfplay),
        np.random.default_rng(seed),
        progress=False,
        on_game=on_game,
    )
    counters = ("games", "moves", "first_wins", "second_wins", "draws", "network_calls",
                "simulations", "cache_hits", "cache_lookups")  # fmt: skip
    return {
        "finished": finished,
        "lengths": list(stats.lengths),
        **{key: getattr(stats, key) for key in counters},
    }


CASES: dict[str, Callable[[], Any]] = {
    "connect4 puct": lambda: _games(
        "connect4", {}, 6, 0,
        {"simulations": 24},
        {"games_per_iteration": 6, "parallel_games": 3, "temperature_moves": 6},
    ),
    "connect4 puct playout cap, openings, mix": lambda: _games(
        "connect4", {}, 6, 1,
        {"simulations": 24, "dirichlet_alpha": 1.0},
        {"games_per_iteration": 6, "parallel_games": 4, "fast_simulations": 6,
         "full_search_share": 0.5, "random_opening_share": 0.5, "random_opening_moves": 6,
         "value_target_mix": 0.25, "augment": False},
    ),
    "tictactoe puct": lambda: _games(
        "tictactoe", {}, 8, 2,
        {"simulations": 32},
        {"games_per_iteration": 8, "parallel_games": 8, "temperature_moves": 2},
    ),
    "connect4 gumbel": lambda: _games(
        "connect4", {}, 6, 3,
        {"algorithm": "gumbel", "simulations": 16, "gumbel_considered": 4},
        {"games_per_iteration": 6, "parallel_games": 3, "temperature_moves": 6,
         "fast_simulations": 4, "full_search_share": 0.5, "random_opening_share": 0.5,
         "random_opening_moves": 4},
    ),
    "dots_and_boxes gumbel cache": lambda: _games(
        "dots_and_boxes", {"rows": 2, "cols": 2}, 4, 4,
        {"algorithm": "gumbel", "simulations": 12, "evaluation_cache": 1000},
        {"games_per_iteration": 4, "parallel_games": 2, "temperature_moves": 3},
    ),
}  # fmt: skip


def run_case(name: str) -> Any:
    """The case's records as JSON would give them back (floats and lists)."""
    return json.loads(json.dumps(CASES[name]()))


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURE
    out.write_text(json.dumps({name: run_case(name) for name in CASES}) + "\n")
    print(f"wrote {out} ({out.stat().st_size:,} bytes)", file=sys.stderr)
