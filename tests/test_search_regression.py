"""The search finds exactly what it found before its Python was made cheaper.

Each case of ``search_regression.py`` (fixed seeds; PUCT with one and four leaves per tree,
Gumbel, sequential ``explore``; Connect Four, Dots and Boxes, tic-tac-toe, 6x6 Gomoku, and
15x15 Gomoku's wide nodes with Gumbel as its self-play searches) is run again and compared,
move by move, with the visit counts, proven results, moves and values recorded from the
search before the change (``search_regression.json``).
"""

from __future__ import annotations

import json

import pytest
from search_regression import CASES, FIXTURE, run_case

RECORDED = json.loads(FIXTURE.read_text())


def _games(records):
    return records if records and isinstance(records[0], list) else [records]


@pytest.mark.parametrize("case", list(CASES))
def test_fixed_seed_search_gives_the_recorded_visits_moves_and_values(case):
    expected, found = _games(RECORDED[case]), _games(run_case(case))
    assert len(found) == len(expected)
    for game, (want, got) in enumerate(zip(expected, found, strict=True)):
        assert len(got) == len(want), f"game {game}: {len(got)} moves, recorded {len(want)}"
        for move, (a, b) in enumerate(zip(want, got, strict=True)):
            where = f"game {game}, move {move}"
            assert b["visits"] == a["visits"], where
            assert b["solved"] == a["solved"], where
            assert b["action"] == a["action"], where
            assert b["value"] == pytest.approx(a["value"], abs=1e-9), where
            assert b["policy"] == pytest.approx(a["policy"], abs=1e-9), where
