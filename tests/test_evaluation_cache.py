"""The evaluation cache answers as the network would, and spares it the positions seen before."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from alphazero.config import SearchConfig, SelfPlayConfig
from alphazero.games import make
from alphazero.search import EvaluationCache
from alphazero.selfplay.loop import play_games


class CountingPolicy:
    """A deterministic 'network' (logits and value from the planes) that counts positions."""

    def __init__(self, num_actions: int) -> None:
        self.num_actions = num_actions
        self.positions = 0

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.positions += len(planes)
        flat = planes.reshape(len(planes), -1)
        weights = np.sin(np.arange(flat.shape[1] * self.num_actions)).reshape(flat.shape[1], -1)
        return flat @ weights, np.tanh(flat.sum(axis=1) / 10 - 1)


def test_cache_answers_repeated_positions_without_the_network():
    game = make("connect4")
    planes = np.stack([game.encode(), game.sim_move(3).encode(), game.encode()])
    network = CountingPolicy(7)
    cache = EvaluationCache(network, capacity=100)
    logits, values = cache(planes)
    assert network.positions == 2  # the repeated start position was evaluated once
    expected_logits, expected_values = CountingPolicy(7)(planes)
    assert np.allclose(logits, expected_logits) and np.allclose(values, expected_values)
    cache(planes[:2])
    assert network.positions == 2
    assert (cache.hits, cache.lookups) == (3, 5)


def test_cache_forgets_the_oldest_beyond_its_capacity():
    game = make("connect4")
    network = CountingPolicy(7)
    cache = EvaluationCache(network, capacity=2)
    for action in range(3):
        cache(game.sim_move(action).encode()[None])
    cache(game.sim_move(0).encode()[None])
    assert network.positions == 4 and len(cache.entries) == 2


@pytest.mark.parametrize("algorithm", ["puct", "gumbel"])
def test_self_play_with_the_cache_plays_the_same_games_with_fewer_evaluations(algorithm):
    search = SearchConfig(algorithm=algorithm, simulations=16)
    selfplay = SelfPlayConfig(games_per_iteration=8, parallel_games=4, temperature_moves=4)
    results = []
    for cache_size in (0, 100_000):
        network = CountingPolicy(7)
        examples, stats = play_games(
            lambda: make("connect4"),
            network,
            8,
            dataclasses.replace(search, evaluation_cache=cache_size),
            selfplay,
            np.random.default_rng(0),
            progress=False,
        )
        results.append((examples, stats, network.positions))
    (plain, _, plain_positions), (cached, stats, cached_positions) = results
    assert np.array_equal(plain.policies, cached.policies)
    assert np.array_equal(plain.values, cached.values)
    assert cached_positions < plain_positions
    assert stats.cache_hits == stats.cache_lookups - cached_positions
