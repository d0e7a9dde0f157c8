"""Self-play examples: whose point of view the outcome is from, and the speed-up switches."""

from __future__ import annotations

import numpy as np
import pytest

from alphazero.config import SearchConfig, SelfPlayConfig
from alphazero.games import make
from alphazero.search import Node
from alphazero.selfplay.loop import (
    _finish,
    _Slot,
    play_games,
)
from alphazero.selfplay.results import SelfPlayStats


def uniform(num_actions):
    def policy(planes):
        return np.zeros((len(planes), num_actions)), np.zeros(len(planes))

    return policy


def finished_slot(players, values=None):
    game = make("dots_and_boxes", rows=1, cols=1)
    slot = _Slot(Node(game))
    values = values or [0.0] * len(players)
    planes = game.encode()
    for move, (player, value) in enumerate(zip(players, values, strict=True)):
        slot.records.append((planes, np.full(4, 0.25, np.float32), player, value, move))
    slot.moves = len(players)
    return slot


@pytest.mark.parametrize(
    ("players", "score", "expected"),
    [
        ([1, -1, 1, -1], 1, [1, -1, 1, -1]),  # alternating, first player won
        ([1, -1, 1, -1], -1, [-1, 1, -1, 1]),
        ([1, 1, -1, -1], 1, [1, 1, -1, -1]),  # extra turns: the same player twice
        ([1, -1, -1], 0, [0, 0, 0]),
    ],
)
def test_outcome_is_for_the_player_to_move_in_each_position(players, score, expected):
    planes, policies, values = [], [], []
    config = SelfPlayConfig(augment=False)
    _finish(finished_slot(players), score, config, SelfPlayStats(), planes, policies, values)
    assert values == expected


def test_value_target_mix_blends_the_result_with_the_search_value():
    planes, policies, values = [], [], []
    config = SelfPlayConfig(augment=False, value_target_mix=0.25)
    slot = finished_slot([1, -1], values=[0.2, -0.6])
    _finish(slot, 1, config, SelfPlayStats(), planes, policies, values)
    assert values == pytest.approx([0.75 * 1 + 0.25 * 0.2, 0.75 * -1 + 0.25 * -0.6])


def test_playout_cap_randomisation_keeps_only_full_searches():
    rng = np.random.default_rng(0)
    search = SearchConfig(simulations=16)
    plain = SelfPlayConfig(games_per_iteration=8, parallel_games=8, augment=False)
    capped = SelfPlayConfig(
        games_per_iteration=8,
        parallel_games=8,
        augment=False,
        fast_simulations=4,
        full_search_share=0.3,
    )
    every, stats = play_games(lambda: make("connect4"), uniform(7), 8, search, plain, rng, False)
    assert len(every) == stats.moves  # one example per move
    some, stats = play_games(lambda: make("connect4"), uniform(7), 8, search, capped, rng, False)
    assert 0.15 * stats.moves < len(some) < 0.45 * stats.moves
    assert stats.simulations < 0.6 * 16 * stats.moves  # most moves were cheap


def opening_lengths(game: str, share: float, max_moves: int, games: int) -> list[int]:
    """Stones on the board at each game's first example (one game per call, in order)."""
    config = SelfPlayConfig(
        parallel_games=1, augment=False, random_opening_share=share, random_opening_moves=max_moves
    )
    rng = np.random.default_rng(5)
    num_actions = make(game).num_actions
    lengths = []
    for _ in range(games):
        examples, _ = play_games(
            lambda: make(game), uniform(num_actions), 1, SearchConfig(simulations=4), config, rng,
            False,
        )  # fmt: skip
        lengths.append(int(examples.planes[0, :, :, :2].sum()))  # a game always leaves one
    return lengths


def test_random_openings_are_unrecorded_and_never_end_the_game():
    assert set(opening_lengths("connect4", 0.0, 6, 5)) == {0}
    assert set(opening_lengths("connect4", 1.0, 6, 40)) == set(range(1, 7))
    # Tic-tac-toe games often end within 8 random moves; the opening must stop short of it.
    lengths = opening_lengths("tictactoe", 1.0, 8, 40)
    assert max(lengths) == 8 and min(lengths) >= 1


def test_cheap_searches_move_on_and_keep_the_network_batch_full():
    sizes: list[int] = []

    def counting(planes):
        sizes.append(len(planes))
        return np.zeros((len(planes), 7)), np.zeros(len(planes))

    search = SearchConfig(simulations=32)
    capped = SelfPlayConfig(
        games_per_iteration=8, parallel_games=8, fast_simulations=4, full_search_share=0.5
    )
    rng = np.random.default_rng(0)
    play_games(lambda: make("connect4"), counting, 8, search, capped, rng, False)
    # Before the first game can end (7 moves), all 8 games are searched at every step: a
    # game whose cheap search is done plays its move and starts the next search at once,
    # instead of waiting for the full searches of the others.
    assert sizes[:60] == [8] * 60
    assert max(sizes) == 8


def test_each_game_is_handed_over_with_its_examples_as_it_ends():
    """What lets Ctrl-C keep the games finished so far: they are out of play_games already."""
    arrived: list = []
    moves: list[int] = []
    search = SearchConfig(simulations=4)
    selfplay = SelfPlayConfig(games_per_iteration=5, parallel_games=2)
    examples, stats = play_games(
        lambda: make("tictactoe"), uniform(9), 5, search, selfplay, np.random.default_rng(0),
        progress=False, on_game=lambda e, s: arrived.append((e, s)), on_step=moves.append,
    )  # fmt: skip
    assert [so_far.games for _, so_far in arrived] == [1, 2, 3, 4, 5]
    for part in ("planes", "policies", "values"):
        joined = np.concatenate([getattr(e, part) for e, _ in arrived])
        np.testing.assert_array_equal(joined, getattr(examples, part))
    assert arrived[-1][1].lengths == stats.lengths
    assert moves == sorted(moves) and moves[-1] == stats.moves
