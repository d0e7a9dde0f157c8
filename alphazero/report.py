"""Draw a training run's curves as a PNG: ``python -m alphazero.report RUN_DIR``.

Panels from ``metrics.jsonl``: the losses (policy, value) and the policy entropy; on
Connect Four runs that measure them, the correct moves on the solved positions (the raw
policy, the value head's results, and any measures with search); the Elo of each evaluated
checkpoint against the run's fixed ladder, a clean sweep marked above the scale (its Elo is
the bound, not a measure); and the score against each ladder opponent with its 95% interval.
The panels share one x axis: the CPU hours the run had spent where its metrics record them
(``report_strength.hours_label`` says what they count), the iteration on the top axis; else,
or with ``--x iteration``, the iteration. The evaluations are printed as a table as well
(``report_strength.strength_table``). A run of one iteration gets a note that the curves need
more.

Given several runs (``RUN_DIR RUN_DIR ...``), one panel instead: each run's share of correct
moves on the solved Connect Four positions against the CPU hours it had spent, the measure
of learning per unit of compute: a line for the raw policy (measured by the run itself,
``evaluation.solved_positions``) and markers for the measures with search that
``benchmarks/connect4_positions.py --record`` added to the run's
``solved_positions_search.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .report_strength import capped, cpu_hours, hours_label, strength_table

SEARCH_MEASURES = "solved_positions_search.jsonl"
"""A run folder's record of its models measured with search on the solved positions."""


class ReportError(ValueError):
    """A run folder without readable metrics."""


def read_metrics(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "metrics.jsonl"
    if not path.is_file():
        raise ReportError(f"{run_dir}: no metrics.jsonl (is it a run folder from train.py?)")
    records = _read_jsonl(path)
    if not records:
        raise ReportError(f"{path}: no iterations recorded yet")
    return records


def read_search_measures(run_dir: Path) -> list[dict[str, Any]]:
    """The run's models measured with search (``SEARCH_MEASURES``), oldest first; none if the
    file is absent."""
    path = run_dir / SEARCH_MEASURES
    measures = _read_jsonl(path) if path.is_file() else []
    for number, measure in enumerate(measures, start=1):
        missing = {"simulations", "cpu_hours", "search_correct"} - set(measure)
        if missing:
            raise ReportError(f"{path}: line {number} lacks {', '.join(sorted(missing))}")
    return measures


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            raise ReportError(f"{path}: line {number} is not JSON") from None
    return records


MIN_ITERATIONS = 2
"""Iterations a curve needs: with fewer the report says so rather than draw empty axes."""


X_AXES = ("cpu-hours", "iteration")
"""The single-run report's x axes; the first is the default where the metrics allow it."""

Xs = dict[int, float]
"""Where each iteration lies on the x axis: its CPU hours, or the iteration itself."""


def draw(
    records: list[dict[str, Any]],
    output: Path,
    title: str,
    searched: list[dict[str, Any]] | None = None,
    x: str = "cpu-hours",
) -> list[str]:
    """The run's panels (``figure``) as a PNG. Returns the panels' labels and notes, top to
    bottom."""
    fig, shown = figure(records, title, searched, x)
    import matplotlib.pyplot as plt  # after figure() has chosen the file-only backend

    fig.savefig(output, dpi=100)
    plt.close(fig)
    return shown


def figure(
    records: list[dict[str, Any]],
    title: str,
    searched: list[dict[str, Any]] | None = None,
    x: str = "cpu-hours",
) -> tuple[Any, list[str]]:
    """The run's panels: losses; the solved positions when the run measured them (with
    ``searched``, its models measured with search: ``SEARCH_MEASURES``); the Elo against the
    ladder; the score against each opponent with its 95% interval. With ``x="cpu-hours"`` and
    metrics that record them (``hours_label``), against the CPU hours the run had spent, the
    iteration on the top axis; else against the iteration. Returns the figure and the panels'
    labels and notes, top to bottom."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    if len(records) < MIN_ITERATIONS:
        fig, ax = plt.subplots(figsize=(8, 3))
        note = (
            f"not enough iterations yet: {len(records)} recorded, the curves need "
            f"{MIN_ITERATIONS}; run this again after the next iteration"
        )
        ax.text(0.5, 0.5, note, ha="center", va="center", wrap=True, fontsize=11)
        ax.set_axis_off()
        fig.suptitle(title)
        return fig, [note]
    from matplotlib.ticker import MaxNLocator

    solved = any("connect4_positions" in r for r in records)
    evaluated = [r for r in records if "evaluation" in r]
    # Without an evaluation yet, one low panel says so where the Elo and scores will be.
    heights = [3.0] * (1 + solved) + ([3.0, 3.0] if evaluated else [0.8])
    fig, axes = plt.subplots(
        len(heights), 1, figsize=(8, sum(heights) + 1.6), sharex=True,
        gridspec_kw={"height_ratios": heights},
    )  # fmt: skip
    label = hours_label(records) if x == "cpu-hours" else None
    its = [r["iteration"] for r in records]
    at = dict(zip(its, cpu_hours(records) if label else its, strict=True))
    shown = _draw_losses(axes[0], records, at)
    if solved:
        shown += _draw_solved(axes[1], records, searched or [], at)
    if evaluated:
        shown += _draw_elo(axes[-2], evaluated, at)
        shown += _draw_scores(axes[-1], evaluated, at)
    else:
        note = "no evaluation yet: the Elo and the scores come with the run's first"
        shown.append(_empty(axes[-1], "", note))
    if label:
        _iteration_axis(axes[0], at)
        axes[-1].set_xlabel(label, fontsize=9)
    else:
        axes[-1].set_xlabel("iteration")
        axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(title)
    # tight_layout leaves the title no room above a top axis: keep a strip for it.
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.15 / fig.get_figheight() if label else 1))
    return fig, shown


def _iteration_axis(ax: Any, at: Xs) -> None:
    """The iteration above the top panel, for a figure drawn against CPU hours."""
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    its, hours = list(at), list(at.values())
    # Straight on past both ends at the run's mean rate, where np.interp would hold the end
    # values and stack the ticks outside the run on its first and last iteration.
    rate, far = hours[-1] / its[-1], 10 * its[-1]
    its, hours = [-far, *its, its[-1] + far], [-far * rate, *hours, hours[-1] + far * rate]
    top = ax.secondary_xaxis(
        "top",
        functions=(lambda h: np.interp(h, hours, its), lambda i: np.interp(i, its, hours)),
    )
    top.set_xlabel("iteration")
    top.xaxis.set_major_locator(MaxNLocator(integer=True))


def _draw_losses(ax: Any, records: list[dict[str, Any]], at: Xs) -> list[str]:
    trained = [r for r in records if r.get("train")]
    if not trained:
        return [_empty(ax, "loss", "no training yet: the buffer is filling")]
    its = [at[r["iteration"]] for r in trained]
    for key, label in (("policy_loss", "policy loss"), ("value_loss", "value loss")):
        ax.plot(its, [r["train"][key] for r in trained], label=label)
    # The policy loss is the entropy plus the KL to the target, so on one axis the two curves
    # lie on each other: the entropy gets its own axis and a dashed line.
    entropy = ax.twinx()
    entropy.plot(its, [r["train"].get("policy_entropy", float("nan")) for r in trained],
                 color="C2", linestyle="--", label="policy entropy (right)")  # fmt: skip
    entropy.set_ylabel("policy entropy")
    entropy.legend(loc="upper center")
    ax.set_ylabel("loss")
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    return ["loss"]


def _draw_solved(
    ax: Any, records: list[dict[str, Any]], searched: list[dict[str, Any]], at: Xs
) -> list[str]:
    """The solved Connect Four positions: the raw policy's correct moves and the value
    head's right results, as the run measured them, and any measures with search."""
    measured = [r for r in records if "connect4_positions" in r]
    its = [at[r["iteration"]] for r in measured]
    ax.plot(its, [r["connect4_positions"]["policy_correct"] for r in measured],
            color="C0", label="raw policy: correct moves")  # fmt: skip
    if all("value_result" in r["connect4_positions"] for r in measured):
        ax.plot(its, [r["connect4_positions"]["value_result"] for r in measured],
                color="C1", linestyle="--", label="value head: right result")  # fmt: skip
    for sims, marker in zip(sorted({m["simulations"] for m in searched}), "osD^v", strict=False):
        series = sorted((at[m["iteration"]], m["search_correct"]) for m in searched
                        if m["simulations"] == sims and m.get("iteration") in at)  # fmt: skip
        if series:
            ax.plot(*zip(*series, strict=True), color="C3", marker=marker, linestyle=":",
                    label=f"{sims} simulations: correct moves")  # fmt: skip
    ax.set_ylabel("solved positions")
    ax.yaxis.set_major_formatter(_percent())
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    return ["solved positions"]


def _draw_elo(ax: Any, evaluated: list[dict[str, Any]], at: Xs) -> list[str]:
    """Measured Elo as a line; a clean sweep (Elo capped at the bound) as a triangle at the
    panel's top edge, off the scale, labelled so, rather than a spike to the bound."""
    measured = [(at[r["iteration"]], r["evaluation"]["elo"]) for r in evaluated
                if not capped(r["evaluation"]["elo"])]  # fmt: skip
    swept = [at[r["iteration"]] for r in evaluated if capped(r["evaluation"]["elo"])]
    if measured:
        ax.plot(*zip(*measured, strict=True), marker="o", color="C3", label="Elo")
    ladder = evaluated[-1]["evaluation"].get("ladder", {})
    for spec, rating in ladder.items():
        ax.axhline(rating, color="grey", linestyle="--", linewidth=0.8)
        # Outside the plot, right of it, where the model's Elo line cannot cover it.
        ax.annotate(spec, (1.01, rating), xycoords=("axes fraction", "data"), fontsize=8,
                    color="grey", va="center")  # fmt: skip
    values = [e for _, e in measured] + list(ladder.values())
    low, high = min(values), max(values)
    margin = max(50.0, 0.1 * (high - low))
    ax.set_ylim(low - margin, high + 2.5 * margin)  # room at the top for the sweeps
    notes = ["Elo (ladder)"]
    if swept:
        top = ax.get_xaxis_transform()  # x as the data's, y in the panel's height
        ax.plot(swept, [0.93] * len(swept), linestyle="none", marker="^", markersize=9,
                color="C3", markerfacecolor="white", transform=top,
                label="clean sweep: above the scale (Elo unmeasured)")  # fmt: skip
        notes.append("clean sweep: above the scale (Elo unmeasured)")
    ax.set_ylabel("Elo (ladder)")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    return notes


def _draw_scores(ax: Any, evaluated: list[dict[str, Any]], at: Xs) -> list[str]:
    """The score against each opponent of the last evaluation, with its 95% interval."""
    specs = list(evaluated[-1]["evaluation"]["opponents"])
    for number, spec in enumerate(specs):
        rows = [(at[r["iteration"]], r["evaluation"]["opponents"][spec]) for r in evaluated
                if spec in r["evaluation"]["opponents"]]  # fmt: skip
        xs = [x for x, _ in rows]
        ax.plot(xs, [o["score"] for _, o in rows], marker="o", color=f"C{number}",
                label=f"vs {spec}")  # fmt: skip
        if all("score_low" in o and "score_high" in o for _, o in rows):
            low, high = [o["score_low"] for _, o in rows], [o["score_high"] for _, o in rows]
            ax.fill_between(xs, low, high, color=f"C{number}", alpha=0.15, linewidth=0)
            if len(rows) == 1:  # a band of one point has no width: its interval as a bar
                ax.vlines(xs, low, high, color=f"C{number}", alpha=0.4, linewidth=6)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("score (shaded: 95% interval)")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    return ["score (shaded: 95% interval)"]


def _empty(ax: Any, label: str, note: str) -> str:
    """A panel with nothing to draw yet: its label and why, instead of empty axes."""
    ax.text(0.5, 0.5, note, ha="center", va="center", transform=ax.transAxes, color="grey")
    ax.set_ylabel(label)
    ax.set_yticks([])
    return note


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


def draw_correct_moves(
    runs: dict[str, list[dict[str, Any]]],
    output: Path,
    hours: float | None = None,
    searched: dict[str, list[dict[str, Any]]] | None = None,
) -> None:
    """One line per run (by its folder): correct moves of the raw policy on the solved
    positions against CPU hours; and markers in the run's colour, joined by a dotted line,
    for its models measured with search (``searched[name]``: records of
    ``SEARCH_MEASURES``), one series per simulation count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for i, (name, records) in enumerate(runs.items()):
        spent = cpu_hours(records)
        points = [
            (h, r["connect4_positions"]["policy_correct"])
            for h, r in zip(spent, records, strict=True)
            if "connect4_positions" in r
        ]
        if not points:
            raise ReportError(f"{name}: no solved-position measures in its metrics")
        ax.plot(*zip(*points, strict=True), color=f"C{i}", label=f"{name}: raw policy")
        measures = (searched or {}).get(name, [])
        for sims, marker in zip(
            sorted({m["simulations"] for m in measures}), "osD^v", strict=False
        ):
            series = sorted((m["cpu_hours"], m["search_correct"])
                            for m in measures if m["simulations"] == sims)  # fmt: skip
            ax.plot(*zip(*series, strict=True), color=f"C{i}", marker=marker, linestyle=":",
                    label=f"{name}: {sims} simulations")  # fmt: skip
    if hours is not None:
        ax.set_xlim(0, hours)
    ax.set_xlabel("CPU hours (all of train.py: self-play, training, evaluation)")
    ax.set_ylabel("correct moves on the solved positions")
    ax.set_ylim(0.4, 1.0)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(output, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.report",
        description="Draw a run's losses, its Elo against the evaluation ladder and its "
        "scores against each opponent as a PNG, against the CPU hours it had spent where "
        "metrics.jsonl records them, and print its evaluations as a table (iteration, CPU "
        "hours, Elo, scores). Several Connect Four runs: their correct-move shares on the "
        "solved positions against CPU hours.",
    )
    parser.add_argument(
        "run_dirs",
        type=Path,
        nargs="+",
        metavar="RUN_DIR",
        help="a run folder written by train.py; several (Connect Four): their correct-move "
        "shares on the solved positions against CPU hours, in one panel",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="PNG path (default: RUN_DIR/report.png; required with several runs)",
    )
    parser.add_argument(
        "--hours",
        type=float,
        default=None,
        help="with several runs: show their first HOURS CPU hours (default: all)",
    )
    parser.add_argument(
        "--x",
        choices=X_AXES,
        default=X_AXES[0],
        help="one run's x axis: the CPU hours it had spent (default; all train.py processes "
        "where metrics.jsonl records cpu_seconds, the axis label says which; the iteration "
        "on the top axis) or the iteration (also where no CPU hours are recorded)",
    )
    args = parser.parse_args(argv)
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
            draw_correct_moves(runs, args.output, args.hours, searched)
            print(f"wrote {args.output}")
            return 0
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    (run_dir,) = args.run_dirs
    records = next(iter(runs.values()))
    output = args.output or run_dir / "report.png"
    try:
        searched = read_search_measures(run_dir)
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    label = hours_label(records)
    count = f"{len(records)} iteration{'s' * (len(records) != 1)}"
    if label:
        count += f", {cpu_hours(records)[-1]:.2f} CPU hours"
    shown = draw(records, output, f"{run_dir.name}: {count}", searched, args.x)
    enough = len(records) >= MIN_ITERATIONS
    print(f"wrote {output}" + ("" if enough else f" ({shown[0]})"))
    if args.x == "cpu-hours" and label is None:
        print("x axis: the iteration, as metrics.jsonl lacks the self-play CPU of some")
    if any("evaluation" in r for r in records):
        print(f"\nevaluations of {run_dir.name} ({label or 'CPU hours not recorded'})")
        print("\n".join(strength_table(records)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
