"""Progress as a user sees it: whole lines in a log, and on a terminal where the run is."""

from __future__ import annotations

import io
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from alphazero.progress import bars
from alphazero.progress.eta import RunProgress
from alphazero.training.metrics import summary_line

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_whole_line_at_most_every_30_seconds(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(bars.time, "monotonic", clock)
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    bar = bars.bar(1000, "self-play", "game")
    for _ in range(1000):  # 125 s of updates, eight a second
        clock.now += 0.125
        bar.update(1)
        bar.set_postfix(moves=5)
    bar.close()
    text = log.getvalue()
    assert "\r" not in text and text.endswith("\n")
    lines = text.splitlines()
    assert len(lines) == 4  # at 30, 60, 90 and 120 s
    assert lines[0] == "self-play: 240/1000 games, 0:30; moves 5"


def test_a_phase_shorter_than_30_seconds_writes_nothing_to_a_log(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    with bars.bar(100, "train", "step") as bar:
        for _ in range(100):
            bar.update(1)
    assert log.getvalue() == ""


def test_a_log_line_in_a_run_says_the_iteration_the_run_time_and_the_eta(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(bars.time, "monotonic", clock)
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    run = RunProgress(30, {"self-play": 1.0, "train": 0.1}, moves_per_game=10, clock=clock)
    with run.active():
        run.start_iteration(3, {"self-play": 64, "train": 100}, run_seconds=600)
        with run.phase("self-play"):
            bar = bars.bar(64, "self-play", "game")
            clock.now += 31
            run.report_moves(320)  # half the moves of 64 games of 10
            bar.update(0)
    (line,) = log.getvalue().splitlines()
    # Half done in 31 s against 64 s last time: (1 - 1/2) * ((1 - 1/2) * 64 + 31) = 31.5 s
    # of self-play left, then 100 steps at 0.1 s.
    assert line == ("iteration 3/30 self-play: 0/64 games, 0:31; run 10:31, iteration ETA 0:42")


def test_the_bar_on_a_terminal_shows_the_iteration_the_run_time_and_the_eta(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    run = RunProgress(30, {"self-play": 2.0, "train": 0.5})
    with run.active():
        run.start_iteration(7, {"self-play": 64, "train": 100}, run_seconds=3725)
        with run.phase("self-play"):
            bar = bars.bar(64, "self-play", "game")
            bar.update(16)
            bar.set_postfix(moves=100)
            shown = terminal.getvalue().split("\r")[-1]
            bar.close()
    assert shown.startswith("iteration 7/30 self-play:  25%")
    assert "16/64" in shown and "moves=100" in shown
    assert "run 1:02:05, iteration ETA 2:58" in shown  # 128 s of self-play + 50 s of training


def test_bars_outside_a_run_stay_as_they_were(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = bars.bar(10, "model vs uct:200", "game")
    bar.update(5)
    bar.refresh()
    shown = terminal.getvalue().split("\r")[-1]
    bar.close()
    assert shown.startswith("model vs uct:200:  50%") and "iteration" not in shown


def eta_while_games_end_in_a_burst(run: RunProgress, clock: Clock, seconds: int) -> list[float]:
    """The ETA each second of a self-play phase of 64 games played side by side at a steady
    pace of moves, every game ending in its last second (as in tic-tac-toe)."""
    etas = []
    with run.phase("self-play"):
        for second in range(seconds):
            clock.now += 1
            run.report_moves(64 * 9 * (second + 1) / seconds)
            done = 64 if second == seconds - 1 else 0
            left = run.seconds_left(done, 64)
            etas.append(left[0] if left is not None else float("nan"))
    return etas


@pytest.mark.parametrize("slower", [1.0, 1.5])
def test_the_iteration_eta_counts_down_with_the_clock_while_games_are_in_flight(slower):
    """Last iteration's self-play took 60 s; this one takes 60 s (or 90 s, a busier machine).
    The ETA goes down about a second a second, and never jumps."""
    clock = Clock()
    run = RunProgress(30, {"self-play": 60 / 64}, moves_per_game=9, clock=clock)
    run.start_iteration(2, {"self-play": 64}, run_seconds=0)
    etas = eta_while_games_end_in_a_burst(run, clock, round(60 * slower))
    steps = [before - after for before, after in itertools.pairwise(etas)]
    assert all(0 < step < 2 for step in steps), steps  # down, by under 2 s a second
    assert abs(etas[0] - 60 * slower) < 30 * slower


def test_a_phase_never_seen_before_is_estimated_from_its_own_pace():
    clock = Clock()
    run = RunProgress(30, clock=clock)
    run.start_iteration(1, {"train": 100}, run_seconds=0)
    assert run.status() == "run 0:00, iteration ETA ?"
    with run.phase("train"):
        clock.now += 20
        assert run.seconds_left(25, 100) == (60.0, True)  # 25 steps in 20 s: 75 more in 60
    assert run.seconds_per_unit["train"] == 0.2


def test_the_run_eta_comes_once_an_iteration_is_timed_at_the_mean_of_recent_paces():
    clock = Clock()
    run = RunProgress(10, {"self-play": 1.0}, clock=clock)
    run.start_iteration(1, {"self-play": 60}, run_seconds=0)
    assert "run ETA" not in run.status()  # nothing timed yet: no whole-run guess
    clock.now += 100
    assert run.end_iteration() == 100
    assert run.run_eta() == "run ETA 15:00"  # 9 iterations to come at 100 s
    run.start_iteration(2, {"self-play": 60}, run_seconds=100)
    with run.phase("self-play"):
        clock.now += 140  # slower than last time: the run ETA follows the mean pace
    run.end_iteration()
    assert run.run_eta() == "run ETA 16:00"  # 8 to come at (100 + 140) / 2 s
    run.start_iteration(3, {"self-play": 60}, run_seconds=240)
    # Last self-play took 140 s for 60 games: the iteration's own ETA, then 7 at 120 s.
    assert run.status().endswith("iteration ETA 2:20, run ETA 16:20")


def test_the_summary_line_ends_with_the_run_eta():
    clock = Clock()
    run = RunProgress(4, clock=clock)
    run.start_iteration(1, {}, run_seconds=0)
    clock.now += 125
    run.end_iteration()
    record = {
        "iteration": 1,
        "selfplay": {
            "games": 8, "first_win_rate": 0.5, "second_win_rate": 0.25, "draw_rate": 0.25,
            "mean_length": 7.0, "simulations_per_second": 900.0,
        },
        "train": {},
    }  # fmt: skip
    assert summary_line(record, 4, run).endswith("; 2:05 (run 2:05, run ETA 6:15)")


def test_train_py_into_a_file_writes_whole_lines_and_no_bar_redraws(tmp_path):
    """nohup python train.py > run.log 2>&1: tqdm used to redraw its bars into the file
    (a 30-iteration tic-tac-toe run wrote 2.2 MB)."""
    config = {
        "game": {"name": "tictactoe"},
        "network": {"filters": 8, "blocks": 1, "value_hidden": 8},
        "search": {"simulations": 8},
        "selfplay": {"games_per_iteration": 6, "parallel_games": 3},
        "train": {"batch_size": 16, "steps_per_iteration": 4, "min_positions": 0},
        "evaluation": {"every": 2, "opponents": ["random"], "games": 2, "simulations": 4},
        "iterations": 3,
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    log = tmp_path / "run.log"
    with open(log, "w") as handle:
        result = subprocess.run(
            [sys.executable, str(ROOT / "train.py"), "--config", str(path),
             "--run-dir", str(tmp_path / "run")],
            stdout=handle, stderr=subprocess.STDOUT, timeout=600,
            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
        )  # fmt: skip
    text = log.read_text()
    assert result.returncode == 0, text
    assert "\r" not in text and "\x1b" not in text
    # A phase slower than LOG_INTERVAL (a loaded machine) adds a whole progress line; the
    # summaries are what must come in order.
    lines = [line for line in text.splitlines() if "iteration ETA" not in line]
    assert lines[0] == f"new run in {tmp_path / 'run'}"
    # What the run will do, then its cost at the first games' pace, before iteration 1 ends.
    assert lines[1].startswith(
        "plan: 3 iterations of 6 self-play games (PUCT, 8 simulations a move) and 4 training "
        "steps of 16 positions; network 1 residual block x 8 channels ("
    ) and lines[1].endswith(" weights); evaluation every 2 against random")
    assert re.fullmatch(
        r"first games: 6 in \d+:\d\d; at that pace self-play alone takes about \d+:\d\d for "
        r"the 2 iterations left .*", lines[2]
    )  # fmt: skip
    assert lines[4] == "rating the evaluation ladder: random"
    summaries = [line for line in lines if line.startswith("iteration")]
    assert [line.split(":")[0] for line in summaries] == [
        "iteration 1/3", "iteration 2/3", "iteration 3/3",
    ]  # fmt: skip
    # Each summary but the last has the run's ETA, from the iterations timed so far.
    assert [re.search(r"run ETA \d+:\d\d\)$", line) is not None for line in summaries] == [
        True, True, False,
    ]  # fmt: skip
    assert lines[-1].startswith("finished:") and len(lines) == 8
