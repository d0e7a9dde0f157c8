"""The command lines of the benchmark and experiment scripts: a bad argument is one line, and
only ``strength.py --readme`` rewrites the committed strength table."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(script: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


@pytest.fixture
def strength_copy(tmp_path) -> Path:
    """``benchmarks/strength.py`` in a copy of the files it writes, beside the real shipped
    models: a test that finds it rewriting them must not rewrite the committed ones."""
    (tmp_path / "benchmarks").mkdir()
    shutil.copy(ROOT / "benchmarks" / "strength.py", tmp_path / "benchmarks")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "README.md", tmp_path)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "pretrained").symlink_to(ROOT / "checkpoints" / "pretrained")
    return tmp_path / "benchmarks" / "strength.py"


COMMITTED = ("docs/strength.json", "docs/strength.md", "README.md")


def committed(root: Path) -> list[bytes]:
    """The files that ``strength.py --readme`` writes, as they are under ``root``."""
    return [(root / name).read_bytes() for name in COMMITTED]


def test_strength_without_readme_prints_and_writes_only_its_out_file(strength_copy, tmp_path):
    before = committed(tmp_path)
    out = tmp_path / "result.json"
    args = ["--only", "tictactoe", "--games", "2", "--opponents", "uct:10", "--out", str(out)]
    done = run(strength_copy, *args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| tictactoe (100 sims) |" in done.stdout and "vs `uct:10`" in done.stdout
    assert "connect4" not in done.stdout.split("| model |")[1]  # only what was measured
    assert json.loads(out.read_text())["tictactoe"]["games"] == 2
    assert committed(tmp_path) == before


def test_strength_readme_regenerates_the_committed_table(strength_copy, tmp_path):
    before = committed(tmp_path)
    done = run(strength_copy, "--readme", "--table-only")
    assert done.returncode == 0, done.stderr[-2000:]
    assert committed(tmp_path) == before  # the same results give the same files


def test_bad_benchmark_arguments_are_one_line_errors(strength_copy, tmp_path):
    before = committed(tmp_path)
    bench, experiments = ROOT / "benchmarks", ROOT / "experiments"
    for script, args, reason in (
        (strength_copy, ["--readme", "--games", "5"], "--readme needs --games 100 or more"),
        (strength_copy, ["--games", "0"], "--games must be at least 1"),
        (strength_copy, ["--only", "chess"], "--only chess: no such model"),
        (strength_copy, ["--out", str(tmp_path)], f"--out {tmp_path}: that is a folder"),
        (experiments / "compare_runs.py", [str(tmp_path / "nope")], "nope: not a run folder"),
        (experiments / "pcr.py", ["--game", "chess"], "unknown game 'chess'"),
        (experiments / "pcr.py", ["--rounds", "0"], "--rounds must be at least 1"),
        (bench / "uct.py", ["--rounds", "0"], "--rounds must be at least 1"),
        (bench / "games.py", ["--rounds", "0"], "--rounds must be at least 1"),
        (bench / "inference_engines.py", ["--rounds", "0"], "--rounds must be at least 1"),
        (bench / "inference_engines.py", ["--engines", "onnx"], "--engines: unknown 'onnx'"),
        (bench / "play_speed.py", ["--moves", "0"], "--moves must be at least 1"),
        (bench / "training_step.py", ["--steps", "0"], "--steps must be at least 1"),
        (bench / "training_step.py", ["--networks", "9x9"], "--networks: unknown '9x9'"),
        (bench / "play_speed.py", ["--leaves", "0"], "--leaves and --old-leaves must be"),
        (bench / "gumbel_python_ab.py", ["--rounds", "0"], "--rounds must be at least 1"),
        (bench / "gumbel_python_ab.py", ["--base", "no-such-rev"], "--base: no alphazero/"),
        (
            bench / "connect4_positions.py",
            ["--model", "x", "--leaves", "0"],
            "--leaves must be at least 1",
        ),
    ):
        done = run(script, *args, cwd=tmp_path)
        last = done.stderr.strip().splitlines()[-1]
        assert done.returncode == 2 and reason in last, (script.name, args, done.stderr[-2000:])
        assert "Traceback" not in done.stderr
    assert committed(tmp_path) == before
