"""Solve every move of Pascal Pons' six Connect Four benchmark sets, resumably.

For each set ``experiments/data/pons/Test_L<stage>_R<difficulty>`` it appends to
``Test_L<stage>_R<difficulty>.classes`` one line per position, ``moves<TAB>c1...c7``: the
result of each column for the mover (W, D, L; N not a win; ``.`` a full column), from
``experiments/connect4_solver.c --classes`` built here with the C compiler. Positions are solved
in the set's order and each line is written as soon as it is known, so a run stopped at any
point resumes where it was: run the same command again. Every line is checked against the
set: the best move's result must be the sign of Pons' exact score. Run:

    nice -n 19 python experiments/connect4_pons_solve.py          # every set, easiest first
    python experiments/connect4_pons_solve.py --status            # how far each set is
    nice -n 19 python experiments/connect4_pons_solve.py --sets Test_L1_R3

The end and middle sets take seconds to minutes; the beginning ones, the hard one above all,
take from seconds to a minute a position (a few CPU-hours for the set).
``benchmarks/connect4_pons.py`` scores a player on what has been solved.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from connect4_fresh_positions import build_solver  # experiments/
from tqdm import tqdm

from alphazero.pons_positions import (
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


def solve_set(binary: Path, folder: Path, name: str) -> None:
    """Solve the positions of set ``name`` not yet in its classes file, appending each."""
    entries = read_set(folder / name)
    out = folder / f"{name}{CLASSES_SUFFIX}"
    done = read_classes(out)
    missing = [(moves, score) for moves, score in entries if moves not in done]
    if not missing:
        print(f"{name}: all {len(entries)} solved")
        return
    scores = dict(missing)
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as given:
        given.write("".join(f"{moves}\n" for moves, _ in missing))
        given.flush()
        with (
            open(given.name) as stdin,
            subprocess.Popen(
                [str(binary), "--classes"], stdin=stdin, stdout=subprocess.PIPE, text=True
            ) as solver,
            out.open("a") as appended,
            tqdm(total=len(entries), initial=len(done), desc=name, unit="position") as bar,
        ):
            assert solver.stdout is not None
            for line in solver.stdout:
                moves, _, classes = line.rstrip("\n").partition("\t")
                best = max(CLASS_RANK.get(c, -2) for c in classes)
                score = scores.get(moves)
                if score is None or best != (score > 0) - (score < 0):
                    solver.kill()
                    raise SystemExit(
                        f"connect4_pons_solve: the solver says {line.strip()!r}, "
                        f"the set's score is {score}"
                    )
                appended.write(f"{moves}\t{classes}\n")
                appended.flush()
                bar.update()
        if solver.returncode != 0:
            raise SystemExit(f"connect4_pons_solve: the solver failed ({solver.returncode})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
        "--status", action="store_true", help="say how far each set is solved, and solve nothing"
    )
    args = parser.parse_args()
    try:
        if args.status:
            status(args.folder)
            return 0
        with tempfile.TemporaryDirectory() as folder:
            binary = build_solver(Path(folder))
            for name in args.sets:
                solve_set(binary, args.folder, name)
    except PonsPositionsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("stopped: what was solved is kept; run again to go on", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
