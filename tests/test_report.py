"""python -m alphazero.report draws a run's curves; a folder without metrics is one line."""

from __future__ import annotations

import json
import subprocess
import sys


def record(iteration: int, elo: float | None) -> dict:
    data = {
        "iteration": iteration,
        "train": {"policy_loss": 2.0 / iteration, "value_loss": 0.5, "policy_entropy": 1.5},
    }
    if elo is not None:
        data["evaluation"] = {
            "elo": elo,
            "ladder": {"uct:200": 0.0, "uct:1000": 150.0},
            "opponents": {"uct:200": {"score": 0.6}, "uct:1000": {"score": 0.4}},
        }
    return data


def test_report_draws_a_png(tmp_path):
    lines = [json.dumps(record(i, 10.0 * i if i % 2 == 0 else None)) for i in range(1, 7)]
    (tmp_path / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.report", str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    png = (tmp_path / "report.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_report_on_a_folder_without_metrics_is_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.report", str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "metrics.jsonl" in result.stderr
