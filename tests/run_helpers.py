"""Small run-folder pieces shared by the tests: a tiny trained model, a replay buffer of
random examples, configs of a run of a few seconds (tic-tac-toe throughout), and a run folder
of format 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import keras
import numpy as np

from alphazero.config import config_from_dict
from alphazero.games import make
from alphazero.training.checkpoints import RunDir
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


def old_layout_run(path: Path, models: list[keras.Model]) -> RunDir:
    """A run folder as format 1 left it after iteration 3 (iteration 2 kept and the best):
    every model file holds its optimizer, the run resumes from ``models/iter_0003.keras``, and
    its replay buffer (10 examples, values 300 to 309) is a file of buffer format 1."""
    run = RunDir.create(path, make_config())
    models[1].save(run.path / "models" / "iter_0002.keras")
    models[2].save(run.path / "models" / "iter_0003.keras")
    buffer = tiny_buffer(10, 300)
    order = buffer._order()
    np.savez_compressed(
        run.path / "buffer_0003.npz",
        format=np.int64(1),
        capacity=np.int64(buffer.capacity),
        total_added=np.int64(buffer.total_added),
        planes=buffer._planes[order],
        policies=buffer._policies[order],
        values=buffer._values[order],
    )
    shutil.copyfile(run.path / "models" / "iter_0003.keras", run.path / "latest.keras")
    shutil.copyfile(run.path / "models" / "iter_0002.keras", run.path / "best.keras")
    metadata = {
        "games": 3,
        "positions": 10,
        "game": "tictactoe",
        "format": 1,
        "iteration": 3,
        "model": "models/iter_0003.keras",
        "buffer": "buffer_0003.npz",
        "best": "models/iter_0002.keras",
        "kept_models": ["models/iter_0002.keras"],
    }
    (run.path / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")
    return run
