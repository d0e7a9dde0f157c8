"""Small run-folder pieces shared by the tests: a tiny trained model, a replay buffer of
random examples, and configs of a run of a few seconds (tic-tac-toe throughout)."""

from __future__ import annotations

import keras
import numpy as np

from alphazero.config import config_from_dict
from alphazero.games import make
from alphazero.training.replay_buffer import ReplayBuffer

GAME = make("tictactoe")
SHAPE = GAME.plane_shape
ACTIONS = GAME.num_actions


def tiny_model(seed: int = 0) -> keras.Model:
    """Input -> Dense policy and value heads, compiled with Adam and trained one step."""
    keras.utils.set_random_seed(seed)
    inputs = keras.Input(shape=SHAPE, name="planes")
    flat = keras.layers.Flatten()(inputs)
    policy = keras.layers.Dense(ACTIONS, name="policy")(flat)
    value = keras.layers.Dense(1, activation="tanh", name="value")(flat)
    model = keras.Model(inputs, [policy, value])
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2),
        loss=[keras.losses.CategoricalCrossentropy(from_logits=True), "mse"],
    )
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, size=(8, *SHAPE)).astype(np.float32)
    y_policy = np.eye(ACTIONS, dtype=np.float32)[rng.integers(0, ACTIONS, size=8)]
    y_value = rng.uniform(-1, 1, size=(8, 1)).astype(np.float32)
    model.train_on_batch(x, [y_policy, y_value])
    return model


def tiny_buffer(n: int, start: int = 0) -> ReplayBuffer:
    buffer = ReplayBuffer(50, SHAPE, ACTIONS)
    rng = np.random.default_rng(start)
    planes = rng.integers(0, 2, size=(n, *SHAPE)).astype(np.float32)
    policies = rng.dirichlet(np.ones(ACTIONS), size=n).astype(np.float32)
    buffer.add(planes, policies, np.arange(start, start + n, dtype=np.float32))
    return buffer


def make_config(game: str = "tictactoe"):
    return config_from_dict(
        {
            "game": {"name": game},
            "replay": {"capacity": 50},
            "train": {"min_positions": 0},
            "run_name": "test",
        }
    )


TINY = {
    "game": {"name": "tictactoe"},
    "network": {"filters": 8, "blocks": 1, "value_hidden": 8},
    "search": {"simulations": 8},
    "selfplay": {"games_per_iteration": 6, "parallel_games": 3, "temperature_moves": 3},
    "replay": {"capacity": 500},
    "train": {"batch_size": 16, "steps_per_iteration": 4, "min_positions": 0},
    "checkpoint": {"keep_every": 2},
    "evaluation": {"every": 0},
    "iterations": 3,
    "seed": 7,
}


def tiny_config(**overrides):
    return config_from_dict({**TINY, **overrides})
