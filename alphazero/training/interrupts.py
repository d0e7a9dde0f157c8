"""Ctrl-C handling shared by the training loop and the worker processes.

Python raises ``KeyboardInterrupt`` wherever the main thread happens to be. When that is a
finalizer (``__del__``, which TensorFlow's tensors and resources have), Python prints the
exception and drops it, and the Ctrl-C is lost. So inside ``stop_on_ctrl_c`` a Ctrl-C is also
remembered, and the long loops call ``raise_if_interrupted`` at points where stopping is safe.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from typing import Any

from .run_errors import CheckpointError
from .run_folder import RunFolder


@contextlib.contextmanager
def sigint_handler(handler: Any) -> Iterator[None]:
    """Handle SIGINT with ``handler`` (a function or ``signal.SIG_IGN``) inside the block.

    Off the main thread Python cannot install handlers, so the block then runs unchanged.
    """
    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _CtrlC:
    """Whether a Ctrl-C came inside ``stop_on_ctrl_c``. Process state, as the signal is."""

    seen = False


def _remember_and_raise(signum: int, frame: object) -> None:
    _CtrlC.seen = True
    raise KeyboardInterrupt


@contextlib.contextmanager
def stop_on_ctrl_c() -> Iterator[None]:
    """Inside the block Ctrl-C raises ``KeyboardInterrupt`` as usual, and also later, at the
    next ``raise_if_interrupted``, in case a finalizer swallowed the first one."""
    _CtrlC.seen = False
    try:
        with sigint_handler(_remember_and_raise):
            yield
    finally:
        _CtrlC.seen = False


def raise_if_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C came inside ``stop_on_ctrl_c`` (once: whoever
    catches it has stopped). Called by the long loops, between their steps."""
    if _CtrlC.seen:
        _CtrlC.seen = False
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred_interrupt() -> Iterator[None]:
    """Hold Ctrl-C until the block ends, so a checkpoint is never left half written."""
    received: list[Any] = []
    with sigint_handler(lambda *args: received.append(args)):
        yield
    if received:
        raise KeyboardInterrupt


def sigint_ignored() -> contextlib.AbstractContextManager[None]:
    """Ignore Ctrl-C while starting workers: they inherit that, so only the driver gets it."""
    return sigint_handler(signal.SIG_IGN)


def interrupted_message(run_path: str | os.PathLike[str] | None) -> str:
    """The line to print after Ctrl-C stopped training: what the run folder holds and how
    to go on. Read from the folder, so it is right however early or late the Ctrl-C came."""
    run = RunFolder(run_path) if run_path is not None else None
    try:
        pending = run.load_pending() if run is not None else None
    except CheckpointError:
        pending = None
    if run is None or (not run.has_checkpoint and pending is None):
        return "interrupted before the first checkpoint; nothing saved"
    kept = (
        f"{pending.games} finished game{'s' * (pending.games != 1)} of iteration "
        f"{pending.iteration}"
        if pending is not None
        else ""
    )
    if not run.has_checkpoint:
        holds = f"holds {kept}"
    else:
        try:
            holds = f"holds iteration {run.read_metadata()['iteration']}"
            holds += f" and {kept}" if kept else ""
        except CheckpointError:  # damaged: resuming will say how, in one line
            holds = "is as it was"
    return (
        f"interrupted: {run.path} {holds}; continue with: "
        f"python train.py --resume --run-dir {run.path}"
    )
