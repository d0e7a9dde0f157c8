"""A perfect player by memoised minimax, for games small enough to solve (``Game.solvable``:
tic-tac-toe, and Dots and Boxes up to 2x2 boxes)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..games.base import Game, value_to_parent


@functools.cache
def solve(game: Game) -> int:
    """The exact value of ``game`` for its player to move: +1 win, 0 draw, -1 loss."""
    if game.score is not None:
        return int(game.value_for_mover())
    best = -1
    for action in game.available_moves:
        child = game.sim_move(action)
        best = max(best, int(value_to_parent(solve(child), child, game)))
        if best == 1:
            break
    return best


def optimal_moves(game: Game) -> list[int]:
    """Every move that keeps the exact value of ``game`` for its player to move."""
    target = solve(game)
    moves = []
    for action in game.available_moves:
        child = game.sim_move(action)
        if value_to_parent(solve(child), child, game) == target:
            moves.append(action)
    return moves


class PerfectPlayer:
    """Plays an optimal move, chosen at random among the optimal ones."""

    def __init__(self, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng()

    def __call__(self, game: Game) -> int:
        if not game.solvable:
            raise ValueError(f"{game.name} is too large to solve by minimax")
        moves = optimal_moves(game)
        return int(moves[self.rng.integers(len(moves))])


def losses_against_perfect_play(
    choose: Callable[[Game], int], start: Game, side: int
) -> tuple[int, int]:
    """``(games lost, games played)`` by ``choose`` playing ``side`` (+1 first, -1 second)
    from ``start`` against every optimal reply a perfect player could make: the strictest
    test of a player that should never lose."""
    lost = played = 0
    stack = [start]
    while stack:
        game = stack.pop()
        if game.score is not None:
            played += 1
            lost += game.score == -side
            continue
        if game.player == side:
            stack.append(game.sim_move(choose(game)))
        else:
            stack.extend(game.sim_move(a) for a in optimal_moves(game))
    return lost, played
