"""Draw a training run's curves as a PNG: ``python -m alphazero.report RUN_DIR``.

One run: its panels (``figure``: losses, the solved positions on Connect Four runs that
measure them, the Elo against the ladder, the score against each opponent) against the CPU
hours it had spent where its metrics record them (``strength.hours_label`` says what
they count; ``--hours`` shows the first so many), else, or with ``--x iteration``, against the
iteration; its evaluations are printed as a table as well (``strength.strength_table``).

Given several runs (``RUN_DIR RUN_DIR ...``), one panel instead (``compare``): each
run's share of correct moves on the solved Connect Four positions against the CPU hours it had
spent (or with ``--x iteration`` against the iteration), the raw policy's as a line and any
measures with search as markers.

What is read from a run folder, and its one-line errors, is ``records``'.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from ..config.command_line import OneLineParser, number
from .compare import draw_correct_moves
from .figure import MIN_ITERATIONS, X_AXES, draw
from .records import ReportError, read_metrics, read_search_measures
from .strength import cpu_hours, hours_label, strength_table


def _parser() -> OneLineParser:
    """The command line of ``python -m alphazero.report``."""
    parser = OneLineParser(
        prog="python -m alphazero.report",
        description="Draw a run's losses, its Elo against the evaluation ladder and its "
        "scores against each opponent as a PNG, against the CPU hours it had spent where "
        "metrics.jsonl records them, and print its evaluations as a table (iteration, CPU "
        "hours, Elo, scores). Several Connect Four runs: their correct-move shares on the "
        "solved positions against CPU hours (or the iteration, --x).",
    )
    parser.add_argument(
        "run_dirs",
        type=Path,
        nargs="+",
        metavar="RUN_DIR",
        help="a run folder written by train.py; several (Connect Four): their correct-move "
        "shares on the solved positions against CPU hours (or the iteration), in one panel",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="PNG path (default: RUN_DIR/report.png, but NAME_report.png in the current "
        "directory for a run shipped in the repository, checkpoints/pretrained/NAME or "
        "checkpoints/in_progress/NAME; required with several runs)",
    )
    parser.add_argument(
        "--hours",
        type=number,
        default=None,
        help="show the first HOURS CPU hours (default: all), not with --x iteration: of "
        "several runs, or of one run drawn against its CPU hours (not where its metrics.jsonl "
        "lacks them); its table of evaluations stays whole",
    )
    parser.add_argument(
        "--x",
        choices=X_AXES,
        default=X_AXES[0],
        help="the x axis, of one run or of several: the CPU hours spent (default) or the "
        "iteration. One run's CPU hours are all train.py processes' where metrics.jsonl "
        "records cpu_seconds (the axis label says which; the iteration on the top axis), and "
        "it is drawn by iteration where no CPU hours are recorded",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m alphazero.report``: returns the exit code (0 written, 2 bad options or a
    run folder it cannot read)."""
    args = _parser().parse_args(argv)
    if args.hours is not None and not 0 < args.hours < math.inf:  # NaN too
        print(f"error: --hours must be above 0 and finite, got {args.hours:g}", file=sys.stderr)
        return 2
    if args.hours is not None and args.x == "iteration":
        print("error: --hours needs the CPU-hours x axis, not --x iteration", file=sys.stderr)
        return 2
    twice = _given_twice(args.run_dirs)
    if twice:
        print(f"error: {twice}", file=sys.stderr)
        return 2
    if len(args.run_dirs) > 1 and args.output is None:
        print("error: with several runs, say where the PNG goes: -o PATH", file=sys.stderr)
        return 2
    try:
        # Labelled by folder name where those are unique, else by the paths given.
        names = [run.name for run in args.run_dirs]
        unique = len(set(names)) == len(names)
        runs = {(run.name if unique else str(run)): read_metrics(run) for run in args.run_dirs}
        if len(args.run_dirs) > 1:
            searched = {
                name: read_search_measures(run)
                for name, run in zip(runs, args.run_dirs, strict=True)
            }
            draw_correct_moves(runs, args.output, args.hours, searched, args.x)
            print(f"wrote {args.output}")
            return 0
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    (run_dir,) = args.run_dirs
    records = next(iter(runs.values()))
    output = args.output or default_output(run_dir)
    try:
        searched = read_search_measures(run_dir)
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    label = hours_label(records)
    if args.hours is not None and label is None:
        print(
            f"error: --hours: {run_dir}'s metrics.jsonl lacks the self-play CPU of some "
            "iterations, so it is drawn by iteration",
            file=sys.stderr,
        )
        return 2
    count = f"{len(records)} iteration{'s' * (len(records) != 1)}"
    if label:
        count += f", {cpu_hours(records)[-1]:.2f} CPU hours"
    shown = draw(records, output, f"{run_dir.name}: {count}", searched, args.x, args.hours)
    enough = len(records) >= MIN_ITERATIONS
    print(f"wrote {output}" + ("" if enough else f" ({shown[0]})"))
    if args.x == "cpu-hours" and label is None:
        print("x axis: the iteration, as metrics.jsonl lacks the self-play CPU of some")
    if any("evaluation" in r for r in records):
        print(f"\nevaluations of {run_dir.name} ({label or 'CPU hours not recorded'})")
        print("\n".join(strength_table(records)))
    return 0


def _given_twice(run_dirs: list[Path]) -> str | None:
    """What is wrong if one run folder is among ``run_dirs`` twice (``RUN RUN/``, or two paths to
    one folder), else None: a run compared with itself is one curve drawn twice."""
    seen: dict[Path, Path] = {}
    for run in run_dirs:
        first = seen.setdefault(run.resolve(), run)
        if first is not run:
            return f"{run} given twice" if first == run else f"{first} and {run} are one folder"
    return None


SHIPPED = ("pretrained", "in_progress")
"""The folders of ``checkpoints/`` whose runs are part of the repository."""


def default_output(run_dir: Path) -> Path:
    """Where one run's PNG goes without ``-o``: ``report.png`` in the run folder, beside its
    metrics; for a run shipped in the repository (``checkpoints/pretrained/NAME``,
    ``checkpoints/in_progress/NAME``), ``NAME_report.png`` in the current directory instead,
    so that drawing a shipped run's curves adds no file to the checkout."""
    folder = run_dir.resolve()
    if folder.parent.name in SHIPPED and folder.parent.parent.name == "checkpoints":
        return Path(f"{folder.name}_report.png")
    return run_dir / "report.png"
