"""Draw a training run's curves as a PNG: ``python -m alphazero.report RUN_DIR``.

Three panels from ``metrics.jsonl``: the losses (policy, value) and the policy entropy per
iteration; the Elo of each evaluated checkpoint against the run's fixed ladder; and the
score against each ladder opponent.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


class ReportError(ValueError):
    """A run folder without readable metrics."""


def read_metrics(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "metrics.jsonl"
    if not path.is_file():
        raise ReportError(f"{run_dir}: no metrics.jsonl (is it a run folder from train.py?)")
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            raise ReportError(f"{path}: line {number} is not JSON") from None
    if not records:
        raise ReportError(f"{path}: no iterations recorded yet")
    return records


def draw(records: list[dict[str, Any]], output: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    fig, (losses, elo, scores) = plt.subplots(3, 1, figsize=(8, 10), sharex=True)
    trained = [r for r in records if r.get("train")]
    its = [r["iteration"] for r in trained]
    for key, label in (("policy_loss", "policy loss"), ("value_loss", "value loss"),
                       ("policy_entropy", "policy entropy")):  # fmt: skip
        losses.plot(its, [r["train"][key] for r in trained], label=label)
    losses.set_ylabel("loss")
    losses.legend()
    losses.grid(alpha=0.3)

    evaluated = [r for r in records if "evaluation" in r]
    eval_its = [r["iteration"] for r in evaluated]
    elo.plot(eval_its, [r["evaluation"]["elo"] for r in evaluated], marker="o", color="C3")
    if evaluated:
        for spec, rating in evaluated[-1]["evaluation"].get("ladder", {}).items():
            elo.axhline(rating, color="grey", linestyle="--", linewidth=0.8)
            elo.annotate(spec, (eval_its[0], rating), fontsize=8, color="grey")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.report",
        description="Draw a run's losses and Elo history as a PNG.",
    )
    parser.add_argument("run_dir", type=Path, help="a run folder written by train.py")
    parser.add_argument(
        "-o", "--output", type=Path, default=None, help="PNG path (default: RUN_DIR/report.png)"
    )
    args = parser.parse_args(argv)
    try:
        records = read_metrics(args.run_dir)
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    output = args.output or args.run_dir / "report.png"
    draw(records, output, f"{args.run_dir.name}: {len(records)} iterations")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
