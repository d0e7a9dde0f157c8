"""What a run had spent and how strong it was: the CPU hours at each iteration of
``metrics.jsonl``, what they count, and the table of its evaluations that
``python -m alphazero.report RUN_DIR`` prints beside its figure."""

from __future__ import annotations

from typing import Any

from ..evaluation.ladder import ELO_BOUND


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


def hours_label(records: list[dict[str, Any]]) -> str | None:
    """What ``cpu_hours`` counts for these records, as an axis label; None where the metrics
    lack the self-play CPU of some iteration, so that its hours would leave out most of it."""
    if all("cpu_seconds" in r for r in records):
        # train.py's own process time (training, the ladder, checkpoints, and self-play when
        # in process) plus its self-play workers' CPU: see training/loop.py ``_iteration``.
        return (
            "CPU hours, cumulative: all train.py processes (metrics cpu_seconds), "
            "self-play + training + evaluation + checkpoints"
        )
    if not all("cpu_seconds" in r.get("selfplay", {}) for r in records):
        return None
    training = "CPU" if all("train_cpu_seconds" in r for r in records) else "wall time"
    return f"CPU hours, cumulative: self-play CPU + training {training} (evaluation not recorded)"


def strength_table(records: list[dict[str, Any]]) -> list[str]:
    """One line per evaluated iteration: the CPU hours spent by then ("-" where
    ``hours_label`` finds none), the Elo against the ladder, and the score against each
    opponent with its 95% interval ("-" where that evaluation did not play it)."""
    hours = cpu_hours(records) if hours_label(records) else [None] * len(records)
    evaluated = [(h, r) for h, r in zip(hours, records, strict=True) if "evaluation" in r]
    specs = list(dict.fromkeys(s for _, r in evaluated for s in r["evaluation"]["opponents"]))
    width = [max(len(spec), len("0.00 [0.00, 0.00]")) for spec in specs]
    columns = (spec.ljust(w) for spec, w in zip(specs, width, strict=True))
    head = ["iteration", "CPU hours", "     Elo", *columns]
    lines = ["  ".join(head).rstrip()]
    for spent, record in evaluated:
        evaluation = record["evaluation"]
        cells = [
            f"{record['iteration']:>9}",
            f"{'-' if spent is None else f'{spent:.2f}':>9}",
            f"{_elo(evaluation['elo']):>8}",
        ]
        for spec, w in zip(specs, width, strict=True):
            cells.append(_score(evaluation["opponents"].get(spec)).ljust(w))
        lines.append("  ".join(cells).rstrip())
    return lines


def capped(elo: float) -> bool:
    """Whether an evaluation's Elo is the bound a clean sweep reports, not a measure."""
    return abs(elo) >= ELO_BOUND


def _elo(elo: float) -> str:
    """A clean sweep's Elo is the bound, not a measure: say what happened instead."""
    if capped(elo):
        return "all won" if elo > 0 else "all lost"
    return f"{elo:.0f}"


def _score(opponent: dict[str, Any] | None) -> str:
    if opponent is None:
        return "-"
    if "score_low" in opponent and "score_high" in opponent:
        low, high = opponent["score_low"], opponent["score_high"]
        return f"{opponent['score']:.2f} [{low:.2f}, {high:.2f}]"
    return f"{opponent['score']:.2f}"
