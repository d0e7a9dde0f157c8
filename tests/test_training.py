"""The training loop as a user drives it: resuming, crashing, Ctrl-C and bad input."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import keras
import numpy as np
import pytest
import yaml
from run_helpers import TINY, tiny_config

from alphazero.config import config_from_dict
from alphazero.migrate_run import migrate_run
from alphazero.slim_run import slim_run
from alphazero.training.checkpoints import FORMAT, RunDir
from alphazero.training.loop import train
from alphazero.training.run_errors import CheckpointError

ROOT = Path(__file__).resolve().parents[1]


def weights(model) -> list[np.ndarray]:
    return [np.array(w) for w in model.get_weights()]


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> Path:
    """A run of 4 iterations that never stopped, for resumed runs to be compared with."""
    path = tmp_path_factory.mktemp("straight") / "run"
    train(tiny_config(iterations=4), path, progress=False)
    return path


def optimizer_variables(model) -> list[np.ndarray]:
    return [np.array(v) for v in model.optimizer.variables]


def assert_same_as_straight(straight: Path, resumed: Path) -> None:
    """Model weights, optimizer state (step count and moments), buffer, counters and random
    state of the two runs' checkpoints are identical."""
    model_a, buffer_a, meta_a = RunDir.open(straight).load()
    model_b, buffer_b, meta_b = RunDir.open(resumed).load()
    for a, b in zip(weights(model_a), weights(model_b), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(buffer_a.arrays(), buffer_b.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert meta_a["rng"] == meta_b["rng"]
    for key in ("iteration", "games", "positions", "train_steps"):
        assert meta_a[key] == meta_b[key]
    assert int(model_b.optimizer.iterations.numpy()) == meta_b["train_steps"] > 0
    opt_a, opt_b = optimizer_variables(model_a), optimizer_variables(model_b)
    assert len(opt_a) == len(opt_b) > 1
    for a, b in zip(opt_a, opt_b, strict=True):
        np.testing.assert_array_equal(a, b)


def with_optimizer(run: Path) -> list[str]:
    """The model files of ``run`` that Keras loads with an optimizer, relative names."""
    found = []
    for file in sorted(run.rglob("*.keras")):
        if getattr(keras.models.load_model(file), "optimizer", None) is not None:
            found.append(file.relative_to(run).as_posix())
    return found


def as_format_1(run: Path) -> None:
    """Give a run whose last model is kept and the best the layout format 1 left: that
    model, latest.keras and best.keras all hold the optimizer (the resume file's bytes), and
    the metadata names no resume file."""
    meta = json.loads((run / "metadata.json").read_text())
    resume = run / meta.pop("resume")
    assert meta["best"] == meta["model"] == meta["kept_models"][-1]
    for name in (meta["model"], "latest.keras", "best.keras"):
        shutil.copyfile(resume, run / name)
    resume.unlink()
    (run / "metadata.json").write_text(json.dumps({**meta, "format": 1}, indent=2))


def test_resuming_gives_the_same_state_as_not_stopping(tmp_path, straight):
    config = tiny_config(iterations=4)
    # Stop after the buffer (500 positions, ~380 a iteration) has wrapped around.
    train(config, tmp_path / "stopped", progress=False, max_iterations=2)
    _, wrapped, _ = RunDir.open(tmp_path / "stopped").load()
    assert wrapped.total_added > wrapped.capacity
    train(config, tmp_path / "stopped", resume=True, progress=False)
    assert_same_as_straight(straight, tmp_path / "stopped")


def test_a_run_slimmed_to_its_sampling_window_resumes_exactly(tmp_path):
    config = tiny_config(iterations=4, replay={"capacity": 2000, "window_start": 100})
    train(config, tmp_path / "straight", progress=False)
    train(config, tmp_path / "slimmed", progress=False, max_iterations=2)
    _, whole, meta = RunDir.open(tmp_path / "slimmed").load()
    slim_run(tmp_path / "slimmed")
    _, cut, _ = RunDir.open(tmp_path / "slimmed").load()
    window = config.replay.window(meta["positions"])
    assert len(cut) == window < len(whole)
    for a, b in zip(cut.arrays(), whole.arrays(), strict=True):
        np.testing.assert_array_equal(a, b[-window:])
    train(None, tmp_path / "slimmed", resume=True, progress=False)  # type: ignore[arg-type]
    model_a, _, meta_a = RunDir.open(tmp_path / "straight").load()
    model_b, _, meta_b = RunDir.open(tmp_path / "slimmed").load()
    for a, b in zip(weights(model_a), weights(model_b), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(optimizer_variables(model_a), optimizer_variables(model_b), strict=True):
        np.testing.assert_array_equal(a, b)
    assert meta_a["rng"] == meta_b["rng"] and meta_a["train_steps"] == meta_b["train_steps"]


def test_a_run_kept_without_its_buffer_resumes_only_when_asked_to_start_one_afresh(tmp_path):
    config = tiny_config(iterations=4, train={**TINY["train"], "min_positions": 100})
    run = tmp_path / "run"
    train(config, run, progress=False, max_iterations=2)
    _, _, before = RunDir.open(run).load()
    assert before["buffer"] in slim_run(run, drop_buffer=True)
    assert not (run / before["buffer"]).exists()
    with pytest.raises(CheckpointError, match="--resume --fresh-buffer") as error:
        train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    assert "\n" not in str(error.value)
    train(None, run, resume=True, progress=False, fresh_buffer=True)  # type: ignore[arg-type]
    model, buffer, after = RunDir.open(run).load()
    assert after["iteration"] == 4 and after["fresh_buffers"] == [2]
    # The buffer holds only what the last two iterations played, and training went on.
    assert buffer.total_added == after["positions"] - before["positions"] > 0
    assert after["train_steps"] > before["train_steps"]
    assert int(model.optimizer.iterations.numpy()) == after["train_steps"]


def test_train_py_names_fresh_buffer_for_a_folder_without_its_buffer(tmp_path):
    run = tmp_path / "run"
    train(tiny_config(iterations=2), run, progress=False, max_iterations=1)
    slim_run(run, drop_buffer=True)
    result = run_cli("--resume", "--run-dir", str(run))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "--fresh-buffer" in result.stderr
    result = run_cli("--fresh-buffer", "--run-dir", str(tmp_path / "new"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "--fresh-buffer goes with --resume" in result.stderr
    assert not (tmp_path / "new").exists()


def test_resume_keeps_adam_state_with_weights_only_latest(tmp_path, straight):
    run = tmp_path / "stopped"
    train(tiny_config(iterations=4), run, progress=False, max_iterations=2)
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["resume"] == "resume_0002.keras"
    assert with_optimizer(run) == ["resume_0002.keras"]
    resume_size = (run / "resume_0002.keras").stat().st_size
    for name in ("latest.keras", "best.keras", "models/iter_0002.keras"):  # iteration 2 is kept
        assert (run / name).stat().st_size < resume_size, name
    model, _, _ = RunDir.open(run).load()
    assert int(model.optimizer.iterations.numpy()) == meta["train_steps"] == 8
    train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    assert_same_as_straight(straight, run)
    assert with_optimizer(run) == ["resume_0004.keras"]


def test_an_old_layout_run_resumes_exactly_once_migrated(tmp_path, straight):
    run = tmp_path / "stopped"
    train(tiny_config(iterations=4), run, progress=False, max_iterations=2)
    as_format_1(run)
    assert with_optimizer(run) == ["best.keras", "latest.keras", "models/iter_0002.keras"]
    migrate_line = re.escape(f"python -m alphazero.migrate_run {run}") + "$"
    with pytest.raises(CheckpointError, match=migrate_line):  # it names the command
        train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    migrate_run(run)
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["format"] == FORMAT and meta["iteration"] == 2
    assert with_optimizer(run) == ["resume_0002.keras"]  # the kept model lost its optimizer
    train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    assert_same_as_straight(straight, run)


def test_run_folder_holds_config_metadata_models_and_metrics(tmp_path):
    train(tiny_config(iterations=4), tmp_path / "run", progress=False)
    run = tmp_path / "run"
    assert yaml.safe_load((run / "config.yaml").read_text())["game"]["name"] == "tictactoe"
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["iteration"] == 4 and meta["games"] == 24
    assert meta["timings"]["cpu_seconds"] > 0
    assert sorted(p.name for p in (run / "models").iterdir()) == [
        "iter_0002.keras",
        "iter_0004.keras",
    ]
    assert (run / "latest.keras").exists() and (run / "best.keras").exists()
    assert meta["resume"] == "resume_0004.keras" and (run / "resume_0004.keras").exists()
    lines = (run / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in lines] == [1, 2, 3, 4]
    assert "policy_loss" in json.loads(lines[-1])["train"]
    assert "cores" in json.loads(lines[-1])["machine"]  # CPU-seconds are this machine's
    assert "TensorFlow 2." in json.loads(lines[-1])["software"]  # and these libraries'
    assert any((run / "tensorboard").iterdir())


def test_connect4_runs_track_the_solved_positions_each_iteration(tmp_path):
    game = {"name": "connect4"}
    evaluation = {**TINY["evaluation"], "solved_positions": True}
    config = tiny_config(game=game, evaluation=evaluation, iterations=1)
    train(config, tmp_path / "c4", progress=False)
    record = json.loads((tmp_path / "c4" / "metrics.jsonl").read_text().splitlines()[-1])
    solved = record["connect4_positions"]
    assert 0.2 < solved["policy_correct"] < 0.8  # an untrained net moves almost at random
    # An untrained value head says about "draw" everywhere: right on the 10% drawn positions,
    # and about 1 off (squared) on the decided ones.
    assert solved["value_result"] < 0.2 and 0.7 < solved["value_mse"] < 1.1
    assert set(solved) >= {"policy_exact", "policy_correct_4-12", "policy_correct_21-30"}

    train(tiny_config(iterations=1), tmp_path / "ttt", progress=False)
    record = json.loads((tmp_path / "ttt" / "metrics.jsonl").read_text().splitlines()[-1])
    assert "connect4_positions" not in record


def test_evaluation_rates_the_ladder_and_keeps_an_elo_history(tmp_path):
    evaluation = {"every": 2, "opponents": ["random", "perfect"], "games": 4, "simulations": 8}
    train(tiny_config(iterations=4, evaluation=evaluation), tmp_path / "run", progress=False)
    meta = json.loads((tmp_path / "run" / "metadata.json").read_text())
    ladder = meta["ladder"]
    assert ladder["random"] == 0.0 and ladder["perfect"] > 100  # perfect beats random
    assert [i for i, _ in meta["elo_history"]] == [2, 4]
    best = int(meta["best"].removeprefix("models/iter_").removesuffix(".keras"))
    assert meta["best_elo"] == dict(meta["elo_history"])[best]
    assert meta["top_score"]["iteration"] in (2, 4) and best >= meta["top_score"]["iteration"]
    records = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    evaluated = [r for r in records if "evaluation" in r]
    assert [r["iteration"] for r in evaluated] == [2, 4]
    assert set(evaluated[0]["evaluation"]["opponents"]) == {"random", "perfect"}
    assert evaluated[0]["evaluation"]["opponents"]["perfect"]["wins"] == 0  # nobody beats it


def test_resume_drops_a_half_written_metrics_line(tmp_path):
    train(tiny_config(iterations=2), tmp_path / "run", progress=False, max_iterations=1)
    metrics = tmp_path / "run" / "metrics.jsonl"
    metrics.write_text(metrics.read_text() + '{"iteration": 2, "selfpl')  # killed mid-write
    train(tiny_config(iterations=2), tmp_path / "run", resume=True, progress=False)
    iterations = [json.loads(line)["iteration"] for line in metrics.read_text().splitlines()]
    assert iterations == [1, 2]


def test_best_is_the_latest_model_until_the_first_evaluation(tmp_path):
    evaluation = {"every": 3, "opponents": ["random"], "games": 2, "simulations": 4}
    train(tiny_config(iterations=2, evaluation=evaluation), tmp_path / "run", progress=False)
    meta = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert meta["best"] == meta["model"] == "models/iter_0002.keras"


def test_a_hand_picked_best_keeps_its_rule_and_cost_until_the_run_picks_a_new_best(tmp_path):
    from alphazero.evaluation.run_evaluation import BEST_RULE

    # Nobody beats perfect play at tic-tac-toe, so a tiny network scores at most a half.
    evaluation = {"every": 1, "opponents": ["perfect"], "games": 4, "simulations": 4}
    config = tiny_config(iterations=3, evaluation=evaluation)
    run, path = tmp_path / "run", tmp_path / "run" / "metadata.json"
    train(config, run, progress=False, max_iterations=1)
    meta = json.loads(path.read_text())
    assert meta["best_rule"] == BEST_RULE
    first_cost = {"games": 6, "cpu_seconds": meta["timings"]["cpu_seconds"]}
    assert meta["best_cost"] == first_cost
    # Someone picks iteration 1 by other measures, and records a top score no later
    # evaluation comes near.
    won = {"iteration": 1, "wins": 10**6, "draws": 0, "losses": 0}
    path.write_text(json.dumps({**meta, "best_rule": "by hand", "top_score": won}))
    train(config, run, resume=True, progress=False, max_iterations=1)
    meta = json.loads(path.read_text())
    assert meta["iteration"] == 2
    assert (meta["best"], meta["best_rule"]) == ("models/iter_0001.keras", "by hand")
    assert meta["games"] == 12
    assert meta["best_cost"] == first_cost  # what iteration 1 cost, not the run so far
    # Once the run's own rule picks a new best, the rule says so again.
    lost = {"iteration": 1, "wins": 0, "draws": 0, "losses": 10**6}
    path.write_text(json.dumps({**meta, "top_score": lost}))
    train(config, run, resume=True, progress=False)
    meta = json.loads(path.read_text())
    assert meta["best"] == "models/iter_0003.keras"
    assert meta["best_rule"] == BEST_RULE
    assert meta["best_cost"] == {"games": 18, "cpu_seconds": meta["timings"]["cpu_seconds"]}


def test_a_ladder_edited_in_the_run_config_is_rated_afresh_on_resume(tmp_path):
    evaluation = {"every": 1, "opponents": ["random"], "games": 2, "simulations": 4}
    run, path = tmp_path / "run", tmp_path / "run" / "metadata.json"
    train(tiny_config(iterations=2, evaluation=evaluation), run, progress=False, max_iterations=1)
    _edit_run_config(run, "evaluation", opponents=["random", "perfect"])
    train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    meta = json.loads(path.read_text())
    assert set(meta["ladder"]) == {"random", "perfect"} and meta["ladder"]["perfect"] > 100
    # Scores against the old ladder do not compare: the top is the new ladder's first.
    assert meta["top_score"]["iteration"] == 2 and meta["best"] == "models/iter_0002.keras"


def test_ladder_openings_edited_in_the_run_config_rate_the_ladder_afresh(tmp_path):
    evaluation = {"every": 1, "opponents": ["random"], "games": 2, "simulations": 4}
    run, path = tmp_path / "run", tmp_path / "run" / "metadata.json"
    train(tiny_config(iterations=2, evaluation=evaluation), run, progress=False, max_iterations=1)
    assert json.loads(path.read_text())["ladder_openings"] == 0
    _edit_run_config(run, "evaluation", openings=1)
    train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    meta = json.loads(path.read_text())
    assert meta["ladder_openings"] == 1 and meta["top_score"]["iteration"] == 2


def test_a_run_saved_without_its_top_ladder_score_finds_it_again_on_resume(tmp_path):
    evaluation = {"every": 1, "opponents": ["random"], "games": 2, "simulations": 4}
    config = tiny_config(iterations=2, evaluation=evaluation)
    run, path = tmp_path / "run", tmp_path / "run" / "metadata.json"
    train(config, run, progress=False, max_iterations=1)
    meta = json.loads(path.read_text())
    assert meta.pop("top_score")["iteration"] == 1
    path.write_text(json.dumps(meta))  # as runs from before it was recorded
    # Iteration 1's record says it won a million games: no later model comes near.
    metrics = run / "metrics.jsonl"
    record = json.loads(metrics.read_text())
    record["evaluation"]["opponents"]["random"].update(wins=10**6, draws=0, losses=0)
    metrics.write_text(json.dumps(record) + "\n")
    train(config, run, resume=True, progress=False)
    meta = json.loads(path.read_text())
    assert meta["top_score"] == {"iteration": 1, "wins": 10**6, "draws": 0, "losses": 0}
    assert meta["best"] == "models/iter_0001.keras"


def test_a_metrics_line_lost_after_its_checkpoint_comes_back_on_resume(tmp_path):
    run = tmp_path / "run"
    train(tiny_config(iterations=3), run, progress=False, max_iterations=2)
    metrics = run / "metrics.jsonl"
    lines = metrics.read_text().splitlines()
    metrics.write_text(lines[0] + "\n")  # a kill between iteration 2's checkpoint and its line
    train(tiny_config(iterations=3), run, resume=True, progress=False)
    records = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert [r["iteration"] for r in records] == [1, 2, 3]
    assert records[1] == json.loads(lines[1])


def test_cpu_seconds_count_the_saving_of_each_checkpoint(tmp_path, monkeypatch):
    save = RunDir.save

    def slow_save(self, *args, **kwargs):
        end = time.process_time() + 1.0
        while time.process_time() < end:  # a second of CPU, as a big buffer's compression
            pass
        return save(self, *args, **kwargs)

    monkeypatch.setattr(RunDir, "save", slow_save)
    run = tmp_path / "run"
    train(tiny_config(iterations=3), run, progress=False)
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    # Iteration 2 counts iteration 1's save; iteration 3, iteration 2's.
    spent = [b["cpu_seconds"] - a["cpu_seconds"] for a, b in itertools.pairwise(records)]
    assert min(spent) >= 1.0


def test_starting_over_an_existing_run_asks_for_resume(tmp_path):
    train(tiny_config(iterations=1), tmp_path / "run", progress=False)
    with pytest.raises(CheckpointError, match="--resume"):
        train(tiny_config(iterations=1), tmp_path / "run", progress=False)


DEEP_BLOCK = (
    "train:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 1200)) + " " * 1200 + "v: 1\n"
)


def run_cli(*args: str, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run(
        [sys.executable, str(ROOT / "train.py"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("train: {batch_size: -3}\n", "train.batch_size: must be >= 1"),
        ("trian: {}\n", "trian: unknown setting"),
        ("search: {c_puct: fast}\n", "search.c_puct: expected a number"),
        ("game: {name: chess}\n", "unknown game 'chess'"),
        ("game: [1, 2\n", "not valid YAML"),
        ("train: " + "[" * 3000 + "]" * 3000 + "\n", "nested more than 16 levels deep"),
        (DEEP_BLOCK, "nested more than 16 levels deep"),
        ("1: a\nfoo: b\n", "1: unknown setting"),
        ("seed: 1\nseed: 2\n", "duplicate key 'seed' at line 2 (first at line 1)"),
        ("", "empty, no settings in it"),
    ],
    ids=lambda value: value[:40],  # the deep configs would make ids too long for a process env
)
def test_bad_config_is_a_one_line_error(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    result = run_cli("--config", str(path), "--run-dir", str(tmp_path / "run"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("value", ["abc", "1.5", ""])
def test_iterations_that_are_no_integer_are_one_line_naming_the_option(tmp_path, value):
    result = run_cli("--iterations", value, "--run-dir", str(tmp_path / "run"), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"error: --iterations: expected an integer, got {value!r}\n"


def test_resume_without_a_checkpoint_is_a_one_line_error(tmp_path):
    result = run_cli("--resume", "--run-dir", str(tmp_path / "nothing"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_truncated_checkpoint_is_a_one_line_error(tmp_path):
    train(tiny_config(iterations=2), tmp_path / "run", progress=False, max_iterations=1)
    resume = tmp_path / "run" / "resume_0001.keras"
    resume.write_bytes(resume.read_bytes()[:200])
    result = run_cli("--resume", "--run-dir", str(tmp_path / "run"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert str(resume) in result.stderr
    resume.unlink()
    result = run_cli("--resume", "--run-dir", str(tmp_path / "run"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert f"{resume}: no such model file" in result.stderr


def _write_config(tmp_path: Path, **overrides) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, **overrides}))
    return path


def test_sigkill_at_any_moment_leaves_a_resumable_run(tmp_path):
    config_path = _write_config(tmp_path, iterations=50)
    run = tmp_path / "run"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    command = [sys.executable, str(ROOT / "train.py"), "--quiet", "--run-dir", str(run)]
    rng = np.random.default_rng(0)
    for attempt in range(3):
        args = ["--config", str(config_path)] if attempt == 0 else ["--resume"]
        process = subprocess.Popen([*command, *args], env=env, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while not (run / "metadata.json").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(float(rng.uniform(0.5, 4.0)))  # somewhere inside later iterations
        process.send_signal(signal.SIGKILL)
        process.wait()
    _, buffer, meta = RunDir.open(run).load()
    assert meta["iteration"] >= 1
    assert len(buffer) > 0
    assert run_cli("--resume", "--run-dir", str(run), "--iterations", "1").returncode == 0


@pytest.mark.slow  # a minute; CI runs the same kills on a current folder (the test above)
def test_sigkill_while_an_old_layout_run_converts_leaves_it_resumable(tmp_path):
    """Kills aimed at the saves of a format 1 folder, the first of which converts it."""
    run = tmp_path / "run"
    config = tiny_config(iterations=50, checkpoint={"keep_every": 1})
    train(config, run, progress=False, max_iterations=2)
    as_format_1(run)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    command = [sys.executable, str(ROOT / "train.py"), "--quiet", "--run-dir", str(run)]
    rng = np.random.default_rng(1)
    for _ in range(3):
        before = {p.name for p in run.iterdir()}
        process = subprocess.Popen([*command, "--resume"], env=env, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        # Until the save starts: its first file is the resume file (under a temporary name).
        while time.monotonic() < deadline and process.poll() is None:
            if any("resume_" in p.name and p.name not in before for p in run.iterdir()):
                break
            time.sleep(0.01)
        time.sleep(float(rng.uniform(0.0, 0.4)))  # somewhere inside the save
        process.send_signal(signal.SIGKILL)
        process.wait()
    _, buffer, meta = RunDir.open(run).load()
    assert meta["iteration"] >= 2 and len(buffer) > 0
    assert run_cli("--resume", "--run-dir", str(run), "--iterations", "1").returncode == 0
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["format"] == FORMAT and with_optimizer(run) == [meta["resume"]]


@pytest.mark.parametrize("sigint_ignored", [False, True])
def test_ctrl_c_saves_and_exits_cleanly(tmp_path, sigint_ignored):
    """Also when started the way a script starts a background job: with SIGINT ignored."""
    config_path = _write_config(tmp_path, iterations=100_000)  # never ends on its own
    run = tmp_path / "run"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}

    def start_like_a_background_job() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN if sigint_ignored else signal.SIG_DFL)

    process = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--quiet", "--config", str(config_path),
         "--run-dir", str(run)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=start_like_a_background_job,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not (run / "metadata.json").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    status = Path(f"/proc/{process.pid}/status")
    if status.exists():  # Linux: the kernel's view of which signals the process ignores
        for _ in range(10):  # checkpoint saves hold their own handler: look several times
            line = next(x for x in status.read_text().splitlines() if x.startswith("SigIgn"))
            assert not int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)), "SIGINT ignored"
            time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0
    assert "Traceback" not in stderr
    assert "--resume" in stderr
    RunDir.open(run).load()  # what it left is a valid checkpoint


def test_resuming_a_finished_run_says_it_finished_and_how_to_train_further(tmp_path, capsys):
    run = tmp_path / "run"
    train(tiny_config(iterations=1), run, progress=False)
    capsys.readouterr()
    state = train(None, run, resume=True, progress=False, max_iterations=5)  # type: ignore[arg-type]
    assert state.iteration == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert f"{run} has finished its 1 iteration" in lines[0]
    assert f"raise `iterations` in {run / 'config.yaml'}" in lines[0]
    assert "--iterations 5" in lines[0]  # it counts this session's iterations, not the run's


@pytest.mark.parametrize(
    ("iteration", "left"),
    [(1, "for the 2 iterations left ("), (2, "for the 1 iteration left ("), (3, None)],
)
def test_the_first_estimate_counts_the_iterations_after_the_one_just_played(iteration, left):
    from alphazero.selfplay.results import SelfPlayStats
    from alphazero.training.loop import _first_estimate

    config = tiny_config(iterations=3)  # 6 games an iteration: a minute each at this pace
    line = _first_estimate(config, iteration, SelfPlayStats(games=6, seconds=60.0))
    if left is None:
        assert line == "first games: 6 in 1:00; the run's last iteration, so its self-play is done"
    else:
        minutes = 3 - iteration
        assert line.startswith(f"first games: 6 in 1:00; at that pace self-play alone takes "
                               f"about {minutes}:00 {left}")  # fmt: skip


def test_a_run_that_ends_says_so_and_where_its_best_model_is(tmp_path, capsys):
    run = tmp_path / "run"
    train(tiny_config(iterations=2), run, max_iterations=1)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("stopped after this session's 1 iteration: ")
    assert "holds iteration 1 of 2" in last and "--resume" in last
    train(tiny_config(iterations=2), run, resume=True)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"finished: {run} has trained its 2 iterations (12 games)")
    assert str(run / "best.keras") in last


def _edit_run_config(run: Path, section: str, **settings) -> None:
    data = yaml.safe_load((run / "config.yaml").read_text())
    data[section].update(settings)
    (run / "config.yaml").write_text(yaml.safe_dump(data))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("filters", 16),
        ("blocks", 2),
        ("value_hidden", 4),
        ("value_channels", 4),
    ],
)
def test_resuming_with_another_network_shape_is_a_one_line_error(tmp_path, key, value):
    run = tmp_path / "run"
    train(tiny_config(), run, progress=False, max_iterations=1)
    _edit_run_config(run, "network", **{key: value})
    with pytest.raises(CheckpointError) as error:
        train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    message = str(error.value)
    assert "\n" not in message and str(run / "config.yaml") in message
    assert f"network.{key} is {value}, but the checkpoint's model has" in message


def test_a_changed_l2_takes_effect_on_resume(tmp_path):
    run = tmp_path / "run"
    train(tiny_config(), run, progress=False, max_iterations=1)
    _edit_run_config(run, "network", l2=0.01)
    train(None, run, resume=True, progress=False, max_iterations=1)  # type: ignore[arg-type]
    model, _, _ = RunDir.open(run).load()
    kernels = [layer for layer in model.layers if hasattr(layer, "kernel_regularizer")]
    assert {layer.kernel_regularizer.l2 for layer in kernels} == {0.01}  # and saved so
    lines = (run / "metrics.jsonl").read_text().splitlines()
    l2_losses = [json.loads(line)["train"]["l2_loss"] for line in lines]
    assert l2_losses[1] > 10 * l2_losses[0]


class _InterruptedBackend:
    in_process = True

    def play(self, num_games, rng):
        raise KeyboardInterrupt

    def close(self) -> None:
        pass


def test_ctrl_c_before_the_first_checkpoint_says_nothing_was_saved(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(
        "alphazero.training.session.make_backend", lambda *args: _InterruptedBackend()
    )
    run = tmp_path / "run"
    state = train(tiny_config(), run, progress=False)
    assert state.iteration == 0 and not RunDir(run).has_checkpoint
    err = capsys.readouterr().err.strip()
    assert err == "interrupted before the first checkpoint; nothing saved"  # no --resume advice


def _interrupt_after_games(monkeypatch: pytest.MonkeyPatch, games: int) -> None:
    """Ctrl-C in self-play (in this process) as the game after the first ``games`` ends."""
    import alphazero.selfplay.loop as selfplay

    real = selfplay._finish
    ended = [0]

    def finish(*args, **kwargs):
        if ended[0] == games:
            raise KeyboardInterrupt
        ended[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(selfplay, "_finish", finish)


def _games_asked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of games each self-play call of the training loop asks for."""
    from alphazero.workers import LocalBackend

    asked: list[int] = []
    real = LocalBackend.play

    def play(self, num_games, rng):
        asked.append(num_games)
        return real(self, num_games, rng)

    monkeypatch.setattr(LocalBackend, "play", play)
    return asked


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def test_ctrl_c_in_the_first_iteration_keeps_its_finished_games_for_resume(
    tmp_path, capsys, monkeypatch
):
    """It used to say "nothing saved", after minutes of self-play."""
    run = tmp_path / "run"
    with monkeypatch.context() as patch:
        _interrupt_after_games(patch, 4)
        assert train(tiny_config(), run, progress=False).iteration == 0
    err = capsys.readouterr().err.strip()
    assert err == (
        f"interrupted: {run} holds 4 finished games of iteration 1; continue with: "
        f"python train.py --resume --run-dir {run}"
    )
    kept = RunDir(run).load_pending()
    assert (kept.iteration, kept.games, kept.complete) == (1, 4, False)
    assert len(kept.values) == 8 * sum(kept.stats["lengths"])  # every position, 8 symmetries
    # A new run there would lose them: it is refused, and --resume named.
    with pytest.raises(
        CheckpointError, match=r"pending_selfplay\.npz\); continue it with --resume"
    ):
        train(tiny_config(), run, progress=False)

    asked = _games_asked(monkeypatch)
    state = train(None, run, resume=True, progress=True, max_iterations=1)  # type: ignore[arg-type]
    assert asked == [2]  # only the games still missing
    assert (state.iteration, state.games) == (1, 6)
    assert "4 of iteration 1's 6 games were played before the stop" in capsys.readouterr().out
    (record,) = _records(run)
    assert record["selfplay"]["games"] == 6 and record["positions"] > len(kept.values)
    _, buffer, _ = RunDir.open(run).load()
    np.testing.assert_array_equal(buffer.arrays()[0][: len(kept.values)], kept.planes)
    assert RunDir(run).load_pending() is None  # the checkpoint holds them now


def test_ctrl_c_in_a_later_iteration_keeps_its_games_beside_the_checkpoint(
    tmp_path, capsys, monkeypatch
):
    run = tmp_path / "run"
    train(tiny_config(iterations=2), run, progress=False, max_iterations=1)
    capsys.readouterr()
    with monkeypatch.context() as patch:
        _interrupt_after_games(patch, 2)
        assert train(None, run, resume=True, progress=False).iteration == 1  # type: ignore[arg-type]
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"{run} holds iteration 1 and 2 finished games of iteration 2;" in last
    asked = _games_asked(monkeypatch)
    assert train(None, run, resume=True, progress=False).games == 12  # type: ignore[arg-type]
    assert asked == [4]
    assert [r["selfplay"]["games"] for r in _records(run)] == [6, 6]


@pytest.mark.parametrize("stopped_in", [1, 2])
def test_ctrl_c_in_training_keeps_the_iterations_games_and_resumes_exactly(
    tmp_path, monkeypatch, stopped_in
):
    """Ctrl-C after an iteration's self-play (training, evaluation): resuming does not play
    its games again, and the run is the one that never stopped."""
    from alphazero.training.trainer import Trainer

    config = tiny_config(iterations=3)
    train(config, tmp_path / "straight", progress=False)
    real = Trainer.train
    calls = [0]

    def interrupted(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == stopped_in:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Trainer, "train", interrupted)
        train(config, tmp_path / "stopped", progress=False)
    kept = RunDir(tmp_path / "stopped").load_pending()
    assert (kept.iteration, kept.games, kept.complete) == (stopped_in, 6, True)
    asked = _games_asked(monkeypatch)
    train(config, tmp_path / "stopped", resume=True, progress=False)
    assert asked == [6] * (3 - stopped_in)  # the later iterations' games only
    assert_same_run(tmp_path / "straight", tmp_path / "stopped")


def assert_same_run(path_a: Path, path_b: Path) -> None:
    model_a, buffer_a, meta_a = RunDir.open(path_a).load()
    model_b, buffer_b, meta_b = RunDir.open(path_b).load()
    for a, b in zip(weights(model_a), weights(model_b), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(buffer_a.arrays(), buffer_b.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert meta_a["rng"] == meta_b["rng"]
    for key in ("iteration", "games", "positions", "train_steps"):
        assert meta_a[key] == meta_b[key]
    opt_a = [np.array(v) for v in model_a.optimizer.variables]
    opt_b = [np.array(v) for v in model_b.optimizer.variables]
    for a, b in zip(opt_a, opt_b, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_damaged_kept_games_file_is_a_one_line_error(tmp_path):
    run = tmp_path / "run"
    train(tiny_config(iterations=2), run, progress=False, max_iterations=1)
    (run / "pending_selfplay.npz").write_bytes(b"\x80\x04garbage")  # a pickle's first bytes
    with pytest.raises(CheckpointError) as error:
        train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    message = str(error.value)
    assert "\n" not in message and "pending_selfplay.npz: not a pending games file" in message
    assert "allow_pickle" not in message and "remove the file" in message


# One self-play process is slow: CI has its Ctrl-C mid self-play in process instead (the
# tests above), and this end to end with the workers.
@pytest.mark.parametrize("workers", [pytest.param(1, marks=pytest.mark.slow), 2])
def test_sigint_mid_self_play_keeps_its_finished_games_through_resume(tmp_path, workers):
    # Enough games that iteration 3's self-play lasts about a second even on a fast CPU (24
    # took 0.15 s on an AVX-512 machine, and the Ctrl-C came after it had ended).
    selfplay = {**TINY["selfplay"], "games_per_iteration": 240, "parallel_games": 2}
    config_path = _write_config(
        tmp_path, selfplay={**selfplay, "workers": workers}, iterations=100_000
    )
    run = tmp_path / "run"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--quiet", "--config", str(config_path),
         "--run-dir", str(run)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    metrics = run / "metrics.jsonl"
    while time.monotonic() < deadline and (
        not metrics.exists() or len(metrics.read_text().splitlines()) < 2
    ):
        time.sleep(0.01)
    # Halfway through iteration 3's self-play, at iteration 2's pace (the first one's
    # includes TensorFlow's warm-up).
    time.sleep(json.loads(metrics.read_text().splitlines()[1])["selfplay"]["seconds"] / 2)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0 and "Traceback" not in stderr, stderr
    kept = RunDir(run).load_pending()
    assert kept is not None and kept.iteration == 3 and 0 < kept.games <= 240, stderr
    games = f"{kept.games} finished game{'s' * (kept.games != 1)}"
    assert f"holds iteration 2 and {games} of iteration 3" in stderr

    result = run_cli("--resume", "--run-dir", str(run), "--iterations", "1")
    assert result.returncode == 0, result.stderr
    if not kept.complete:
        assert (
            f"{kept.games} of iteration 3's 240 games were played before the stop" in result.stdout
        )
    meta = RunDir.open(run).read_metadata()
    assert (meta["iteration"], meta["games"]) == (3, 720)
    assert not (run / "pending_selfplay.npz").exists()


def _wait_until_tensorflow_is_loading(pid: int) -> None:
    """Return once TensorFlow's library is mapped into process ``pid``: its import has begun.

    A fixed sleep raced a slow machine (the signal before train.py's handler) and a fast one.
    Without /proc, a second is the best guess.
    """
    maps = Path(f"/proc/{pid}/maps")
    if not maps.exists():
        time.sleep(1.0)
        return
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if "libtensorflow" in maps.read_text():
                return
        except (FileNotFoundError, ProcessLookupError):
            return  # it ended early: the assertions say why
        time.sleep(0.01)
    raise AssertionError("train.py never began to import TensorFlow")


def test_ctrl_c_while_tensorflow_loads_is_the_same_one_line(tmp_path):
    # A first iteration of thousands of games: the Ctrl-C comes before any checkpoint.
    selfplay = {**TINY["selfplay"], "games_per_iteration": 100_000}
    config_path = _write_config(tmp_path, selfplay=selfplay)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--quiet", "--config", str(config_path),
         "--run-dir", str(tmp_path / "run")],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    _wait_until_tensorflow_is_loading(process.pid)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last == "interrupted before the first checkpoint; nothing saved"


def test_resume_with_both_config_and_run_dir_is_a_one_line_error(tmp_path):
    config_path = _write_config(tmp_path)
    result = run_cli("--resume", "--config", str(config_path), "--run-dir", str(tmp_path / "run"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--config cannot be combined with --resume --run-dir" in lines[0]


def test_resume_with_a_config_that_differs_from_the_run_warns(tmp_path):
    # Without --run-dir, --config names the run folder: checkpoints/<its file name>.
    train(tiny_config(iterations=1), tmp_path / "checkpoints" / "tiny", progress=False)
    config_path = _write_config(tmp_path, iterations=1, seed=8)
    result = run_cli("--resume", "--config", str(config_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"warning: {config_path} differs from checkpoints/tiny/config.yaml" in result.stderr
    assert "has finished its 1 iteration" in result.stderr


def test_resume_of_a_renamed_run_folder_with_the_same_settings_does_not_warn(tmp_path):
    # An experiment's folder promoted to the flagship keeps its old run_name in config.yaml.
    train(tiny_config(iterations=1, run_name="an_experiment"), tmp_path / "checkpoints" / "tiny",
          progress=False)  # fmt: skip
    config_path = _write_config(tmp_path, iterations=1)
    result = run_cli("--resume", "--config", str(config_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr
    assert "has finished its 1 iteration" in result.stderr


def test_a_ladder_model_of_another_game_stops_the_run_at_its_start(tmp_path):
    train(tiny_config(iterations=1), tmp_path / "ttt", progress=False)
    for opponent, message in [
        (tmp_path / "ttt", "this run trained tictactoe, not connect4"),
        (tmp_path / "ttt" / "best.keras", "a model of another game?"),
    ]:
        evaluation = {"every": 1, "opponents": ["random", f"model:{opponent}"], "games": 2}
        config = tiny_config(game={"name": "connect4"}, evaluation=evaluation)
        with pytest.raises(CheckpointError) as error:
            train(config, tmp_path / "c4", progress=False)
        assert str(error.value).startswith("evaluation.opponents[1]: ")
        assert message in str(error.value)
        assert not RunDir(tmp_path / "c4").has_checkpoint  # no iteration was played


def test_a_diverged_training_stops_before_saving_and_says_what_to_do(tmp_path, monkeypatch):
    run = tmp_path / "run"
    train(tiny_config(iterations=1), run, progress=False)
    from alphazero.training.run_errors import TrainingDiverged
    from alphazero.training.trainer import Trainer

    real_train = Trainer.train

    def diverging(self, *args, **kwargs):
        return {**real_train(self, *args, **kwargs), "total_loss": float("nan")}

    monkeypatch.setattr(Trainer, "train", diverging)
    RunDir(run).path.joinpath("config.yaml").write_text(yaml.safe_dump({**TINY, "iterations": 3}))
    with pytest.raises(
        TrainingDiverged, match=r"iteration 2 \(total_loss nan\).*holds iteration 1"
    ):
        train(None, run, resume=True, progress=False)
    assert RunDir.open(run).read_metadata()["iteration"] == 1  # the NaN model was not saved
    assert len((run / "metrics.jsonl").read_text().splitlines()) == 1


def test_a_run_diverging_in_its_first_iteration_says_nothing_was_saved(tmp_path, monkeypatch):
    from alphazero.training.run_errors import TrainingDiverged
    from alphazero.training.trainer import Trainer

    monkeypatch.setattr(Trainer, "train", lambda self, *a, **k: {"total_loss": float("inf")})
    with pytest.raises(TrainingDiverged, match=r"iteration 1 .*nothing saved.*start again"):
        train(tiny_config(), tmp_path / "run", progress=False)
    assert not RunDir(tmp_path / "run").has_checkpoint


# --------------------------------------------------------------- never lose a run
def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes: what must not change."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_new_run_refuses_folder_with_models(tmp_path):
    """A finished run whose metadata.json is gone: starting over deleted its models and
    buffer, overwrote best.keras and appended to its metrics."""
    run = tmp_path / "run"
    train(tiny_config(iterations=3, checkpoint={"keep_every": 1}), run, progress=False)
    (run / "metadata.json").unlink()
    before = tree(run)
    with pytest.raises(CheckpointError) as error:
        train(tiny_config(iterations=1), run, progress=False)
    message = str(error.value)
    assert "holds an earlier run" in message and "3 models" in message
    assert "--resume" in message and "--overwrite" in message
    assert tree(run) == before
    with pytest.raises(CheckpointError) as error:  # what resuming says instead
        train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    message = str(error.value)
    assert "metadata.json is missing" in message and "models/iter_0003.keras" in message
    assert "start without --resume" not in message
    assert tree(run) == before


def test_a_new_run_over_an_earlier_one_is_one_line_before_tensorflow_loads(tmp_path):
    train(tiny_config(iterations=1), tmp_path / "run", progress=False)
    before = tree(tmp_path / "run")
    config_path = _write_config(tmp_path, iterations=1)
    result = run_cli("--config", str(config_path), "--run-dir", str(tmp_path / "run"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "holds an earlier run" in lines[0] and "--overwrite" in lines[0]
    assert tree(tmp_path / "run") == before


def test_overwrite_moves_the_earlier_run_aside_and_deletes_nothing(tmp_path, capsys):
    run = tmp_path / "run"
    train(tiny_config(iterations=2), run, progress=False)
    before = tree(run)
    capsys.readouterr()
    train(tiny_config(iterations=1, seed=8), run, progress=False, overwrite=True)
    (aside,) = run.glob("overwritten-*")
    assert tree(aside) == before  # every file, config.yaml and metrics too, as it was
    err = capsys.readouterr().err
    assert "--overwrite: moved metadata.json, latest.keras, best.keras" in err
    assert str(aside) in err
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in records] == [1]  # a new run, not appended to the old
    assert RunDir.open(aside).load()[2]["iteration"] == 2  # the old run, whole, resumable
    train(tiny_config(iterations=1), run, progress=False, overwrite=True)  # same second
    assert len(list(run.glob("overwritten-*"))) == 2


def test_overwrite_with_resume_is_a_one_line_error(tmp_path):
    result = run_cli("--resume", "--overwrite", "--run-dir", str(tmp_path / "run"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--overwrite starts a new run" in lines[0]


def test_resume_removes_temporary_files_a_kill_left(tmp_path):
    run = tmp_path / "run"
    train(tiny_config(iterations=1), run, progress=False)
    left = [
        run / "models" / ".iter_0002.4242.k3j4h5.tmp.keras",
        run / ".buffer_0002.npz.4242.abcdefgh.tmp",
    ]
    not_ours = run / "models" / ".iter_0002.tmp.keras"  # no writer's pid: not a save's name
    for path in [*left, not_ours]:
        path.write_bytes(b"half written")
    train(None, run, resume=True, progress=False)  # type: ignore[arg-type]  # finished: no save
    assert not [path for path in left if path.exists()]
    assert not_ours.read_bytes() == b"half written"


# ------------------------------------------------------------ one run folder, one trainer
def test_a_second_trainer_on_the_same_run_stops_naming_the_pid(tmp_path):
    from alphazero.training.checkpoints import load_model
    from alphazero.training.run_guard import RunLock

    run = tmp_path / "run"
    train(tiny_config(iterations=2), run, progress=False, max_iterations=1)
    before = tree(run)
    with RunLock(run):  # this process stands for a trainer in the middle of an iteration
        with pytest.raises(CheckpointError) as error:
            train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
        assert f"{run}: process {os.getpid()} is training this run" in str(error.value)
        with pytest.raises(CheckpointError, match=f"process {os.getpid()}"):
            train(tiny_config(iterations=1), run, progress=False, overwrite=True)
        result = run_cli("--resume", "--run-dir", str(run))
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and f"process {os.getpid()} is training this run" in lines[0]
        load_model(run)  # play.py may read a run that is training
    assert tree(run) == before  # and the lock file is gone with its holder


def test_the_run_folder_is_locked_while_it_trains(tmp_path, monkeypatch):
    from alphazero.training.run_guard import RunLock

    run = tmp_path / "run"
    seen: list[str] = []

    class Backend(_InterruptedBackend):
        def play(self, num_games, rng):
            seen.append((run / "train.lock").read_text())
            with pytest.raises(CheckpointError, match=f"process {os.getpid()} is training"):
                RunLock(run).acquire()
            raise KeyboardInterrupt

    monkeypatch.setattr("alphazero.training.session.make_backend", lambda *args: Backend())
    train(tiny_config(), run, progress=False)
    assert seen == [f"{os.getpid()}\n"]
    assert not (run / "train.lock").exists()


def test_a_lock_left_by_a_dead_trainer_does_not_block(tmp_path):
    run = tmp_path / "run"
    train(tiny_config(iterations=2), run, progress=False, max_iterations=1)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    (run / "train.lock").write_text(dead.stdout)  # as SIGKILL leaves it
    assert train(None, run, resume=True, progress=False).iteration == 2  # type: ignore[arg-type]
    assert not (run / "train.lock").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("train: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n", "nested more than 16 levels"),
        (DEEP_BLOCK, "nested more than 16 levels deep"),
        ("game: {name: tictactoe}\n1: a\nfoo: b\n", "1: unknown setting"),
    ],
    ids=["flow", "block", "mixed-keys"],
)
def test_a_hostile_run_config_is_one_line_on_resume_and_in_play(tmp_path, text, message):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text(text)
    result = run_cli("--resume", "--run-dir", str(run))
    play = subprocess.run(
        [sys.executable, str(ROOT / "play.py"), "--game", "tictactoe", "--model", str(run),
         "--p1", "random", "--games", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )  # fmt: skip
    for done in (result, play):
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(run / "config.yaml") in lines[0] and message in lines[0]


def _ladder_games(rungs):
    """An evaluation's ``opponents`` record from (wins, draws, losses) against each rung."""
    keys = ("wins", "draws", "losses")
    return {
        f"uct:{n}": dict(zip(keys, r, strict=True))
        for n, r in zip((1000, 5000), rungs, strict=True)
    }


def _pick_best(monkeypatch, ladder_results, state=None):
    """``evaluate_iteration``'s choice at iterations 10, 20, ... given each evaluation's
    (wins, draws, losses) against the ladder's two rungs, 20 games each."""
    import alphazero.evaluation.ladder as evaluation
    from alphazero.evaluation.run_evaluation import evaluate_iteration
    from alphazero.training.run_state import RunState

    def scripted(*args, **kwargs):
        return {"elo": 0.0, "opponents": _ladder_games(next(results))}

    results = iter(ladder_results)
    monkeypatch.setattr(evaluation, "evaluate", scripted)
    state = state or RunState(ladder={"uct:1000": 0.0, "uct:5000": 300.0})
    config = config_from_dict({"evaluation": {"opponents": ["uct:1000", "uct:5000"]}})
    picks = [
        evaluate_iteration(None, config, None, state, 10 * i, progress=False)[1]
        for i in range(1, len(ladder_results) + 1)
    ]
    return picks, state


def test_a_later_model_within_noise_of_the_top_ladder_score_becomes_the_best(monkeypatch):
    """A saturated ladder: once a model sweeps, later ones that drop a game or two are
    within noise of it and have trained longer; one that loses a fifth of its games is not."""
    sweep, one_lost, two_lost = (
        ((20, 0, 0), (20, 0, 0)),
        ((20, 0, 0), (19, 0, 1)),
        ((19, 0, 1), (19, 0, 1)),
    )
    picks, state = _pick_best(
        monkeypatch,
        [((10, 0, 10), (5, 0, 15)), sweep, one_lost, two_lost, ((16, 0, 4), (16, 0, 4)), one_lost],
    )
    assert picks == [True, True, True, True, False, True]
    assert state.top_score == {"iteration": 20, "wins": 40, "draws": 0, "losses": 0}


def test_a_model_significantly_below_an_earlier_one_is_not_the_best(monkeypatch):
    picks, state = _pick_best(
        monkeypatch,
        [((15, 0, 5), (12, 0, 8)), ((6, 0, 14), (4, 0, 16)), ((13, 2, 5), (11, 2, 7))],
    )
    assert picks == [True, False, True]
    assert state.top_score["iteration"] == 10  # 27 points of 40 stay above 26 (24 wins, 4 draws)


def test_a_run_saved_before_the_top_score_was_kept_finds_it_in_its_metrics(monkeypatch):
    from alphazero.evaluation.run_evaluation import top_score_from_metrics
    from alphazero.training.run_state import RunState

    def evaluated(iteration, rungs):
        return {"iteration": iteration, "evaluation": {"opponents": _ladder_games(rungs)}}

    records = [
        evaluated(10, [(20, 0, 0), (20, 0, 0)]),
        {"iteration": 11},
        evaluated(20, [(20, 0, 0), (18, 0, 2)]),
    ]
    top = top_score_from_metrics(records)
    assert top == {"iteration": 10, "wins": 40, "draws": 0, "losses": 0}
    state = RunState(ladder={"uct:1000": 0.0, "uct:5000": 300.0}, top_score=top, best_elo=0.0)
    # 32 of 40 is below a sweep; 39 of 40 is not.
    picks, _ = _pick_best(monkeypatch, [((16, 0, 4), (16, 0, 4)), ((20, 0, 0), (19, 0, 1))], state)
    assert picks == [False, True]
