"""A Ray cluster made the way a user makes one: ``ray start --head`` and ``ray start
--address=...``, each node its own raylet with its own CPUs, token authentication on.

For the cluster tests, which run inside a private network and PID namespace (see
``private_network.py``): each node is a ``ray start --block`` in a process group of its own,
so a test can kill one node (the raylet and every worker under it) by that group, and
``stop`` ends them all. The commands are those of docs/cluster.md.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

START_TIMEOUT = 240.0
"""Seconds for a node to come up on a loaded two-core machine."""

WAIT_FOR_NODES = """
import sys, time, ray
ray.init(logging_level="ERROR")
deadline = time.monotonic() + float(sys.argv[2])
while sum(node["Alive"] for node in ray.nodes()) < int(sys.argv[1]):
    if time.monotonic() > deadline:
        sys.exit("the nodes did not all join")
    time.sleep(0.5)
"""


def token_env(home: Path) -> dict[str, str]:
    """The environment of every node and driver: a fresh token, and a home of the test's
    own (Ray reads and writes ``~/.ray/auth_token`` otherwise)."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(16),
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_worker_niceness": "0",  # beside another test process, nice 15 barely runs
    }


class Cluster:
    """Nodes started with ``ray start``; ``stop`` (also on leaving a ``with``) ends them."""

    def __init__(self, root: Path, env: dict[str, str], port: int = 6390) -> None:
        self.root = root
        self.env = env
        self.port = port
        self.address = f"127.0.0.1:{port}"
        # Short: Ray's socket paths under it must fit in 107 characters.
        self.temp_dir = Path(f"/tmp/rc{secrets.token_hex(3)}")
        self.nodes: list[subprocess.Popen[bytes]] = []

    def _start(self, args: list[str], name: str) -> subprocess.Popen[bytes]:
        log = (self.root / f"{name}.log").open("wb")
        node = subprocess.Popen(
            ["ray", "start", "--block", f"--temp-dir={self.temp_dir}", *args],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the node's raylet and workers
        )
        self.nodes.append(node)
        return node

    def start_head(self, cpus: int) -> subprocess.Popen[bytes]:
        return self._start(
            ["--head", f"--port={self.port}", f"--num-cpus={cpus}", "--include-dashboard=false",
             "--disable-usage-stats"],
            f"head{len(self.nodes)}",
        )  # fmt: skip

    def add_node(self, cpus: int) -> subprocess.Popen[bytes]:
        return self._start(
            [f"--address={self.address}", f"--num-cpus={cpus}"], f"node{len(self.nodes)}"
        )

    def wait_for_nodes(self, count: int) -> None:
        """Until ``count`` nodes are alive in the cluster (a driver could count fewer CPUs)."""
        deadline = time.monotonic() + START_TIMEOUT
        while True:  # the head's port opens a few seconds after ``ray start`` does
            probe = subprocess.run(
                [sys.executable, "-c", WAIT_FOR_NODES, str(count), str(START_TIMEOUT)],
                env={**self.env, "RAY_ADDRESS": self.address},
                capture_output=True,
                text=True,
            )
            if probe.returncode == 0:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster did not come up: {probe.stderr[-2000:]}")
            time.sleep(2)

    def kill(self, node: subprocess.Popen[bytes]) -> None:
        """The node goes at once, as when its machine is lost."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(node.pid, signal.SIGKILL)
        node.wait()

    def stop(self) -> None:
        for node in self.nodes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(node.pid, signal.SIGTERM)
        for node in self.nodes:
            try:
                node.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill(node)
            with contextlib.suppress(ProcessLookupError):  # what outlived its ray start
                os.killpg(node.pid, signal.SIGKILL)
        shutil.rmtree(self.temp_dir, ignore_errors=True)  # the nodes' sessions and logs

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
