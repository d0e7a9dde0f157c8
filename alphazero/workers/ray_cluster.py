"""Joining a Ray cluster that someone else started, and saying in one line what went wrong.

``join`` connects the driver to the cluster at an address and ships this package with the
job, as its ``runtime_env`` ``working_dir`` (a folder holding only the package), so the
actors run the driver's checkout, not whatever each node has installed. A working directory
also keeps Ray from putting the driver's own folders on the workers' ``sys.path``, where a
node with an older checkout at the same path would shadow the shipped code. A cluster with
token authentication (Ray 2.52 on) refuses a driver without its token; that, and every
other failure to join, is one line.

``room_problem`` compares the CPUs the cluster has with those the actors ask for, so that a
cluster too small for ``selfplay.workers`` is said at once rather than waited on.

``HeadWatch``: the driver's Ray core worker ends the process outright (no Python exception,
no message on the console) when the head node it is attached to goes down. A small watcher
process, told when the driver closes normally, prints the line that says so.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..config import ConfigError

TOKEN_HELP = (
    "give the driver the cluster's token: RAY_AUTH_TOKEN=<token> or "
    "RAY_AUTH_TOKEN_PATH=<file> (see docs/cluster.md)"
)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _refused_for_token(error: BaseException) -> bool:
    """Whether the error, or one it came from, is Ray's refusal of a missing or wrong token."""
    seen: BaseException | None = error
    while seen is not None:
        if type(seen).__name__ == "AuthenticationError" or "InvalidAuthToken" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def join(ray: Any, address: str, package: Any) -> None:
    """Connect to the cluster at ``address``, shipping ``package`` (a module) with the job."""
    source = Path(package.__file__).parent
    try:
        # Ray uploads the folder during init (once per content); it is not needed after.
        with tempfile.TemporaryDirectory(prefix="alphazero-job-") as folder:
            shutil.copytree(source, Path(folder) / source.name,
                            ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
            ray.init(
                address=address,
                runtime_env={"working_dir": folder},
                log_to_driver=False,
                logging_level="ERROR",
            )
    except Exception as error:  # ConnectionError, RuntimeError, ValueError, RayError...
        if _refused_for_token(error):
            raise ConfigError(
                f"selfplay.ray_address: the Ray cluster at {address} refused this driver's "
                f"authentication token (missing or wrong): {TOKEN_HELP}"
            ) from None
        raise ConfigError(
            f"selfplay.ray_address: cannot join the Ray cluster at {address} ({_first_line(error)})"
        ) from None


def describe(ray: Any) -> str:
    """What the cluster has: '2 nodes with 2 CPUs (1 free)'."""
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    total = ray.cluster_resources().get("CPU", 0.0)
    free = ray.available_resources().get("CPU", 0.0)
    plural = "s" if len(nodes) != 1 else ""
    return f"{len(nodes)} node{plural} with {total:g} CPUs ({free:g} free)"


def room_problem(ray: Any, workers: int, cpus_each: float) -> str | None:
    """The line to stop with when the cluster has fewer CPUs than ``workers`` actors need."""
    needed = workers * cpus_each
    if ray.cluster_resources().get("CPU", 0.0) >= needed:
        return None
    return (
        f"the Ray cluster has {describe(ray)}; selfplay.workers: {workers} asks for "
        f"{needed:g} (one per self-play actor): add nodes or lower selfplay.workers"
    )


_WATCHER = """
import socket, sys
host, port, address = sys.argv[1], int(sys.argv[2]), sys.argv[3]
said = sys.stdin.buffer.read()
if said != b"closed":
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError:
        print(f"error: lost the Ray cluster's head at {address}: the driver stopped with it. "
              "Its last checkpoint is kept: once a cluster is up again, continue with "
              "python train.py --resume", file=sys.stderr, flush=True)
"""


class HeadWatch:
    """A watcher process that says so if this driver dies while the cluster's head is down."""

    def __init__(self, address: str) -> None:
        host, _, port = address.rpartition(":")
        self._process: subprocess.Popen[bytes] | None = None
        if not host or not port.isdigit():
            return  # ray://, auto: nothing to watch here
        # Its own session: Ctrl-C at the terminal is for the driver, not for it.
        self._process = subprocess.Popen(
            [sys.executable, "-c", _WATCHER, host, port, address],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )

    def close(self) -> None:
        """The driver is leaving the cluster normally: the watcher goes quietly."""
        process, self._process = self._process, None
        if process is None or process.stdin is None:
            return
        with contextlib.suppress(OSError):
            process.stdin.write(b"closed")
            process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)


__all__ = ["HeadWatch", "describe", "join", "room_problem"]
