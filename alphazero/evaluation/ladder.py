"""Measuring a checkpoint against a fixed ladder of players that do not learn.

The ladder (for example ``uct:200``, ``uct:1000``) gets Elo ratings once per run: the first
opponent is 0 and each next one is rated from a match against the one before. A checkpoint's
Elo is then the maximum-likelihood rating given its scores against every ladder opponent, so
checkpoints of one run are comparable over time. A ``perfect`` player on the ladder is its
ceiling: nobody scores more against it than it scores against itself, so no checkpoint is
rated above it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..config import EvaluationConfig
from ..games.base import Game
from ..search import SearchParams
from .arena import (
    MatchResult,
    Opening,
    elo_difference,
    play_match,
    play_openings,
    random_openings,
)
from .model_player import ModelPlayer, ModelSource, PlayerOptions
from .players import Player, make_player

ELO_BOUND = 3000.0
"""Ratings are kept within +-ELO_BOUND; a clean sweep reports the bound."""
STEP_BOUND = 800.0
"""One ladder step is at most this many Elo (a sweep between ladder players)."""
PERFECT = "perfect"
"""The spec of game-theoretically perfect play, the top of any ladder it is on."""


def calibrate_ladder(
    config: EvaluationConfig, new_game: Callable[[], Game], seed: int, progress: bool
) -> dict[str, float]:
    """Elo ratings of the ladder opponents, the first at 0."""
    game = new_game()
    openings = ladder_openings(config, new_game, seed)
    ratings = {config.opponents[0]: 0.0}
    for weaker, stronger in zip(config.opponents, config.opponents[1:], strict=False):
        result = match(
            make_player(stronger, game, seed=seed),
            make_player(weaker, game, seed=seed + 1),
            new_game,
            config,
            openings,
            progress,
        )
        step = max(-STEP_BOUND, min(STEP_BOUND, elo_difference(result.score)))
        ratings[stronger] = ratings[weaker] + step
    return ratings


def ladder_openings(
    config: EvaluationConfig, new_game: Callable[[], Game], seed: int
) -> list[Opening] | None:
    """Where one evaluation's games start: ``None`` (from the start) without
    ``config.openings``, else ``config.games // 2`` different positions of
    ``config.openings`` random moves, drawn from ``seed``: one set for every opponent."""
    if not config.openings:
        return None
    rng = np.random.default_rng(seed)
    return random_openings(new_game(), config.games // 2, config.openings, rng)


def match(
    player: Player,
    opponent: Player,
    new_game: Callable[[], Game],
    config: EvaluationConfig,
    openings: Sequence[Opening] | None,
    progress: bool,
) -> MatchResult:
    """``config.games`` games from the start, or each of ``openings`` (``ladder_openings``)
    twice, the sides swapped within a pair."""
    if openings is None:
        return play_match(player, opponent, new_game, config.games, progress)
    return play_openings(player, opponent, openings, progress)


def ladder_elo(results: dict[str, MatchResult], ladder: dict[str, float]) -> float:
    """Maximum-likelihood Elo from scores against opponents of known rating, at most the
    rating of a perfect player among them.

    Solves ``sum_j n_j / (1 + 10^((R_j - R) / 400)) = sum_j points_j`` by bisection (the
    left side grows with ``R``); a sweep either way returns the bound.

    The ceiling: the perfect player's own rating is finite (its sweep of the rung below is
    cut to ``STEP_BOUND``), so a model that sweeps that rung as it does and draws it
    throughout would otherwise be rated above it, by the margin that sweep adds. Nothing can
    score more against perfect play than perfect play itself does (a draw, over games with
    both sides), so whoever matches it is rated as it is, never above.
    """
    ceiling = min(
        (ladder[spec] for spec in results if spec.strip().lower() == PERFECT), default=None
    )
    elo = _maximum_likelihood_elo(results, ladder)
    return elo if ceiling is None else min(elo, ceiling)


def _maximum_likelihood_elo(results: dict[str, MatchResult], ladder: dict[str, float]) -> float:
    points = sum(r.wins + 0.5 * r.draws for r in results.values())
    games = sum(r.games for r in results.values())

    def expected(rating: float) -> float:
        return sum(
            r.games / (1 + 10 ** ((ladder[spec] - rating) / 400)) for spec, r in results.items()
        )

    low, high = -ELO_BOUND, ELO_BOUND
    if points <= 0:
        return low
    if points >= games:
        return high
    for _ in range(60):
        middle = (low + high) / 2
        if expected(middle) < points:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def evaluate(
    model: Any,
    config: EvaluationConfig,
    new_game: Callable[[], Game],
    ladder: dict[str, float],
    seed: int,
    progress: bool = True,
    search: SearchParams | None = None,
) -> dict[str, Any]:
    """Play ``model`` (searching with ``search``, by default PUCT's defaults) against every
    ladder opponent; results and Elo."""
    game = new_game()
    # The model in memory has no file to name it by: it is labelled as the ladder's players
    # are, kind and budget (``uct:200``), so matches read ``model:64 vs uct:200``.
    player = ModelPlayer(
        ModelSource("model", model=model),
        game,
        config.simulations,
        search,
        PlayerOptions(seed=seed, name=f"model:{config.simulations}"),
    )
    openings = ladder_openings(config, new_game, seed)
    results = {}
    for offset, spec in enumerate(config.opponents):
        opponent = make_player(spec, game, seed=seed + 1 + offset)
        results[spec] = match(player, opponent, new_game, config, openings, progress)
    elo = ladder_elo(results, ladder)
    return {
        "elo": elo,
        "opponents": {spec: r.to_dict() for spec, r in results.items()},
        "score": sum(r.score for r in results.values()) / len(results),
    }
