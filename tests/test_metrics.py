"""A run's metrics.jsonl: one JSON line an iteration, numpy numbers written as plain ones."""

from __future__ import annotations

import json

import numpy as np

from alphazero.config import config_from_dict
from alphazero.training.checkpoints import RunDir
from alphazero.training.metrics import append_metrics


def make_config():
    return config_from_dict(
        {
            "game": {"name": "tictactoe"},
            "replay": {"capacity": 50},
            "train": {"min_positions": 0},
            "run_name": "test",
        }
    )


def test_append_metrics(tmp_path):
    RunDir.create(tmp_path / "run", make_config())
    append_metrics(tmp_path / "run", {"iteration": 1, "loss": np.float32(0.5)})
    append_metrics(RunDir(tmp_path / "run"), {"iteration": 2})
    lines = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == [{"iteration": 1, "loss": 0.5}, {"iteration": 2}]
