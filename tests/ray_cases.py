"""Self-play on Ray actors: training runs through them, and a killed actor loses no game.

Not collected by default: ``test_ray.py`` runs this file inside a private network namespace,
where loopback is the only interface. Ray otherwise talks over the machine's own network
address even for a local instance, which this project's CI must not do.
"""

from __future__ import annotations

import json
import logging
import os

import numpy as np
import pytest

if os.environ.get("ALPHAZERO_NETNS") != "1":
    pytest.skip("run through tests/test_ray.py (private network)", allow_module_level=True)
ray = pytest.importorskip("ray")

from alphazero.config import config_from_dict  # noqa: E402
from alphazero.training.checkpoints import RunDir  # noqa: E402
from alphazero.training.loop import train  # noqa: E402
from alphazero.workers.ray_backend import RayBackend  # noqa: E402

TINY = {
    "game": {"name": "tictactoe"},
    "network": {"filters": 8, "blocks": 1, "value_hidden": 8},
    "search": {"simulations": 8},
    "selfplay": {"games_per_iteration": 8, "parallel_games": 4, "workers": 2, "backend": "ray"},
    "replay": {"capacity": 5000},
    "train": {"batch_size": 16, "steps_per_iteration": 4, "min_positions": 0},
    "checkpoint": {"keep_every": 1},
    "evaluation": {"every": 0},
    "iterations": 3,
    "seed": 5,
}


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def straight_run(local_ray, tmp_path_factory):
    """A run of three iterations on two actors, nothing going wrong."""
    path = tmp_path_factory.mktemp("ray") / "straight"
    state = train(config_from_dict(TINY), path, progress=False)
    return path, state


def test_training_through_ray_actors_writes_checkpoints(straight_run):
    path, state = straight_run
    assert state.iteration == 3 and state.games == 24
    meta = json.loads((path / "metadata.json").read_text())
    assert meta["iteration"] == 3 and meta["games"] == 24
    assert meta["positions"] == state.positions > 0
    assert meta["metrics"]["selfplay"]["games"] == 8
    assert (path / "models" / "iter_0003.keras").exists()
    assert ray.is_initialized()  # the backend joined this instance: it must leave it running


def test_a_killed_actor_is_replaced_and_its_games_replayed(
    straight_run, tmp_path, monkeypatch, caplog
):
    submitted: list[int] = []

    def kill_in_second_iteration(index, actor):
        submitted.append(index)
        if len(submitted) == 3:  # iteration 2, worker 0: its task is queued, then it dies
            ray.kill(actor)

    monkeypatch.setattr(RayBackend, "after_submit", kill_in_second_iteration)
    with caplog.at_level(logging.WARNING, logger="alphazero.workers.ray_backend"):
        state = train(config_from_dict(TINY), tmp_path / "killed", progress=False)
    assert submitted == [0, 1, 0, 1, 0, 0, 1]  # worker 0 of iteration 2 sent twice
    assert any("actor 0 died" in r.getMessage() and "replaying" in r.getMessage()
               for r in caplog.records)  # fmt: skip
    assert state.iteration == 3 and state.games == 24

    # Nothing lost, nothing changed: the replay used the same seed and the same weights.
    straight_path, straight_state = straight_run
    assert state.positions == straight_state.positions
    _, buffer_a, _ = RunDir.open(straight_path).load()
    _, buffer_b, _ = RunDir.open(tmp_path / "killed").load()
    for a, b in zip(buffer_a.arrays(), buffer_b.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
