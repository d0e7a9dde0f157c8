"""The Gomoku forced-win search, against plain minimax and a known result."""

from __future__ import annotations

import functools
import random

import pytest

from alphazero.baselines.forced_win import ForcedWinSearch, shortest_forced_win
from alphazero.games import Gomoku


@functools.cache
def wins_within(game: Gomoku, moves: int) -> bool:
    """Plain minimax: does the player to move complete a line within ``moves`` of its own
    moves, whatever the opponent plays? No shortcuts, every reply looked at."""
    attacker = game.player
    for action in game.available_moves:
        child = game.sim_move(action)
        if child.score == attacker:
            return True
        if moves > 1 and child.score is None:
            replies = [child.sim_move(reply) for reply in child.available_moves]
            if all(r.score is None and wins_within(r, moves - 1) for r in replies):
                return True
    return False


def random_positions(size: int, n_in_row: int, count: int, seed: int) -> list[Gomoku]:
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = Gomoku(size=size, n_in_row=n_in_row)
        for _ in range(rng.randint(2, 7)):
            game = game.sim_move(rng.choice(game.available_moves))
            if game.score is not None:
                break
        if game.score is None:
            positions.append(game)
    return positions


@pytest.mark.parametrize(("size", "n_in_row", "max_moves"), [(4, 3, 3), (5, 4, 3), (5, 3, 2)])
def test_shortest_forced_win_agrees_with_plain_minimax(size, n_in_row, max_moves):
    search = ForcedWinSearch(size, n_in_row)
    found = 0
    for game in random_positions(size, n_in_row, count=40, seed=size * 10 + n_in_row):
        expected = next((k for k in range(1, max_moves + 1) if wins_within(game, k)), None)
        assert shortest_forced_win(game, max_moves, search) == expected, game.render()
        found += expected is not None
    assert 0 < found < 40  # both answers occur, so the comparison means something


def test_six_by_six_four_the_centre_and_a_diagonal_reply_lose_by_the_sixth_stone():
    """X has the centre point d3 (action 15) and O the diagonal c2 (20): X forces four in a
    row with five more stones, not with four."""
    game = Gomoku.from_moves([15, 20], size=6, n_in_row=4)
    assert shortest_forced_win(game, 5) == 5


def test_a_defender_facing_two_open_ends_is_lost_and_a_blocked_line_is_not_a_win():
    # X: a row of three with both ends free (b1 c1 d1 on 5x5): it wins next move.
    open_three = Gomoku.from_moves(["b1", "a5", "c1", "e5", "d1", "a4"], size=5, n_in_row=4)
    assert shortest_forced_win(open_three, 3) == 1
    # The same three with one end taken by O: one winning point, which O can block.
    closed = Gomoku.from_moves(["b1", "a1", "c1", "e5", "d1"], size=5, n_in_row=4)
    assert closed.player == -1
    blocked = closed.sim_move(closed.parse_move("e1"))
    assert shortest_forced_win(blocked, 1) is None


def test_a_search_is_for_one_board():
    with pytest.raises(ValueError, match="another board"):
        shortest_forced_win(Gomoku(size=6, n_in_row=4), 2, ForcedWinSearch(6, 5))


def test_an_attack_that_ignores_the_defenders_winning_point_is_no_win():
    """X can make an open three (b3 c3 d3, both ends free), but O would complete a6-d6
    first: X must block d6, so it has no win within two moves."""
    game = Gomoku.from_moves(["c3", "a6", "d3", "b6", "f1", "c6"], size=6, n_in_row=4)
    assert game.sim_move(game.parse_move("b3")).sim_move(game.parse_move("d6")).score == -1
    assert not wins_within(game, 2)
    assert shortest_forced_win(game, 2) is None
