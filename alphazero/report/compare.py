"""Several runs in one panel for ``python -m alphazero.report RUN_DIR RUN_DIR ... -o PNG``:
each run's share of correct moves on the solved Connect Four positions against the CPU hours
it had spent, the measure of learning per unit of compute, or with ``x="iteration"`` against
the iteration: a line for the raw policy (measured by the run itself,
``evaluation.solved_positions``) and markers for the measures with search that
``benchmarks/connect4_positions.py --record`` added to the run's
``solved_positions_search.jsonl`` (``records.SEARCH_MEASURES``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .records import ReportError
from .strength import cpu_hours


def draw_correct_moves(
    runs: dict[str, list[dict[str, Any]]],
    output: Path,
    hours: float | None = None,
    searched: dict[str, list[dict[str, Any]]] | None = None,
    x: str = "cpu-hours",
) -> None:
    """The runs' panel (``correct_moves_figure``) as a PNG."""
    fig = correct_moves_figure(runs, hours, searched, x)
    import matplotlib.pyplot as plt  # after correct_moves_figure() has chosen the backend

    fig.savefig(output, dpi=100)
    plt.close(fig)


def correct_moves_figure(
    runs: dict[str, list[dict[str, Any]]],
    hours: float | None = None,
    searched: dict[str, list[dict[str, Any]]] | None = None,
    x: str = "cpu-hours",
) -> Any:
    """One line per run (by its folder): correct moves of the raw policy on the solved
    positions against CPU hours (with ``hours``, the first ``hours`` only), or with
    ``x="iteration"`` against the iteration (``hours`` unused); and markers in the run's
    colour, joined by a dotted line, for its models measured with search (``searched[name]``:
    records of ``SEARCH_MEASURES``), one series per simulation count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    by_iteration = x == "iteration"
    key = "iteration" if by_iteration else "cpu_hours"  # a search measure's x
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, (name, records) in enumerate(runs.items()):
        at = [r["iteration"] for r in records] if by_iteration else cpu_hours(records)
        points = [
            (a, r["connect4_positions"]["policy_correct"])
            for a, r in zip(at, records, strict=True)
            if "connect4_positions" in r
        ]
        if not points:
            raise ReportError(f"{name}: no solved-position measures in its metrics")
        ax.plot(*zip(*points, strict=True), color=f"C{i}", label=f"{name}: raw policy")
        measures = (searched or {}).get(name, [])
        for sims, marker in zip(
            sorted({m["simulations"] for m in measures}), "osD^v", strict=False
        ):
            # A measure without its iteration (read_search_measures does not require one) has
            # no place on the iteration axis.
            series = sorted((m[key], m["search_correct"]) for m in measures
                            if m["simulations"] == sims and key in m)  # fmt: skip
            if series:
                ax.plot(*zip(*series, strict=True), color=f"C{i}", marker=marker, linestyle=":",
                        label=f"{name}: {sims} simulations")  # fmt: skip
    if by_iteration:
        ax.set_xlabel("iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        if hours is not None:
            ax.set_xlim(0, hours)
        ax.set_xlabel("CPU hours (all of train.py: self-play, training, evaluation)")
    ax.set_ylabel("correct moves on the solved positions")
    ax.set_ylim(0.4, 1.0)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig
