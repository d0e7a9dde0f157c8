"""Draw a training run's curves as a PNG: ``python -m alphazero.report RUN_DIR``.

Three panels from ``metrics.jsonl``: the losses (policy, value) and the policy entropy per
iteration; the Elo of each evaluated checkpoint against the run's fixed ladder; and the
score against each ladder opponent. Given several runs (``RUN_DIR RUN_DIR ...``), one panel
instead: each run's share of correct moves on the solved Connect Four positions against the
CPU hours it had spent, the measure of learning per unit of compute: a line for the raw
policy (measured by the run itself, ``evaluation.solved_positions``) and markers for the
measures with search that ``benchmarks/connect4_positions.py --record`` added to the run's
``solved_positions_search.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

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


def draw(records: list[dict[str, Any]], output: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    fig, (losses, elo, scores) = plt.subplots(3, 1, figsize=(8, 10), sharex=True)
    trained = [r for r in records if r.get("train")]
    its = [r["iteration"] for r in trained]
    for key, label in (("policy_loss", "policy loss"), ("value_loss", "value loss")):
        losses.plot(its, [r["train"][key] for r in trained], label=label)
    # The policy loss is the entropy plus the KL to the target, so on one axis the two curves
    # lie on each other: the entropy gets its own axis and a dashed line.
    entropy = losses.twinx()
    entropy.plot(its, [r["train"].get("policy_entropy", float("nan")) for r in trained],
                 color="C2", linestyle="--", label="policy entropy (right)")  # fmt: skip
    entropy.set_ylabel("policy entropy")
    entropy.legend(loc="upper center")
    losses.set_ylabel("loss")
    losses.legend(loc="upper right")
    losses.grid(alpha=0.3)

    evaluated = [r for r in records if "evaluation" in r]
    eval_its = [r["iteration"] for r in evaluated]
    elo.plot(eval_its, [r["evaluation"]["elo"] for r in evaluated], marker="o", color="C3")
    if evaluated:
        for spec, rating in evaluated[-1]["evaluation"].get("ladder", {}).items():
            elo.axhline(rating, color="grey", linestyle="--", linewidth=0.8)
            # Outside the plot, right of it, where the model's Elo line cannot cover it.
            elo.annotate(spec, (1.01, rating), xycoords=("axes fraction", "data"), fontsize=8,
                         color="grey", va="center")  # fmt: skip
    elo.set_ylabel("Elo (ladder)")
    elo.grid(alpha=0.3)

    specs = list(evaluated[-1]["evaluation"]["opponents"]) if evaluated else []
    for spec in specs:
        points = [(r["iteration"], r["evaluation"]["opponents"][spec]["score"])
                  for r in evaluated if spec in r["evaluation"]["opponents"]]  # fmt: skip
        scores.plot(*zip(*points, strict=True), marker="o", label=f"vs {spec}")
    scores.set_ylim(-0.02, 1.02)
    scores.set_ylabel("score")
    scores.set_xlabel("iteration")
    if specs:
        scores.legend()
    scores.grid(alpha=0.3)

    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(output, dpi=100)
    plt.close(fig)


def cpu_hours(records: list[dict[str, Any]]) -> list[float]:
    """The CPU hours a run had spent at each record, as ``train.py`` records them: all of its
    processes, for self-play, training, the evaluation ladder and the checkpoints.

    Runs from before ``cpu_seconds`` was recorded count self-play CPU plus training time.
    """
    hours, total = [], 0.0
    for record in records:
        train = record.get("train_cpu_seconds", record.get("train_seconds", 0.0))
        total += record["selfplay"].get("cpu_seconds", 0.0) + train
        hours.append(record.get("cpu_seconds", total) / 3600)
    return hours


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
        description="Draw a run's losses and Elo history as a PNG.",
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
    draw(records, output, f"{run_dir.name}: {len(records)} iterations")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
