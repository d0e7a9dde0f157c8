"""Self-play gives exactly the games it gave before its loop was rewritten.

Each case of ``selfplay_regression.py`` (fixed seeds; PUCT with noise, playout caps, random
openings, the value-target mix; Gumbel; the evaluation cache) is played again and
compared, game by game, with the examples and counters recorded in
``selfplay_regression.json``.
"""

from __future__ import annotations

import json

import pytest
from selfplay_regression import CASES, FIXTURE, run_case

RECORDED = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("case", list(CASES))
def test_fixed_seed_selfplay_gives_the_recorded_games(case):
    expected, found = RECORDED[case], run_case(case)
    assert found["lengths"] == expected["lengths"]
    for key, value in expected.items():
        if key != "finished":
            assert found[key] == value, key
    for game, (want, got) in enumerate(zip(expected["finished"], found["finished"], strict=True)):
        assert got["planes"] == want["planes"], f"game {game}"
        assert got["values"] == pytest.approx(want["values"], abs=1e-6), f"game {game}"
        assert len(got["policies"]) == len(want["policies"]), f"game {game}"
        for a, b in zip(want["policies"], got["policies"], strict=True):
            assert b == pytest.approx(a, abs=1e-6), f"game {game}"
