"""Run a pytest file inside a network and PID namespace of its own, loopback its only link.

Ray gives every node the machine's own network address, even a local instance and even
with ``--node-ip-address=127.0.0.1``, and this project's tests may only talk over loopback.
In a fresh network namespace (``unshare --net``, ``lo`` up) there is nothing else to use.
The PID namespace (``--pid --fork --kill-child``, with its own ``/proc``) ends every process
started inside when the run ends or is killed: no Ray node outlives the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNSHARE = ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "needs root to make a network namespace"
    if not shutil.which("unshare") or not shutil.which("ip"):
        return "needs unshare and ip (util-linux, iproute2)"
    probe = subprocess.run([*UNSHARE, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot make a namespace here: {probe.stderr.strip()[:200]}"
    return None


def run_cases(cases: str, *pytest_args: str, timeout: float) -> subprocess.CompletedProcess:
    """Run ``tests/<cases>`` in a private namespace; skip the calling test where none can
    be made. Killed (and every process inside with it) after ``timeout`` seconds."""
    pytest.importorskip("ray")
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    # -n 0: one process, whatever the project's addopts say (the cases share one Ray instance).
    inner = f"-m pytest -q -p no:cacheprovider -n 0 tests/{cases} " + " ".join(pytest_args)
    script = f'ip link set lo up && "$0" {inner}'  # not exec: sh stays the namespace's init
    env = {
        **os.environ,
        "ALPHAZERO_NETNS": "1",
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_worker_niceness": "0",  # Ray's workers at nice 15 barely run beside a test
    }
    return subprocess.run(
        [*UNSHARE, "sh", "-c", script, sys.executable],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
