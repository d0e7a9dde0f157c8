"""Where a training run is and how long it has left: iteration i of N, the run's time so far,
and the iteration's and the run's ETA, for the bars made while the run is active (``bars``)
and its summary lines."""

from __future__ import annotations

import contextlib
import contextvars
import statistics
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

PACE_ITERATIONS = 5
"""The run's ETA counts each iteration to come at the mean time of this many last ones: an
evaluation every few iterations, and training that starts once the buffer has filled, make
one iteration a poor measure of the next."""


def current_run() -> RunProgress | None:
    """The training run whose ``active`` block this is (at any depth), or None."""
    return _RUN.get()


def report_moves(moves: float) -> None:
    """Self-play's moves so far in this phase, for the ETA of the training run under way
    (if any)."""
    run = _RUN.get()
    if run is not None:
        run.report_moves(moves)


def format_seconds(seconds: float) -> str:
    """``0:42``, ``12:05``, ``3:02:09``."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class RunProgress:
    """Where a training run is, for the bars made while it is ``active``: iteration i of N,
    the run's time so far, and how long the iteration has left.

    The iteration's time left adds up its phases still to come (``self-play``, ``train``,
    ``evaluation``) at what each took last time (per game, per step, per evaluation), and
    the rest of the phase under way. That rest is measured in work, not in finished games:
    parallel games end in bursts (all of them within the last moves, in tic-tac-toe), so a
    rate of finished games jumps, while moves are played at a steady pace. Self-play
    reports its moves (``report_moves``), which are set against last iteration's moves per
    game; training counts its steps. With ``f`` of the phase's work done in ``t`` seconds,
    and ``T`` seconds taken last time, the rest is ``(1 - f) * ((1 - f) * T + t)``: last
    time's pace at the start, this phase's own pace as it nears its end, and no jump between
    the two. What cannot be estimated yet is left out, and the ETA then reads ``>2:10``.

    Once an iteration of this session has been timed (``end_iteration``), the run's ETA
    follows: the iteration's time left, then every iteration still to come at the mean time of
    the last ``PACE_ITERATIONS``.
    """

    def __init__(
        self,
        iterations: int,
        seconds_per_unit: dict[str, float] | None = None,
        moves_per_game: float | None = None,
        clock: Any = time.monotonic,
    ) -> None:
        self.iterations = iterations
        self.seconds_per_unit: dict[str, float] = dict(seconds_per_unit or {})
        self.moves_per_game = moves_per_game
        """Moves per self-play game last time (self-play's measure of its work)."""
        self.run_seconds = 0.0
        """Wall time of the run before this iteration."""
        self._clock = clock
        self.number = 0
        self._plan: dict[str, float] = {}
        self._spent = 0.0
        self._iteration_start = clock()
        self._phase: str | None = None
        self._phase_start = self._iteration_start
        self._moves: float | None = None
        self.paces: deque[float] = deque(maxlen=PACE_ITERATIONS)
        """Wall seconds of this session's last iterations, newest last."""
        self._ended = False
        self.estimate_shown = False
        """Whether the run's length at the first games' pace has been said (once a session)."""

    @contextlib.contextmanager
    def active(self) -> Iterator[RunProgress]:
        """Bars made inside the block (at any depth: self-play, training, matches) show this
        run's status; passed so, not as an argument, because those functions also run
        outside training."""
        token = _RUN.set(self)
        try:
            yield self
        finally:
            _RUN.reset(token)

    def start_iteration(
        self, number: int, plan: dict[str, float], run_seconds: float, spent: float = 0.0
    ) -> None:
        """Iteration ``number`` begins, with ``plan``: its phases in order and their units
        (games, steps; 1 for an evaluation). ``run_seconds``: the run's time before it;
        ``spent``: what it took in an earlier session (its kept games)."""
        self.number = number
        self.run_seconds = run_seconds
        self._plan = dict(plan)
        self._spent = spent
        self._iteration_start = self._phase_start = self._clock()
        self._phase = None
        self._ended = False

    def end_iteration(self) -> float:
        """The iteration is done: its wall time (returned) joins the paces of the run's ETA."""
        seconds = self.iteration_seconds()
        self.paces.append(seconds)
        self._ended = True
        return seconds

    def skip(self, name: str) -> None:
        """Phase ``name`` will not run in this iteration after all."""
        self._plan.pop(name, None)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time phase ``name`` of the plan; when it ends, its time per unit estimates the
        next one's."""
        self._phase, self._phase_start, self._moves = name, self._clock(), None
        yield
        seconds = self._clock() - self._phase_start
        units = self._plan.pop(name, 0.0)
        if units > 0:
            self.seconds_per_unit[name] = seconds / units
        self._phase = None

    def report_moves(self, moves: float) -> None:
        """Self-play has played ``moves`` moves in this phase so far."""
        self._moves = moves

    def iteration_seconds(self) -> float:
        """Wall time of the iteration so far, an earlier session's part included."""
        return self._spent + self._clock() - self._iteration_start

    def prefix(self) -> str:
        return f"iteration {self.number}/{self.iterations} "

    def status(self, done: float = 0.0, total: float | None = None) -> str:
        """``run 1:02:03, iteration ETA 2:10, run ETA 5:40:00``; ``done`` of ``total`` is
        the current bar's count. The run's ETA shows once an iteration has been timed."""
        run = format_seconds(self.run_seconds + self.iteration_seconds())
        left = self.seconds_left(done, total)
        if left is None:
            text = f"run {run}, iteration ETA ?"
        else:
            seconds, complete = left
            text = f"run {run}, iteration ETA {'' if complete else '>'}{format_seconds(seconds)}"
        run_left = self.run_eta(done, total)
        return f"{text}, {run_left}" if run_left else text

    def run_eta(self, done: float = 0.0, total: float | None = None) -> str:
        """``run ETA 5:40:00``, or ``""`` before any iteration of this session was timed and
        after the last one."""
        left = self.run_seconds_left(done, total)
        finished = self._ended and self.number >= self.iterations
        return "" if left is None or finished else f"run ETA {format_seconds(left)}"

    def run_seconds_left(self, done: float = 0.0, total: float | None = None) -> float | None:
        """Seconds the run has left: the iteration under way (its own ETA when every phase
        to come can be estimated, else the mean pace less its time so far), then the
        iterations to come at the mean pace. None before any iteration was timed."""
        if not self.paces:
            return None
        pace = statistics.fmean(self.paces)
        later = max(self.iterations - self.number, 0) * pace
        if self._ended:
            return later
        now = self.seconds_left(done, total)
        if now is not None and now[1]:
            return now[0] + later
        known = now[0] if now is not None else 0.0
        return max(pace - self.iteration_seconds(), known) + later

    def seconds_left(
        self, done: float = 0.0, total: float | None = None
    ) -> tuple[float, bool] | None:
        """Seconds the iteration has left, and whether every phase to come could be
        estimated; None if no part of it can be yet."""
        left, complete, any_known = 0.0, True, False
        for name, units in self._plan.items():
            expected = (
                self.seconds_per_unit[name] * units if name in self.seconds_per_unit else None
            )
            rest = (
                expected if name != self._phase else self._rest(name, units, expected, done, total)
            )
            if rest is None:
                complete = False
            else:
                left, any_known = left + rest, True
        if self._phase is not None and self._phase not in self._plan:  # unplanned: unknown
            complete = False
        return (left, complete) if any_known else None

    def _rest(
        self,
        name: str,
        units: float,
        expected: float | None,
        done: float,
        total: float | None,
    ) -> float | None:
        """Seconds the phase under way has left, or None."""
        elapsed = self._clock() - self._phase_start
        counts_phase = bool(total) and total == units  # the bar counts the phase's units
        work: float | None = None
        if name == "self-play":
            if self._moves is not None and self.moves_per_game:
                work = min(self._moves / (units * self.moves_per_game), 0.99)
        elif counts_phase:
            work = min(done / units, 1.0)
        if work is not None and expected is not None:
            return (1 - work) * ((1 - work) * expected + elapsed)
        if work:
            return elapsed * (1 - work) / work
        if expected is not None and elapsed <= expected:
            return expected - elapsed
        if counts_phase and done > 0:  # finished games: a poor measure, the only one left
            return elapsed * (units - done) / done
        return None


_RUN: contextvars.ContextVar[RunProgress | None] = contextvars.ContextVar("run", default=None)


__all__ = ["PACE_ITERATIONS", "RunProgress", "current_run", "format_seconds", "report_moves"]
