"""Every config the project carries loads: the shipped recipes, the research record's
experiments and run configs, and the ``config.yaml`` of every run folder under
``checkpoints/``. The recipes, the shipped models and the runs in progress load as they are
run (they must keep training and resuming); the research record is read as a record, its
removed switches named rather than refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from alphazero.config import REMOVED_SETTINGS, ConfigError, load_config, read_recorded_config
from alphazero.evaluation.model_search import trained_search
from alphazero.training.checkpoints import RunDir

ROOT = Path(__file__).resolve().parents[1]
RECIPES = sorted((ROOT / "configs").glob("*.yaml"))
EXPERIMENTS = sorted((ROOT / "configs" / "experiments").glob("*.yaml"))
RUN_CONFIGS = sorted((ROOT / "checkpoints").glob("**/config.yaml"))
RESUMABLE = [p for p in RUN_CONFIGS if p.parent.parent.name in ("pretrained", "in_progress")]
"""The shipped models' runs and the runs in progress: they must resume as they are."""
RECORDED_RUNS = sorted(set(RUN_CONFIGS) - set(RESUMABLE)) + sorted(
    (ROOT / "docs").glob("**/runs/*/config.yaml")
)
"""Finished studies: the run folders of checkpoints/ and the research record's copies."""


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_project_carries_configs_and_run_folders():
    assert len(RECIPES) >= 6 and EXPERIMENTS and RESUMABLE and RECORDED_RUNS


@pytest.mark.parametrize("path", RECIPES, ids=_name)
def test_every_recipe_loads_to_be_run(path):
    config = load_config(path)
    config.search.params()  # and gives the search it names


@pytest.mark.parametrize("path", RESUMABLE, ids=_name)
def test_every_shipped_or_running_run_loads_to_resume_with_its_search(path):
    config = RunDir(path.parent).load_config()
    assert trained_search(path.parent) == config.search.params()


@pytest.mark.parametrize("path", EXPERIMENTS + RECORDED_RUNS, ids=_name)
def test_every_recorded_config_loads_for_reading(path):
    """Strict loading refuses one that set a removed switch, in one line naming it; read for
    the record, it loads and names each such switch."""
    recorded = read_recorded_config(path)
    assert all(key.partition(".")[2] in REMOVED_SETTINGS[key.partition(".")[0]]
               for key in recorded.ignored)  # fmt: skip
    if recorded.ignored:
        with pytest.raises(ConfigError) as error:
            load_config(path)
        assert "\n" not in str(error.value)
        assert f"{recorded.ignored[0]}: this switch is gone" in str(error.value)
    else:
        assert load_config(path) == recorded.config
    if path in RECORDED_RUNS:  # and its model, if kept, plays with the run's search
        assert trained_search(path.parent) == recorded.config.search.params()
