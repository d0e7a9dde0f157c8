"""``experiments/connect4_drawn_openings.py``: which solved openings the drawn-heavy development
set keeps."""

from __future__ import annotations

import collections

from connect4_drawn_openings import keep_balanced  # experiments/


def test_keeps_every_draw_and_as_many_wins_of_each_length_and_no_loss():
    kept: collections.Counter[tuple[int, int]] = collections.Counter()
    batch = [
        ("44332211", 1),  # a win before the draws it is to match: still kept
        ("4433221", -1),
        ("44556677", 0),
        ("43214321", 1),
        ("444333222", 1),  # no draw of 9 moves: not kept
        ("11223344", 0),
        ("77665544", 1),
    ]
    chosen = keep_balanced(batch, kept)
    assert chosen == ["44556677", "11223344", "44332211", "43214321"]
    assert kept == {(8, 0): 2, (8, 1): 2}


def test_wins_left_over_wait_for_later_draws_of_their_length():
    kept: collections.Counter[tuple[int, int]] = collections.Counter({(8, 0): 1, (8, 1): 1})
    assert keep_balanced([("44332211", 1)], kept) == []
    assert keep_balanced([("43214321", 1), ("44556677", 0)], kept) == ["44556677", "43214321"]
    assert kept == {(8, 0): 2, (8, 1): 2}
