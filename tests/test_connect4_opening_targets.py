"""The move sequences ``experiments/connect4_opening_targets.py`` rebuilds from a buffer's planes:
legal, ending no game, and reaching the very position."""

from __future__ import annotations

import numpy as np
from connect4_opening_targets import rebuild_moves, replays_to  # experiments/

from alphazero.games import Connect4


def random_game(rng: np.random.Generator, length: int) -> Connect4 | None:
    game = Connect4()
    for _ in range(length):
        if game.score is not None:
            return None
        game = game.sim_move(int(rng.choice(game.available_moves)))
    return game if game.score is None else None


def test_rebuilt_moves_reach_the_position_of_random_games():
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 200:
        game = random_game(rng, int(rng.integers(0, 30)))
        if game is None:
            continue
        moves = rebuild_moves(game.encode())
        assert moves is not None
        assert replays_to(moves, game.encode())
        assert Connect4.from_moves(moves) == game
        checked += 1


def test_planes_no_game_reaches_give_none():
    planes = Connect4.from_moves([3, 3, 2]).encode()  # the second player to move
    floating = planes.copy()
    floating[0, 0, 0] = 1  # a stone in the top row over an empty column
    assert rebuild_moves(floating) is None
    too_many = planes.copy()
    too_many[5, 5:, 0] = 1  # the mover 3 stones to the opponent's 2
    assert rebuild_moves(too_many) is None
    assert not replays_to([3, 3], planes)
