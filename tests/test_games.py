"""Behaviour of the game engines: rules, wins and draws, notation, errors, network encoding,
symmetries and random playouts."""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter

import numpy as np
import pytest
from game_helpers import (
    DIRECTIONS,
    GAME_CONFIGS,
    ReferenceLines,
    capacity,
    config_params,
    connect4_line_win,
    drop_order,
    from_notation,
    gomoku_line_win,
    has_line,
    lines_on_board,
    no_line_pattern,
    parse,
    play_random,
    random_history,
    random_positions,
    remaining,
    replay_checked,
    sampled_outcomes,
    sim_move_playout,
)

from alphazero.games import (
    GAMES,
    Connect4,
    DotsAndBoxes,
    GameError,
    GameOverError,
    Gomoku,
    IllegalMoveError,
    MoveParseError,
    TicTacToe,
    UnknownGameError,
    game_params,
    make,
    value_to_parent,
    view_for,
)

LETTERS = "abcdefghijklmnopqrstuvwxyz"


# =============================================================================== registry
def test_the_registry_holds_the_four_games_under_their_own_names():
    assert set(GAMES) == {"tictactoe", "connect4", "gomoku", "dots_and_boxes"}
    for name, cls in GAMES.items():
        assert cls.name == name


@pytest.mark.parametrize("name", sorted(GAMES))
def test_make_with_defaults_gives_a_fresh_start_where_every_action_is_legal(name):
    game = make(name)
    assert game.name == name
    assert game.params == game_params(name)
    assert (game.player, game.score, game.last_move) == (1, None, None)
    assert not game.is_over
    assert game.available_moves == list(range(game.num_actions))
    assert game.get_mask().dtype == bool and game.get_mask().all()


def test_game_params_lists_each_games_parameters_with_their_defaults():
    assert game_params("tictactoe") == {}
    assert game_params("connect4") == {"rows": 6, "cols": 7, "n_in_row": 4}
    assert game_params("gomoku") == {"size": 15, "n_in_row": 5}
    assert game_params("dots_and_boxes") == {"rows": 3, "cols": 3}


@pytest.mark.parametrize(("name", "params"), config_params())
def test_params_rebuild_the_same_starting_position(name, params):
    game = make(name, **params)
    assert game.params == {**game_params(name), **params}
    assert make(name, **game.params) == game


def test_make_rejects_an_unknown_game_naming_it_and_the_choices():
    with pytest.raises(UnknownGameError, match="unknown game 'chess'") as info:
        make("chess")
    assert isinstance(info.value, ValueError)
    for name in GAMES:
        assert name in str(info.value)


@pytest.mark.parametrize(
    ("name", "params", "bad"),
    [
        ("connect4", {"columns": 7}, "columns"),
        ("connect4", {"rows": 6, "x_in_row": 4}, "x_in_row"),
        ("gomoku", {"connect": 5}, "connect"),
        ("dots_and_boxes", {"num_rows": 2}, "num_rows"),
        ("tictactoe", {"size": 3}, "size"),
    ],
)
def test_make_rejects_an_unknown_parameter_naming_it(name, params, bad):
    with pytest.raises(ValueError, match=rf"{name} has no parameter {bad}\b"):
        make(name, **params)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("gomoku", {"size": 0}, "size must be in 3..26, got 0"),
        ("gomoku", {"size": 2}, "size must be in"),
        ("gomoku", {"size": -15}, "size must be in"),
        ("gomoku", {"size": 27}, "size must be in"),
        ("gomoku", {"size": "15"}, "size must be an integer, got '15'"),
        ("gomoku", {"size": 15.0}, "size must be an integer"),
        ("gomoku", {"size": True}, "size must be an integer"),
        ("gomoku", {"size": None}, "size must be an integer"),
        ("gomoku", {"n_in_row": 16}, "n_in_row must be in 3..15, got 16"),
        ("gomoku", {"size": 6, "n_in_row": 7}, "n_in_row must be in 3..6, got 7"),
        ("gomoku", {"n_in_row": 2}, "n_in_row must be in"),
        ("gomoku", {"n_in_row": 0}, "n_in_row must be in"),
        ("gomoku", {"n_in_row": "5"}, "n_in_row must be an integer"),
        ("connect4", {"rows": 0}, "rows must be in 2..20, got 0"),
        ("connect4", {"cols": 0}, "cols must be in 2..20, got 0"),
        ("connect4", {"rows": 1}, "rows must be in 2..20, got 1"),
        ("connect4", {"cols": 21}, "cols must be in 2..20, got 21"),
        ("connect4", {"rows": "6"}, "rows must be an integer"),
        ("connect4", {"cols": 7.5}, "cols must be an integer"),
        ("connect4", {"n_in_row": 0}, "n_in_row must be in"),
        ("connect4", {"n_in_row": 1}, "n_in_row must be in"),
        ("connect4", {"n_in_row": 8}, "n_in_row must be in 2..7, got 8"),
        ("connect4", {"rows": 4, "cols": 4, "n_in_row": 5}, "n_in_row must be in"),
        ("connect4", {"n_in_row": False}, "n_in_row must be an integer"),
        ("dots_and_boxes", {"rows": 0}, "rows must be in 1..10"),
        ("dots_and_boxes", {"cols": 0}, "cols must be in 1..10"),
        ("dots_and_boxes", {"rows": 11}, "rows must be in"),
        ("dots_and_boxes", {"cols": -1}, "cols must be in"),
        ("dots_and_boxes", {"rows": "3"}, "rows must be an integer"),
        ("dots_and_boxes", {"cols": 2.0}, "cols must be an integer"),
    ],
)
def test_bad_parameter_values_raise_value_error_naming_the_parameter(name, params, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make(name, **params)


def test_game_errors_form_one_hierarchy_of_value_errors():
    assert issubclass(GameOverError, IllegalMoveError)
    for error in (IllegalMoveError, MoveParseError, UnknownGameError):
        assert issubclass(error, GameError) and issubclass(error, ValueError)


# ========================================================================= tic-tac-toe
def _count_games(position, memo: dict) -> Counter:
    """Finished games below ``position``, counted by (score, plies left)."""
    key = position.key()
    if key not in memo:
        if position.is_over:
            memo[key] = Counter({(position.score, 0): 1})
        else:
            total: Counter = Counter()
            for action in position.available_moves:
                for (score, plies), n in _count_games(position.sim_move(action), memo).items():
                    total[score, plies + 1] += n
            memo[key] = total
    return memo[key]


def test_tictactoe_has_255168_possible_games_and_5478_positions():
    memo: dict = {}
    games = _count_games(TicTacToe(), memo)
    assert sum(games.values()) == 255_168
    assert len(memo) == 5478  # every reachable position, the empty board included
    by_score = Counter()
    by_length = Counter()
    for (score, plies), n in games.items():
        by_score[score] += n
        by_length[plies] += n
    assert by_score == {1: 131_184, -1: 77_904, 0: 46_080}
    assert by_length == {5: 1440, 6: 5328, 7: 47_952, 8: 72_576, 9: 127_872}


@pytest.mark.slow
def test_tictactoe_has_255168_games_by_plain_depth_first_search():
    def leaves(position) -> int:
        if position.is_over:
            return 1
        return sum(leaves(position.sim_move(a)) for a in position.available_moves)

    assert leaves(TicTacToe()) == 255_168


def test_tictactoe_is_gomoku_on_three_by_three_with_three_in_a_row():
    game = TicTacToe()
    assert isinstance(game, Gomoku)
    assert game.params == {} and game.num_actions == 9
    assert TicTacToe.from_moves([4, 0]).key() == Gomoku.from_moves([4, 0], size=3, n_in_row=3).key()


# ========================================================================== lines: wins
@pytest.mark.parametrize(("size", "n"), [(3, 3), (5, 3), (6, 4), (8, 5), (15, 5), (11, 9)])
def test_every_gomoku_line_wins_in_every_direction_for_either_player(size, n):
    """Every line of ``n`` on the board (so every edge and corner), completed by the first or
    the second player, with the completing stone at each place along it."""
    start = TicTacToe() if size == 3 else Gomoku(size=size, n_in_row=n)
    directions = Counter()
    for index, (direction, line) in enumerate(lines_on_board(size, size, n)):
        # All completing stones on the small boards; one per line, in turn, on the big ones.
        lasts = line if size <= 8 else [line[index % n]]
        for winner in (1, -1):
            for last in lasts:
                moves = gomoku_line_win(size, n, line, winner, last)
                game, cells = replay_checked(start, moves)
                assert game.score == winner, (direction, line)
                assert cells[-1] == last
                assert all(game.state[cell] == winner for cell in line)
                assert game.available_moves == [] and not game.get_mask().any()
        directions[direction] += 1
    assert set(directions) == set(DIRECTIONS)


@pytest.mark.parametrize(
    ("rows", "cols", "n"),
    [(6, 7, 4), (5, 6, 4), (4, 5, 3), (7, 6, 4), (6, 7, 5), (9, 9, 8), (10, 10, 9)],
)
def test_every_connect4_line_wins_in_every_direction_for_either_player(rows, cols, n):
    """Positions built by search, checked move by move against a brute-force line finder."""
    rng = random.Random(7)
    start = Connect4(rows=rows, cols=cols, n_in_row=n)
    directions = Counter()
    for direction, line in lines_on_board(rows, cols, n):
        # A vertical line can only be completed from the top (line[0], row 0 being the top).
        lasts = [line[0]] if direction == "vertical" else line
        for winner in (1, -1):
            for last in lasts:
                moves = connect4_line_win(start, line, winner, last, rng)
                assert moves is not None, f"no game found for {direction} {line} {winner}"
                game, cells = replay_checked(start, moves)
                assert game.score == winner
                assert cells[-1] == last
                assert all(game.state[cell] == winner for cell in line)
        directions[direction] += 1
    assert set(directions) == set(DIRECTIONS)


@pytest.mark.parametrize(
    ("moves", "winner", "where"),
    [
        ("1 1 2 2 3 3 4", 1, "horizontal, bottom left corner"),
        ("1 7 2 6 1 5 2 4", -1, "horizontal, bottom right corner, second player"),
        ("7 1 7 1 7 1 7", 1, "vertical, right edge"),
        ("1 2 1 2 1 2 3 2", -1, "vertical, second column"),
        ("1 2 2 3 4 3 3 4 4 5 4", 1, "diagonal /, from the bottom left corner"),
        ("7 6 6 5 4 5 5 4 4 3 4", 1, "diagonal \\, into the bottom right corner"),
    ],
)
def test_readable_connect4_wins(moves, winner, where):
    columns = moves.split()
    before = from_notation(Connect4(), columns[:-1])
    assert not before.is_over, where
    after = before.sim_move(parse(before, columns[-1]))
    assert after.score == winner, where
    replay_checked(Connect4(), [int(c) - 1 for c in columns])


@pytest.mark.parametrize(
    ("size", "n", "moves"),
    [
        # X a1 b1 c1 e1 f1, O on row 3 with a gap, then X d1 joins six.
        (15, 5, "a1 a3 b1 b3 c1 c3 e1 d3 f1 f3 d1"),
        # Seven: a1-c1 and e1-g1 joined by d1.
        (15, 5, "a1 a3 b1 b3 c1 c3 e1 e3 f1 f3 g1 h5 d1"),
        # Five on a board that wants four.
        (6, 4, "a1 a3 b1 b3 d1 d3 e1 e3 c1"),
        # Six on the diagonal of an 8x8 board that wants five.
        (8, 5, "a1 a8 b2 b8 c3 c8 e5 e8 f6 g8 d4"),
    ],
)
def test_overlines_win_in_gomoku(size, n, moves):
    start = Gomoku(size=size, n_in_row=n)
    texts = moves.split()
    before, _ = replay_checked(start, [parse(start, t) for t in texts[:-1]])
    assert not before.is_over
    after = before.sim_move(parse(before, texts[-1]))
    assert after.score == 1


def test_connect4_overline_of_five_wins():
    assert from_notation(Connect4(), ["1", "7", "2", "7", "4", "7", "5", "6", "3"]).score == 1


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_connect4_n_in_row_sets_how_many_stones_win(n):
    """A horizontal run on the bottom row wins exactly when it reaches ``n``."""
    game = Connect4(rows=6, cols=7, n_in_row=n)
    for k in range(n):
        assert game.score is None
        game = game.sim_move(k)  # X along the bottom row
        if k < n - 1:
            game = game.sim_move(k)  # O right on top of it
    assert game.score == 1


def test_a_gomoku_row_does_not_continue_onto_the_next_row():
    """Actions 4, 5, 6, 7 on 6x6 are consecutive numbers but not a line."""
    game = Gomoku.from_moves([4, 30, 5, 32, 6, 34, 7], size=6, n_in_row=4)
    assert game.score is None


def test_a_connect4_column_does_not_continue_into_the_next_one():
    """X on the top three cells of column 1 and the bottom of column 2 is no line."""
    game = from_notation(Connect4(), ["2", "1", "3", "1", "3", "1", "1", "5", "1", "5", "1"])
    assert game.state[0:3, 0].tolist() == [1, 1, 1] and game.state[5, 1] == 1
    assert game.score is None


LINE_GAMES = [
    ("tictactoe", {}, 300),
    ("gomoku", {"size": 4, "n_in_row": 3}, 300),
    ("gomoku", {"size": 4, "n_in_row": 4}, 300),
    ("gomoku", {"size": 6, "n_in_row": 4}, 200),
    ("gomoku", {"size": 7, "n_in_row": 6}, 100),
    ("gomoku", {"size": 9, "n_in_row": 5}, 100),
    ("gomoku", {"size": 15, "n_in_row": 5}, 40),
    ("gomoku", {"size": 26, "n_in_row": 5}, 5),
    ("gomoku", {"size": 10, "n_in_row": 8}, 30),
    ("gomoku", {"size": 11, "n_in_row": 9}, 30),
    ("connect4", {}, 400),
    ("connect4", {"rows": 2, "cols": 2, "n_in_row": 2}, 200),
    ("connect4", {"rows": 3, "cols": 3, "n_in_row": 3}, 200),
    ("connect4", {"rows": 4, "cols": 4, "n_in_row": 3}, 200),
    ("connect4", {"rows": 3, "cols": 8, "n_in_row": 3}, 200),
    ("connect4", {"rows": 8, "cols": 3, "n_in_row": 3}, 200),
    ("connect4", {"rows": 6, "cols": 7, "n_in_row": 7}, 100),
    ("connect4", {"rows": 9, "cols": 9, "n_in_row": 5}, 50),
    ("connect4", {"rows": 20, "cols": 20, "n_in_row": 4}, 5),
    ("connect4", {"rows": 9, "cols": 10, "n_in_row": 8}, 30),
    ("connect4", {"rows": 12, "cols": 10, "n_in_row": 11}, 30),
    ("connect4", {"rows": 2, "cols": 20, "n_in_row": 2}, 50),
    ("connect4", {"rows": 20, "cols": 2, "n_in_row": 5}, 50),
]


@pytest.mark.parametrize(
    ("name", "params", "games"),
    [pytest.param(n, p, g, id="-".join([n, *map(str, p.values())])) for n, p, g in LINE_GAMES],
)
def test_random_games_agree_with_a_brute_force_line_finder(name, params, games):
    """Legal moves, board, player and result after every move, on many board shapes."""
    rng = random.Random(99)
    start = make(name, **params)
    for _ in range(games):
        game, reference = start, ReferenceLines.like(start)
        while not game.is_over:
            if reference.gravity:
                expected = [c for c in range(game.num_actions) if reference.board[0, c] == 0]
            else:
                expected = np.flatnonzero(reference.board.ravel() == 0).tolist()
            assert game.available_moves == expected
            action = rng.choice(expected)
            game = game.sim_move(action)
            reference.play(action)
            assert game.score == reference.score
            assert game.player == reference.player
            assert np.array_equal(game.state, reference.board)
        assert reference.score is not None


def test_the_winning_line_runs_through_the_last_stone_overlines_included():
    c4 = from_notation(Connect4(), ["1", "2", "1", "2", "1", "2", "1"])
    assert view_for(c4).winning_line(c4) == [(2, 0), (3, 0), (4, 0), (5, 0)]
    # 6x6, four in a row: the last stone joins two runs of two into a line of five.
    moves = ["a1", "f6", "b2", "f5", "d4", "f4", "e5", "a6", "c3"]
    gomoku = from_notation(Gomoku(size=6, n_in_row=4), moves)
    assert gomoku.score == 1
    assert view_for(gomoku).winning_line(gomoku) == [(1, 4), (2, 3), (3, 2), (4, 1), (5, 0)]
    going = from_notation(TicTacToe(), ["a1", "b1", "a2", "b2"])
    assert view_for(going).winning_line(going) == []
    ttt = from_notation(TicTacToe(), ["a1", "b1", "a2", "b2", "a3"])
    assert view_for(ttt).winning_line(ttt) == [(0, 0), (1, 0), (2, 0)]
    boxes = DotsAndBoxes.from_moves([0, 1, 2, 3], rows=1, cols=1)
    assert boxes.score is not None and view_for(boxes).winning_line(boxes) == []


@pytest.mark.parametrize(
    ("name", "params", "games"),
    [pytest.param(n, p, g, id="-".join([n, *map(str, p.values())])) for n, p, g in LINE_GAMES],
)
def test_a_won_game_names_a_straight_line_of_the_winners_stones_through_the_last(
    name, params, games
):
    rng = random.Random(7)
    start = make(name, **params)
    view = view_for(start)
    need = start.params.get("n_in_row", 3)
    for _ in range(games):
        game = start
        while not game.is_over:
            assert view.winning_line(game) == []
            game = game.sim_move(rng.choice(game.available_moves))
        line = view.winning_line(game)
        if not game.score:
            assert line == []
            continue
        assert len(line) >= need and line == sorted(line)
        assert all(game.state[r, c] == game.score for r, c in line)
        steps = {(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(line)}
        assert len(steps) == 1 and steps <= {(0, 1), (1, 0), (1, 1), (1, -1)}
        last = game.last_move
        assert last is not None
        # The action of each cell: a column in Connect Four, a point in Gomoku.
        cols = game.state.shape[1]
        actions = {c if name == "connect4" else r * cols + c for r, c in line}
        assert last in actions


def test_a_won_board_draws_its_winning_line_in_brackets():
    won = from_notation(TicTacToe(), ["a1", "b1", "a2", "b2", "a3"])
    view = view_for(won)
    assert view.render(won).splitlines()[1:4] == [
        " 3 [X] .  .  3",
        " 2 [X] O  .  2",
        " 1 [X] O  .  1",
    ]
    c4 = from_notation(Connect4(), ["1", "2", "1", "2", "1", "2", "1"])
    rows = view_for(c4).render(c4).splitlines()
    assert rows[3:7] == [
        "[X] .  .  .  .  .  . ",
        "[X] O  .  .  .  .  . ",
        "[X] O  .  .  .  .  . ",
        "[X] O  .  .  .  .  . ",
    ]
    going = from_notation(TicTacToe(), ["a1", "b1", "a2"])
    assert "[" not in view.render(going) and "(X)" in view.render(going)


# ============================================================================== draws
def test_tictactoe_full_board_draw():
    #  X O X
    #  X O O
    #  O X X
    moves = ["a3", "b3", "c3", "b2", "a2", "c2", "b1", "a1", "c1"]
    before = from_notation(TicTacToe(), moves[:-1])
    assert before.score is None
    game = before.sim_move(parse(before, moves[-1]))
    assert game.score == 0 and game.is_over
    assert game.available_moves == []
    assert game.value_for_mover() == 0.0


@pytest.mark.parametrize(("rows", "cols", "n"), [(6, 7, 4), (5, 6, 4), (4, 5, 3), (7, 6, 4)])
def test_connect4_full_board_draw(rows, cols, n):
    target = no_line_pattern(rows, cols)
    assert not has_line(target, 1, n) and not has_line(target, -1, n)
    order = drop_order(target)
    assert order is not None
    game, _ = replay_checked(Connect4(rows=rows, cols=cols, n_in_row=n), order)
    assert game.score == 0
    assert np.array_equal(game.state, target)
    assert game.available_moves == []


@pytest.mark.parametrize(("size", "n"), [(4, 3), (6, 4), (8, 5), (15, 5)])
def test_gomoku_full_board_draw(size, n):
    target = no_line_pattern(size, size)
    assert not has_line(target, 1, n) and not has_line(target, -1, n)
    first = [int(a) for a in np.flatnonzero(target.ravel() == 1)]
    second = [int(a) for a in np.flatnonzero(target.ravel() == -1)]
    assert len(first) - len(second) in (0, 1)
    moves = [a for pair in zip(first, second, strict=False) for a in pair]
    moves += first[len(second) :]
    game, _ = replay_checked(Gomoku(size=size, n_in_row=n), moves)
    assert game.score == 0
    assert np.array_equal(game.state, target)


# ==================================================================== dots and boxes
def _boxes_game(moves: str, rows: int = 2, cols: int = 2) -> list[DotsAndBoxes]:
    """Every position of the game ``moves`` (edges by their dots), the start first."""
    positions = [DotsAndBoxes(rows=rows, cols=cols)]
    for text in moves.split():
        positions.append(positions[-1].sim_move(parse(positions[-1], text)))
    return positions


def test_completing_a_box_gives_the_same_player_another_move():
    # X top, O left, X right, O bottom: O closes the top-left box and moves again.
    positions = _boxes_game("a1-b1 a1-a2 b1-b2 a2-b2")
    assert [p.player for p in positions] == [1, -1, 1, -1, -1]
    final = positions[-1]
    assert final.boxes == (0, 1) and final.score is None
    assert final.state[1, 1] == -1  # the box, marked with its owner
    assert value_to_parent(0.5, final, positions[-2]) == 0.5  # same mover: no sign flip
    assert value_to_parent(0.5, positions[-2], positions[-3]) == -0.5


def test_a_move_closing_two_boxes_scores_both_and_keeps_the_turn():
    # Three sides each of the two top boxes, then the edge they share.
    positions = _boxes_game("a1-b1 b1-c1 a1-a2 c1-c2 a2-b2 b2-c2 b1-b2")
    assert [p.boxes for p in positions[:-1]] == [(0, 0)] * 7
    before, after = positions[-2], positions[-1]
    assert before.player == 1
    assert after.boxes == (2, 0)
    assert after.player == 1 and after.score is None
    assert after.state[1, 1] == after.state[1, 3] == 1


def test_dots_and_boxes_the_player_with_more_boxes_wins():
    positions = _boxes_game(
        "a1-b1 b1-c1 a1-a2 c1-c2 a2-b2 b2-c2 b1-b2"  # X takes the top two boxes
        " a2-a3 b2-b3 a3-b3"  # X takes bottom left
        " c2-c3 b3-c3"  # O takes bottom right with the last edge
    )
    players = [p.player for p in positions]
    assert players == [1, -1, 1, -1, 1, -1, 1, 1, -1, 1, 1, -1, -1]
    final = positions[-1]
    assert final.boxes == (3, 1)
    assert final.score == 1 and final.is_over
    assert all(p.score is None for p in positions[:-1])


def test_dots_and_boxes_the_second_player_closes_a_single_box():
    for order in ("a1-b1 a2-b2 a1-a2 b1-b2", "b1-b2 a1-a2 a2-b2 a1-b1"):
        final = _boxes_game(order, rows=1, cols=1)[-1]
        assert final.boxes == (0, 1) and final.score == -1


def test_dots_and_boxes_two_all_on_two_by_two_is_a_draw():
    positions = _boxes_game(
        "a1-a2 b3-c3 c2-c3 b2-c2 b2-b3 a3-b3 c1-c2 a2-b2 a1-b1 a2-a3 b1-c1 b1-b2"
    )
    final = positions[-1]
    assert final.boxes == (2, 2)
    assert final.score == 0 and final.is_over
    players = [p.player for p in positions]
    assert any(a == b for a, b in itertools.pairwise(players))  # an extra turn


def _dots(text: str) -> frozenset:
    a, b = text.split("-")
    return frozenset((int(d[1:]) - 1, LETTERS.index(d[0])) for d in (a, b))


def _closed_boxes(drawn: set, rows: int, cols: int) -> set:
    closed = set()
    for r in range(rows):
        for c in range(cols):
            sides = [
                frozenset({(r, c), (r, c + 1)}),
                frozenset({(r + 1, c), (r + 1, c + 1)}),
                frozenset({(r, c), (r + 1, c)}),
                frozenset({(r, c + 1), (r + 1, c + 1)}),
            ]
            if all(side in drawn for side in sides):
                closed.add((r, c))
    return closed


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (1, 3), (2, 2), (2, 3), (3, 3), (4, 2)])
def test_dots_and_boxes_turns_pass_only_when_no_box_is_closed(rows, cols):
    """Random games against the rules written out with dots: the player moves again exactly
    when a box closes, boxes go to whoever closed them, more boxes wins."""
    rng = random.Random(3)
    for _ in range(150):
        game = DotsAndBoxes(rows=rows, cols=cols)
        drawn: set = set()
        owned = {1: 0, -1: 0}
        while not game.is_over:
            action = rng.choice(game.available_moves)
            before = _closed_boxes(drawn, rows, cols)
            drawn.add(_dots(view_for(game).format_move(action)))
            closed = len(_closed_boxes(drawn, rows, cols) - before)
            child = game.sim_move(action)
            owned[game.player] += closed
            assert child.boxes == (owned[1], owned[-1])
            assert (child.player == game.player) == (closed > 0)
            game = child
        assert len(drawn) == game.num_actions
        assert owned[1] + owned[-1] == rows * cols
        assert game.score == (owned[1] > owned[-1]) - (owned[1] < owned[-1])


# ==================================================================== illegal moves
def test_dropping_into_a_full_column_is_illegal_and_says_which():
    game = from_notation(Connect4(), ["1"] * 6)
    assert game.score is None and 0 not in game.available_moves and not game.is_legal(0)
    with pytest.raises(IllegalMoveError, match="column 1 is full") as info:
        game.sim_move(0)
    assert not isinstance(info.value, GameOverError)


@pytest.mark.parametrize(
    ("game", "point"), [(TicTacToe(), "b2"), (Gomoku(), "h8"), (Gomoku(), "a1")]
)
def test_playing_on_an_occupied_point_is_illegal_and_says_which(game, point):
    action = parse(game, point)
    for position in (game.sim_move(action), game.sim_move(action).sim_move((action + 1) % 9)):
        assert not position.is_legal(action)
        with pytest.raises(IllegalMoveError, match=f"{point} is already taken"):
            position.sim_move(action)


def test_drawing_an_edge_twice_is_illegal_and_says_which():
    game = _boxes_game("a1-b1")[-1]
    with pytest.raises(IllegalMoveError, match="edge a1-b1 is already drawn"):
        game.sim_move(parse(game, "b1-a1"))


@pytest.mark.parametrize(("name", "params"), config_params())
def test_no_move_can_be_played_after_the_end(name, params, rng):
    final = play_random(make(name, **params), rng)[-1]
    assert final.is_over and final.score in (-1, 0, 1)
    assert final.available_moves == [] and not final.get_mask().any()
    for action in range(final.num_actions):
        assert not final.is_legal(action)
        with pytest.raises(GameOverError, match="the game is over"):
            final.sim_move(action)


@pytest.mark.parametrize(("name", "params"), config_params())
def test_actions_out_of_range_or_not_integers_are_refused(name, params):
    game = make(name, **params)
    last = game.num_actions - 1
    for action in (-1, game.num_actions, 10**9, -(10**9), 1.0, "1", None, [0], True):
        with pytest.raises(IllegalMoveError, match=rf"action .* is outside 0\.\.{last}"):
            game.sim_move(action)
    assert game == make(name, **params)


def test_numpy_integer_actions_are_accepted():
    game = Gomoku().sim_move(np.int64(112))
    assert game.last_move == 112 and type(game.last_move) is int
    assert Connect4().sim_move(np.argmax(np.eye(7)[3])).state[5, 3] == 1


def test_from_moves_reports_illegal_moves_and_bad_notation():
    view = view_for(TicTacToe())
    with pytest.raises(IllegalMoveError, match="already taken"):
        view.from_moves(["b2", "b2"])
    with pytest.raises(MoveParseError):
        view.from_moves(["b2", "middle"])
    with pytest.raises(GameOverError):
        view.from_moves(["a1", "a2", "b1", "b2", "c1", "c2"])
    with pytest.raises(IllegalMoveError, match="already taken"):
        TicTacToe.from_moves([4, 4])


# =========================================================================== notation
NOTATION_CONFIGS = [
    *GAME_CONFIGS,
    ("gomoku", {"size": 26, "n_in_row": 5}),
    ("gomoku", {"size": 3, "n_in_row": 3}),
    ("connect4", {"rows": 20, "cols": 20, "n_in_row": 4}),
    ("dots_and_boxes", {"rows": 10, "cols": 10}),
    ("dots_and_boxes", {"rows": 1, "cols": 7}),
]


@pytest.mark.parametrize(("name", "params"), config_params(NOTATION_CONFIGS))
def test_format_then_parse_gives_back_every_action(name, params):
    game = make(name, **params)
    view = view_for(game)
    texts = [view.format_move(a) for a in range(game.num_actions)]
    assert len(set(texts)) == game.num_actions
    for action, text in enumerate(texts):
        assert view.parse_move(text) == action
        assert view.parse_move(f"  {text.upper()}\t") == action


def test_notation_examples():
    t = view_for(TicTacToe())
    assert [t.format_move(a) for a in (0, 2, 4, 6, 8)] == ["a3", "c3", "b2", "a1", "c1"]
    g = view_for(Gomoku())
    assert g.format_move(0) == "a15" and g.format_move(224) == "o1"
    assert g.parse_move("h8") == g.parse_move("8,8") == g.parse_move("8 8") == 112
    assert g.parse_move("c 3") == g.parse_move("3, 3") == g.parse_move("C3") == 12 * 15 + 2
    c = view_for(Connect4())
    assert c.format_move(0) == "1" and c.parse_move("7") == 6 and c.parse_move(" 04 ") == 3
    d = view_for(DotsAndBoxes())
    assert d.format_move(0) == "a1-b1" and d.format_move(11) == "c4-d4"
    assert d.format_move(12) == "a1-a2" and d.format_move(23) == "d3-d4"
    assert d.parse_move("b1-a1") == d.parse_move("a1b1") == d.parse_move("A1 - B1") == 0


COMMON_BAD_TEXT = [
    "",
    "   ",
    "\n",
    "\x00",
    "hello",
    "pass",
    "-1",
    "1.5",
    "+3",
    "²",
    "٣",
    "３",
    "x" * 10_000,
    "1" * 10_000,
    "a1" * 5_000,
    "a1-b1" * 2_000,
]
BAD_TEXT = {
    "tictactoe": ["a0", "a4", "d1", "b", "2", "b²", "b٢", "b２", "2,٢"],
    "gomoku": ["a0", "a16", "p1", "0,1", "16,1", "1,16", "c", "c3c", "c²", "c٣", "c３", "3,٣"],
    "connect4": ["0", "8", "a", "4a", "1 2", "1,2", "4²", "²", "1000"],
    "dots_and_boxes": [
        "a1-c1",
        "a1-b2",
        "a1-a1",
        "a1-a3",
        "e1-e2",
        "a1-a5",
        "a0-a1",
        "a1",
        "a1-",
        "a1-b1-c1",
        "a١-b1",
        "a²-b²",
    ],
}


@pytest.mark.parametrize(
    ("name", "params", "text"),
    [
        pytest.param(name, params, text, id=f"{name}-{text[:12]!r}")
        for name, params in [
            ("tictactoe", {}),
            ("gomoku", {}),
            ("connect4", {}),
            ("dots_and_boxes", {}),
        ]
        for text in [*COMMON_BAD_TEXT, *BAD_TEXT[name]]
    ],
)
def test_bad_text_raises_move_parse_error_with_a_short_message(name, params, text):
    game = make(name, **params)
    with pytest.raises(MoveParseError) as info:
        parse(game, text)
    assert 10 < len(str(info.value)) < 200


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("connect4", "8", "there is no column 8: type a number 1-7"),
        ("connect4", "left", "is not a column: type a number 1-7"),
        ("gomoku", "p1", "off the board: columns a-o, rows 1-15"),
        ("gomoku", "a16", "off the board"),
        ("gomoku", "middle", "is not a point"),
        ("tictactoe", "d1", "off the board: columns a-c, rows 1-3"),
        ("dots_and_boxes", "a1-c1", "an edge joins two neighbouring dots"),
        ("dots_and_boxes", "a1-b2", "an edge joins two neighbouring dots"),
        ("dots_and_boxes", "a1-e1", "e1 is not a dot: columns a-d, rows 1-4"),
        ("dots_and_boxes", "top", "is not an edge: name its two dots"),
    ],
)
def test_parse_errors_say_what_is_wrong(name, text, message):
    with pytest.raises(MoveParseError, match=re.escape(message)):
        parse(make(name), text)


# ====================================================================== immutability
def _snapshot(game) -> tuple:
    return (
        game.key(),
        game.player,
        game.score,
        game.last_move,
        game.available_moves,
        game.state.tobytes(),
        game.encode().tobytes(),
    )


@pytest.mark.parametrize(("name", "params"), config_params())
def test_sim_move_leaves_the_original_untouched(name, params, rng):
    for position in random_positions(name, params, rng, 6):
        before = _snapshot(position)
        for action in position.available_moves:
            child = position.sim_move(action)
            assert child is not position and child.last_move == action
            assert child != position
            unchecked = position.sim_legal_move(action)
            assert unchecked == child and unchecked is not position
        assert _snapshot(position) == before


@pytest.mark.parametrize(("name", "params"), config_params())
def test_a_copy_is_independent_of_the_original(name, params, rng):
    for position in random_positions(name, params, rng, 4):
        before = _snapshot(position)
        action = rng.choice(position.available_moves)
        copy = position.copy()
        assert copy == position and hash(copy) == hash(position)
        copy._apply(action)
        assert _snapshot(position) == before
        assert copy == position.sim_move(action)


def test_positions_compare_by_rules_and_contents_not_by_history():
    assert Gomoku.from_moves([0, 1, 2]) == Gomoku.from_moves([2, 1, 0])
    assert hash(Gomoku.from_moves([0, 1, 2])) == hash(Gomoku.from_moves([2, 1, 0]))
    assert Gomoku.from_moves([0, 1, 2]) != Gomoku.from_moves([0, 2, 1])
    assert Gomoku(size=6, n_in_row=4) != Gomoku(size=6, n_in_row=5)
    assert TicTacToe() != Gomoku(size=3, n_in_row=3)
    assert Connect4(rows=6, cols=7) != Connect4(rows=7, cols=7)


# =========================================================================== encode
@pytest.mark.parametrize(("name", "params"), config_params())
def test_encode_gives_float32_planes_of_the_announced_shape(name, params, rng):
    game = make(name, **params)
    if name == "dots_and_boxes":
        shape = (2 * game.rows + 1, 2 * game.cols + 1, 4)
    elif name == "connect4":
        shape = (game.rows, game.cols, 3)
    else:
        shape = (game.size, game.size, 3)
    for position in random_positions(name, params, rng, 5):
        planes = position.encode()
        assert planes.shape == shape == position.plane_shape
        assert planes.dtype == np.float32
        assert set(np.unique(planes)) <= {0.0, 1.0}
        assert (planes[:, :, -1] == 1).all()


def test_gomoku_encode_shows_the_movers_stones_in_plane_0():
    start = Gomoku()
    after_x = start.sim_move(parse(start, "h8"))  # O to move
    planes = after_x.encode()
    assert planes[7, 7, 0] == 0 and planes[7, 7, 1] == 1
    after_o = after_x.sim_move(parse(after_x, "a1"))  # X to move
    planes = after_o.encode()
    assert planes[7, 7, 0] == 1 and planes[14, 0, 1] == 1
    assert planes[:, :, :2].sum() == 2


def test_connect4_encode_shows_the_movers_stones_in_plane_0_row_0_at_the_top():
    game = from_notation(Connect4(), ["4"])  # O to move; X's stone at the bottom of column 4
    assert game.encode()[5, 3, 1] == 1 and game.encode()[:, :, 0].sum() == 0
    game = game.sim_move(3)  # X to move; O on top of X
    assert game.encode()[5, 3, 0] == 1 and game.encode()[4, 3, 1] == 1


@pytest.mark.parametrize(("name", "params"), config_params(GAME_CONFIGS[:7]))
def test_stones_swap_planes_every_move_in_line_games(name, params, rng):
    for _ in range(20):
        positions = play_random(make(name, **params), rng)
        for parent, child in itertools.pairwise(positions):
            before, after = parent.encode(), child.encode()
            new_stone = (child.state != parent.state).astype(np.float32)
            assert new_stone.sum() == 1
            assert np.array_equal(after[:, :, 0], before[:, :, 1])
            assert np.array_equal(after[:, :, 1], before[:, :, 0] + new_stone)
            assert np.array_equal(after[:, :, 0] - after[:, :, 1], child.state * child.player)


def test_dots_and_boxes_encode_keeps_the_movers_boxes_in_plane_1_across_an_extra_turn():
    positions = _boxes_game("a1-b1 b1-c1 a1-a2 c1-c2 a2-b2 b2-c2 b1-b2 a2-a3")
    closed, passed = positions[-2], positions[-1]
    planes = closed.encode()  # X closed two boxes and moves again
    assert closed.player == 1
    assert planes[1, 1, 1] == planes[1, 3, 1] == 1
    assert planes[:, :, 1].sum() == 2 and planes[:, :, 2].sum() == 0
    planes = passed.encode()  # X drew an edge that closes nothing: O to move
    assert passed.player == -1
    assert planes[1, 1, 2] == planes[1, 3, 2] == 1
    assert planes[:, :, 1].sum() == 0 and planes[:, :, 2].sum() == 2
    # Plane 0: the drawn edges, on the lattice between the dots.
    assert planes[0, 1, 0] == 1 and planes[1, 0, 0] == 1 and planes[0, 0, 0] == 0
    assert planes[:, :, 0].sum() == 8


@pytest.mark.parametrize(("rows", "cols"), [(2, 2), (2, 3), (3, 3)])
def test_dots_and_boxes_encode_matches_the_state_in_random_games(rows, cols, rng):
    for _ in range(20):
        for position in play_random(DotsAndBoxes(rows=rows, cols=cols), rng):
            planes, lattice = position.encode(), position.state
            edges = np.zeros(lattice.shape, bool)
            edges[0::2, 1::2] = True
            edges[1::2, 0::2] = True
            assert np.array_equal(planes[:, :, 0], (lattice != 0) & edges)
            boxes = np.zeros(lattice.shape, np.int8)
            boxes[1::2, 1::2] = lattice[1::2, 1::2] * position.player
            assert np.array_equal(planes[:, :, 1], boxes == 1)
            assert np.array_equal(planes[:, :, 2], boxes == -1)
            first, second = position.boxes
            assert (lattice[1::2, 1::2] == 1).sum() == first
            assert (lattice[1::2, 1::2] == -1).sum() == second


# ========================================================================= symmetries
SYMMETRY_CONFIGS = [
    *GAME_CONFIGS,
    ("dots_and_boxes", {"rows": 3, "cols": 2}),
    ("dots_and_boxes", {"rows": 1, "cols": 3}),
    ("connect4", {"rows": 4, "cols": 4, "n_in_row": 3}),
]


def _expected_symmetries(game) -> int:
    if game.name == "connect4":
        return 2
    if game.name == "dots_and_boxes" and game.rows != game.cols:
        return 4
    return 8


@pytest.mark.parametrize(("name", "params"), config_params(SYMMETRY_CONFIGS))
def test_symmetries_transform_planes_and_policy_consistently(name, params, rng):
    """For each symmetry: the policy is permuted, and playing the permuted moves from the
    start gives exactly the transformed planes, legal moves and children."""
    start = make(name, **params)
    n = start.num_actions
    histories = [
        [],
        random_history(start, rng, 3),
        random_history(start, rng, capacity(start) // 2),
    ]
    histories.append([p.last_move for p in play_random(start, rng)[1:]])  # a finished game
    for history in histories:
        position = type(start).from_moves(history, **params)
        planes = position.encode()
        numbered = np.arange(n, dtype=np.float32)
        pairs = position.symmetries(planes, numbered)
        assert len(pairs) == _expected_symmetries(start)
        assert np.array_equal(pairs[0][0], planes) and np.array_equal(pairs[0][1], numbered)
        weights = np.array([rng.random() for _ in range(n)], dtype=np.float32)
        seen = set()
        for k, (planes_k, numbered_k) in enumerate(pairs):
            assert planes_k.dtype == np.float32 and planes_k.shape == planes.shape
            perm = numbered_k.astype(int)  # new_policy[b] = policy[perm[b]]
            assert sorted(perm) == list(range(n))
            seen.add(tuple(perm))
            image = np.argsort(perm)  # action a maps to image[a]
            weights_k = position.symmetries(planes, weights)[k][1]
            assert np.array_equal(weights_k[image], weights)
            mapped = type(start).from_moves([int(image[a]) for a in history], **params)
            assert np.array_equal(planes_k, mapped.encode())
            assert (mapped.player, mapped.score) == (position.player, position.score)
            assert np.array_equal(position.get_mask()[perm], mapped.get_mask())
            for action in position.available_moves:
                child = position.sim_move(action).encode()
                assert np.array_equal(
                    position.symmetries(child, numbered)[k][0],
                    mapped.sim_move(int(image[action])).encode(),
                )
        assert len(seen) == len(pairs)  # all different


# ========================================================================== playouts
@pytest.mark.parametrize(("name", "params"), config_params())
def test_playout_returns_a_result_and_a_plausible_number_of_moves(name, params, rng):
    for position in random_positions(name, params, rng, 30):
        before = _snapshot(position)
        score, plies = position.playout(rng)
        assert _snapshot(position) == before
        assert score in (-1, 0, 1)
        free = remaining(position)
        if name == "dots_and_boxes":
            assert plies == free  # only the last edge ends the game
            continue
        assert 1 <= plies <= free
        if score == 0:
            assert plies == free  # a draw fills the board
        else:  # whoever made the last move won
            assert score == (position.player if plies % 2 == 1 else -position.player)


@pytest.mark.parametrize(("name", "params"), config_params())
def test_playout_of_a_finished_game_is_its_score_and_no_moves(name, params, rng):
    final = play_random(make(name, **params), rng)[-1]
    assert final.playout(rng) == (final.score, 0)
    assert final.random_playout(rng) == final.score


@pytest.mark.parametrize(("name", "params"), config_params())
def test_random_playout_is_the_score_of_playout(name, params, rng):
    for position in random_positions(name, params, rng, 5):
        for seed in range(5):
            expected = position.playout(random.Random(seed))[0]
            assert position.random_playout(random.Random(seed)) == expected


@pytest.mark.parametrize(
    ("n", "shortest"), [(3, 5), (4, 7), (5, 9)]
)  # the first player's n-th stone is the (2n-1)-th
def test_connect4_playout_from_the_start_needs_enough_moves_to_win(n, shortest, rng):
    game = Connect4(rows=6, cols=7, n_in_row=n)
    for _ in range(500):
        score, plies = game.playout(rng)
        assert plies >= shortest
        assert score == (1 if plies % 2 else -1) or (score == 0 and plies == 42)


def _exact_outcomes(position, memo: dict) -> tuple[dict, float]:
    """Probabilities of each score and the expected length of a uniformly random game."""
    key = position.key()
    if key not in memo:
        if position.is_over:
            memo[key] = ({position.score: 1.0}, 0.0)
        else:
            moves = position.available_moves
            probs: dict = {}
            length = 0.0
            for action in moves:
                child_probs, child_length = _exact_outcomes(position.sim_move(action), memo)
                for score, p in child_probs.items():
                    probs[score] = probs.get(score, 0.0) + p / len(moves)
                length += (child_length + 1) / len(moves)
            memo[key] = (probs, length)
    return memo[key]


def _late_position(name, params, free: int, seed: int):
    """A position still in play with ``free`` empty cells (edges) left."""
    rng = random.Random(seed)
    start = make(name, **params)
    while True:
        position = start
        while not position.is_over and remaining(position) > free:
            position = position.sim_move(rng.choice(position.available_moves))
        if not position.is_over:
            return position


EXACT_CASES = [
    ("tictactoe", {}, None),
    ("connect4", {"rows": 4, "cols": 4, "n_in_row": 3}, None),
    ("connect4", {"rows": 3, "cols": 4, "n_in_row": 4}, None),  # four: the fast path, and
    ("connect4", {"rows": 2, "cols": 5, "n_in_row": 4}, None),  # wins on the 7th stone
    ("connect4", {}, 13),  # late in the game, with full columns: the n = 4 fast path
    ("connect4", {"rows": 5, "cols": 5, "n_in_row": 4}, 12),  # 256 % 5 != 0: the spare byte
    ("connect4", {"rows": 6, "cols": 7, "n_in_row": 5}, 13),
    ("gomoku", {"size": 6, "n_in_row": 4}, 11),
    ("dots_and_boxes", {"rows": 2, "cols": 2}, None),
    ("dots_and_boxes", {"rows": 1, "cols": 3}, None),
    ("dots_and_boxes", {"rows": 3, "cols": 3}, 10),
]


@pytest.mark.parametrize(
    ("name", "params", "free"),
    [pytest.param(*case, id=f"{case[0]}-{'-'.join(map(str, case[1].values()))}-{case[2]}")
     for case in EXACT_CASES],
)  # fmt: skip
def test_playout_results_follow_the_exact_random_game_distribution(name, params, free):
    """The fast playout loops must pick uniformly random moves: their results and lengths
    are compared with the exact distribution of a random game, computed by full search."""
    position = make(name, **params) if free is None else _late_position(name, params, free, 1)
    probs, mean_length = _exact_outcomes(position, {})
    runs = 20_000
    rng = random.Random(2024)
    counts = Counter()
    lengths = []
    for _ in range(runs):
        score, plies = position.playout(rng)
        counts[score] += 1
        lengths.append(plies)
    for score in (-1, 0, 1):
        p = probs.get(score, 0.0)
        sigma = math.sqrt(p * (1 - p) / runs)
        assert abs(counts[score] / runs - p) <= 5 * sigma + 1e-12, (score, counts, probs)
    spread = float(np.std(lengths)) / math.sqrt(runs)
    assert abs(float(np.mean(lengths)) - mean_length) <= 5 * spread + 1e-9


@pytest.mark.parametrize(
    ("name", "params"),
    config_params(
        [
            ("connect4", {}),
            ("connect4", {"rows": 5, "cols": 8, "n_in_row": 4}),
            ("connect4", {"rows": 4, "cols": 5, "n_in_row": 3}),
            ("dots_and_boxes", {}),
            ("dots_and_boxes", {"rows": 2, "cols": 3}),
            ("gomoku", {"size": 8, "n_in_row": 5}),
        ]
    ),
)
def test_playout_wins_as_often_as_random_games_played_with_sim_move(name, params):
    """Win, draw and loss rates and mean length of ``playout`` against random games driven
    through ``sim_move``, from the start and from a position in mid-game."""
    runs = 3000
    start = make(name, **params)
    for position in (start, _late_position(name, params, capacity(start) // 2, 5)):
        fast, fast_length = sampled_outcomes(position, random.Random(1), runs, type(start).playout)
        slow, slow_length = sampled_outcomes(position, random.Random(2), runs, sim_move_playout)
        for score in (-1, 0, 1):
            p = (fast[score] + slow[score]) / (2 * runs)
            sigma = math.sqrt(p * (1 - p) * 2 / runs)
            assert abs(fast[score] - slow[score]) / runs <= 5 * sigma + 1e-12, (fast, slow)
        assert abs(fast_length - slow_length) <= 0.05 * slow_length + 0.5


# ============================================================================ values
def test_value_for_mover_needs_a_finished_game_and_takes_the_movers_view():
    with pytest.raises(ValueError, match="finished game"):
        Connect4().value_for_mover()
    won = from_notation(Connect4(), ["1", "2", "1", "2", "1", "2", "1"])  # X wins, O "to move"
    assert won.score == 1 and won.player == -1
    assert won.value_for_mover() == -1.0


@pytest.mark.parametrize(("name", "params"), config_params())
def test_render_draws_a_board_and_repr_names_the_game(name, params, rng):
    for position in random_positions(name, params, rng, 3):
        text = view_for(position).render(position)
        assert isinstance(text, str) and text.count("\n") >= 2
        assert type(position).__name__ in repr(position)


# ------------------------------------------------ what the search asks of a whole batch
@pytest.mark.parametrize(("name", "params"), config_params())
def test_ending_moves_are_the_moves_after_which_the_game_is_over(name, params):
    rng = random.Random(5)
    for _ in range(20):
        for position in play_random(make(name, **params), rng):
            ending = [a for a in position.available_moves if position.sim_move(a).is_over]
            assert position.ending_moves() == ending


@pytest.mark.parametrize(("name", "params"), config_params())
def test_batch_encoding_and_masks_match_one_position_at_a_time(name, params):
    rng = random.Random(6)
    positions = [p for _ in range(5) for p in play_random(make(name, **params), rng)]
    planes = type(positions[0]).encode_batch(positions)
    assert planes.dtype == np.float32
    np.testing.assert_array_equal(planes, np.stack([p.encode() for p in positions]))
    masks = type(positions[0]).mask_batch(positions)  # finished games included: no moves
    np.testing.assert_array_equal(masks, np.stack([p.get_mask() for p in positions]))
