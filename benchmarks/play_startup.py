"""How long ``python play.py`` takes from its start to the model's first move, for one or
more checkouts of this project, run in turns.

Each run starts ``python play.py --first ai --color never`` (plus any options after ``--``)
in a checkout's folder, so that the checkout's own package and shipped model are used, and
waits for the line saying the model played its first move; then it types ``quit``. It
records the wall clock to that line and the process's CPU seconds at that moment (read from
``/proc``; elsewhere the CPU of the whole process, quit included). The checkouts take turns,
their order alternating run by run, so a machine whose load changes affects them alike.
Prints each checkout's median and the ratios to the first.

    git worktree add /tmp/old caf0083
    python benchmarks/play_startup.py --version old=/tmp/old --version new=. --runs 7
    python benchmarks/play_startup.py --version new=. -- --game gomoku --engine tensorflow
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from alphazero.config.command_line import OneLineParser

PLAYED = re.compile(r"\) plays ")
"""The line ``play.py`` prints when a player has moved: ``model:connect4:800 (X) plays 4``."""


def version(text: str) -> tuple[str, Path]:
    label, sep, folder = text.partition("=")
    if not sep or not label or not folder:
        raise argparse.ArgumentTypeError(f"expected LABEL=FOLDER, got {text!r}")
    path = Path(folder).resolve()
    if not (path / "play.py").is_file():
        raise argparse.ArgumentTypeError(f"{folder}: no play.py there")
    return label, path


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of a running process (Linux ``/proc``), else ``None``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_move(folder: Path, options: list[str], timeout: float) -> tuple[float, float]:
    """(wall seconds, CPU seconds) from starting ``play.py`` in ``folder`` to its model's
    first move; ``RuntimeError`` with the program's last output if it never comes."""
    command = [sys.executable, "play.py", "--first", "ai", "--color", "never", *options]
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    assert process.stdout is not None and process.stdin is not None
    seen: list[str] = []
    wall = cpu = None
    for line in process.stdout:
        seen.append(line)
        if PLAYED.search(line):
            wall, cpu = time.perf_counter() - start, process_cpu(process.pid)
            break
        if time.perf_counter() - start > timeout:
            break
    try:
        process.communicate("quit\n", timeout=60)
    except BrokenPipeError:  # it had left already
        process.wait(timeout=60)
    if wall is None:
        tail = "".join(seen[-5:]).strip()
        raise RuntimeError(f"{folder}: no first move ({tail or 'no output'})")
    if cpu is None:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - children_before.ru_utime) + (
            after.ru_stime - children_before.ru_stime
        )
    return wall, cpu


def main() -> int:
    parser = OneLineParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options after -- go to play.py (e.g. -- --game gomoku --engine tensorflow).",
    )
    parser.add_argument(
        "--version",
        type=version,
        action="append",
        metavar="LABEL=FOLDER",
        help="a checkout to time (repeat; default: new=. ); the first is the reference",
    )
    parser.add_argument("--runs", type=int, default=5, help="starts of each (default 5)")
    parser.add_argument(
        "--timeout", type=float, default=300, help="seconds to wait for a first move (300)"
    )
    argv = sys.argv[1:]
    options = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    if not args.timeout > 0:  # NaN too
        parser.error(f"--timeout must be above 0, got {args.timeout:g}")
    versions = args.version or [version("new=.")]
    if len({label for label, _ in versions}) != len(versions):
        parser.error("every --version needs a label of its own")

    walls: dict[str, list[float]] = {label: [] for label, _ in versions}
    cpus: dict[str, list[float]] = {label: [] for label, _ in versions}
    for run in range(args.runs):
        turn = versions if run % 2 == 0 else versions[::-1]
        for label, folder in turn:
            try:
                wall, cpu = first_move(folder, options, args.timeout)
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
                print(f"error: {error}", file=sys.stderr)
                return 1
            walls[label].append(wall)
            cpus[label].append(cpu)
            print(f"run {run + 1}: {label} {wall:.2f} s wall, {cpu:.2f} s CPU",
                  file=sys.stderr, flush=True)  # fmt: skip

    shown = " ".join(["play.py", *options])
    print(f"\n{shown}: to the model's first move, {args.runs} runs each")
    print(f"{'':<8}{'wall median':>12}{'CPU median':>12}{'wall / first':>14}{'CPU / first':>13}")
    first = versions[0][0]
    for label, _ in versions:
        wall, cpu = statistics.median(walls[label]), statistics.median(cpus[label])
        wall_ratio = wall / statistics.median(walls[first])
        cpu_ratio = cpu / statistics.median(cpus[first])
        print(f"{label:<8}{wall:>12.2f}{cpu:>12.2f}{wall_ratio:>14.2f}{cpu_ratio:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
