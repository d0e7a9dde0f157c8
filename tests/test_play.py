"""The terminal game (``play.py``, ``alphazero.play``): whole games driven through standard
input for every game, bad input of every kind, a real (tiny) model's thoughts and hints,
colours, records, and one session inside tmux as a person would play it.

Every subprocess runs in a fresh temporary folder, so no run of ``train.py`` is found unless a
test puts one there. The shipped models of this checkout are found from any folder: tests that
need there to be none run ``bare_checkout``, a copy of the code without them.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from shipped_helpers import ship_tiny_model

from alphazero.evaluation.model_player import (
    ModelPlayer,
    ModelSource,
    MoveStat,
    PlayerOptions,
    Thought,
)
from alphazero.games import make, view_for
from alphazero.play import models
from alphazero.play.board import Style, use_color
from alphazero.play.models import PRETRAINED_DIR, default_model, how_to_train
from alphazero.play.options import parse_game
from alphazero.play.prompt import LineReader
from alphazero.play.records import GameRecord
from alphazero.play.session import HintModel, Session
from alphazero.play.thoughts import format_thought

PLAY = Path(__file__).resolve().parents[1] / "play.py"
TICTACTOE_POINTS = [f"{c}{r}" for c in "abc" for r in "123"]
LONG_LINE = b"x" * 10_000
NOT_UTF8 = b"\xff\xfe\xc3( b2 \x80"


@pytest.fixture(scope="session")
def bare_checkout(tmp_path_factory) -> Path:
    """``play.py`` and the package copied to a folder without ``checkpoints/``: a checkout
    with no shipped models (its ``play.py`` imports the copy, next to it)."""
    root = tmp_path_factory.mktemp("checkout")
    shutil.copy(PLAY, root)
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(PLAY.parent / "alphazero", root / "alphazero", ignore=ignore)
    return root / "play.py"


def play(
    args: list[str], stdin: bytes | str, cwd: Path, timeout: float = 120, script: Path = PLAY
) -> tuple[str, str]:
    """Run ``play.py args`` (``script``) with ``stdin``; assert a clean exit 0;
    ``(stdout, stderr)``."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    done = subprocess.run(
        [sys.executable, str(script), *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )
    out = done.stdout.decode("utf-8", "replace")
    err = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert done.returncode == 0, (out[-2000:], err[-2000:])
    assert "\x1b[" not in out  # piped: plain text
    return out, err


def lines(*items: str | bytes) -> bytes:
    """Input lines as bytes, each ended by a newline."""
    return b"".join((i.encode() if isinstance(i, str) else i) + b"\n" for i in items)


def assert_finished(out: str) -> None:
    """The game ended with a result line and the move list."""
    assert re.search(r"^result: (draw|[XO] \(.+\) wins)", out, re.M), out[-1500:]
    assert re.search(r"^moves: [XO] \S+(, [XO] \S+)*$", out, re.M), out[-1500:]


# ----------------------------------------------------------------- whole games, bad input
def test_tictactoe_whole_game_with_bad_input_of_every_kind(tmp_path, bare_checkout):
    stdin = lines(
        "b2",
        "b2",  # occupied
        "",
        "   ",
        "0,0",
        "9,9",
        "d4",  # off the board
        "hello",
        LONG_LINE,
        NOT_UTF8,
        "help",
        "hint",
        "moves",
        "board",
        "undo",  # takes back b2 and the reply
        "undo",  # nothing left to take back
        *TICTACTOE_POINTS,  # every point: each is played or already taken
    )
    record = tmp_path / "game.jsonl"
    out, _ = play(
        ["--game", "tictactoe", "--p2", "random", "--seed", "3", "--save", str(record)],
        stdin,
        tmp_path,
        script=bare_checkout,  # no shipped model to give the hint
    )
    for expected in (
        "Tic-tac-toe: X (you) against O (random)",
        "b2 is already taken",
        "type a move, or help",
        "'0,0' is off the board",
        "'9,9' is off the board",
        "'d4' is off the board",
        "'hello' is not a point",
        "too long to be a move (10000 characters)",
        "'\ufffd\ufffd\ufffd( b2 \ufffd' is not a point",  # undecodable bytes, replaced
        "Commands: help",
        "no model is loaded, so no hint",
        "took back 2 moves: X b2, O ",
        "nothing to undo",
    ):
        assert expected in out, expected
    assert "    a  b  c" in out and re.search(r"\([XO]\)", out)  # coordinates, last move
    assert_finished(out)
    saved = json.loads(record.read_text())
    assert saved["format"] == 1 and saved["game"] == "tictactoe" and saved["params"] == {}
    assert saved["players"] == {"X": "human", "O": "random"}
    assert saved["result"] in ("X wins", "O wins", "draw")
    assert len(saved["moves"]) == len(saved["actions"]) >= 5
    final = view_for(make("tictactoe")).from_moves(saved["moves"])
    assert final.score == saved["score"]
    assert f"moves: X {saved['moves'][0]}" in out


def test_connect4_full_columns_and_numbers_out_of_range(tmp_path):
    # Three rows: nobody can have four in a column, so column 1 fills before the game ends.
    columns = [str(c) for c in range(1, 8) for _ in range(4)]
    stdin = lines("0", "8", "99", "-1", "4.5", "1 2", "four", *columns)
    out, _ = play(["--game", "connect4:rows=3", "--p2", "random", "--seed", "1"], stdin, tmp_path)
    for expected in (
        "there is no column 0",
        "there is no column 8",
        "there is no column 99",
        "'-1' is not a column",
        "'four' is not a column",
        "column 1 is full",
    ):
        assert expected in out, expected
    assert " 1  2  3  4  5  6  7" in out
    assert_finished(out)


def test_connect4_standard_board_the_opponent_first(tmp_path):
    columns = [str(c) for _ in range(2) for c in range(1, 8) for _ in range(7)]
    out, _ = play(["--p2", "uct:30", "--first", "ai", "--seed", "2"], lines(*columns), tmp_path)
    assert "Connect Four: X (uct:30) against O (you)" in out
    assert out.index("uct:30 (X) plays") < out.index("your move (O)")
    assert_finished(out)


def test_gomoku_small_board(tmp_path):
    points = [f"{c}{r}" for c in "abcdef" for r in range(1, 7)]
    stdin = lines("c3", "c3", "a7", "g1", "3,3", "7,1", "c", *points)
    out, _ = play(
        ["--game", "gomoku:size=6,n_in_row=4", "--p2", "random", "--seed", "4"], stdin, tmp_path
    )
    assert "Gomoku 6x6, 4 in a row" in out
    assert "c3 is already taken" in out
    assert "'a7' is off the board" in out and "'g1' is off the board" in out
    assert "'7,1' is off the board" in out and "'c' is not a point" in out
    assert_finished(out)


def test_dots_and_boxes_small_board(tmp_path):
    edges = ["a1-b1", "b1-c1", "a2-b2", "b2-c2", "a3-b3", "b3-c3"]
    edges += ["a1-a2", "b1-b2", "c1-c2", "a2-a3", "b2-b3", "c2-c3"]
    stdin = lines("a1-b1", "a1-b1", "a1-c1", "z9-z8", "b2", "help", *edges)
    out, _ = play(
        ["--game", "dots_and_boxes:rows=2,cols=2", "--p2", "random", "--seed", "5"],
        stdin,
        tmp_path,
    )
    assert "edge a1-b1 is already drawn" in out
    assert "an edge joins two neighbouring dots" in out
    assert "z9 is not a dot" in out and "'b2' is not an edge" in out
    assert "a1-b1 is the top edge of the top-left box" in out  # help explains the notation
    assert_finished(out)
    assert re.search(r"^boxes: X \d, O \d$", out, re.M)


def test_a_person_against_a_baseline_spec(tmp_path):
    out, _ = play(
        ["--game", "ttt", "--p1", "human", "--p2", "uct:50", "--seed", "0"],
        lines(*TICTACTOE_POINTS),
        tmp_path,
    )
    assert "X (you) against O (uct:50)" in out
    assert_finished(out)


def test_end_of_input_and_quit_leave_politely(tmp_path):
    record = tmp_path / "left.jsonl"
    out, _ = play(
        ["--game", "tictactoe", "--p2", "random", "--seed", "1", "--save", str(record)],
        lines("b2"),
        tmp_path,
    )
    assert out.rstrip().endswith("bye") and "result:" not in out
    saved = json.loads(record.read_text())
    assert saved["result"] == "abandoned" and saved["moves"][0] == "b2" and saved["score"] is None
    out, _ = play(["--game", "c4", "--p2", "random"], lines("4", "quit", "4"), tmp_path)
    assert out.rstrip().endswith("bye") and "result:" not in out


def test_no_model_plays_the_baseline_and_says_how_to_train_one_and_where_it_looked(
    tmp_path, bare_checkout
):
    shipped = bare_checkout.parent / "checkpoints" / "pretrained"
    shipped.mkdir(parents=True, exist_ok=True)  # there, but holding no model of this game
    out, err = play([], lines("quit"), tmp_path, script=bare_checkout)
    message = err.strip()
    assert "\n" not in message
    assert message.startswith("no model yet for Connect Four (none in checkpoints/pretrained or ")
    assert f"none in checkpoints/pretrained or {shipped}), so you play the baseline uct:2000" in err
    assert "`python train.py`" in message
    assert "`python play.py --model checkpoints/connect4`" in message
    assert "Connect Four: X (you) against O (uct:2000)" in out and out.rstrip().endswith("bye")

    # A match has no person to give a game to: the model it names is missing, and said so.
    done = subprocess.run(
        [sys.executable, str(bare_checkout), "--p1", "uct:10"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("no model yet for Connect Four (none in ")
    assert done.stderr.rstrip().endswith("(or play a baseline in the terminal: --p2 uct:2000)")


def test_the_shipped_models_are_found_from_any_folder(tmp_path, monkeypatch):
    shipped = PLAY.parent / "checkpoints" / "pretrained" / "tictactoe"
    args = ["--game", "ttt", "--p1", "random", "--games", "1", "--sims", "2", "--quiet"]
    out, _ = play(args, b"", tmp_path)
    assert f"loading the model {shipped} ..." in out and "model:tictactoe:2" in out
    monkeypatch.chdir(tmp_path)
    assert default_model("tictactoe") == shipped
    # A shipped folder in the working folder comes first.
    mine = Path("checkpoints", "pretrained", "ttt")
    mine.mkdir(parents=True)
    (mine / "config.yaml").write_text("game:\n  name: tictactoe\n")
    assert default_model("tictactoe") == mine


def test_json_and_save_paths_are_checked_before_playing(tmp_path):
    match = ["--game", "ttt", "--p1", "random", "--p2", "random", "--games", "2"]
    game = ["--game", "ttt", "--p2", "random"]
    folder = str(tmp_path)
    for args, reason in (
        ([*match, "--json", "nowhere/r.json"], "--json nowhere/r.json: the folder nowhere does"),
        ([*match, "--json", folder], f"--json {folder}: that is a folder, not a file name"),
        ([*match, "--save", folder], f"--save {folder}: that is a folder"),
        ([*match, "--save", "nowhere/g.jsonl"], "--save nowhere/g.jsonl: the folder nowhere"),
        ([*game, "--save", folder], f"--save {folder}: that is a folder"),
    ):
        done = subprocess.run(
            [sys.executable, str(PLAY), *args],
            input="b2\n",
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        assert done.returncode == 2 and done.stdout == "", (args, done.stdout)  # nothing played
        assert done.stderr.startswith(f"error: {reason}") and done.stderr.count("\n") == 1


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_match_that_cannot_be_written_still_shows_its_result(tmp_path):
    args = ["--game", "ttt", "--p1", "random", "--p2", "random", "--games", "2", "--quiet"]
    done = subprocess.run(
        [sys.executable, str(PLAY), *args, "--json", "/dev/full"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 1 and "wins / draws / losses" in done.stdout
    assert done.stderr.startswith("error: cannot write the match: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_how_to_train_names_the_config_for_that_board(tmp_path, monkeypatch):
    monkeypatch.chdir(PLAY.parent)
    eight = how_to_train("gomoku", {"size": 8, "n_in_row": 5}, "gomoku8")
    assert "`python train.py --config configs/gomoku_8x8.yaml`," in eight
    assert "--model checkpoints/gomoku_8x8`" in eight
    fifteen = how_to_train("gomoku", {"size": 15, "n_in_row": 5}, "gomoku15")
    assert "`python train.py --config configs/gomoku_15x15.yaml`," in fifteen
    twelve = how_to_train("gomoku", {"size": 12, "n_in_row": 5}, "gomoku:size=12")
    assert twelve.startswith("no model yet for Gomoku 12x12, 5 in a row (none in ")
    # No config trains it: the nearest board's (five in a row, the size nearest 12) does.
    assert "configs/gomoku_15x15.yaml` (set its game params to size=12,n_in_row=5)" in twelve
    assert "--model checkpoints/gomoku_15x15`" in twelve
    eleven = how_to_train("gomoku", {"size": 11, "n_in_row": 5}, "gomoku:size=11")
    assert "configs/gomoku_8x8.yaml` (set its game params to size=11,n_in_row=5)" in eleven
    seven = how_to_train("gomoku", {"size": 7, "n_in_row": 4}, "gomoku:size=7,n_in_row=4")
    assert "configs/gomoku_6x6.yaml` (set its game params to size=7,n_in_row=4)" in seven
    assert "`python train.py`," in how_to_train("connect4", {})
    # From another folder, the configs of this checkout name the board's own.
    monkeypatch.chdir(tmp_path)
    assert "--config configs/gomoku_15x15.yaml`," in how_to_train("gomoku", {}, "gomoku")


def test_default_model_matches_the_board_not_just_the_game(tmp_path, monkeypatch):
    def run_folder(path: Path, size: int, n_in_row: int, model: bool = True) -> Path:
        path.mkdir(parents=True)
        params = f"{{size: {size}, n_in_row: {n_in_row}}}"
        (path / "config.yaml").write_text(f"game:\n  name: gomoku\n  params: {params}\n")
        if model:
            (path / "best.keras").write_bytes(b"")
        return path

    monkeypatch.chdir(tmp_path)
    # Only this folder's models: this checkout's (a 15x15 among them) would be found next.
    monkeypatch.setattr(models, "PROJECT_PRETRAINED_DIR", tmp_path / "no_checkout")
    shipped = Path("checkpoints", "pretrained")
    six = run_folder(shipped / "gomoku_6x6_4", 6, 4)
    eight = run_folder(shipped / "gomoku_8x8_5", 8, 5)
    assert default_model("gomoku", {"size": 6, "n_in_row": 4}) == six
    assert default_model("gomoku", {"size": 8, "n_in_row": 5}) == eight
    assert default_model("gomoku", {"size": 12, "n_in_row": 5}) is None
    assert default_model("gomoku", {}) is None  # the 15x15 default is not the 6x6 model

    # A user's own run is found when nothing is shipped, but only once it has a model.
    run_folder(Path("checkpoints", "mine"), 15, 5, model=False)
    assert default_model("gomoku", {}) is None
    (Path("checkpoints", "mine") / "latest.keras").write_bytes(b"")
    assert default_model("gomoku", {}) == Path("checkpoints", "mine")


def test_help_and_bad_options(tmp_path):
    done = subprocess.run(
        [sys.executable, str(PLAY), "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    for option in ("--game", "--model", "--sims", "--first", "--p1", "--p2", "--games", "--json"):
        assert option in done.stdout
    for words in ("--save", "--quiet", "--seed", "--color", "JSON Lines", "hint", "undo"):
        assert words in done.stdout
    for args, reason in (
        (["--game", "chess"], "unknown game"),
        (["--game", "gomoku:size=x"], "key=number"),
        (["--p2", "uct:abc"], "budget"),
        (["--p2", "random", "--sims", "0"], "--sims"),
        (["--model", "missing.keras"], "no such model"),
    ):
        done = subprocess.run(
            [sys.executable, str(PLAY), *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        assert done.returncode == 2 and reason in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--seed", "-1"], "--seed: expected a non-negative integer, got '-1'"),
        (["--seed", "abc"], "--seed: expected a non-negative integer, got 'abc'"),
        (["--sims", "many"], "--sims: expected an integer, got 'many'"),
        (["--leaves", "1.5"], "--leaves: expected an integer, got '1.5'"),
        (["--games", "two"], "--games: expected an integer, got 'two'"),
        (["--port", "http"], "--port: expected an integer, got 'http'"),
        (["--move-time", "2s"], "--move-time: expected a number, got '2s'"),
        (["--game-time", "1m"], "--game-time: expected a number, got '1m'"),
        (["--c-puct", "high"], "--c-puct: expected a number, got 'high'"),
    ],
)
def test_a_bad_number_is_one_line_naming_its_option(capsys, options, message):
    from alphazero.play import cli

    with pytest.raises(SystemExit) as exit:
        cli.main(["--game", "tictactoe", "--p2", "random", *options])
    assert exit.value.code == 2
    assert capsys.readouterr().err == f"error: {message}\n"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--clock", "sundial"], "--clock: expected wall or cpu, got 'sundial'"),
        (["--color", "x"], "--color: expected auto, always or never, got 'x'"),
        (["--first", "me"], "--first: expected human, ai or random, got 'me'"),
        (["--search", "mcts"], "--search: expected puct or gumbel, got 'mcts'"),
        (["--engine", "onnx"], "--engine: expected auto, tensorflow or openvino, got 'onnx'"),
    ],
)
def test_a_bad_choice_is_one_line_naming_its_option_and_the_choices(capsys, options, message):
    from alphazero.play import cli

    with pytest.raises(SystemExit) as exit:
        cli.main(["--game", "tictactoe", "--p2", "random", *options])
    assert exit.value.code == 2
    assert capsys.readouterr().err == f"error: {message}\n"


def test_an_unknown_option_still_shows_the_usage(capsys):
    from alphazero.play import cli

    with pytest.raises(SystemExit) as exit:
        cli.main(["--colour", "never"])
    assert exit.value.code == 2
    assert capsys.readouterr().err.startswith("usage: play.py ")


def test_a_run_with_a_bad_config_is_one_line_before_tensorflow_loads(tmp_path):
    # Checked before the network is loaded, so the person waits no seconds for TensorFlow.
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("game:\n  name: [1]\n")
    probe = (
        "import sys; from alphazero.games import make; "
        "from alphazero.evaluation.model_player import ModelPlayer; "
        "from alphazero.training.run_errors import CheckpointError\n"
        "try: ModelPlayer(sys.argv[1], make('connect4'))\n"
        "except CheckpointError as error: print(error)\n"
        "print('tensorflow' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(run)],
        capture_output=True,
        text=True,
        cwd=PLAY.parent,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    error, tensorflow_loaded = done.stdout.strip().splitlines()
    assert "config.yaml: game.name: expected a string" in error
    assert tensorflow_loaded == "False"
    done = subprocess.run(
        [sys.executable, str(PLAY), "--model", str(run)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2 and "game.name: expected a string" in done.stderr
    assert "Traceback" not in done.stderr


def test_one_simulation_is_a_one_line_error_not_a_traceback(tmp_path):
    # The search's first simulation evaluates the root itself: with one, no move is visited
    # and there is nothing to choose from (model:PATH:1 and --web already say so).
    model = PLAY.parent / "checkpoints" / "pretrained" / "tictactoe"
    args = ["--game", "tictactoe", "--model", str(model), "--first", "ai", "--sims", "1"]
    done = subprocess.run(
        [sys.executable, str(PLAY), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        input="quit\n",
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == "error: --sims must be at least 2, got 1"


def test_a_match_between_two_specs(tmp_path):
    args = ["--game", "tictactoe", "--p1", "random", "--p2", "uct:20", "--games", "4"]
    args += ["--quiet", "--seed", "1", "--json", "m.json", "--save", "games.jsonl"]
    out, _ = play(args, b"", tmp_path)
    assert "wins / draws / losses" in out and "Elo difference" in out
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4 and json.loads((tmp_path / "m.json").read_text())[0]["games"] == 4
    assert records[0]["players"] == {"X": "random", "O": "uct:20"}
    assert records[1]["players"] == {"X": "uct:20", "O": "random"}


def test_two_games_alternate_sides_and_two_people_can_share_the_keyboard(tmp_path):
    out, _ = play(
        ["--game", "tictactoe", "--p2", "random", "--games", "2", "--seed", "6"],
        lines(*TICTACTOE_POINTS, *TICTACTOE_POINTS),
        tmp_path,
    )
    assert "--- game 2 of 2 ---" in out and "X (random) against O (you)" in out
    assert len(re.findall(r"^result: ", out, re.M)) == 2 and "score after 2 games: you " in out
    out, _ = play(
        ["--game", "tictactoe", "--p1", "human", "--p2", "human"],
        lines(*TICTACTOE_POINTS),
        tmp_path,
    )
    assert "player 1 to move (X): " in out and "player 2 to move (O): " in out
    assert_finished(out)


def test_after_a_game_another_is_offered_with_sides_swapped_and_a_running_score(tmp_path):
    # Every point in turn plays a game to its end; the points left over are no answer to
    # the question, then y plays a second game, n stops.
    first = [*TICTACTOE_POINTS, "y"]
    second = [*TICTACTOE_POINTS, "n", "b2"]
    out, _ = play(["--game", "tictactoe", "--p2", "random", "--seed", "6"],
                  lines(*first, *second), tmp_path)  # fmt: skip
    assert "another game, sides swapped (random moves first)? (Y/n) " in out
    assert "answer y (another game) or n (stop)" in out
    assert "--- game 2 ---" in out and "X (random) against O (you)" in out
    assert "another game, sides swapped (you move first)? (Y/n) " in out
    assert len(re.findall(r"^result: ", out, re.M)) == 2
    assert re.search(r"^score after 1 game: you \d, random \d, draws \d$", out, re.M)
    assert re.search(r"^score after 2 games: you \d, random \d, draws \d$", out, re.M)
    assert out.rstrip().endswith("bye") and "--- game 3" not in out
    # --games N plays N and asks nothing; the end of input at the question is a goodbye.
    out, _ = play(["--game", "tictactoe", "--p2", "random", "--games", "1", "--seed", "6"],
                  lines(*TICTACTOE_POINTS), tmp_path)  # fmt: skip
    assert "another game" not in out and "score after" not in out
    out, _ = play(["--game", "tictactoe", "--p2", "random", "--seed", "6"],
                  lines(*TICTACTOE_POINTS[:7]), tmp_path)  # fmt: skip
    assert_finished(out)
    assert out.rstrip().endswith("bye")


def test_ctrl_c_at_the_prompt_says_bye(tmp_path):
    process = subprocess.Popen(
        [sys.executable, str(PLAY), "--game", "tictactoe", "--p2", "random"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    try:
        assert process.stdout is not None
        seen = b""
        deadline = time.monotonic() + 60
        while b"your move (X): " not in seen and time.monotonic() < deadline:
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
        assert b"your move (X): " in seen
        process.send_signal(signal.SIGINT)
        rest, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0 and b"Traceback" not in err
    assert (seen + rest).rstrip().endswith(b"bye")


# ------------------------------------------------------------------------ a real model
@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny untrained tic-tac-toe network saved as a ``.keras`` file."""
    from alphazero.config import NetworkConfig
    from alphazero.network.model import build_network

    game = make("tictactoe")
    model = build_network(
        game.plane_shape, game.num_actions, NetworkConfig(filters=8, blocks=1, value_hidden=8)
    )
    path = tmp_path_factory.mktemp("model") / "tiny.keras"
    model.save(path)
    return path


THOUGHT = re.compile(r"^  its search: [a-c][1-3] \d+% \([+-]\d\.\d\d\)", re.M)
OUTLOOK = re.compile(
    r"^  its outlook: (search value [+-]\d\.\d\d \(the network alone: win \d+%, draw \d+%, "
    r"loss \d+%\)|a proven (win|draw|loss) \(value [+-]\d\.00\))$",
    re.M,
)


def test_a_model_shows_what_it_thought_and_gives_hints(tmp_path, tiny_model):
    stdin = lines("b2", "hint", "undo", *TICTACTOE_POINTS)
    out, _ = play(
        ["--game", "tictactoe", "--model", str(tiny_model), "--sims", "16"], stdin, tmp_path
    )
    assert "against O (model:tiny.keras:16)" in out
    assert THOUGHT.search(out) and OUTLOOK.search(out)
    assert re.search(r"\[share of 1[56] visits \(value\)\]", out)
    assert re.search(r"^  hint: [a-c][1-3] \d+%", out, re.M)
    assert re.search(r"^  your outlook: (search value|a proven)", out, re.M)
    assert "took back 2 moves: X b2, O " in out
    assert_finished(out)


def test_quiet_hides_the_thoughts_and_the_shipped_model_is_the_default(tmp_path, tiny_model):
    shipped = tmp_path / "checkpoints" / "pretrained" / "tictactoe"
    shipped.mkdir(parents=True)
    shutil.copy(tiny_model, shipped / "best.keras")
    (shipped / "config.yaml").write_text("game:\n  name: tictactoe\n")
    stdin = lines("b2", "hint", *TICTACTOE_POINTS)
    out, _ = play(["--game", "tictactoe", "--sims", "16", "--quiet"], stdin, tmp_path)
    assert "against O (model:tictactoe:16)" in out
    assert not THOUGHT.search(out) and "its outlook" not in out
    assert re.search(r"^  hint: ", out, re.M)  # asked for, so shown
    assert_finished(out)


def test_a_run_of_another_game_plays_its_game_without_game(tmp_path, tiny_model):
    run = tmp_path / "ttt_run"
    run.mkdir()
    shutil.copy(tiny_model, run / "best.keras")
    (run / "config.yaml").write_text("game:\n  name: tictactoe\n")
    out, _ = play(
        ["--model", str(run), "--sims", "16", "--quiet"], lines(*TICTACTOE_POINTS), tmp_path
    )
    assert "against O (model:ttt_run:16)" in out
    assert_finished(out)


@pytest.mark.parametrize(
    ("config", "trained", "other"),
    [
        ("game: {name: tictactoe}\n", "tictactoe", "connect4"),
        ("game: {name: gomoku, params: {size: 8}}\n", "gomoku:size=8", "gomoku"),
    ],
)
def test_a_run_of_another_game_than_game_says_how_to_play_it(
    tmp_path, capsys, config, trained, other
):
    from alphazero.play import cli
    from alphazero.play.models import other_game_problem
    from alphazero.play.options import parse_args, parse_game

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text(config)
    assert parse_args(["--model", str(run)]).game == trained  # without --game: the run's game
    assert other_game_problem([run], *parse_game(trained)) is None
    assert cli.main(["--model", str(run), "--game", other, "--p2", "random"]) == 2
    assert capsys.readouterr().err == (
        f"error: {run}: this run trained {trained}, not {other}: drop --game, or --game {trained}\n"
    )


def test_without_game_a_model_file_or_a_folder_without_config_plays_the_default_game(tmp_path):
    from alphazero.play.options import parse_args

    # A config.yaml above is no run of these: a run is the folder, the file's, or above models/.
    (tmp_path / "config.yaml").write_text("game: {name: tictactoe}\n")
    (tmp_path / "run" / "kept").mkdir(parents=True)
    (tmp_path / "run" / "kept" / "x.keras").write_bytes(b"")
    (tmp_path / "loose.keras").write_bytes(b"")
    for model in (
        tmp_path / "run",
        tmp_path / "run" / "kept" / "x.keras",
        tmp_path / "missing.keras",
        tmp_path / "run" / "missing",
    ):
        assert parse_args(["--model", str(model)]).game == "connect4"
        assert parse_args(["--p2", f"model:{model}:4"]).game == "connect4"
    assert parse_args(["--model", str(tmp_path / "loose.keras")]).game == "tictactoe"


def test_a_model_file_in_a_run_and_model_specs_play_the_runs_game_without_game(tmp_path):
    from alphazero.play.options import parse_args

    run = tmp_path / "run"
    (run / "models").mkdir(parents=True)
    (run / "config.yaml").write_text("game: {name: gomoku, params: {size: 8}}\n")
    kept = run / "models" / "iter_0003.keras"
    for model in (run / "best.keras", kept):
        model.write_bytes(b"")
    for model in (run / "best.keras", kept):
        assert parse_args(["--model", str(model)]).game == "gomoku:size=8"
    for spec in (f"model:{run}", f"model:{kept}:400", f"model:{run / 'best.keras'}:2s"):
        assert parse_args(["--p1", spec, "--p2", "random"]).game == "gomoku:size=8"
        assert parse_args(["--p2", spec]).game == "gomoku:size=8"
    # Models of one game agree; --game still decides when it is written.
    assert parse_args(["--p1", f"model:{kept}", "--model", str(run)]).game == "gomoku:size=8"
    assert parse_args(["--model", str(kept), "--game", "tictactoe"]).game == "tictactoe"


def test_a_model_spec_of_a_run_plays_its_game_without_game(tmp_path, tiny_model):
    run = tmp_path / "ttt_run"
    (run / "models").mkdir(parents=True)
    shutil.copy(tiny_model, run / "models" / "iter_0001.keras")
    (run / "config.yaml").write_text("game:\n  name: tictactoe\n")
    spec = f"model:{run / 'models' / 'iter_0001.keras'}:4"
    done = subprocess.run(
        [sys.executable, str(PLAY), "--p1", spec, "--p2", "random", "--save", "games.jsonl"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "games.jsonl").read_text())["game"] == "tictactoe"


def test_models_of_another_game_than_game_or_of_two_games_are_one_line(tmp_path, capsys):
    from alphazero.play import cli

    tictactoe, gomoku = tmp_path / "ttt", tmp_path / "g8"
    for run, game in (
        (tictactoe, "{name: tictactoe}"),
        (gomoku, "{name: gomoku, params: {size: 8}}"),
    ):
        run.mkdir()
        (run / "config.yaml").write_text(f"game: {game}\n")
    file = tictactoe / "best.keras"
    file.write_bytes(b"")
    assert cli.main(["--model", str(file), "--game", "connect4", "--p2", "random"]) == 2
    assert capsys.readouterr().err == (
        f"error: {file}: its run trained tictactoe, not connect4: drop --game, or --game "
        "tictactoe\n"
    )
    assert cli.main(["--p1", f"model:{file}:4", "--p2", f"model:{gomoku}"]) == 2
    assert capsys.readouterr().err == (
        f"error: the models' runs trained different games: {file} tictactoe, {gomoku} "
        "gomoku:size=8\n"
    )


# ------------------------------------------------------------- Gomoku on the 15x15 board
@pytest.fixture(scope="module")
def gomoku15_project(tmp_path_factory) -> Path:
    """A folder laid out as a project shipping a tiny untrained Gomoku 15x15 model, beside a
    Gomoku 6x6 one in ``gomoku/``, the folder tried first for ``--game gomoku`` (as a user's
    own run of a 6x6 config named so would be)."""
    root = tmp_path_factory.mktemp("project")
    ship_tiny_model(root, "gomoku_15x15", make("gomoku"))
    six = root / "checkpoints" / "pretrained" / "gomoku"
    six.mkdir()
    (six / "config.yaml").write_text("game:\n  name: gomoku\n  params: {size: 6, n_in_row: 4}\n")
    return root


def test_gomoku_is_the_15x15_board_and_plays_its_shipped_model(gomoku15_project, monkeypatch):
    name, params = parse_game("gomoku")
    assert make(name, **params).params == {"size": 15, "n_in_row": 5}
    out, _ = play(["--game", "gomoku", "--sims", "4"], lines("h8", "quit"), gomoku15_project)
    assert "loading the model checkpoints/pretrained/gomoku_15x15 ..." in out
    assert "Gomoku 15x15, 5 in a row: X (you) against O (model:gomoku_15x15:4)" in out
    assert re.search(r"^model:gomoku_15x15:4 \(O\) plays [a-o]\d+$", out, re.M)
    assert re.search(r"^  its search: [a-o]\d+ \d+% \([+-]\d\.\d\d\)", out, re.M)
    # The smaller boards still find their own models.
    monkeypatch.chdir(gomoku15_project)
    assert default_model(*parse_game("gomoku6")) == Path("checkpoints", "pretrained", "gomoku")
    assert default_model(*parse_game("gomoku8")) == PLAY.parent / PRETRAINED_DIR / "gomoku_8x8"


def test_a_run_still_training_is_never_the_default_model(tmp_path, monkeypatch):
    unfinished = tmp_path / "checkpoints" / "in_progress" / "gomoku_15x15"
    unfinished.mkdir(parents=True)
    (unfinished / "config.yaml").write_text("game:\n  name: gomoku\n")
    (unfinished / "best.keras").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    # Not this checkout's shipped model either: it would be found first, whatever the rule.
    monkeypatch.setattr(models, "PROJECT_PRETRAINED_DIR", tmp_path / "no_checkout")
    assert default_model("gomoku") is None


def test_gomoku_without_its_model_plays_the_baseline_and_says_so(tmp_path, bare_checkout):
    out, err = play(["--game", "gomoku"], lines("h8", "quit"), tmp_path, script=bare_checkout)
    assert err.count("\n") == 1
    assert err.startswith("no model yet for Gomoku 15x15, 5 in a row (none in ")
    assert "so you play the baseline uct:2000 instead; for a model, train one with " in err
    assert "Gomoku 15x15, 5 in a row: X (you) against O (uct:2000)" in out
    assert re.search(r"^uct:2000 \(O\) plays [a-o]\d+$", out, re.M)


# ----------------------------------------------------------------------- in-process units
class Scripted:
    """Plays the moves it is given, in order (notation)."""

    def __init__(self, moves: list[str]) -> None:
        self.name = "script"
        self.moves = list(moves)

    def __call__(self, game) -> int:
        return view_for(game).parse_move(self.moves.pop(0))


def run_session(
    name: str, params: dict, typed: list[str], script: list[str], width: int | None = None
) -> str:
    from alphazero.play.human import HumanPlayer

    out = io.StringIO()
    human = HumanPlayer()
    session = Session(
        lambda: make(name, **params),
        reader=LineReader(out, io.StringIO("".join(t + "\n" for t in typed)), echo=True),
        out=out,
        style=Style(False),
        hint=HintModel(),
        names={id(human): "you"},
        width=width,
    )
    assert session.play(human, Scripted(script)) == 0
    return out.getvalue()


def test_undo_in_dots_and_boxes_goes_back_to_the_persons_previous_turn():
    # 1x2 boxes. Undo after the person's own extra turn takes back one move; after the
    # opponent's extra turn it takes back the person's move and both of the opponent's.
    typed = ["a1-b1", "a1-a2", "b1-b2", "undo", "undo", "undo", "undo", "undo"]
    out = run_session(
        "dots_and_boxes",
        {"rows": 1, "cols": 2},
        typed,
        ["a2-b2", "c1-c2", "b2-c2"],
    )
    assert "you play b1-b2\n  X completes a box (boxes: X 1, O 0) and moves again" in out
    assert "took back 1 move: X b1-b2" in out  # the person's box and extra turn
    assert "took back 2 moves: X a1-a2, O c1-c2" in out
    assert "took back 2 moves: X a1-b1, O a2-b2" in out
    assert "nothing to undo" in out and out.rstrip().endswith("bye")

    typed = ["a1-b1", "a1-a2", "undo"]
    out = run_session("dots_and_boxes", {"rows": 1, "cols": 2}, typed, ["a2-b2", "b1-b2", "c1-c2"])
    assert (  # the opponent's box and extra turn, said as such
        "script (O) plays b1-b2\n  O completes a box (boxes: X 0, O 1) and moves again\n"
        "script (O) plays c1-c2" in out
    )
    assert "X completes a box (boxes: X 1, O 0) and moves again" not in out
    assert "took back 3 moves: X a1-a2, O b1-b2, O c1-c2" in out


def test_the_final_board_marks_the_winning_line():
    out = run_session("tictactoe", {}, ["a1", "a2", "a3"], ["b1", "b2"])
    boards = out.split("you play ")
    final = boards[-1]
    assert "result: X (you) wins" in final
    assert [line for line in final.splitlines() if "[X]" in line] == [
        " 3 [X] .  .  3",
        " 2 [X] O  .  2",
        " 1 [X] O  .  1",
    ]
    assert all("[" not in board for board in boards[:-1])  # only once it is won
    out = run_session("connect4", {}, ["4", "4", "4", "4"], ["1", "2", "3"])
    assert out.count("[X]") == 4 and "result: X (you) wins" in out
    drawn = run_session("tictactoe", {}, ["b2", "c1", "a2", "b1", "c3"], ["a1", "a3", "c2", "b3"])
    assert "result: draw" in drawn and "[" not in drawn.replace("[share", "")


def test_the_winning_line_stands_out_in_colour():
    view = view_for(make("tictactoe"))
    board = view.render(view.from_moves(["a1", "b1", "a2", "b2", "a3"]))
    coloured = Style(True).board(board)
    assert coloured.count("[\x1b[31;1;7mX\x1b[0m]") == 3  # red, bold, reversed
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == board


def test_help_is_wrapped_to_the_terminal_width(tmp_path):
    root = PLAY.parent
    for columns in (60, 100):
        env = {**os.environ, "COLUMNS": str(columns)}
        for script in (root / "train.py", PLAY):
            done = subprocess.run(
                [sys.executable, str(script), "--help"],
                capture_output=True,
                text=True,
                env=env,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
            wide = [line for line in done.stdout.splitlines() if len(line) > columns]
            assert not wide, (script.name, columns, wide)
    # A wide terminal keeps the tables side by side; everything is still there when narrow.
    assert re.search(r"^  python play\.py --web +the board in your browser", done.stdout, re.M)
    env = {**os.environ, "COLUMNS": "60"}
    narrow = subprocess.run(
        [sys.executable, str(PLAY), "--help"], capture_output=True, text=True, env=env
    ).stdout
    for words in ("JSON Lines", "gomoku15 (five)", "leave (end of input", "match.json"):
        assert words in " ".join(narrow.split())
    out = run_session("tictactoe", {}, ["help", "quit"], [], width=50)
    shown = out[out.index("Type a point") : out.index("bye")]
    assert "Commands: help" in shown and "network alone" in " ".join(shown.split())
    assert max(len(line) for line in out.splitlines()) <= 50  # the game's introduction too


def test_colour_only_on_a_terminal_without_no_color():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert not use_color(io.StringIO(), "auto", {})
    assert use_color(Terminal(), "auto", {})
    assert not use_color(Terminal(), "auto", {"NO_COLOR": "1"})
    assert use_color(Terminal(), "auto", {"NO_COLOR": ""})  # set but empty: no effect
    assert not use_color(Terminal(), "auto", {"TERM": "dumb"})
    assert use_color(io.StringIO(), "always", {}) and not use_color(Terminal(), "never", {})

    view = view_for(make("tictactoe"))
    board = view.render(view.from_moves(["b2", "a1"]))
    assert Style(False).board(board) == board
    coloured = Style(True).board(board)
    assert "\x1b[31mX\x1b[0m" in coloured  # X red
    assert "(\x1b[33;1;4mO\x1b[0m)" in coloured  # the last move bold and underlined
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == board


def test_game_names_sizes_and_aliases():
    assert parse_game("gomoku:size=8,n_in_row=5") == ("gomoku", {"size": 8, "n_in_row": 5})
    assert parse_game("gomoku8") == ("gomoku", {"size": 8, "n_in_row": 5})
    assert parse_game("gomoku6") == ("gomoku", {"size": 6, "n_in_row": 4})
    assert parse_game("Connect4") == ("connect4", {})
    assert parse_game("ttt") == ("tictactoe", {})
    for bad in ("chess", "gomoku:size=2", "gomoku:size", "connect4:depth=3"):
        with pytest.raises(ValueError):
            parse_game(bad)
    with pytest.raises(ValueError, match="key=number"):
        parse_game("gomoku:size=\u00b2")  # "²" is a digit to str.isdigit, not to int()


def test_help_lists_every_short_name_of_game_and_each_one_plays_its_game():
    from alphazero.play.game_aliases import GAME_ALIASES
    from alphazero.play.option_help import games_help

    _, rows = games_help()
    listed = dict(rows)["short names"]
    for alias, (name, params) in GAME_ALIASES.items():
        assert re.search(rf"(^|, ){alias}(,|$)", listed), (alias, listed)
        assert parse_game(alias) == (name, params)
    assert "dots" in GAME_ALIASES and parse_game("dots") == ("dots_and_boxes", {})


def test_thought_lines_and_records():
    thought = Thought(
        action=3,
        top=(MoveStat(3, "4", 62, 0.62, 0.31), MoveStat(2, "3", 20, 0.2, -0.05)),
        wdl=(0.5, 0.2, 0.3),
        value=0.25,
        proven=None,
        simulations=100,
    )
    first, second = format_thought(thought, "its search", "its outlook")
    assert first == "  its search: 4 62% (+0.31), 3 20% (-0.05)   [share of 100 visits (value)]"
    assert second == (
        "  its outlook: search value +0.25 (the network alone: win 50%, draw 20%, loss 30%)"
    )

    start = make("tictactoe")
    final = view_for(start).from_moves(["a1", "b1", "a2", "b2", "a3"])
    record = GameRecord.of(start, {1: "human", -1: "random"}, [6, 7, 3, 4, 0], final)
    assert record.to_dict() == {
        "format": 1,
        "game": "tictactoe",
        "params": {},
        "players": {"X": "human", "O": "random"},
        "moves": ["a1", "b1", "a2", "b2", "a3"],
        "actions": [6, 7, 3, 4, 0],
        "result": "X wins",
        "score": 1,
        "winner": "human",
    }


def test_a_proven_result_is_the_outlook_without_the_networks_contrary_guess():
    # The line: the network all but sure of a win beside a search that proved a loss.
    thought = Thought(
        action=3,
        top=(MoveStat(3, "4", 40, 0.8, -1.0), MoveStat(2, "3", 10, 0.2, -1.0)),
        wdl=(0.96, 0.03, 0.02),
        value=-1.0,
        proven=-1.0,
        simulations=50,
    )
    outlook = format_thought(thought, "its search", "its outlook")[-1]
    assert outlook == "  its outlook: a proven loss (value -1.00)"
    assert "96%" not in outlook and "win" not in outlook


def test_values_that_round_to_zero_print_as_plus_zero():
    from alphazero.play.thoughts import signed

    assert [signed(v) for v in (-0.004, -0.0, 0.0, 0.004)] == ["+0.00"] * 4
    assert (signed(-0.005001), signed(0.31), signed(-1.0)) == ("-0.01", "+0.31", "-1.00")
    thought = Thought(
        action=4,
        top=(MoveStat(4, "b2", 30, 0.6, -0.001), MoveStat(0, "a3", 20, 0.4, 0.002)),
        wdl=None,
        value=-0.003,
        proven=None,
        simulations=50,
    )
    text = "\n".join(format_thought(thought, "its search", "its outlook"))
    assert "-0.00" not in text
    assert "b2 60% (+0.00), a3 40% (+0.00)" in text and "search value +0.00" in text


class FirstColumnNet:
    """Priors all but certain of the first column; every position even (W/D/L 10/80/10)."""

    def __call__(self, planes):
        logits = np.zeros((len(planes), 7))
        logits[:, 0] = 4.0
        return logits, np.zeros(len(planes))

    def evaluate(self, planes):
        return np.zeros((len(planes), 7)), np.tile([0.1, 0.8, 0.1], (len(planes), 1))


def test_in_a_lost_position_the_move_played_leads_the_search_list():
    # X to move is lost: O threatens column 2. Once the search has proved the loss, its
    # visits follow the priors, to column 1 (which loses at once); the move played is the
    # one that holds out longest, the block in column 2.
    game = view_for(make("connect4")).from_moves(list("37225313143232"))
    source = ModelSource("fake", inference=FirstColumnNet())
    player = ModelPlayer(source, game, 100, options=PlayerOptions(top=7))
    thought = player.think(game)
    assert thought.proven == -1.0 and thought.action == 1
    most_visited = max(thought.top, key=lambda m: m.visits)
    assert most_visited.move == "1"  # the case in question: the move played is not it
    assert thought.top[0].action == thought.action
    lines = format_thought(thought, "its search", "its outlook")
    assert lines[0].startswith("  its search: 2 ")
    assert lines[1] == (
        "  played 2, not the most searched move: the position is lost and it holds out longest"
    )
    assert lines[2] == "  its outlook: a proven loss (value -1.00)"
    hint = format_thought(thought, "hint", "your outlook", chosen="suggested")
    assert hint[1].startswith("  suggested 2, not the most searched move")


class FakeNet:
    """Uniform priors; every position worth +0.5 to its player to move (W/D/L 60/30/10)."""

    def __call__(self, planes):
        return np.zeros((len(planes), 7)), np.full(len(planes), 0.5)

    def evaluate(self, planes):
        return np.zeros((len(planes), 7)), np.tile([0.6, 0.3, 0.1], (len(planes), 1))


def fake_model_player(simulations: int) -> ModelPlayer:
    return ModelPlayer(ModelSource("fake", inference=FakeNet()), make("connect4"), simulations)


def test_a_models_thought_is_from_the_point_of_view_of_the_player_to_move():
    player = fake_model_player(8)  # the root, then each of the 7 replies once
    thought = player.think(make("connect4"))
    # Every reply is worth +0.5 to the opponent, so -0.5 to the player to move.
    assert thought.value == pytest.approx(-0.5)
    assert [m.value for m in thought.top] == pytest.approx([-0.5] * 3)
    assert thought.wdl == pytest.approx((0.6, 0.3, 0.1)) and thought.proven is None
    assert thought.simulations == 7 and [m.visits for m in thought.top] == [1, 1, 1]
    assert [m.share for m in thought.top] == pytest.approx([1 / 7] * 3)
    assert thought.action in make("connect4").available_moves
    # A win in one is proven and played; batch_moves (the arena's) agrees with think.
    game = view_for(make("connect4")).from_moves(["1", "2", "1", "2", "1", "2"])
    thought = player.think(game)
    assert (thought.action, thought.value, thought.proven) == (0, 1.0, 1.0)
    assert thought.top[0].move == "1" and player.batch_moves([game, game]) == [0, 0]


# ------------------------------------------------------------------------------- tmux
@pytest.mark.parametrize("another", [False, True])
def test_a_person_at_a_terminal_inside_tmux(tmp_path, another):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install tmux); .ci/run installs it")
    socket = f"play-test-{os.getpid()}-{another}"
    tmux = ["tmux", "-L", socket, "-f", "/dev/null"]
    command = f"env -u NO_COLOR {sys.executable} {PLAY} --game tictactoe --p2 random --seed 1"
    command += "; echo EXIT-CODE-$?; sleep 60"

    def screen(escapes: bool = False) -> str:
        flags = ["-p", "-e"] if escapes else ["-p"]
        return subprocess.run(
            [*tmux, "capture-pane", *flags, "-t", "game"], capture_output=True, text=True
        ).stdout

    def wait_for(text: str, seconds: float = 30) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            shown = screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared on the screen:\n{screen()}")

    size = ["-x", "100", "-y", "40"]
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "game", *size, "-c", str(tmp_path), command],
        check=True,
    )
    try:
        shown = wait_for("your move (X):")
        assert "Tic-tac-toe: X (you) against O (random)" in shown
        if another:
            play_again_at_a_terminal(tmux, wait_for)
            return
        assert "    a  b  c" in shown and " 2  .  .  .  2" in shown
        subprocess.run([*tmux, "send-keys", "-t", "game", "b2", "Enter"], check=True)
        shown = wait_for("random (O) plays")
        assert "you play b2" in shown and " 2  .  X  .  2" in shown
        assert re.search(r"\(O\)", shown)  # the opponent's move, marked
        assert "\x1b[" in screen(escapes=True)  # colours on a terminal
        subprocess.run([*tmux, "send-keys", "-t", "game", "C-c"], check=True)
        shown = wait_for("EXIT-CODE-")
        assert "bye" in shown and "EXIT-CODE-0" in shown and "Traceback" not in shown
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def play_again_at_a_terminal(tmux: list[str], wait_for) -> None:
    """A whole game typed ahead (every point in turn), another game asked for, and the
    running score on the screen; Ctrl-C in the second game leaves with exit code 0."""
    for point in TICTACTOE_POINTS:
        subprocess.run([*tmux, "send-keys", "-t", "game", point, "Enter"], check=True)
    shown = wait_for("another game, sides swapped (random moves first)? (Y/n)")
    assert re.search(r"score after 1 game: you \d, random \d, draws \d", shown)
    subprocess.run([*tmux, "send-keys", "-t", "game", "Enter"], check=True)  # yes, the default
    shown = wait_for("X (random) against O (you)")
    subprocess.run([*tmux, "send-keys", "-t", "game", "C-c"], check=True)
    shown = wait_for("EXIT-CODE-")
    assert "bye" in shown and "EXIT-CODE-0" in shown and "Traceback" not in shown


def test_symmetric_applies_to_model_specs(tmp_path):
    model = Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained" / "tictactoe"
    args = ["--game", "tictactoe", "--p1", f"model:{model}", "--p2", "random", "--symmetric"]
    play([*args, "--sims", "20", "--games", "2", "--quiet", "--save", "g.jsonl"], b"", tmp_path)
    records = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert records[0]["players"] == {"X": "model:tictactoe:20:symmetric", "O": "random"}


def test_a_hostile_config_met_while_looking_for_a_model_is_skipped(tmp_path):
    """play.py reads every run's config.yaml to find a model for the game: a deeply nested
    one (a RecursionError in plain yaml.safe_load) is passed over, not a crash."""
    from alphazero.play.models import config_game

    nested = tmp_path / "nested.yaml"
    nested.write_text("game: " + "[" * 5000 + "]" * 5000)
    assert config_game(nested) is None
    plain = tmp_path / "plain.yaml"
    plain.write_text("game: {name: connect4}")
    assert config_game(plain) == ("connect4", {"rows": 6, "cols": 7, "n_in_row": 4})


def test_leaves_and_engine_reach_the_model_every_model_spec_and_the_hints(monkeypatch, capsys):
    from alphazero.play import cli

    built: list[ModelPlayer] = []
    monkeypatch.setattr(ModelPlayer, "__init__", recording(ModelPlayer.__init__, built))
    model = Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained" / "tictactoe"
    common = ["--game", "tictactoe", "--model", str(model), "--sims", "8", "--quiet"]
    options = ["--leaves", "3", "--engine", "tensorflow"]
    assert cli.main([*common, *options, "--p1", f"model:{model}", "--p2", "random"]) == 0
    assert [(p.leaves, p.network.engine) for p in built] == [(3, "tensorflow")]
    for opponent in ([], ["--p2", "random"]):  # the model, or a hint's model loaded on demand
        built.clear()
        monkeypatch.setattr("sys.stdin", io.StringIO("hint\nquit\n"))
        assert cli.main([*common, *options, *opponent]) == 0
        assert [(p.leaves, p.network.engine) for p in built] == [(3, "tensorflow")]
        assert "hint: " in capsys.readouterr().out


def recording(init, built: list):
    """``ModelPlayer.__init__`` that also keeps each player made."""

    def wrapper(self, *args, **kwargs):
        init(self, *args, **kwargs)
        built.append(self)

    return wrapper


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--leaves", "0"], "error: --leaves must be at least 1, got 0"),
        (["--engine", "openvino"], "error: --engine openvino: the openvino engine is not "
                                   "installed: pip install -e '.[fast]'"),
    ],
)  # fmt: skip
def test_bad_leaves_or_a_missing_engine_stop_with_one_line(monkeypatch, capsys, options, message):
    from alphazero.network import engines
    from alphazero.play import cli

    monkeypatch.setattr(engines, "openvino_installed", lambda: False)
    assert cli.main(["--game", "tictactoe", "--p2", "random", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--p1", "human", "--p2", "uct:2000", "--move-time", "2"],
         "only a model reads --move-time, and none plays here (human against uct:2000, and no "
         "model for hints): leave it out, or have a model play (--p2 model:PATH)"),
        (["--game-time", "60", "--clock", "wall"],  # a person against the fallback baseline
         "only a model reads --game-time and --clock, and none plays here (human against "
         "uct:2000, and no model for hints): leave them out"),
        (["--p1", "random", "--p2", "uct:10", "--sims", "400", "--leaves", "4", "--symmetric"],
         "only a model reads --sims, --leaves and --symmetric, and none plays here (random "
         "against uct:10): leave them out"),
        (["--p1", "random", "--p2", "perfect", "--model", "m.keras", "--search", "puct"],
         "only a model reads --model and --search, and none plays here (random against "
         "perfect)"),
    ],
)  # fmt: skip
def test_a_models_options_where_no_model_plays_are_a_one_line_error(
    monkeypatch, capsys, options, message
):
    from alphazero.play import cli

    monkeypatch.setattr(cli, "default_model", lambda name, params: None)  # no model to find
    assert cli.main(["--game", "tictactoe", *options]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {message}") and captured.err.count("\n") == 1
    assert captured.out == ""


def test_a_models_options_left_out_or_read_by_the_hints_model_are_no_error(monkeypatch, capsys):
    from alphazero.play import cli

    # The shipped model gives the person hints with --move-time (loaded only when asked).
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli.main(["--game", "tictactoe", "--p2", "random", "--move-time", "0.5"]) == 0
    # With no model, the defaults of the options left out (--sims 800, --clock wall...) are
    # never refused.
    monkeypatch.setattr(cli, "default_model", lambda name, params: None)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli.main(["--game", "tictactoe", "--p2", "random", "--seed", "1"]) == 0
    assert cli.main(["--game", "tictactoe", "--p1", "random", "--p2", "uct:5", "--quiet"]) == 0
    assert "error" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "options",
    [
        ["--clock", "cpu"],  # against the model, which searches --sims simulations
        ["--p2", "random", "--clock", "wall"],  # the hints' model; the default, but written
        ["--p2", "model:m.keras:400", "--clock", "cpu"],  # a spec with its own count
        ["--p2", "uct:2000", "--clock", "cpu"],  # a baseline with a count
    ],
)
def test_clock_without_a_time_budget_is_refused_in_one_line(monkeypatch, capsys, options):
    from alphazero.play import cli

    monkeypatch.setattr(cli, "default_model", lambda name, params: Path("m.keras"))
    assert cli.main(["--game", "tictactoe", *options]) == 2  # before any model loads
    captured = capsys.readouterr()
    assert captured.err == (
        "error: --clock goes with --move-time or --game-time (or a spec like model:PATH:2s or "
        "uct:2s): without one, the model searches a number of simulations and no clock is read\n"
    )
    assert captured.out == ""


def test_clock_is_read_by_a_time_budget_and_by_a_matchs_seconds_a_move(monkeypatch, capsys):
    from alphazero.evaluation import time_budget
    from alphazero.play import cli

    model = PRETRAINED_DIR / "tictactoe"
    common = ["--game", "tictactoe", "--model", str(model), "--quiet", "--clock", "cpu"]
    # A person's game: the hints' model's --move-time (never loaded here), a spec's own time.
    for options in (["--p2", "random", "--move-time", "0.5"], ["--p2", f"model:{model}:0.1s"]):
        monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
        assert cli.main([*common, *options]) == 0
    assert "error" not in capsys.readouterr().err
    # A match prints each model's seconds a move by --clock, whatever its budget.
    ticks = iter(range(1_000_000))
    monkeypatch.setitem(time_budget.CLOCKS, "cpu", lambda: float(next(ticks)))
    assert cli.main([*common, "--p1", f"model:{model}:8", "--p2", "random", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "model:tictactoe:8: 8 simulations, 1.00 s a move" in out, out


def test_clock_is_read_by_uct_and_rave_time_specs(monkeypatch, capsys):
    from alphazero.baselines import UCTPlayer
    from alphazero.evaluation import time_budget
    from alphazero.play import cli

    # A person against uct:2s: the baseline's seconds, with or without a model for hints.
    for model in (Path("m.keras"), None):
        monkeypatch.setattr(cli, "default_model", lambda name, params, model=model: model)
        monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
        assert cli.main(["--game", "tictactoe", "--p2", "uct:2s", "--clock", "cpu"]) == 0
    assert "error" not in capsys.readouterr().err
    # A match with no model at all: a CPU clock that moves a second each time it is read
    # has uct:3s search 3 simulations a move (the wall's would take 3 seconds and search more).
    ticks = iter(range(1_000_000))
    monkeypatch.setitem(time_budget.CLOCKS, "cpu", lambda: float(next(ticks)))
    built: list[UCTPlayer] = []
    monkeypatch.setattr(UCTPlayer, "__init__", recording(UCTPlayer.__init__, built))
    options = ["--p1", "uct:3s", "--p2", "rave:3s", "--clock", "cpu", "--seed", "1", "--quiet"]
    assert cli.main(["--game", "tictactoe", *options]) == 0
    assert [player.name for player in built] == ["uct:3s", "rave:3s"]
    assert all(player.last_search.simulations == 3 for player in built)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--p1", "human", "--p2", "model:m.keras:400", "--move-time", "2"],
         "--move-time is not read: model:m.keras:400 gives its own budget; leave it out, or drop "
         "the spec's :400"),
        (["--p1", "model:a.keras:400", "--p2", "uct:1000", "--sims", "800"],
         "--sims is not read: model:a.keras:400 gives its own budget; leave it out, or drop the "
         "spec's :400"),
        (["--p1", "model:a.keras:400", "--p2", "model:b.keras:60s/game", "--sims", "800",
          "--move-time", "2"],
         "--sims and --move-time are not read: model:a.keras:400 and model:b.keras:60s/game "
         "give their own budgets; leave them out, or drop a spec's budget (:400 and :60s/game)"),
    ],
)  # fmt: skip
def test_sims_given_to_a_model_spec_with_its_own_budget_is_refused_in_one_line(
    monkeypatch, capsys, options, message
):
    from alphazero.play import cli

    monkeypatch.setattr(cli, "default_model", lambda name, params: None)  # no hints' model
    assert cli.main(["--game", "tictactoe", *options]) == 2  # before any model loads
    captured = capsys.readouterr()
    assert captured.err == f"error: {message}\n"
    assert captured.out == ""


def test_a_person_gets_hints_from_the_model_playing_so_its_own_budget_is_theirs_too(
    monkeypatch, capsys
):
    from alphazero.play import cli

    # A model for the game is there, but the hints come from the model playing, whose :2s
    # replaces --sims and --game-time: nothing reads them.
    monkeypatch.setattr(cli, "default_model", lambda name, params: Path("m.keras"))
    options = ["--p2", "model:m.keras:2s", "--sims", "800", "--game-time", "60"]
    assert cli.main(["--game", "tictactoe", *options]) == 2
    assert capsys.readouterr().err == (
        "error: --sims and --game-time are not read: model:m.keras:2s gives its own budget; "
        "leave them out, or drop the spec's :2s\n"
    )


def test_budget_options_that_reach_a_model_are_no_error(monkeypatch, capsys):
    from alphazero.play import cli

    model = Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained" / "tictactoe"
    built: list[ModelPlayer] = []
    monkeypatch.setattr(ModelPlayer, "__init__", recording(ModelPlayer.__init__, built))
    # The second spec gives no budget: --sims is its.
    common = ["--game", "tictactoe", "--quiet", "--seed", "1"]
    specs = ["--p1", f"model:{model}:4", "--p2", f"model:{model}"]
    assert cli.main([*common, *specs, "--sims", "3"]) == 0
    assert [player.simulations for player in built] == [4, 3]
    # The options a spec's own budget does not replace still reach it.
    built.clear()
    others = ["--leaves", "2", "--symmetric", "--clock", "cpu", "--search", "puct"]
    assert cli.main([*common, "--p1", f"model:{model}:4", "--p2", "random", *others]) == 0
    read = [(p.simulations, p.leaves, p.symmetric, p.clock) for p in built]
    assert read == [(4, 2, True, time.process_time)]
    # No model plays a person: the hints' model (loaded only when asked) reads --sims.
    built.clear()
    monkeypatch.setattr("sys.stdin", io.StringIO("hint\nquit\n"))
    assert cli.main([*common, "--model", str(model), "--p2", "uct:5", "--sims", "6"]) == 0
    assert [player.simulations for player in built] == [6]
    # The model that would read it is missing: that is the error, not --sims.
    monkeypatch.setattr(cli, "default_model", lambda name, params: None)
    assert cli.main([*common, "--p1", "model:m.keras:400", "--sims", "800"]) == 2
    captured = capsys.readouterr()
    assert "error" not in captured.out and "not read" not in captured.err, captured.err


@pytest.mark.parametrize(
    ("p1", "p2", "model_path", "seats", "person", "model_reads_options"),
    [
        (None, None, "m.keras", (("person", "human"), ("model", "")), True, True),
        (None, None, None, (("person", "human"), ("fallback", "uct:2000")), True, False),
        ("uct:10", None, None, (("spec", "uct:10"), ("no model", "")), False, True),
        (" Human ", "model:m.keras:2s", None, (("person", "Human"), ("model spec",
                                                "model:m.keras:2s")), True, True),
        ("random", "human", "m.keras", (("spec", "random"), ("person", "human")), True, True),
        ("random", " perfect", "m.keras", (("spec", "random"), ("spec", "perfect")), False,
         False),
    ],
)  # fmt: skip
def test_who_sits_where_is_read_from_p1_p2_and_the_default_model(
    p1, p2, model_path, seats, person, model_reads_options
):
    import argparse

    from alphazero.play.cli_checks import read_lineup

    path = None if model_path is None else Path(model_path)
    lineup = read_lineup(argparse.Namespace(p1=p1, p2=p2), path)
    assert tuple((seat.kind, seat.spec) for seat in lineup.seats) == seats
    assert (lineup.person, lineup.model_reads_options) == (person, model_reads_options)
