"""Solve every move of Pascal Pons' six Connect Four benchmark sets, resumably.

For each set ``experiments/data/pons/Test_L<stage>_R<difficulty>`` it appends to
``Test_L<stage>_R<difficulty>.classes`` one line per position, ``moves<TAB>c1...c7``: the
result of each column for the mover (W, D, L; N not a win; ``.`` a full column), from
``experiments/connect4_solver.c --classes`` built here with the C compiler. Lines are written
in the set's order as soon as they are known (with ``--jobs``, a position solved ahead of
another waits for it), so a run stopped at any point resumes where it was: run the same
command again. Every line is checked against the set: the best move's result must be the
sign of Pons' exact score. Run:

    nice -n 19 python experiments/connect4_pons_solve.py          # every set, easiest first
    python experiments/connect4_pons_solve.py --status            # how far each set is
    nice -n 19 python experiments/connect4_pons_solve.py --sets Test_L1_R3 --jobs 3

The end and middle sets take seconds to minutes; the beginning ones, the hard one above all,
take from seconds to a minute a position (a few CPU-hours for the set).
``benchmarks/connect4_pons.py`` scores a player on what has been solved.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from connect4_fresh_positions import build_solver  # experiments/
from tqdm import tqdm

from alphazero.config.command_line import OneLineParser
from alphazero.evaluation.pons_positions import (
    CLASS_RANK,
    CLASSES_SUFFIX,
    SETS,
    PonsPositionsError,
    read_classes,
    read_set,
)

FOLDER = Path(__file__).with_name("data") / "pons"
EASIEST_FIRST = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3")
"""The order the sets are solved in: the fewer empty cells, the cheaper a position."""


def status(folder: Path) -> None:
    for name, label in SETS:
        solved, total = (
            len(read_classes(folder / f"{name}{CLASSES_SUFFIX}")),
            len(read_set(folder / name)),
        )
        print(f"{name} ({label}): {solved} of {total} solved")


def solve_set(binary: Path, folder: Path, name: str, jobs: int = 1) -> None:
    """Solve the positions of set ``name`` not yet in its classes file, appending each in the
    set's order: ``jobs`` solver processes take interleaved shares, and a position solved
    ahead of one still being solved waits for it (lost if the run stops first)."""
    entries = read_set(folder / name)
    out = folder / f"{name}{CLASSES_SUFFIX}"
    done = read_classes(out)
    missing = [(moves, score) for moves, score in entries if moves not in done]
    if not missing:
        print(f"{name}: all {len(entries)} solved")
        return
    scores = dict(missing)
    answers: queue.Queue[str | None] = queue.Queue()
    with tempfile.TemporaryDirectory() as temporary, contextlib.ExitStack() as stack:
        solvers = []
        for i in range(jobs):
            given = Path(temporary) / f"share{i}.txt"
            given.write_text("".join(f"{moves}\n" for moves, _ in missing[i::jobs]))
            solver = subprocess.Popen(
                [str(binary), "--classes"],
                stdin=stack.enter_context(given.open()),
                stdout=subprocess.PIPE,
                text=True,
            )
            stack.callback(solver.kill)  # on the way out, whatever the way
            threading.Thread(target=relay, args=(solver, answers), daemon=True).start()
            solvers.append(solver)
        appended = stack.enter_context(out.open("a"))
        bar = stack.enter_context(
            tqdm(total=len(entries), initial=len(done), desc=name, unit="position")
        )
        waiting: dict[str, str] = {}
        order = iter(moves for moves, _ in missing)
        wanted = next(order, None)
        finished = 0
        while finished < jobs:
            line = answers.get()
            if line is None:
                finished += 1
                continue
            moves, _, classes = line.partition("\t")
            best = max(CLASS_RANK.get(c, -2) for c in classes)
            score = scores.get(moves)
            if score is None or best != (score > 0) - (score < 0):
                raise SystemExit(
                    f"connect4_pons_solve: the solver says {line!r}, the set's score is {score}"
                )
            waiting[moves] = classes
            while wanted is not None and wanted in waiting:
                appended.write(f"{wanted}\t{waiting.pop(wanted)}\n")
                appended.flush()
                bar.update()
                wanted = next(order, None)
        for solver in solvers:
            if solver.wait() != 0:
                raise SystemExit(f"connect4_pons_solve: the solver failed ({solver.returncode})")


def relay(solver: subprocess.Popen[str], answers: queue.Queue[str | None]) -> None:
    """Each line the solver writes, then None when it is done."""
    assert solver.stdout is not None
    for line in solver.stdout:
        answers.put(line.rstrip("\n"))
    answers.put(None)


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sets",
        nargs="+",
        choices=EASIEST_FIRST,
        default=list(EASIEST_FIRST),
        help="the sets to solve, in this order (default: all, easiest first)",
    )
    parser.add_argument(
        "--folder", type=Path, default=FOLDER, help=f"where the sets are (default {FOLDER})"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="solver processes on each set at once (default 1)"
    )
    parser.add_argument(
        "--status", action="store_true", help="say how far each set is solved, and solve nothing"
    )
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    try:
        if args.status:
            status(args.folder)
            return 0
        with tempfile.TemporaryDirectory() as folder:
            binary = build_solver(Path(folder))
            for name in args.sets:
                solve_set(binary, args.folder, name, args.jobs)
    except PonsPositionsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("stopped: what was solved is kept; run again to go on", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
