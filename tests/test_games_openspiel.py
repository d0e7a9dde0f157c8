"""The engines against OpenSpiel: random games played in lockstep must agree move by move.

OpenSpiel's player 0 is our first player (+1); its ``returns()[0]`` is the first player's result.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from alphazero.games import make, view_for

pyspiel = pytest.importorskip("pyspiel")

GAMES = 2000  # random games per configuration

# (our name, our params, games): OpenSpiel's parameters are translated by _spiel_game.
CONFIGS = [
    ("tictactoe", {}, GAMES),
    ("connect4", {}, GAMES),
    ("connect4", {"rows": 5, "cols": 6, "n_in_row": 4}, GAMES),
    ("connect4", {"rows": 4, "cols": 5, "n_in_row": 3}, GAMES),
    ("connect4", {"rows": 7, "cols": 9, "n_in_row": 5}, GAMES // 2),
    ("gomoku", {}, GAMES),
    ("gomoku", {"size": 8, "n_in_row": 5}, GAMES),
    ("gomoku", {"size": 6, "n_in_row": 4}, GAMES),
    ("gomoku", {"size": 5, "n_in_row": 3}, GAMES),
    ("dots_and_boxes", {"rows": 1, "cols": 1}, GAMES),
    ("dots_and_boxes", {"rows": 2, "cols": 2}, GAMES),
    ("dots_and_boxes", {}, GAMES),
    ("dots_and_boxes", {"rows": 2, "cols": 3}, GAMES),
    ("dots_and_boxes", {"rows": 3, "cols": 2}, GAMES),
    ("dots_and_boxes", {"rows": 4, "cols": 4}, GAMES // 2),
    ("dots_and_boxes", {"rows": 5, "cols": 5}, GAMES // 2),
]
CONFIG_PARAMS = [
    pytest.param(name, params, games, id="-".join([name, *(f"{k}={v}" for k, v in params.items())]))
    for name, params, games in CONFIGS
]


def _spiel_game(name: str, params: dict):
    """The OpenSpiel game with the same rules as ``make(name, **params)``."""
    p = make(name, **params).params
    if name == "tictactoe":
        return pyspiel.load_game("tic_tac_toe")
    if name == "connect4":
        spiel_params = {"rows": p["rows"], "columns": p["cols"], "x_in_row": p["n_in_row"]}
        return pyspiel.load_game("connect_four", spiel_params)
    if name == "gomoku":
        return pyspiel.load_game("gomoku", {"size": p["size"], "connect": p["n_in_row"]})
    # With the margin as utility, returns()[0] is (first player's boxes - second's).
    spiel_params = {"num_rows": p["rows"], "num_cols": p["cols"], "utility_margin": True}
    return pyspiel.load_game("dots_and_boxes", spiel_params)


def _spiel_board(state, rows: int) -> np.ndarray:
    """The stones of an OpenSpiel tic-tac-toe / Connect Four / Gomoku state, +1 for player 0."""
    text = str(state).strip().splitlines()[-rows:]
    marks = {".": 0, "x": 1, "o": -1, "b": 1, "w": -1}
    return np.array([[marks[ch] for ch in line.strip()] for line in text], dtype=np.int8)


def _play_lockstep(name: str, params: dict, games: int, seed: int) -> None:
    rng = random.Random(seed)
    spiel = _spiel_game(name, params)
    for game_index in range(games):
        game = make(name, **params)
        state = spiel.new_initial_state()
        moves = []
        while True:
            where = (game_index, moves)
            assert game.is_over == state.is_terminal(), where
            if state.is_terminal():
                break
            legal = game.available_moves
            assert legal == sorted(state.legal_actions()), where
            if game_index % 10 == 0:  # the mask is built from the moves: a sample will do
                mask = np.array(state.legal_actions_mask(), dtype=bool)
                assert np.array_equal(game.get_mask(), mask), where
            assert game.player == (1 if state.current_player() == 0 else -1), where
            action = rng.choice(legal)
            moves.append(action)
            game = game.sim_move(action)
            state.apply_action(action)
        assert game.available_moves == [], where
        result = state.returns()[0]
        assert game.score == (result > 0) - (result < 0), where
        if name == "dots_and_boxes":
            first, second = game.boxes
            assert first - second == result, where
        else:
            rows = game.state.shape[0]
            assert np.array_equal(game.state, _spiel_board(state, rows)), where


@pytest.mark.parametrize(("name", "params", "games"), CONFIG_PARAMS)
def test_random_games_agree_with_openspiel_move_by_move(name, params, games):
    """Same legal moves, player to move and end of game at every step, same winner and board."""
    _play_lockstep(name, params, games, seed=1234)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params", "games"), CONFIG_PARAMS)
def test_many_more_random_games_agree_with_openspiel(name, params, games):
    _play_lockstep(name, params, 10 * games, seed=98765)


# ------------------------------------------------------------- action numbering
def test_tictactoe_actions_name_the_same_cells_as_openspiel():
    game = make("tictactoe")
    view = view_for(game)
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    for action in range(game.num_actions):
        row, col = map(
            int, re.fullmatch(r"x\((\d),(\d)\)", state.action_to_string(0, action)).groups()
        )
        # Our notation: column letter, row number counted from the bottom.
        assert view.format_move(action) == f"{'abc'[col]}{3 - row}"


@pytest.mark.parametrize("size", [6, 15])
def test_gomoku_actions_name_the_same_points_as_openspiel(size):
    game = make("gomoku", size=size, n_in_row=4)
    view = view_for(game)
    state = pyspiel.load_game("gomoku", {"size": size, "connect": 4}).new_initial_state()
    for action in range(game.num_actions):
        row, col = map(int, state.action_to_string(0, action).split(","))
        assert view.format_move(action) == f"{'abcdefghijklmnopqrstuvwxyz'[col]}{size - row}"


def test_connect4_actions_are_columns_as_in_openspiel():
    game = make("connect4")
    view = view_for(game)
    state = pyspiel.load_game("connect_four").new_initial_state()
    for action in range(game.num_actions):
        assert state.action_to_string(0, action) == f"x{action}"
        assert view.format_move(action) == str(action + 1)


@pytest.mark.parametrize(("rows", "cols"), [(2, 2), (2, 3), (3, 2), (5, 5)])
def test_dots_and_boxes_actions_name_the_same_edges_as_openspiel(rows, cols):
    game = make("dots_and_boxes", rows=rows, cols=cols)
    view = view_for(game)
    spiel = pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols})
    state = spiel.new_initial_state()
    letters = "abcdefghijklmnopqrstuvwxyz"
    for action in range(game.num_actions):
        text = state.action_to_string(0, action)
        kind, r, c = re.fullmatch(r"P1\(([hv]),(\d+),(\d+)\)", text).groups()
        r, c = int(r), int(c)
        end = (r, c + 1) if kind == "h" else (r + 1, c)
        expected = f"{letters[c]}{r + 1}-{letters[end[1]]}{end[0] + 1}"
        assert view.format_move(action) == expected, text
    assert game.num_actions == spiel.num_distinct_actions()


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("gomoku", {"size": 9, "n_in_row": 5}),
        ("gomoku", {"size": 6, "n_in_row": 4}),
        ("connect4", {}),
    ],
)
def test_an_overline_wins_here_and_in_openspiel(name, params):
    """Six (five) in a row, made by filling the gap between runs, wins in both."""
    n = params.get("n_in_row", 4)
    if name == "gomoku":
        size = params["size"]
        first = [c for c in range(n + 1) if c != n // 2] + [n // 2]  # top row, gap filled last
        second = [2 * size + c for c in range(n - 1)] + [5 * size - 1]  # no line for O
        moves = [m for pair in zip(first, second, strict=False) for m in pair] + [first[-1]]
    else:  # X on the bottom row 1,2,4,5 then 3; O stacks in columns 7 and 6.
        moves = [0, 6, 1, 6, 3, 6, 4, 5, 2]
    game = make(name, **params)
    state = _spiel_game(name, params).new_initial_state()
    for action in moves:
        assert not game.is_over and not state.is_terminal()
        game = game.sim_move(action)
        state.apply_action(action)
    assert game.score == 1
    assert state.is_terminal() and state.returns()[0] == 1
