"""What the repository ships: checkpoints/ holds the shipped models and the runs listed in
checkpoints/README.md, each slimmed; the Python version is stated the same way everywhere."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

import numpy as np
import pytest

from alphazero.training.checkpoints import FORMAT as RUN_FORMAT
from alphazero.training.replay_buffer import FORMAT_VERSION as BUFFER_FORMAT

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = ROOT / "checkpoints"
SHIPPED_FILES = re.compile(
    r"best\.keras|config\.yaml|metadata\.json|metrics\.jsonl|solved_positions_search\.jsonl"
    r"|resume_[0-9]{4,}\.keras|buffer_[0-9]{4,}\.npz"
)
FOLDER_BUDGET = 15 * 2**20


def committed(folder: Path) -> list[str]:
    """The files git tracks under ``folder`` (what a clone gets), relative to it."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(str(Path(p).relative_to(folder.relative_to(ROOT))) for p in out.split("\0") if p)


def in_git() -> bool:
    return subprocess.run(["git", "rev-parse"], cwd=ROOT, capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(not in_git(), reason="needs the git checkout")


def listed_in_readme(kind: str) -> set[str]:
    text = (CHECKPOINTS / "README.md").read_text()
    return set(re.findall(rf"`{kind}/([\w.-]+)/`", text))


def test_checkpoints_holds_only_shipped_models_and_listed_runs():
    allowed = {"README.md", "pretrained", "in_progress"}
    tops = {Path(p).parts[0] for p in committed(CHECKPOINTS)}
    assert tops <= allowed, f"unlisted in checkpoints/README.md: {sorted(tops - allowed)}"
    for kind in ("pretrained", "in_progress"):
        folders = {Path(p).parts[0] for p in committed(CHECKPOINTS / kind)}
        assert folders <= listed_in_readme(kind), sorted(folders - listed_in_readme(kind))


@pytest.mark.parametrize(
    "name", sorted({Path(p).parts[0] for p in committed(CHECKPOINTS / "pretrained")})
)
def test_a_shipped_model_holds_only_what_play_and_resume_read(name):
    folder = CHECKPOINTS / "pretrained" / name
    files = committed(folder)
    assert all(SHIPPED_FILES.fullmatch(f) for f in files), files
    assert {"best.keras", "config.yaml", "metadata.json", "metrics.jsonl"} <= set(files)
    size = sum((folder / f).stat().st_size for f in files)
    assert size <= FOLDER_BUDGET, f"{name}: {size / 2**20:.1f} MiB"


@pytest.mark.parametrize(
    "folder",
    sorted(
        {
            CHECKPOINTS / kind / Path(p).parts[0]
            for kind in ("pretrained", "in_progress")
            for p in committed(CHECKPOINTS / kind)
        }
    ),
    ids=lambda folder: f"{folder.parent.name}/{folder.name}",
)
def test_a_committed_run_is_of_the_current_format(folder):
    """Shipped models and runs in progress need no ``python -m alphazero.migrate_run``."""
    assert json.loads((folder / "metadata.json").read_text())["format"] == RUN_FORMAT
    for buffer in folder.glob("buffer_*.npz"):
        with np.load(buffer) as archive:
            assert int(archive["format"]) == BUFFER_FORMAT, buffer.name


def test_the_python_version_is_stated_alike():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["requires-python"].startswith(">=3.11")
    assert project["tool"]["ruff"]["target-version"] == "py311"
    assert "Python 3.11 or newer" in (ROOT / "README.md").read_text()
