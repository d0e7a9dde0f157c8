"""``experiments/connect4_opening_targets.py``: the move sequences it rebuilds from a buffer's
planes (legal, ending no game, and reaching the very position), the table ``--out`` writes read
back by ``--positions``, and a table row's figures."""

from __future__ import annotations

import re

import numpy as np
import pytest
from connect4_opening_targets import (  # experiments/
    Position,
    TableError,
    attach,
    parse_table,
    rebuild_moves,
    replays_to,
    shares,
    table_text,
)

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


def solved(moves: list[int], targets: list[float], result: int) -> Position:
    planes = Connect4.from_moves(moves).encode().astype(np.uint8)
    return Position(planes, targets, moves, result)


def test_a_table_out_writes_reads_back_onto_the_buffer_positions_mirror_images_too():
    won, drawn = solved([3, 3, 2, 4], [0.5, 0.9], 1), solved([0, 6, 1, 5], [0.1, -0.3], 0)
    text = table_text([won, drawn], sample=[won, drawn], common=[drawn])
    rows = parse_table(text, "t.tsv")
    assert [(r.moves, r.examples, r.result, r.sampled, r.common) for r in rows] == [
        ([3, 3, 2, 4], 2, 1, True, False),
        ([0, 6, 1, 5], 2, 0, True, True),
    ]
    assert [r.target for r in rows] == [0.7, -0.1]
    # The buffer holds the drawn position as its mirror image, and without moves or result.
    mirrored = Position(drawn.planes[:, ::-1].copy(), drawn.targets)
    every = [Position(won.planes, won.targets), mirrored]
    sample, common = attach(rows, every, "t.tsv", "b.npz")
    assert sample == every and common == [mirrored]
    assert (mirrored.result, mirrored.moves) == (0, [0, 6, 1, 5])


def test_a_table_that_does_not_fit_is_one_error_naming_its_line():
    position = solved([3, 3, 2, 4], [0.5, 0.9], 1)
    text = table_text([position], sample=[position], common=[])
    for bad in (
        text.replace("4435", "4485"),  # no column 8
        text.replace("\t1\t1\t0\n", "\t2\t1\t0\n"),  # a result of 2
        text.replace("\t1\t0\n", "\t0\t0\n"),  # neither sampled nor common
    ):
        with pytest.raises(TableError, match=re.escape("t.tsv line 2: expected")):
            parse_table(bad, "t.tsv")
    with pytest.raises(TableError, match=re.escape("t.tsv: not a table")):
        parse_table(text.replace("moves", "move"), "t.tsv")
    other = Position(position.planes, [0.5, 0.9, 0.1, 0.1])  # the buffer has more examples
    with pytest.raises(
        TableError, match=re.escape("b.npz has 4 examples of 4435 (2 examples in the table)")
    ):
        attach(parse_table(text, "t.tsv"), [other], "t.tsv", "b.npz")
    with pytest.raises(TableError, match=re.escape("b.npz does not hold 4435")):
        attach(parse_table(text, "t.tsv"), [], "t.tsv", "b.npz")


def test_shares_counts_beyond_each_cut_and_the_wrong_sign_of_decided_results():
    values = np.array([0.9, 0.4, -0.2, 0.0])
    assert shares(values, 1) == "+0.275 | 0.375 | 50.0% | 25.0% | 25.0% | 25.0%"
    assert shares(values, 0, (1 / 3,)) == "+0.275 | 0.375 | 50.0% | -"
