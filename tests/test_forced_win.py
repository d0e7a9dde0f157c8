"""The Gomoku forced-win search (``experiments/forced_win.py``), against plain minimax and a known
result."""

from __future__ import annotations

import functools
import random

import pytest
from forced_win import ForcedWinSearch, shortest_forced_win
from game_helpers import from_notation, parse

from alphazero.games import Gomoku, view_for


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


def random_positions(
    size: int, n_in_row: int, count: int, seed: int, stones: tuple[int, int] = (2, 7)
) -> list[Gomoku]:
    """``count`` unfinished positions after a random number of random moves in ``stones``."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = Gomoku(size=size, n_in_row=n_in_row)
        for _ in range(rng.randint(*stones)):
            game = game.sim_move(rng.choice(game.available_moves))
            if game.score is not None:
                break
        if game.score is None:
            positions.append(game)
    return positions


def minimax_shortest(game: Gomoku, max_moves: int) -> int | None:
    return next((k for k in range(1, max_moves + 1) if wins_within(game, k)), None)


@pytest.mark.parametrize(
    ("size", "n_in_row", "max_moves", "stones"),
    [
        (4, 3, 3, (2, 7)),
        (5, 4, 3, (2, 7)),
        (5, 3, 2, (2, 7)),
        (4, 4, 4, (7, 12)),  # near a full board: draws, and a win on the last point
        (3, 3, 3, (2, 6)),
    ],
)
def test_shortest_forced_win_agrees_with_plain_minimax(size, n_in_row, max_moves, stones):
    search = ForcedWinSearch(size, n_in_row)  # one search: its remembered proofs are reused
    answers = []
    for game in random_positions(size, n_in_row, 40, seed=size * 10 + n_in_row, stones=stones):
        expected = minimax_shortest(game, max_moves)
        assert shortest_forced_win(game, max_moves, search) == expected, view_for(game).render(game)
        answers.append(expected)
    assert None in answers and len(set(answers)) >= 3  # a mix of answers, so this means something


def test_a_remembered_win_is_not_taken_for_a_quicker_one():
    """Asked straight away about 3 moves, then about 2, the search must not answer the second
    from what it learnt about the first."""
    checked = 0
    for game in random_positions(4, 3, 60, seed=7):
        if minimax_shortest(game, 3) != 3:
            continue
        search = ForcedWinSearch(4, 3)
        assert search.wins_within(game, 3)
        assert not search.wins_within(game, 2)
        checked += 1
    assert checked >= 3


def test_six_by_six_four_only_the_central_diagonal_reply_holds_to_the_sixth_stone():
    """X has the centre point d4 (action 15). After O's c3 (20), X forces four in a row with
    five more stones, not four; after O's e5 (10), the other diagonal, with four."""
    game = from_notation(Gomoku(size=6, n_in_row=4), ["d4"])
    search = ForcedWinSearch(6, 4)
    assert shortest_forced_win(game.sim_move(parse(game, "c3")), 5, search) == 5
    assert shortest_forced_win(game.sim_move(parse(game, "e5")), 5, search) == 4


def test_a_winning_point_is_taken_and_a_blocked_three_is_no_win():
    # X: b1 c1 d1 on 5x5, four in a row: it completes the line at once.
    three = from_notation(Gomoku(size=5, n_in_row=4), ["b1", "a5", "c1", "e5", "d1", "a4"])
    assert shortest_forced_win(three, 3) == 1
    # The same three with both ends taken by O: no line left to complete on that row.
    closed = from_notation(Gomoku(size=5, n_in_row=4), ["b1", "a1", "c1", "e5", "d1", "e1"])
    assert shortest_forced_win(closed, 1) is None


def test_two_winning_points_cannot_both_be_blocked():
    """X has b1 c1 with a1, d1 and e1 free: d1 makes two winning points (a1 and e1), so X
    wins with its second move, not its first."""
    game = from_notation(Gomoku(size=5, n_in_row=4), ["b1", "a5", "c1", "e5"])
    assert minimax_shortest(game, 2) == 2
    assert shortest_forced_win(game, 2) == 2


def test_a_search_is_for_one_board():
    with pytest.raises(ValueError, match="another board"):
        shortest_forced_win(Gomoku(size=6, n_in_row=4), 2, ForcedWinSearch(6, 5))


def test_an_attack_that_ignores_the_defenders_winning_point_is_no_win():
    """X can make an open three (b3 c3 d3, both ends free), but O would complete a6-d6
    first: X must block d6, so it has no win within two moves."""
    game = from_notation(Gomoku(size=6, n_in_row=4), ["c3", "a6", "d3", "b6", "f1", "c6"])
    assert game.sim_move(parse(game, "b3")).sim_move(parse(game, "d6")).score == -1
    assert not wins_within(game, 2)
    assert shortest_forced_win(game, 2) is None
