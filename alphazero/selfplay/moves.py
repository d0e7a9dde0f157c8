"""The pieces self-play's loop calls, one decision each, so the loop itself only batches.

* How a game starts: ``random_opening`` (``selfplay.random_opening_share``).
* How much a move is searched: ``move_budget`` (playout cap randomisation: most moves get
  the cheap search and are not recorded).
* How the move is played: ``temperature``.
* What a finished game teaches: ``value_targets``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import SearchConfig, SelfPlayConfig
from ..games.base import Game


def random_opening(
    game: Game, selfplay: SelfPlayConfig, rng: np.random.Generator
) -> tuple[Game, list[int]]:
    """The position a new game starts from and the moves that led there: with chance
    ``random_opening_share``, 1 to ``random_opening_moves`` uniformly random moves, else
    none. The opening is not recorded.

    A move that would end the game is never chosen, so every opening leaves a game to learn
    from; the opening stops early if every legal move would end it. The moves count toward
    ``temperature_moves`` as any other.
    """
    share = selfplay.random_opening_share
    if not share or rng.random() >= share:
        return game, []
    moves: list[int] = []
    for _ in range(int(rng.integers(1, selfplay.random_opening_moves + 1))):
        going_on = [
            (after, move)
            for move in game.available_moves
            if not (after := game.sim_move(move)).is_over
        ]
        if not going_on:
            break
        game, move = going_on[int(rng.integers(len(going_on)))]
        moves.append(move)
    return game, moves


@dataclass(frozen=True)
class MoveBudget:
    """How one move is searched."""

    simulations: int
    recorded: bool
    """Whether the move's search is full and becomes a training example (and so explores
    with the search policy's root noise)."""


def move_budget(
    search: SearchConfig, selfplay: SelfPlayConfig, rng: np.random.Generator
) -> MoveBudget:
    """The search of the next move. With playout cap randomisation (``fast_simulations``) a
    move gets the full search with chance ``full_search_share``, else the cheap one, which
    only moves the game on."""
    fast = selfplay.fast_simulations
    if fast is None:
        return MoveBudget(search.simulations, recorded=True)
    full = bool(rng.random() < selfplay.full_search_share)
    return MoveBudget(search.simulations if full else fast, recorded=full)


def temperature(selfplay: SelfPlayConfig, moves: int) -> float:
    """The temperature of move number ``moves``: 1 in the opening (``temperature_moves``),
    then 0, the most visited move."""
    return 1.0 if moves < selfplay.temperature_moves else 0.0


def value_targets(
    selfplay: SelfPlayConfig,
    score: int,
    players: list[int],
    search_values: list[float],
) -> list[float]:
    """The value target of each recorded position: the result ``score`` for the player to
    move there (never assumed to alternate), blended with the search's value by
    ``value_target_mix`` (less noisy early in training, when results are mostly luck)."""
    mix = selfplay.value_target_mix
    return [
        (1 - mix) * float(score * player) + mix * value
        for player, value in zip(players, search_values, strict=True)
    ]
