"""What ``python -m alphazero.report`` reads from a run folder: the metrics ``train.py`` wrote
one iteration a line, and the measures with search ``benchmarks/connect4_positions.py
--record`` added; a folder without them is a ``ReportError`` of one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SEARCH_MEASURES = "solved_positions_search.jsonl"
"""A run folder's record of its models measured with search on the solved positions."""


class ReportError(ValueError):
    """A run folder without readable metrics."""


def read_metrics(run_dir: Path) -> list[dict[str, Any]]:
    """The run's ``metrics.jsonl``, one record an iteration, oldest first; at least one."""
    path = run_dir / "metrics.jsonl"
    if not run_dir.is_dir():
        missing = "no such folder" if not run_dir.exists() else "not a folder"
        raise ReportError(f"{run_dir}: {missing} (give a run folder from train.py)")
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
    """The JSON value on each line of ``path``, blank lines skipped; a line that is not JSON is a
    ``ReportError``."""
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            raise ReportError(f"{path}: line {number} is not JSON") from None
    return records
