"""Every config the project carries loads: the shipped recipes, the research record's
experiments and run configs, and the ``config.yaml`` of every run folder under
``checkpoints/`` (the shipped models, the finished studies and the runs in progress, which
must keep resuming)."""

from __future__ import annotations

from pathlib import Path

import pytest

from alphazero.config import load_config
from alphazero.evaluation.model_search import trained_search
from alphazero.training.checkpoints import RunDir

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").glob("**/*.yaml"))
RUN_CONFIGS = sorted((ROOT / "checkpoints").glob("**/config.yaml"))
RECORDED_RUNS = sorted((ROOT / "docs").glob("**/runs/*/config.yaml"))
"""The research record's copies of finished runs' configs."""


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_project_carries_configs_and_run_folders():
    assert len(CONFIGS) >= 6 and RUN_CONFIGS and RECORDED_RUNS


@pytest.mark.parametrize("path", CONFIGS, ids=_name)
def test_every_config_loads(path):
    config = load_config(path)
    config.search.params()  # and gives the search it names


@pytest.mark.parametrize("path", RUN_CONFIGS + RECORDED_RUNS, ids=_name)
def test_every_run_folders_config_loads_with_its_search(path):
    config = RunDir(path.parent).load_config()
    assert trained_search(path.parent) == config.search.params()
