"""Progress bars for every long phase: tqdm's live bar on a terminal, and in a log (stderr not
a terminal) at most one whole line every 30 s. Inside a training run they also say where it is.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Any, Protocol, TextIO

from tqdm import tqdm

from .eta import RunProgress, current_run, format_seconds

LOG_INTERVAL = 30.0
"""Seconds between two progress lines in a log."""


class Bar(Protocol):
    """What the callers use of a bar (a subset of tqdm's interface)."""

    def update(self, n: float | None = 1) -> bool | None: ...

    def set_postfix(
        self, ordered_dict: dict[str, Any] | None = None, refresh: bool | None = True, **kwargs: Any
    ) -> None: ...

    def refresh(self) -> None: ...

    def close(self) -> None: ...

    def __enter__(self) -> Bar: ...

    def __exit__(self, *exc: object) -> None: ...


def bar(total: int, desc: str, unit: str = "it", enabled: bool = True) -> Bar:
    """A progress bar of ``total`` ``unit``s, the only way this project makes one.

    On a terminal, tqdm's bar (inside a training run, with the run's iteration, time and ETA);
    otherwise (``train.py > run.log 2>&1``) a line at most every ``LOG_INTERVAL`` seconds, so a
    log holds whole lines and no redraws. ``enabled=False`` shows nothing.
    """
    if not enabled:
        return _SilentBar()
    run = current_run()
    stream = sys.stderr
    if not is_terminal(stream):
        return _LogBar(total, desc, unit, run, stream)
    if run is None:  # outside training: the bar it always was
        return tqdm(total=total, desc=desc, unit=unit, leave=False)  # type: ignore[return-value]
    return _RunBar(run, total=total, desc=desc, unit=unit)


def write(text: str, enabled: bool = True) -> None:
    """A whole line on stdout, above any bar; flushed, so that in a log it keeps its place
    among the progress lines (stderr's). ``enabled=False`` writes nothing."""
    if not enabled:
        return
    tqdm.write(text, file=sys.stdout)
    sys.stdout.flush()


def is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class _SilentBar:
    """A bar that shows nothing (``progress`` off, or inside a worker)."""

    def update(self, n: float | None = 1) -> bool | None:
        return None

    def set_postfix(
        self, ordered_dict: dict[str, Any] | None = None, refresh: bool | None = True, **kwargs: Any
    ) -> None:
        pass

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _SilentBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class _RunBar(tqdm):
    """tqdm's bar, headed by the iteration (``iteration 3/30 self-play``) and followed by the
    run's time and the iteration's ETA. Its own ETA (the phase's, from a recent rate) is left
    out, and the rate shown is the phase's mean: parallel games finish in bursts, and a
    recent rate jumps with them."""

    def __init__(self, run: RunProgress, **kwargs: Any) -> None:
        self._run = run
        super().__init__(
            **{**kwargs, "desc": run.prefix() + str(kwargs.get("desc", ""))},
            leave=False,
            smoothing=0,
            bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]",
        )

    @property
    def format_dict(self) -> dict[str, Any]:  # type: ignore[override]
        values = super().format_dict
        status = self._run.status(self.n, self.total)
        postfix = values.get("postfix")
        values["postfix"] = f"{postfix}, {status}" if postfix else status
        return values


class _LogBar:
    """Progress for a log: a whole line when ``LOG_INTERVAL`` seconds have passed since the
    bar began or since its last line, and nothing for a shorter phase (the iteration's
    summary line tells its end)."""

    def __init__(
        self, total: int, desc: str, unit: str, run: RunProgress | None, stream: TextIO
    ) -> None:
        self.total, self.desc, self.unit = total, desc, unit
        self.n = 0.0
        self._run = run
        self._stream = stream
        self._start = self._last = time.monotonic()
        self._postfix = ""

    def update(self, n: float | None = 1) -> bool | None:
        self.n += n or 0
        self._maybe_write()
        return None

    def set_postfix(
        self, ordered_dict: dict[str, Any] | None = None, refresh: bool | None = True, **kwargs: Any
    ) -> None:
        items = {**(ordered_dict or {}), **kwargs}
        self._postfix = ", ".join(f"{key} {value}" for key, value in items.items())
        self._maybe_write()

    def refresh(self) -> None:
        self._maybe_write()

    def close(self) -> None:
        pass

    def line(self) -> str:
        now = time.monotonic()
        count = (
            f"{self.n:g}/{self.total} {self.unit}s" if self.total else f"{self.n:g} {self.unit}s"
        )
        text = f"{self.desc}: {count}, {format_seconds(now - self._start)}"
        if self._postfix:
            text += f"; {self._postfix}"
        if self._run is not None:
            text = f"{self._run.prefix()}{text}; {self._run.status(self.n, self.total)}"
        return text

    def _maybe_write(self) -> None:
        now = time.monotonic()
        if now - self._last < LOG_INTERVAL:
            return
        self._last = now
        with contextlib.suppress(OSError, ValueError):  # a closed or full log stops no run
            self._stream.write(self.line() + "\n")
            self._stream.flush()

    def __enter__(self) -> _LogBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["LOG_INTERVAL", "Bar", "bar", "is_terminal", "write"]
