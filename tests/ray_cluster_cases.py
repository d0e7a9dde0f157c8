"""Self-play on a Ray cluster made as a user makes one, with ``train.py`` as its driver.

Not collected by default: ``test_ray_cluster.py`` runs this file inside a private network
and PID namespace (``private_network.py``). Each case starts its nodes with ``ray start``
(``ray_nodes.Cluster``, token authentication on) and stops them, pass or fail.

The driver runs from a copy of this checkout whose ``processes`` module writes a marker file
where a Ray worker imports it, and whose ``SelfPlayWorker`` writes one when it is built and
whenever it starts playing: an import marker from the job's folder proves that the driver's
code (shipped with the job) is what the nodes run, since their installed package has no
such marker. The marker also says on which node, and in which process group its
raylet (the actor's parent) is: each node is a process group of its own here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

if os.environ.get("ALPHAZERO_NETNS") != "1":
    pytest.skip("run through tests/test_ray_cluster.py (private network)", allow_module_level=True)
pytest.importorskip("ray")

from ray_nodes import Cluster, token_env

from alphazero.config import config_from_dict
from alphazero.training.checkpoints import RunDir
from alphazero.training.loop import train

ROOT = Path(__file__).resolve().parents[1]
DRIVER_TIMEOUT = 900.0
RAY_LOG_LINE = re.compile(r"^\[\d{4}-\d\d-\d\d [\d:,]+ [DIWEF] \d+ \d+\] \S+\.(cc|h):\d+: ")
"""A line of Ray's C++ client, which writes to the console before it has a log file (that
the namespace has no route to the internet) and as it ends the process (that the GCS is
gone)."""

TINY = {
    "game": {"name": "tictactoe"},
    "network": {"filters": 8, "blocks": 1, "value_hidden": 8},
    "search": {"simulations": 8},
    "selfplay": {"games_per_iteration": 8, "parallel_games": 4, "workers": 2, "backend": "ray"},
    "replay": {"capacity": 5000},
    "train": {"batch_size": 16, "steps_per_iteration": 4, "min_positions": 0},
    "checkpoint": {"keep_every": 1},
    "evaluation": {"every": 0},
    "iterations": 3,
    "seed": 5,
}

MARKER = """

def _mark(kind, **facts):
    Path({marks!r}, f"{{kind}}-{{os.getpid()}}-{{time.time_ns()}}").write_text(json.dumps(facts))


def _marked(method, kind):
    def marked(self, *args, **kwargs):
        import ray

        node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else "-"
        _mark(kind, node=node, pgid=os.getpgid(os.getppid()))
        if kind == "play":
            time.sleep({delay!r})  # a fault can land while the games are being played
        return method(self, *args, **kwargs)

    return marked


import json  # noqa: E402
from pathlib import Path  # noqa: E402

SelfPlayWorker.ready = _marked(SelfPlayWorker.ready, "ready")
SelfPlayWorker.play = _marked(SelfPlayWorker.play, "play")
import sys  # noqa: E402

# Where a Ray worker imported this module from: Ray may send the methods above by value,
# but this line runs only where the module itself is imported.
if sys.argv and sys.argv[0].endswith("default_worker.py"):
    _mark("import", file=__file__)
"""


def driver_checkout(root: Path, delay: float = 0.0) -> tuple[Path, Path]:
    """A copy of this checkout's driver side whose actors leave markers; its folder and the
    markers' folder."""
    checkout, marks = root / "checkout", root / "marks"
    marks.mkdir()
    shutil.copytree(ROOT / "alphazero", checkout / "alphazero",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(ROOT / "train.py", checkout / "train.py")
    processes = checkout / "alphazero" / "workers" / "processes.py"
    with processes.open("a") as file:
        file.write(MARKER.format(marks=str(marks), delay=delay))
    return checkout, marks


def markers(marks: Path, kind: str) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(marks.glob(f"{kind}-*"))]


def train_py(checkout: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """``python train.py ...`` from the copy, as a user runs it on the head."""
    return subprocess.Popen(
        [sys.executable, "train.py", "--quiet", *args],
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(driver: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, err = driver.communicate(timeout=DRIVER_TIMEOUT)
    except subprocess.TimeoutExpired:
        driver.kill()
        _, err = driver.communicate()
    return driver.returncode, err


def said(err: str) -> list[str]:
    """What the driver itself wrote on stderr."""
    return [line for line in err.splitlines() if line.strip() and not RAY_LOG_LINE.match(line)]


def write_config(path: Path, **changes: dict) -> Path:
    config = {**TINY, **{key: {**TINY[key], **value} for key, value in changes.items()}}
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    """The reference: the same run on this machine's worker processes, same seed, 2 workers."""
    path = tmp_path_factory.mktemp("local") / "run"
    local = {**TINY, "selfplay": {**TINY["selfplay"], "backend": "local"}}
    train(config_from_dict(local), path, progress=False)
    return path


def assert_same_run(path: Path, reference: Path) -> None:
    """Every example, array for array, and the learner's weights."""
    model_a, buffer_a, meta_a = RunDir.open(path).load()
    model_b, buffer_b, meta_b = RunDir.open(reference).load()
    assert (meta_a["iteration"], meta_a["games"]) == (meta_b["iteration"], meta_b["games"])
    for a, b in zip(buffer_a.arrays(), buffer_b.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(model_a.get_weights(), model_b.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_two_node_cluster_runs_the_drivers_code_and_plays_the_local_games(tmp_path, local_run):
    env = token_env(tmp_path / "home")
    checkout, marks = driver_checkout(tmp_path)
    config = write_config(tmp_path / "tiny.yaml")
    with Cluster(tmp_path, env) as cluster:
        cluster.start_head(cpus=1)
        worker_node = cluster.add_node(cpus=1)
        cluster.wait_for_nodes(2)
        driver = train_py(checkout, {**env, "RAY_ADDRESS": cluster.address},
                          "--config", str(config), "--run-dir", str(tmp_path / "run"))  # fmt: skip
        code, err = finish(driver)
        assert code == 0, err[-3000:]

        # Both nodes ran an actor (one CPU each), and each ran the driver's copy, shipped
        # with the job: neither this checkout nor the copy's folder is where it ran from.
        ready = markers(marks, "ready")
        assert len(ready) == 2
        assert len({mark["node"] for mark in ready}) == 2
        assert worker_node.pid in {mark["pgid"] for mark in ready}
        imported = markers(marks, "import")
        assert len(imported) >= 2  # the actors' processes, at least
        for mark in imported:
            assert "runtime_resources" in mark["file"], mark
            assert not mark["file"].startswith((str(checkout), str(ROOT))), mark
        assert len(markers(marks, "play")) == 2 * 3
    assert_same_run(tmp_path / "run", local_run)


@pytest.mark.slow
def test_a_lost_worker_node_has_its_games_replayed_and_none_counted_twice(tmp_path, local_run):
    env = token_env(tmp_path / "home")
    checkout, marks = driver_checkout(tmp_path, delay=3.0)
    config = write_config(tmp_path / "tiny.yaml")
    with Cluster(tmp_path, env) as cluster:
        cluster.start_head(cpus=1)
        worker_node = cluster.add_node(cpus=1)
        cluster.wait_for_nodes(2)
        driver = train_py(checkout, {**env, "RAY_ADDRESS": cluster.address},
                          "--config", str(config), "--run-dir", str(tmp_path / "run"))  # fmt: skip
        deadline = time.monotonic() + DRIVER_TIMEOUT
        while sum(m["pgid"] == worker_node.pid for m in markers(marks, "play")) < 2:
            assert driver.poll() is None and time.monotonic() < deadline, finish(driver)[1]
            time.sleep(0.2)
        cluster.kill(worker_node)  # in iteration 2, while its actor plays its share
        code, err = finish(driver)
    assert code == 0, err[-3000:]
    [warning] = said(err)  # one line, and nothing else
    assert re.match(r"self-play actor \d died", warning), err
    assert warning.endswith("replaying its 4 games on an actor still alive: no room for a new "
                            "one (1 node with 1 CPUs (0 free))"), err  # fmt: skip
    assert_same_run(tmp_path / "run", local_run)


@pytest.mark.slow
def test_a_lost_head_stops_the_driver_in_one_line_and_resume_goes_on_exactly(tmp_path, local_run):
    env = token_env(tmp_path / "home")
    checkout, marks = driver_checkout(tmp_path, delay=3.0)
    config = write_config(tmp_path / "tiny.yaml")
    run = tmp_path / "run"
    (tmp_path / "first").mkdir()
    with Cluster(tmp_path / "first", env) as first:
        head = first.start_head(cpus=1)
        first.add_node(cpus=1)
        first.wait_for_nodes(2)
        driver = train_py(checkout, {**env, "RAY_ADDRESS": first.address},
                          "--config", str(config), "--run-dir", str(run))  # fmt: skip
        deadline = time.monotonic() + DRIVER_TIMEOUT
        while len(markers(marks, "play")) < 3:  # iteration 2 has begun
            assert driver.poll() is None and time.monotonic() < deadline, finish(driver)[1]
            time.sleep(0.2)
        first.kill(head)
        code, err = finish(driver)
    assert code != 0
    assert said(err) == [
        f"error: lost the Ray cluster's head at {first.address}: the driver stopped with it. "
        "Its last checkpoint is kept: once a cluster is up again, continue with "
        "python train.py --resume"
    ], err
    assert json.loads((run / "metadata.json").read_text())["iteration"] == 1

    (tmp_path / "second").mkdir()
    with Cluster(tmp_path / "second", env) as second:  # a new cluster, the same address
        second.start_head(cpus=1)
        second.add_node(cpus=1)
        second.wait_for_nodes(2)
        driver = train_py(checkout, {**env, "RAY_ADDRESS": second.address},
                          "--resume", "--run-dir", str(run))  # fmt: skip
        code, err = finish(driver)
    assert code == 0, err[-3000:]
    assert_same_run(run, local_run)


@pytest.mark.slow
def test_no_room_and_no_token_are_each_one_line(tmp_path):
    env = token_env(tmp_path / "home")
    config = write_config(tmp_path / "tiny.yaml", selfplay={"workers": 3})
    with Cluster(tmp_path, env) as cluster:
        cluster.start_head(cpus=2)
        cluster.wait_for_nodes(1)
        joining = {**env, "RAY_ADDRESS": cluster.address}
        driver = train_py(ROOT, joining, "--config", str(config), "--run-dir",
                          str(tmp_path / "full"))  # fmt: skip
        code, err = finish(driver)
        assert code == 2
        assert said(err) == [
            "error: the Ray cluster has 1 node with 2 CPUs (2 free); selfplay.workers: 3 "
            "asks for 3 (one per self-play actor): add nodes or lower selfplay.workers"
        ], err

        config = write_config(tmp_path / "tiny.yaml")
        tokenless = {key: value for key, value in joining.items() if key != "RAY_AUTH_TOKEN"}
        for variables in (tokenless, {**tokenless, "RAY_AUTH_MODE": "disabled"}):
            driver = train_py(ROOT, variables, "--config", str(config), "--run-dir",
                              str(tmp_path / "tokenless"))  # fmt: skip
            code, err = finish(driver)
            assert code == 2
            [line] = said(err)
            assert "refused this driver's authentication token" in line, err
            assert "RAY_AUTH_TOKEN" in line
