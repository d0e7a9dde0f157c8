"""A run folder edited by hand, or made by someone hostile: nothing outside it is read or
written, and every problem is one line (issue 57, items 1, 7, 8 and 9).

Each case is a run folder of a tiny trained tic-tac-toe run with one thing changed; the
next probe adds its cases to the tables below."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from run_helpers import tiny_config

from alphazero.slim_run import main as slim_main
from alphazero.training.checkpoints import RunDir
from alphazero.training.loop import train
from alphazero.training.run_errors import CheckpointError

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A run of two iterations (so kept models, a resume point and a buffer), copied by
    each test before it changes anything."""
    path = tmp_path_factory.mktemp("trained") / "run"
    train(tiny_config(iterations=3), path, progress=False, max_iterations=2)
    return path


@pytest.fixture
def run(trained, tmp_path) -> Path:
    """A copy of the trained run beside a ``victim`` folder holding another run's file."""
    copy = tmp_path / "runs" / "mine"
    shutil.copytree(trained, copy)
    victim = tmp_path / "victim"
    victim.mkdir()
    shutil.copyfile(trained / "resume_0002.keras", victim / "other_run_resume.keras")
    return copy


def victim_file(run: Path) -> Path:
    return run.parents[1] / "victim" / "other_run_resume.keras"


def edit_metadata(run: Path, **changes: object) -> None:
    file = run / "metadata.json"
    metadata = json.loads(file.read_text())
    metadata.update(changes)
    file.write_text(json.dumps(metadata))


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert message and "\n" not in message, message
    return message


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )


def assert_one_line_error(process: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert process.returncode == 2, process.stderr[-2000:]
    assert "Traceback" not in process.stderr, process.stderr[-2000:]
    errors = [line for line in process.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, process.stderr[-2000:]
    for text in expected:
        assert text in errors[0], errors[0]


# ------------------------------------------------------- every file named stays inside
def _outside_paths(run: Path) -> dict[str, tuple[str, object]]:
    """Ways metadata can name a file outside the run folder: key -> (key, value)."""
    victim = victim_file(run)
    return {
        "kept_models_dotdot": ("kept_models", ["../../victim/other_run_resume.keras"]),
        "kept_models_absolute": ("kept_models", [str(victim)]),
        "kept_models_not_normalised": ("kept_models", ["models/../../../victim/x.keras"]),
        "best_dotdot": ("best", "../../victim/other_run_resume.keras"),
        "resume_absolute": ("resume", str(victim)),
        "buffer_absolute": ("buffer", "/etc/passwd"),
        "model_dotdot": ("model", "../mine/../../victim/other_run_resume.keras"),
        "kept_models_the_folder_itself": ("kept_models", ["."]),
        "kept_models_empty_name": ("kept_models", [""]),
        "kept_models_nul": ("kept_models", ["models/iter_0002.keras\u0000x"]),
        "kept_models_long_name": ("kept_models", ["m" * 5000 + ".keras"]),
    }


OUTSIDE = list(_outside_paths(Path("/r/runs/mine")))


@pytest.mark.parametrize("case", OUTSIDE)
def test_metadata_naming_a_file_outside_the_folder_is_refused(run, case):
    key, value = _outside_paths(run)[case]
    edit_metadata(run, **{key: value})
    before = victim_file(run).read_bytes()
    with pytest.raises(CheckpointError) as error:
        RunDir(run).read_metadata()
    assert f"{key!r} must be a path inside the run folder" in one_line(error)
    assert "metadata.json" in one_line(error)
    assert victim_file(run).read_bytes() == before


def _symlink_out(run: Path, link: str) -> None:
    (run / link).unlink(missing_ok=True)
    os.symlink(victim_file(run), run / link)


@pytest.mark.parametrize(
    "link",
    ["models/iter_0002.keras", "resume_0002.keras", "buffer_0002.npz", "kept_models"],
)
def test_a_named_file_that_is_a_symlink_out_of_the_folder_is_refused(run, link):
    if link == "kept_models":  # a kept model of its own name
        link = "models/iter_0001_kept.keras"
        edit_metadata(run, kept_models=["models/iter_0002.keras", link])
    _symlink_out(run, link)
    before = victim_file(run).read_bytes()
    with pytest.raises(CheckpointError) as error:
        RunDir(run).load()
    assert "must be a path inside the run folder" in one_line(error)
    assert victim_file(run).read_bytes() == before


def test_a_models_folder_that_links_out_of_the_run_is_refused(run):
    outside = run.parents[1] / "victim" / "models"
    shutil.move(run / "models", outside)
    os.symlink(outside, run / "models")
    with pytest.raises(CheckpointError) as error:
        RunDir(run).read_metadata()
    assert "must be a path inside the run folder" in one_line(error)


def test_a_symlink_loop_is_one_line(run):
    os.symlink(run / "models" / "loop_b", run / "models" / "loop_a")
    os.symlink(run / "models" / "loop_a", run / "models" / "loop_b")
    edit_metadata(run, kept_models=["models/loop_a"])
    with pytest.raises(CheckpointError) as error:
        RunDir(run).read_metadata()
    assert "'kept_models' must be a path inside the run folder" in one_line(error)


def test_a_run_folder_reached_through_a_symlink_still_loads(run, tmp_path):
    link = tmp_path / "link_to_run"
    os.symlink(run, link)
    _, buffer, metadata = RunDir(link).load()
    assert metadata["iteration"] == 2 and len(buffer) > 0


def test_resume_with_kept_models_outside_leaves_that_file_alone(run, tmp_path):
    """The issue's reproduction: train.py --resume used to exit 0, having rewritten the
    other run's resume point without its optimizer."""
    edit_metadata(run, kept_models=["../../victim/other_run_resume.keras"])
    before = victim_file(run).read_bytes()
    process = run_cli(
        str(ROOT / "train.py"), "--resume", "--run-dir", str(run), "--iterations", "1", cwd=tmp_path
    )
    assert_one_line_error(process, "'kept_models' must be a path inside the run folder")
    assert victim_file(run).read_bytes() == before


def test_slim_run_with_an_absolute_kept_model_leaves_that_file_alone(run, capsys):
    edit_metadata(run, kept_models=[str(victim_file(run))])
    before = victim_file(run).read_bytes()
    assert slim_main([str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'kept_models' must be a path inside the run folder" in err
    assert victim_file(run).read_bytes() == before


# ------------------------------------------------------------ wrong types: one line
def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


WRONG_TYPES: dict[str, tuple[str, object, str]] = {
    # case: (key, value, what the line says)
    "kept_models_5": ("kept_models", 5, "'kept_models' must be a list"),
    "kept_models_of_numbers": ("kept_models", [5], "'kept_models' must be a path"),
    "games_many": ("games", "many", "'games' must be a non-negative integer"),
    "games_negative": ("games", -3, "'games' must be a non-negative integer"),
    "positions_float": ("positions", 1.5, "'positions' must be a non-negative integer"),
    "train_steps_true": ("train_steps", True, "'train_steps' must be a non-negative integer"),
    "timings_list": ("timings", [1, 2], "'timings' must be an object of numbers"),
    "timings_of_text": ("timings", {"cpu_seconds": "x"}, "'timings' must be an object"),
    "rng_text": ("rng", "abc", "'rng' must be the state of a NumPy PCG64 generator"),
    "rng_other_generator": ("rng", {"bit_generator": "MT19937"}, "'rng' must be the state"),
    "rng_broken_state": ("rng", {"bit_generator": "PCG64", "state": 5}, "'rng' must be"),
    "elo_history_text": ("elo_history", [["a", None]], "'elo_history' must be a list of"),
    "elo_history_flat": ("elo_history", [1, 2], "'elo_history' must be a list of"),
    "metrics_text": ("metrics", "x", "'metrics' must be an object"),
    "ladder_text": ("ladder", "x", "'ladder' must be null or an object"),
    "best_elo_text": ("best_elo", "high", "'best_elo' must be null or a number"),
    "best_cost_list": ("best_cost", [1], "'best_cost' must be null or an object"),
    "best_rule_number": ("best_rule", 5, "'best_rule' must be null or a string"),
    "fresh_buffers_text": ("fresh_buffers", "3", "'fresh_buffers' must be a list of"),
    "ladder_openings_negative": ("ladder_openings", -2, "'ladder_openings' must be a non-negative"),
    "fresh_buffers_negative": ("fresh_buffers", [-1], "'fresh_buffers' must be a list of"),
    "game_number": ("game", 5, "'game' must be a game name"),
    "game_params_text": ("game", {"name": "tictactoe", "params": "x"}, "'game' must be"),
    "iteration_negative": ("iteration", -5, "'iteration' must be an integer of at least 1"),
    "iteration_zero": ("iteration", 0, "'iteration' must be an integer of at least 1"),
    "iteration_text": ("iteration", "2", "'iteration' must be an integer"),
    "iteration_true": ("iteration", True, "'iteration' must be an integer"),
    "iteration_nan": ("iteration", float("nan"), "'iteration' must be an integer"),
    "timings_infinite": ("timings", {"cpu_seconds": float("inf")}, "'timings' must be"),
    "format_true": ("format", True, "format True is not supported"),
    "top_score_text": ("top_score", "x", "'top_score' must be null or an object"),
    "resume_number": ("resume", 3, "'resume' must be a path inside the run folder"),
}


@pytest.mark.parametrize("case", list(WRONG_TYPES))
def test_a_field_of_the_wrong_type_is_one_line(run, case):
    key, value, expected = WRONG_TYPES[case]
    edit_metadata(run, **{key: value})
    with pytest.raises(CheckpointError) as error:
        RunDir(run).load()
    assert expected in one_line(error) and "metadata.json" in one_line(error)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_deep(200_000), "nested too deeply"),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
        ("\xff\xfe", "not valid JSON"),
    ],
    ids=["list_nesting", "object_nesting", "not_utf8"],
)
def test_metadata_that_is_not_a_checkpoints_json_is_one_line(run, text, expected):
    (run / "metadata.json").write_bytes(text.encode("latin-1"))
    with pytest.raises(CheckpointError) as error:
        RunDir(run).read_metadata()
    assert expected in one_line(error)


def test_a_huge_metadata_file_is_not_read_whole(run):
    with open(run / "metadata.json", "wb") as file:
        file.truncate(64 << 20)  # sparse: 64 MB of NUL bytes
    with pytest.raises(CheckpointError) as error:
        RunDir(run).read_metadata()
    assert "not a checkpoint's metadata" in one_line(error)


def test_a_negative_iteration_writes_no_file_of_that_name(run, tmp_path):
    edit_metadata(run, iteration=-5)
    process = run_cli(
        str(ROOT / "train.py"), "--resume", "--run-dir", str(run), "--iterations", "1", cwd=tmp_path
    )
    assert_one_line_error(process, "'iteration' must be an integer of at least 1")
    assert not list(run.glob("resume_-*"))


@pytest.mark.parametrize(
    ("key", "value"),
    [("kept_models", 5), ("games", "many"), ("rng", "abc"), ("metrics", "x")],
)
def test_slim_run_says_one_line_for_a_wrong_type(run, capsys, key, value):
    edit_metadata(run, **{key: value})
    assert slim_main([str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{key!r} must be" in err


def test_slim_run_says_one_line_for_deep_nesting(run, capsys):
    (run / "metadata.json").write_text(_deep(200_000))
    assert slim_main([str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested too deeply" in err


def test_resume_with_a_text_rng_is_one_line(run, tmp_path):
    edit_metadata(run, rng="abc")
    process = run_cli(
        str(ROOT / "train.py"), "--resume", "--run-dir", str(run), "--iterations", "1", cwd=tmp_path
    )
    assert_one_line_error(process, "'rng' must be the state of a NumPy PCG64 generator")


def test_play_with_a_run_folder_of_bad_metadata_is_one_line(run, tmp_path):
    (run / "best.keras").unlink()
    (run / "latest.keras").unlink()
    edit_metadata(run, best=["models/iter_0002.keras"])
    process = run_cli(
        str(ROOT / "play.py"),
        *("--game", "tictactoe", "--model", str(run), "--p1", "random", "--games", "1"),
        cwd=tmp_path,
    )
    assert_one_line_error(process, "'best' must be a path inside the run folder")


# ------------------------------------------------------ only the project's temp files go
def test_resume_removes_only_the_temporary_files_a_save_made(run):
    made = [
        f".metadata.json.{os.getpid()}.abcdefgh.tmp",
        ".buffer_0003.npz.4242.k3j4h5x_.tmp",
        "models/.iter_0003.4242.abcdefgh.tmp.keras",
        ".resume_0003.77.zzzzzzzz.tmp.keras",
    ]
    theirs = [
        ".notes.tmp",  # a person's
        ".draft.tmp.keras",
        ".metadata.json.tmp",  # no pid
        "models/.iter_0003.tmp.keras",
        ".thesis.4242.abcdefgh.tmp",  # a pid, but not one of the run's files
        ".buffer_0003.npz.4242.abcdefgh.tmp.bak",
    ]
    for name in made + theirs:
        (run / name).write_text("bytes")
    RunDir(run).remove_temp_files()
    assert not [name for name in made if (run / name).exists()]
    assert all((run / name).read_text() == "bytes" for name in theirs)


# ----------------------------------------------------------------------- a full disk
def _tmpfs_works() -> str | None:
    """Why a tmpfs of the test's own cannot be mounted here, or None."""
    if shutil.which("unshare") is None:
        return "no unshare command"
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt && echo ok"],
        capture_output=True,
        text=True,
    )
    return None if probe.stdout.strip() == "ok" else f"cannot mount a tmpfs: {probe.stderr}"


def test_a_full_disk_during_a_save_is_one_line_and_keeps_the_checkpoint(trained, tmp_path):
    """The run folder on a tmpfs with room for the run and little more: the next save runs
    out of space. One line says so, what was kept and how to go on; the checkpoint loads."""
    reason = _tmpfs_works()
    if reason is not None:
        pytest.skip(reason)
    used = sum(p.stat().st_size for p in trained.rglob("*") if p.is_file())
    mount = tmp_path / "disk"
    mount.mkdir()
    script = (
        f"mount -t tmpfs -o size={used + (160 << 10)} tmpfs {mount} && "
        f"cp -a {trained} {mount}/run && "
        f"{sys.executable} {ROOT / 'train.py'} --resume --run-dir {mount}/run --iterations 1 "
        f"--quiet; echo exit=$?; cp -a {mount}/run {tmp_path}/after"
    )
    process = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert "exit=2" in process.stdout, process.stdout + process.stderr[-3000:]
    assert "Traceback" not in process.stderr, process.stderr[-3000:]
    errors = [line for line in process.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, process.stderr[-3000:]
    assert "disk is full" in errors[0] and "iteration 2" in errors[0]
    assert "--resume" in errors[0]
    after = tmp_path / "after"
    assert not [p.name for p in after.rglob(".*tmp*")]  # no half-written file left
    assert RunDir(after).load()[2]["iteration"] == 2
