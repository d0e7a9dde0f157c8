"""The Connect Four development sets (``experiments/data/connect4_openings*_dev.tsv``), on which
recipes are chosen, share no position with a set that reports: the committed 1,002, the two
fresh sets and Pons' six benchmark sets, played or mirrored."""

from __future__ import annotations

from pathlib import Path

import pytest
from connect4_fresh_positions import board_keys  # experiments/

from alphazero.evaluation.pons_positions import SETS, read_set
from alphazero.evaluation.solved_positions import load_positions

DATA = Path(__file__).resolve().parents[1] / "experiments" / "data"
DEVELOPMENT = ("connect4_openings_dev.tsv", "connect4_openings_drawn_dev.tsv")
FRESH = ("connect4_fresh.tsv", "connect4_fresh_seed2.tsv")


@pytest.fixture(scope="module")
def reporting_keys() -> set[tuple[int, ...]]:
    """The game keys of every position of the sets that report, played and mirrored."""
    keys: set[tuple[int, ...]] = set()
    fresh = [p for name in FRESH for p in load_positions(DATA / name)]
    for position in [*load_positions(), *fresh]:
        keys |= board_keys(list(position.moves))
    for name, _ in SETS:
        for moves, _ in read_set(DATA / "pons" / name):
            keys |= board_keys([int(c) - 1 for c in moves])
    return keys


@pytest.mark.parametrize("name", DEVELOPMENT)
def test_a_development_set_shares_no_position_with_a_reporting_set(name, reporting_keys):
    shared = [
        "".join(str(m + 1) for m in position.moves)
        for position in load_positions(DATA / name)
        if board_keys(list(position.moves)) & reporting_keys
    ]
    assert shared == []
