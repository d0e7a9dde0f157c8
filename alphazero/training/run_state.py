"""A training run's counters, carried from one iteration to the next and across a resume.

They are saved in every checkpoint's metadata (``RunState.to_metadata``) and read back from
it (``RunState.from_metadata``), so a resumed run counts on from where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TOP_SCORE_KEYS = ("iteration", "wins", "draws", "losses")
"""The keys of ``RunState.top_score``: the evaluation's iteration and its pooled games."""


def top_score_record(iteration: int, wins: int, draws: int, losses: int) -> dict[str, int]:
    """A ``RunState.top_score``: the evaluation of ``iteration`` and its pooled results."""
    return dict(zip(TOP_SCORE_KEYS, (iteration, wins, draws, losses), strict=True))


def is_top_score(value: Any) -> bool:
    """Whether ``value`` can be a saved ``top_score``: ``None``, or a dict whose
    ``TOP_SCORE_KEYS`` are non-negative integers (a JSON ``true`` is not a count)."""
    if value is None:
        return True
    return isinstance(value, dict) and all(
        type(value.get(key)) is int and value[key] >= 0 for key in TOP_SCORE_KEYS
    )


@dataclass
class RunState:
    """Counters carried from one iteration to the next (and across a resume)."""

    iteration: int = 0
    games: int = 0
    positions: int = 0
    train_steps: int = 0
    selfplay_seconds: float = 0.0
    train_seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of every process (the learner's, and self-play workers' where they are
    others): each iteration's, with the saving of the one before (the last save of a
    session goes uncounted)."""
    wall_seconds: float = 0.0
    """Wall time of the saved iterations (an interrupted one's lost part not counted)."""
    ladder: dict[str, float] | None = None
    """Elo ratings of the evaluation opponents, measured once per run."""
    ladder_openings: int = 0
    """The ``evaluation.openings`` the ladder was rated and the top score measured with."""
    best_elo: float | None = None
    """The ladder Elo of best.keras's model (None until the first evaluation)."""
    elo_history: list[tuple[int, float]] = field(default_factory=list)
    top_score: dict[str, int] | None = None
    """The evaluation with the highest pooled score against the ladder so far: its
    ``iteration``, ``wins``, ``draws`` and ``losses`` (``run_evaluation``)."""
    best_rule: str | None = None
    """How best.keras was chosen; a hand-written one (a model picked by other measures) stays
    until the run picks a new best itself."""
    best_cost: dict[str, float] | None = None
    """Self-play ``games`` and ``cpu_seconds`` the run had spent when best.keras was saved
    (None in runs from before it was recorded)."""
    fresh_buffers: list[int] = field(default_factory=list)
    """Iterations after which the run went on with an empty replay buffer (``train.py
    --resume --fresh-buffer``), where it stopped repeating exactly what an unbroken run does."""

    def to_metadata(self) -> dict[str, Any]:
        return {
            "iteration": self.iteration,
            "games": self.games,
            "positions": self.positions,
            "train_steps": self.train_steps,
            "timings": {
                "selfplay_seconds": self.selfplay_seconds,
                "train_seconds": self.train_seconds,
                "cpu_seconds": self.cpu_seconds,
                "wall_seconds": self.wall_seconds,
            },
            "ladder": self.ladder,
            "ladder_openings": self.ladder_openings,
            "best_elo": self.best_elo,
            "elo_history": [list(item) for item in self.elo_history],
            "top_score": self.top_score,
            "best_rule": self.best_rule,
            "best_cost": self.best_cost,
            "fresh_buffers": list(self.fresh_buffers),
        }

    @classmethod
    def from_metadata(cls, meta: dict[str, Any]) -> RunState:
        timings = meta.get("timings", {})
        selfplay, train = timings.get("selfplay_seconds", 0.0), timings.get("train_seconds", 0.0)
        return cls(
            iteration=int(meta["iteration"]),
            games=int(meta.get("games", 0)),
            positions=int(meta.get("positions", 0)),
            train_steps=int(meta.get("train_steps", 0)),
            selfplay_seconds=float(timings.get("selfplay_seconds", 0.0)),
            train_seconds=float(timings.get("train_seconds", 0.0)),
            cpu_seconds=float(timings.get("cpu_seconds", 0.0)),
            # Runs from before it was recorded: their self-play and training, most of it.
            wall_seconds=float(timings.get("wall_seconds", selfplay + train)),
            ladder=meta.get("ladder"),
            ladder_openings=int(meta.get("ladder_openings", 0)),
            best_elo=meta.get("best_elo"),
            elo_history=[(int(i), float(e)) for i, e in meta.get("elo_history", [])],
            top_score=meta.get("top_score"),
            best_rule=meta.get("best_rule"),
            best_cost=meta.get("best_cost"),
            fresh_buffers=[int(i) for i in meta.get("fresh_buffers", [])],
        )
