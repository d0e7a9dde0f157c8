"""The Ray backend, tested on a local Ray instance inside a private network namespace.

Ray picks the machine's own network address even for a local instance (it avoids
127.0.0.1 on purpose), and this project's CI may only talk over loopback. So the Ray
scenarios in ``ray_cases.py`` run in a fresh network namespace (``unshare --net``) whose
only interface is loopback; there Ray has nothing else to use.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _private_network_available() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True)
    return probe.returncode == 0


def test_ray_backend_trains_and_survives_a_killed_actor():
    pytest.importorskip("ray")
    if not _private_network_available():
        pytest.skip("needs root with unshare and ip to give Ray a loopback-only network")
    # -n 0: one process, whatever the project's addopts say (the cases share one Ray instance).
    inner = "-m pytest -q -p no:cacheprovider -n 0 tests/ray_cases.py"
    script = f'ip link set lo up && exec "$0" {inner}'
    # Ray starts its workers at nice 15: beside another test process they would barely run.
    env = {
        **os.environ,
        "ALPHAZERO_NETNS": "1",
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_worker_niceness": "0",
    }
    result = subprocess.run(
        ["unshare", "--net", "sh", "-c", script, sys.executable],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = result.stdout[-4000:] + result.stderr[-2000:]
    assert result.returncode == 0, output
    assert "3 passed" in result.stdout, output
