"""Self-play in worker processes: games arrive, runs repeat, weights follow the learner,
a crashed worker is one clear error, and nothing is left running afterwards."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import keras
import numpy as np
import pytest

from alphazero.config import config_from_dict
from alphazero.games import make
from alphazero.network.model import build_network
from alphazero.training.loop import train
from alphazero.workers import LocalBackend, make_backend
from alphazero.workers.processes import ProcessBackend, SelfPlayWorker, WorkerError

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "game": {"name": "tictactoe"},
    "network": {"filters": 8, "blocks": 1, "value_hidden": 8},
    "search": {"simulations": 8},
    "selfplay": {"games_per_iteration": 8, "parallel_games": 4, "workers": 2},
    "replay": {"capacity": 2000},
    "train": {"batch_size": 16, "steps_per_iteration": 4, "min_positions": 0},
    "checkpoint": {"keep_every": 1},
    "evaluation": {"every": 0},
    "iterations": 2,
    "seed": 3,
}
SYMMETRIES = 8  # tic-tac-toe positions enter the buffer with their 8 symmetric copies


def tiny_config(**overrides):
    data = {**TINY, **overrides}
    data["selfplay"] = {**TINY["selfplay"], **overrides.get("selfplay", {})}
    return config_from_dict(data)


def new_model(config):
    keras.utils.set_random_seed(config.seed)  # the same untrained network on every machine
    game = make(config.game.name)
    return build_network(game.plane_shape, game.num_actions, config.network)


def no_workers_left(keep=(), timeout: float = 10.0) -> bool:
    """Whether this process has no child processes left, but those in ``keep``."""

    def left():
        return [p for p in multiprocessing.active_children() if p not in keep]

    deadline = time.monotonic() + timeout
    while left() and time.monotonic() < deadline:
        time.sleep(0.1)
    return not left()


@pytest.fixture(scope="module")
def learner():
    config = tiny_config()
    model = new_model(config)
    backend = ProcessBackend(config, model, progress=False)
    yield backend, model
    backend.close()


def test_make_backend_picks_processes_for_several_workers(learner):
    backend, _ = learner
    assert backend.workers == 2
    assert backend.threads == max(1, len(os.sched_getaffinity(0)) // 2)
    one = tiny_config(selfplay={"workers": 1})
    assert isinstance(make_backend(one, None, None, False), LocalBackend)


def test_every_game_asked_for_arrives(learner):
    backend, _ = learner
    for games in (8, 5, 1):  # even, uneven, and fewer games than workers
        examples, stats = backend.play(games, np.random.default_rng(games))
        assert stats.games == games and len(stats.lengths) == games
        assert stats.moves == sum(stats.lengths)
        assert len(examples) == SYMMETRIES * stats.moves
        assert examples.planes.shape[1:] == (3, 3, 3) and examples.policies.shape[1] == 9
        np.testing.assert_allclose(examples.policies.sum(axis=1), 1.0, rtol=1e-5)
        assert stats.first_wins + stats.second_wins + stats.draws == games


def test_the_same_random_state_plays_the_same_games(learner):
    backend, _ = learner
    rng_a, rng_b = np.random.default_rng(11), np.random.default_rng(11)
    a, stats_a = backend.play(8, rng_a)
    b, stats_b = backend.play(8, rng_b)
    for x, y in zip(
        (a.planes, a.policies, a.values), (b.planes, b.policies, b.values), strict=True
    ):
        np.testing.assert_array_equal(x, y)
    assert stats_a.lengths == stats_b.lengths
    assert rng_a.bit_generator.state == rng_b.bit_generator.state  # one seed drawn each
    c, _ = backend.play(8, np.random.default_rng(12))
    assert len(c) != len(a) or not np.array_equal(c.policies, a.policies)


def first_move_center_share(examples) -> float:
    """Mean search probability of the centre on the empty board (symmetries keep it)."""
    empty = make("tictactoe").encode()
    rows = np.all(examples.planes == empty, axis=(1, 2, 3))
    assert rows.any()
    return float(examples.policies[rows, 4].mean())


def test_workers_play_with_the_learners_current_weights(learner):
    backend, model = learner
    original = model.get_weights()
    before, _ = backend.play(8, np.random.default_rng(5))

    # A network that puts all its prior on the centre: the workers' searches must follow.
    policy = model.get_layer("policy")
    kernel, bias = policy.get_weights()
    bias = np.full_like(bias, -10.0)
    bias[4] = 10.0
    policy.set_weights([np.zeros_like(kernel), bias])
    after, _ = backend.play(8, np.random.default_rng(5))
    share_before, share_after = first_move_center_share(before), first_move_center_share(after)
    assert share_after > 0.8 and share_after > share_before + 0.3

    model.set_weights(original)  # and back: the very same games as before
    again, _ = backend.play(8, np.random.default_rng(5))
    np.testing.assert_array_equal(again.policies, before.policies)


def test_new_weights_reach_the_bfloat16_copy_too():
    """The large batches run on a bfloat16 copy of the network, refreshed with the weights."""
    config = tiny_config(
        search={"simulations": 8, "inference_precision": "bfloat16"},
        selfplay={"parallel_games": 16, "games_per_iteration": 16},
    )
    worker = SelfPlayWorker(config)
    planes = np.zeros((16, 3, 3, 3), dtype=np.float32)
    assert worker.inference.uses_bfloat16(16)
    logits_before, _ = worker.inference(planes)
    bias = np.zeros(9, dtype=np.float32)
    bias[4] = 5.0
    new = []
    for variable in worker.model.weights:
        value = np.array(variable)
        if variable.path == "policy/kernel":
            value = np.zeros_like(value)
        elif variable.path == "policy/bias":
            value = bias
        new.append(value)
    worker.set_weights(new)
    logits_after, _ = worker.inference(planes)
    assert not np.allclose(logits_before, logits_after)
    np.testing.assert_allclose(logits_after, np.tile(bias, (16, 1)), atol=0.1)


def test_a_worker_that_dies_mid_game_is_one_clear_error(learner):
    others = learner[0]._processes
    config = tiny_config(selfplay={"workers": 1, "parallel_games": 1})
    backend = ProcessBackend(config, new_model(config), progress=False)
    pid = backend._processes[0].pid
    timer = threading.Timer(1.0, os.kill, (pid, signal.SIGKILL))
    timer.start()
    start = time.monotonic()
    try:
        with pytest.raises(WorkerError, match=r"worker 0 \(pid \d+\) died \(killed by signal 9\)"):
            backend.play(10_000, np.random.default_rng(0))  # far longer than the timer
    finally:
        timer.cancel()
    assert time.monotonic() - start < 30
    assert no_workers_left(keep=others)
    with pytest.raises(WorkerError, match="closed"):
        backend.play(1, np.random.default_rng(0))


def test_ctrl_c_keeps_the_games_the_workers_had_finished(learner, monkeypatch):
    from alphazero.progress import bars
    from alphazero.workers import SelfPlayInterrupted

    class CtrlCAtTheThirdGame:
        """The driver's bar, where Ctrl-C comes as the third game arrives."""

        games = 0

        def update(self, n: float = 1) -> None:
            self.games += 1
            if self.games == 3:
                raise KeyboardInterrupt

        def refresh(self) -> None:
            pass

        def close(self) -> None:
            pass

    others = learner[0]._processes
    config = tiny_config(selfplay={"parallel_games": 1})
    backend = ProcessBackend(config, new_model(config), progress=True)
    monkeypatch.setattr(bars, "bar", lambda *args, **kwargs: CtrlCAtTheThirdGame())
    with pytest.raises(SelfPlayInterrupted) as stop:
        backend.play(8, np.random.default_rng(0))
    kept = stop.value
    assert kept.stats.games == 3 and len(kept.stats.lengths) == 3
    assert len(kept.examples) == SYMMETRIES * sum(kept.stats.lengths)
    assert kept.stats.simulations > 0 and kept.stats.seconds > 0
    assert no_workers_left(keep=others)  # stopped mid-job, as on any Ctrl-C


def test_training_with_two_workers_checkpoints_and_resumes(tmp_path, learner):
    others = learner[0]._processes
    config = tiny_config()
    state = train(config, tmp_path / "run", progress=False, max_iterations=1)
    assert state.iteration == 1 and state.games == 8
    assert no_workers_left(keep=others)
    meta = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert meta["iteration"] == 1 and meta["positions"] > 0
    assert (tmp_path / "run" / "models" / "iter_0001.keras").exists()

    state = train(config, tmp_path / "run", resume=True, progress=False)
    assert state.iteration == 2 and state.games == 16
    meta = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert meta["positions"] == state.positions and meta["metrics"]["selfplay"]["games"] == 8
    assert no_workers_left(keep=others)
    # The recorded CPU time includes the workers' (they are not the driver's process).
    records = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    worker_cpu = sum(r["selfplay"]["cpu_seconds"] for r in records)
    assert worker_cpu > 0
    assert meta["timings"]["cpu_seconds"] > worker_cpu


def test_ctrl_c_and_kill_leave_no_worker_behind(tmp_path):
    """The terminal's Ctrl-C reaches the whole process group; SIGKILL reaches the driver only."""
    import yaml

    path = tmp_path / "tiny.yaml"
    # Enough games that an iteration's self-play outlasts the second's wait below, so the
    # Ctrl-C stops the workers mid-job.
    selfplay = {**TINY["selfplay"], "games_per_iteration": 400, "parallel_games": 32}
    path.write_text(yaml.safe_dump({**TINY, "selfplay": selfplay, "iterations": 1000}))
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    for how in ("ctrl-c", "kill"):
        run = tmp_path / how
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "train.py"), "--quiet", "--config", str(path),
             "--run-dir", str(run)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group, as a terminal would give it
        )  # fmt: skip
        deadline = time.monotonic() + 180
        while not (run / "metadata.json").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # into the next iteration's self-play
        children = _children(process.pid)
        assert len(children) >= 2
        if how == "ctrl-c":
            os.killpg(process.pid, signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
            assert process.returncode == 0, stderr
            assert "interrupted" in stderr
            assert "leaked" not in stderr  # the workers' tqdm held semaphores once
        else:
            process.kill()
            process.wait()
        deadline = time.monotonic() + 15
        while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(pid) for pid in children)


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_ray_backend_without_ray_says_how_to_install(monkeypatch):
    from alphazero.config import ConfigError
    from alphazero.workers.ray_backend import RayBackend

    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(ConfigError, match=r'pip install -e "\.\[ray\]"'):
        RayBackend(tiny_config(selfplay={"backend": "ray"}), None, False)


def test_close_stops_every_worker(learner):
    backend, _ = learner
    pids = [p.pid for p in backend._processes]
    backend.close()
    backend.close()  # twice is fine
    assert no_workers_left()
    assert not any(_alive(pid) for pid in pids)
