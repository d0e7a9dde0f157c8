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


def test_cpu_hours_count_selfplay_and_training_or_the_recorded_total():
    from alphazero.report import cpu_hours

    old = [{"selfplay": {"cpu_seconds": 1800}, "train_seconds": 1800}] * 2
    assert cpu_hours(old) == [1.0, 2.0]
    new = [{"selfplay": {"cpu_seconds": 10}, "train_cpu_seconds": 10, "cpu_seconds": 7200}]
    assert cpu_hours(new) == [2.0]


def test_several_runs_share_one_correct_moves_panel(tmp_path):
    runs = []
    for name, share in (("a", 0.6), ("b", 0.7)):
        run = tmp_path / name
        run.mkdir()
        lines = [
            json.dumps(
                {
                    **record(i, None),
                    "selfplay": {"cpu_seconds": 360.0},
                    "train_cpu_seconds": 0.0,
                    "connect4_positions": {"policy_correct": share + 0.01 * i},
                }
            )
            for i in range(1, 5)
        ]
        (run / "metrics.jsonl").write_text("\n".join(lines) + "\n")
        runs.append(str(run))
    out = tmp_path / "curves.png"
    command = [sys.executable, "-m", "alphazero.report", *runs]
    missing = subprocess.run(command, capture_output=True, text=True)
    assert missing.returncode == 2 and "-o PATH" in missing.stderr
    result = subprocess.run([*command, "-o", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes().startswith(b"\x89PNG")
