"""The threat-aware Gomoku baseline (``alphabeta:DEPTH``): its shapes, its answers to threats
where the right move is known, whole games on small and full boards, and its spec."""

from __future__ import annotations

import numpy as np
import pytest

from alphazero.baselines import gomoku_patterns
from alphazero.baselines.alphabeta import AlphaBetaPlayer, AlphaBetaSearch
from alphazero.baselines.gomoku_patterns import (
    BROKEN_THREE,
    FOUR,
    OPEN_FOUR,
    OPEN_THREE,
    THREE,
    TWO,
    PatternBoard,
    Shapes,
    shapes_for,
)
from alphazero.config import ConfigError, load_config
from alphazero.evaluation.arena import play_match
from alphazero.evaluation.player_specs import PlayerSpecError, check_spec
from alphazero.evaluation.players import make_player
from alphazero.games import make, view_for
from alphazero.games.base import Game
from alphazero.games.gomoku import Gomoku


def position(size: int, first: list[str], second: list[str]) -> Game:
    """Five in a row on ``size x size``: the first player's stones ``first`` and the second's
    ``second`` (in the game's notation), played alternately; the lengths say who moves."""
    moves = [m for pair in zip(first, second, strict=False) for m in pair]
    moves += first[len(second) :] + second[len(first) :]
    return view_for(Gomoku(size=size, n_in_row=5)).from_moves(moves)


def win_cells(state: np.ndarray, colour: int, n: int) -> set[tuple[int, int]]:
    """Every empty cell where ``colour`` would make ``n`` in a row: a plain scan of every
    window, independent of the pattern module."""
    size = state.shape[0]
    found = set()
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(size):
            for c in range(size):
                cells = [(r + i * dr, c + i * dc) for i in range(n)]
                if not all(0 <= rr < size and 0 <= cc < size for rr, cc in cells):
                    continue
                values = [state[rr, cc] for rr, cc in cells]
                if values.count(colour) == n - 1 and values.count(0) == 1:
                    found.add(cells[values.index(0)])
    return found


# ------------------------------------------------------------------------------- shapes
@pytest.mark.parametrize(
    ("line", "score"),
    [
        ("...XXXX....", OPEN_FOUR),
        ("..X.XXX....", FOUR),
        ("OXXXX......", FOUR),
        ("...XXX.....", OPEN_THREE),
        ("...X.XX....", BROKEN_THREE),
        ("OXXX.......", THREE),
        ("...XX......", TWO),
    ],
)
def test_a_line_is_read_as_its_named_shape(line, score):
    own = sum(1 << p for p, mark in enumerate(line) if mark == "X")
    opp = sum(1 << p for p, mark in enumerate(line) if mark == "O")
    shape = shapes_for(5).line(len(line), own, opp)
    room = shape.score - score  # the windows' room, less than any shape's step
    assert 0 <= room < TWO


def test_a_full_memo_starts_afresh_and_reads_lines_the_same(monkeypatch):
    rng = np.random.default_rng(5)
    lines = []
    for _ in range(200):
        cells = rng.integers(0, 3, size=15)  # 0 empty, 1 own, 2 the opponent's
        own = sum(1 << p for p, v in enumerate(cells) if v == 1)
        opp = sum(1 << p for p, v in enumerate(cells) if v == 2)
        lines.append((15, own, opp))
    expected = [Shapes(5).line(*line) for line in lines]
    monkeypatch.setattr(gomoku_patterns, "MAX_MEMO", 30)
    small = Shapes(5)
    assert [small.line(*line) for line in lines] == expected
    assert [small.gains(*line) for line in lines] == [Shapes(5).gains(*line) for line in lines]
    assert sum(len(memo) for memo in (*small._lines, *small._gains)) <= 30


def test_the_board_kept_move_by_move_equals_one_read_afresh():
    rng = np.random.default_rng(3)
    game = make("gomoku", size=9, n_in_row=5)
    board = PatternBoard(9, 5)
    played = []
    for _ in range(30):
        move = int(rng.choice(game.available_moves))
        board.place(move, 0 if game.player == 1 else 1)
        played.append((move, 0 if game.player == 1 else 1))
        game = game.sim_move(move)
        if game.score is not None:
            break
    move, who = played.pop()
    board.remove(move, who)
    board.place(move, who)  # a take-back restores what it undid
    fresh = PatternBoard(9, 5, game.state)
    assert board.total == fresh.total
    assert board.win_lines == fresh.win_lines and board.three_lines == fresh.three_lines
    assert board.line_shapes == fresh.line_shapes


# ---------------------------------------------------------------------------- threats
@pytest.mark.parametrize("size", [8, 15])
@pytest.mark.parametrize("depth", [1, 3])
def test_it_wins_in_one(size, depth):
    # X (to move): c3 d3 e3 f3. O has a four of its own, which must not distract it.
    game = position(size, ["c3", "d3", "e3", "f3"], ["c5", "d5", "e5", "f5"])
    player = AlphaBetaPlayer(depth, seed=0)
    move = player(game)
    assert game.sim_move(move).score == 1
    assert player.last_search is not None and player.last_search.nodes == 0  # seen at once


@pytest.mark.parametrize("size", [8, 15])
@pytest.mark.parametrize("depth", [1, 3])
def test_it_blocks_a_four(size, depth):
    # O (to move) faces X's broken four c3 d3 _ f3 g3 and has an open three of its own.
    game = position(size, ["c3", "d3", "f3", "g3"], ["c6", "d6", "e6"])
    player = AlphaBetaPlayer(depth, seed=0)
    move = player(game)
    assert view_for(game).format_move(move) == "e3"
    assert player.last_search is not None and player.last_search.nodes == 0  # seen at once


@pytest.mark.parametrize(
    ("first", "answers"),
    [
        (["f8", "g8", "h8"], {"e8", "i8"}),  # a far stone (d8) would leave i8 an open four
        (["f8", "h8", "i8"], {"e8", "g8", "j8"}),
        (["b8", "c8", "d8"], {"a8", "e8", "f8"}),  # against the edge: only f8 opens it
    ],
)
def test_an_open_three_leaves_only_its_answers_to_search(first, answers):
    game = position(15, first, ["a1", "o15"])
    search = AlphaBetaSearch(game, 3, np.random.default_rng(0))
    moves, forced = search.moves(game, inner=True)
    assert forced and {view_for(game).format_move(move) for move in moves} == answers
    assert view_for(game).format_move(search.best_move()) in answers


@pytest.mark.parametrize(
    ("first", "size"),
    [
        (["f8", "g8", "h8"], 15),  # open three
        (["f8", "h8", "i8"], 15),  # broken three
        (["e7", "f6", "g5"], 15),  # open three on a diagonal
        (["c4", "d4", "e4"], 8),
    ],
)
@pytest.mark.parametrize("depth", [1, 3])
def test_it_answers_an_open_three(first, size, depth):
    # O to move, its two stones far away: after its answer X has no move that makes two
    # win cells at once (an open four), as a plain scan of every window finds.
    game = position(size, first, ["a1", "a2"] if size == 8 else ["a1", "o15"])
    assert game.player == -1 and not game.ending_moves()
    answered = game.sim_move(AlphaBetaPlayer(depth, seed=0)(game))
    state = answered.state
    for cell in answered.available_moves:
        r, c = divmod(cell, size)
        if not state[max(0, r - 4) : r + 5, max(0, c - 4) : c + 5].any():
            continue  # no stone within reach: no line through it
        after = state.copy()
        after[divmod(cell, size)] = 1
        assert len(win_cells(after, 1, 5)) < 2, view_for(answered).format_move(cell)


# --------------------------------------------------------------------------- whole games
@pytest.mark.parametrize(("size", "n"), [(8, 5), (8, 4), (15, 5)])
def test_it_plays_whole_games_and_beats_random(size, n):
    result = play_match(
        AlphaBetaPlayer(2, seed=0),
        make_player("random", make("gomoku"), seed=1),
        lambda: make("gomoku", size=size, n_in_row=n),
        2,
        progress=False,
    )
    assert result.wins == 2


def test_the_same_seed_plays_the_same_game_and_another_seed_may_not():
    def game_of(seed: int) -> list[int]:
        return play_match(
            AlphaBetaPlayer(1, seed=seed),
            AlphaBetaPlayer(1, seed=seed + 100),
            lambda: make("gomoku", size=9, n_in_row=5),
            1,
            progress=False,
        ).moves[0]

    assert game_of(0) == game_of(0)
    assert any(game_of(seed) != game_of(0) for seed in (1, 2, 3))


def test_the_arena_plays_it_against_a_model():
    from alphazero.config import EvaluationConfig, NetworkConfig
    from alphazero.evaluation.ladder import evaluate
    from alphazero.network.model import build_network

    game = make("gomoku", size=8, n_in_row=5)
    model = build_network(
        game.plane_shape, game.num_actions, NetworkConfig(filters=8, blocks=1, value_hidden=8)
    )
    config = EvaluationConfig(opponents=["alphabeta:2"], games=2, simulations=4)
    ladder = {"alphabeta:2": 0.0}
    result = evaluate(model, config, lambda: make("gomoku", size=8, n_in_row=5), ladder, 0, False)
    record = result["opponents"]["alphabeta:2"]
    assert record["opponent"] == "alphabeta:2"
    assert record["wins"] + record["draws"] + record["losses"] == 2


# ------------------------------------------------------------------------------- the spec
@pytest.mark.parametrize(
    "spec",
    [
        "alphabeta",
        "alphabeta:",
        "alphabeta:x",
        "alphabeta:0",
        "alphabeta:2s",
        "alphabeta:99",
        "alphabeta:3:knowledge",
        "alphabeta:" + "9" * 5000,  # too long for int(): still one line, cut short
    ],
)
def test_a_bad_alphabeta_spec_is_one_line(spec):
    with pytest.raises(PlayerSpecError) as error:
        check_spec(spec)
    assert "\n" not in str(error.value) and len(str(error.value)) < 400
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec, make("gomoku"))
    assert "\n" not in str(error.value)


def test_the_spec_builds_the_player_for_gomoku_only():
    player = make_player("alphabeta:3", make("gomoku"), seed=0)
    assert isinstance(player, AlphaBetaPlayer) and player.name == "alphabeta:3"
    with pytest.raises(PlayerSpecError, match="only Gomoku") as error:
        make_player("alphabeta:3", make("connect4"))
    assert "\n" not in str(error.value)


def test_a_ladder_with_alphabeta_validates_for_gomoku_only(tmp_path):
    config = tmp_path / "ladder.yaml"
    ladder = "evaluation: {every: 10, opponents: [uct:1000, alphabeta:2, alphabeta:3]}\n"
    config.write_text("game: {name: gomoku, params: {size: 15, n_in_row: 5}}\n" + ladder)
    assert load_config(config).evaluation.opponents[-1] == "alphabeta:3"
    config.write_text("game: {name: connect4}\n" + ladder)
    with pytest.raises(ConfigError, match="only Gomoku") as error:
        load_config(config)
    assert "\n" not in str(error.value)


# ------------------------------------------------------------------------------- strength
@pytest.mark.slow
def test_depth_three_beats_uct_5000_on_15x15():
    result = play_match(
        AlphaBetaPlayer(3, seed=0),
        make_player("uct:5000", make("gomoku"), seed=1),
        lambda: make("gomoku", size=15, n_in_row=5),
        10,
        progress=False,
    )
    print(f"alphabeta:3 against uct:5000: {result.wins} won, {result.losses} lost")  # for -s
    assert result.wins >= 9, result
