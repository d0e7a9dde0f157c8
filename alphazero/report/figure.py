"""One run's figure for ``python -m alphazero.report RUN_DIR``, from its ``metrics.jsonl``.

Panels: the losses (policy, value) and the policy entropy; on Connect Four runs that measure
them, the correct moves on the solved positions (the raw policy, the value head's results, and
any measures with search); the Elo of each evaluated checkpoint against the run's fixed ladder,
a clean sweep marked above the scale (its Elo is the bound, not a measure); and the score
against each ladder opponent with its 95% interval. The panels share one x axis: the CPU hours
the run had spent where its metrics record them (``strength.hours_label`` says what
they count), the iteration on the top axis; else, or with ``x="iteration"``, the iteration.
A run of one iteration gets a note that the curves need more.

matplotlib is imported where a figure is drawn, once its file-only backend is chosen, and so
not with the module: the command's ``--help`` and its one-line errors never load it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .strength import capped, cpu_hours, hours_label

MIN_ITERATIONS = 2
"""Iterations a curve needs: with fewer the report says so rather than draw empty axes."""


X_AXES = ("cpu-hours", "iteration")
"""The report's x axes, of one run and of several; the first is the default, one run's where
its metrics allow it."""

Xs = dict[int, float]
"""Where each iteration lies on the x axis: its CPU hours, or the iteration itself."""


def draw(
    records: list[dict[str, Any]],
    output: Path,
    title: str,
    searched: list[dict[str, Any]] | None = None,
    x: str = "cpu-hours",
    hours: float | None = None,
) -> list[str]:
    """The run's panels (``figure``) as a PNG. Returns the panels' labels and notes, top to
    bottom."""
    fig, shown = figure(records, title, searched, x, hours)
    import matplotlib.pyplot as plt  # after figure() has chosen the file-only backend

    fig.savefig(output, dpi=100)
    plt.close(fig)
    return shown


def figure(
    records: list[dict[str, Any]],
    title: str,
    searched: list[dict[str, Any]] | None = None,
    x: str = "cpu-hours",
    hours: float | None = None,
) -> tuple[Any, list[str]]:
    """The run's panels: losses; the solved positions when the run measured them (with
    ``searched``, its models measured with search: ``records.SEARCH_MEASURES``); the
    Elo against the ladder; the score against each opponent with its 95% interval. With
    ``x="cpu-hours"`` and metrics that record them (``hours_label``), against the CPU hours the
    run had spent, the iteration on the top axis, and with ``hours`` its first ``hours`` only;
    else against the iteration (``hours`` unused). Returns the figure and the panels' labels
    and notes, top to bottom."""
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
        if hours is not None:
            axes[-1].set_xlim(0, hours)  # the panels share it, the top axis follows
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
    """The policy and value losses of each trained iteration, and the policy's entropy on an
    axis of its own."""
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
