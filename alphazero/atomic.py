"""Temporary files for atomic writes: unique to the process, readable like any other file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)  # the only way to read it is to set it
    os.umask(mask)
    return mask


def temp_file(folder: str | os.PathLike[str], name: str, suffix: str = "") -> tuple[int, str]:
    """Open a new file ``.<name>.<pid>.<random>.tmp<suffix>`` in ``folder``: ``(fd, path)``.

    mkstemp makes it exclusively, so two processes never share one; the pid says which left
    it behind after a kill. mkstemp also makes it private (0600): it gets the permissions an
    ordinary ``open`` would give, since it is renamed into place as a run's file (a model
    that ``play.py --web`` under another user, or a copy to another account, must read).
    """
    fd, path = tempfile.mkstemp(
        prefix=f".{name}.{os.getpid()}.", suffix=f".tmp{suffix}", dir=Path(folder)
    )
    os.fchmod(fd, 0o666 & ~_umask())
    return fd, path
