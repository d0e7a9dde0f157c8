"""The solved Connect Four positions and the two measures of a player on them."""

from __future__ import annotations

import numpy as np
import pytest

from alphazero.evaluation.solved_positions import (
    evaluate_network,
    load_positions,
    measure,
    measure_by_result,
    measure_values,
)


def test_positions_load_and_agree_with_the_engine():
    positions = load_positions()
    assert len(positions) == 1002
    assert [sum(p.stage == s for p in positions) for s in ("4-12", "13-20", "21-30")] == [
        192,
        360,
        450,
    ]
    for p in positions:
        legal = {a for a, v in enumerate(p.move_scores) if v is not None}
        assert set(p.game.available_moves) == legal
        assert p.score == max(v for v in p.move_scores if v is not None)


def test_perfect_choices_score_full_marks_and_blunders_score_none():
    positions = load_positions()
    best = [p.move_scores.index(p.score) for p in positions]
    report = measure(positions, best)
    assert report["all"]["correct"] == 1.0 and report["all"]["exact"] == 1.0

    def worst(p):
        legal = [(v, a) for a, v in enumerate(p.move_scores) if v is not None]
        return min(legal)[1]

    blunders = measure(positions, [worst(p) for p in positions])
    # The worst move of a won or drawn position keeps its result only if every move does.
    keeps = [p for p in positions if p.score >= 0 and all(
        np.sign(v) == np.sign(p.score) for v in p.move_scores if v is not None)]  # fmt: skip
    scorable = [p for p in positions if p.score >= 0]
    assert blunders["all"]["correct"] == len(keeps) / len(scorable)


def test_correct_moves_by_result_split_the_scorable_positions():
    positions = load_positions()
    best = [p.move_scores.index(p.score) for p in positions]
    report = measure_by_result(positions, best)
    assert list(report) == ["draw", "win at the end", "earlier win"]
    assert sum(r["positions"] for r in report.values()) == sum(p.score >= 0 for p in positions)
    assert all(r["correct"] == 1.0 for r in report.values())
    # Spoil only the draws: the two kinds of win keep full marks.
    spoiled = [
        min(a for a, v in enumerate(p.move_scores) if v is not None and v < 0)
        if p.score == 0 and any(v is not None and v < 0 for v in p.move_scores)
        else move
        for p, move in zip(positions, best, strict=True)
    ]
    report = measure_by_result(positions, spoiled)
    assert report["draw"]["correct"] < 0.5
    assert report["win at the end"]["correct"] == report["earlier win"]["correct"] == 1.0


def test_a_random_player_lands_near_the_documented_figures():
    positions = load_positions()
    rng = np.random.default_rng(0)
    shares = []
    for _ in range(20):
        actions = [
            int(rng.choice([a for a, v in enumerate(p.move_scores) if v is not None]))
            for p in positions
        ]
        shares.append(measure(positions, actions)["all"]["correct"])
    assert 0.40 < np.mean(shares) < 0.47  # 43.1% in expectation


def test_exact_values_judge_every_result_and_a_draw_head_only_the_draws():
    positions = load_positions()
    results = np.sign([p.score for p in positions]).astype(float)
    exact = measure_values(positions, results)
    assert exact["all"]["result"] == 1.0 and exact["all"]["mse"] == 0.0
    draws = float(np.mean(results == 0))
    always_draw = measure_values(positions, np.zeros(len(positions)))
    assert always_draw["all"]["result"] == pytest.approx(draws)
    assert always_draw["all"]["mse"] == pytest.approx(1 - draws)
    flipped = measure_values(positions, -0.9 * results)
    assert flipped["all"]["result"] == pytest.approx(draws)
    # The draw band ends at 1/3: 0.3 still reads as a draw, 0.4 as the result.
    assert measure_values(positions, 0.3 * results)["all"]["result"] == pytest.approx(draws)
    assert measure_values(positions, 0.4 * results)["all"]["result"] == 1.0
    with pytest.raises(ValueError, match="values for"):
        measure_values(positions, results[:-1])
    assert sum(r["positions"] for k, r in flipped.items() if k != "all") == len(positions)


def test_evaluate_network_measures_the_top_move_and_the_value_of_one_call():
    positions = load_positions()
    calls = []

    def rightmost_and_hopeful(planes):
        calls.append(len(planes))
        logits = np.tile(np.arange(7, dtype=np.float32), (len(planes), 1))
        return logits, np.full(len(planes), 0.5, dtype=np.float32)

    moves, values = evaluate_network(rightmost_and_hopeful, positions)
    assert len(calls) == 1 and calls[0] >= len(positions)  # one batch, not one per position
    rightmost = [max(a for a, v in enumerate(p.move_scores) if v is not None) for p in positions]
    assert moves == measure(positions, rightmost)
    assert values == measure_values(positions, np.full(len(positions), 0.5))
