"""``experiments/play_search.py``'s head-to-head match starts from different openings: two
searches without noise replay the same game from the same position, so a repeated opening
would count one result twice."""

from __future__ import annotations

import numpy as np
import pytest
from play_search import openings  # experiments/play_search.py

from alphazero.games import make


def test_openings_are_different_unfinished_positions_the_given_moves_in():
    found = openings(make("connect4"), 49, 2, np.random.default_rng(0))
    assert len(found) == len(set(found)) == 49  # every 2-move position, once
    assert all(game.score is None for game in found)
    assert {int(game.encode()[..., :2].sum()) for game in found} == {2}  # two stones each


def test_asking_for_more_openings_than_there_are_is_an_error():
    with pytest.raises(ValueError, match="fewer than 50 different positions"):
        openings(make("connect4"), 50, 2, np.random.default_rng(0))
