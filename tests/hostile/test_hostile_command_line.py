"""Hostile or careless command lines: budgets that would eat the memory, paths the system
cannot look up, and files of the person's that an option would overwrite (issue 57, items
5, 8 and 9). Each is one line on stderr and exit code 2, with nothing changed on disk.

``play.py`` runs in this process (its players here need no TensorFlow); ``train.py`` in a
subprocess, as people run it. The next probe adds its cases to the tables below."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from alphazero.config import ConfigError, config_from_dict
from alphazero.evaluation.player_specs import (
    MAX_SECONDS,
    MAX_SIMULATIONS,
    PlayerSpecError,
    check_spec,
)
from alphazero.play.cli import main as play_main
from alphazero.slim_run import main as slim_main

ROOT = Path(__file__).resolve().parents[2]
LONG = "x" * 5000
"""A path of 5,000 characters: longer than any file name the system takes."""
SESSION = ["--game", "tictactoe", "--p2", "random", "--seed", "3"]
MATCH = ["--game", "tictactoe", "--p1", "random", "--p2", "random", "--seed", "1", "--quiet"]


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], *expected: str) -> str:
    """Run ``play.py argv``: exit code 2 and one ``error:`` line holding ``expected``."""
    assert play_main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("error: "), err
    for text in expected:
        assert text in err, err
    assert len(err) < 500, err  # a 5,000-character argument is not repeated whole
    return err


# ------------------------------------------------------------------------ budgets
BUDGETS = {
    # case: (argv, what the line says)
    "uct_simulations": (["--p1", "uct:99999999999"], "at most 1,000,000 simulations"),
    "rave_simulations": (["--p2", "rave:99999999999"], "at most 1,000,000 simulations"),
    "uct_5000_digits": (["--p1", "uct:" + "9" * 5000], "at most 1,000,000 simulations"),
    "uct_seconds_over_a_day": (["--p1", "uct:100000s"], "at most 86400 seconds (a day)"),
    "rave_seconds_with_knowledge": (["--p1", "rave:1e9s:knowledge"], "budget must be"),
    "model_10_to_the_23": (
        ["--p2", "model:nowhere.keras:" + "1" + "0" * 23],
        "at most 1,000,000 simulations",
    ),
    "model_5000_digits": (["--p2", "model:m.keras:" + "7" * 5000], "at most 1,000,000"),
    "sims_option": (["--sims", "100000000000"], "--sims must be at most 1,000,000"),
}


@pytest.mark.parametrize("case", list(BUDGETS))
def test_a_budget_past_the_limit_is_one_line(capsys, case):
    argv, expected = BUDGETS[case]
    refused(capsys, ["--game", "tictactoe", "--p1", "random", "--p2", "random", *argv], expected)


def test_the_limits_themselves_are_accepted():
    for spec in (f"uct:{MAX_SIMULATIONS}", f"rave:{MAX_SECONDS:.0f}s", "model:m.keras:1000000"):
        check_spec(spec)
    with pytest.raises(PlayerSpecError):
        check_spec(f"uct:{MAX_SIMULATIONS + 1}")


def test_the_config_has_the_same_limit_for_its_opponents():
    with pytest.raises(ConfigError) as error:
        config_from_dict({"evaluation": {"opponents": ["uct:99999999999"]}})
    assert "at most 1,000,000 simulations" in str(error.value)


# ------------------------------------------------------------------ 5,000 characters
@pytest.mark.parametrize(
    "argv",
    [
        ["--model", LONG, "--p1", "random"],
        ["--p1", "random", "--p2", f"model:{LONG}"],
        [*MATCH, "--save", LONG],
        [*MATCH, "--json", LONG],
        [*MATCH, "--save", f"{LONG}/games.jsonl"],
    ],
    ids=["model", "model_spec", "save", "json", "save_in_a_long_folder"],
)
def test_a_path_too_long_for_the_system_is_one_line(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["--game", "tictactoe", *argv], "too long")


def run_train(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "train.py"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--config", str(ROOT / "configs" / "tictactoe.yaml"), "--run-dir", LONG],
        ["--resume", "--run-dir", LONG],
    ],
    ids=["new_run", "resume"],
)
def test_train_with_a_run_folder_name_too_long_is_one_line(tmp_path, args):
    process = run_train(*args, cwd=tmp_path)
    assert process.returncode == 2 and "Traceback" not in process.stderr, process.stderr
    errors = [line for line in process.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "File name too long" in errors[0] and len(errors[0]) < 300


def test_slim_run_with_a_name_too_long_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert slim_main([LONG]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "File name too long" in err and len(err) < 300


# ----------------------------------------------------- the person's files stay theirs
def games_in(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_json_refuses_a_file_that_is_there(capsys, tmp_path):
    mine = tmp_path / "notes.json"
    mine.write_text("my notes\n")
    refused(capsys, [*MATCH, "--json", str(mine)], "the file is there", "--force")
    assert mine.read_text() == "my notes\n"


def test_json_with_force_replaces_the_file(capsys, tmp_path):
    mine = tmp_path / "result.json"
    mine.write_text("an old result\n")
    assert play_main([*MATCH, "--games", "2", "--json", str(mine), "--force"]) == 0
    assert json.loads(mine.read_text())[0]["games"] == 2


def test_save_adds_to_a_records_file_and_keeps_its_games(tmp_path):
    records = tmp_path / "games.jsonl"
    assert play_main([*MATCH, "--games", "2", "--save", str(records)]) == 0
    first = games_in(records)
    assert play_main([*MATCH, "--games", "3", "--save", str(records)]) == 0
    games = games_in(records)
    assert len(first) == 2 and len(games) == 5 and games[:2] == first


def test_save_refuses_a_file_that_holds_no_game_records(capsys, tmp_path):
    mine = tmp_path / "thesis.txt"
    mine.write_text("chapter one\n")
    refused(capsys, [*MATCH, "--save", str(mine)], "not a file of game records", "--force")
    assert mine.read_text() == "chapter one\n"


def test_save_with_force_replaces_a_file_of_other_things(tmp_path):
    other = tmp_path / "old.txt"
    other.write_text("scratch\n")
    assert play_main([*MATCH, "--games", "2", "--save", str(other), "--force"]) == 0
    assert len(games_in(other)) == 2


def test_save_through_a_symlink_keeps_the_link_and_adds_to_its_file(tmp_path):
    target = tmp_path / "archive" / "games.jsonl"
    target.parent.mkdir()
    assert play_main([*MATCH, "--games", "1", "--save", str(target)]) == 0
    link = tmp_path / "games.jsonl"
    link.symlink_to(target)
    assert play_main([*MATCH, "--games", "2", "--save", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert len(games_in(target)) == 3


def test_save_through_a_symlink_to_another_file_is_refused(capsys, tmp_path):
    target = tmp_path / "diary.txt"
    target.write_text("dear diary\n")
    link = tmp_path / "games.jsonl"
    link.symlink_to(target)
    refused(capsys, [*MATCH, "--save", str(link)], "not a file of game records")
    assert link.is_symlink() and target.read_text() == "dear diary\n"


def test_a_terminal_session_adds_its_game_to_the_records_file(tmp_path):
    records = tmp_path / "games.jsonl"
    assert play_main([*MATCH, "--games", "1", "--save", str(records)]) == 0
    done = subprocess.run(
        [sys.executable, str(ROOT / "play.py"), *SESSION, "--save", str(records)],
        input="b2\nquit\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    games = games_in(records)
    assert len(games) == 2 and games[1]["moves"][0] == "b2"
