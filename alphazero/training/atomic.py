"""Atomic writes: a file is written under a temporary name (unique to the process, readable
like any other file) and renamed into place, so readers see the old file or the new one,
never half of one, and a kill leaves at most a temporary file that ``is_temp_name`` knows."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
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


_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.(?P<pid>[0-9]+)\.[a-z0-9_]+\.tmp(?P<suffix>\.[a-z]+)?")
"""``temp_file``'s names: ``.<name>.<pid>.<8 random characters>.tmp<suffix>``."""


def temp_base(name: str) -> str | None:
    """The file that the temporary file ``name`` was written for (``buffer_0003.npz`` for
    ``.buffer_0003.npz.<pid>.<random>.tmp``, ``latest.keras`` for
    ``.latest.<pid>.<random>.tmp.keras``), or None if ``temp_file`` did not make that name."""
    match = _TEMP_NAME.fullmatch(name)
    if match is None:
        return None
    return match["name"] + (match["suffix"] or "")


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is a temporary file of a save, named by ``temp_file`` (with its
    writer's pid); a ``.notes.tmp`` of someone else's is not."""
    return temp_base(name) is not None


def discard(tmp: str | Path) -> None:
    """Remove a temporary file if it is there."""
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def fsync_file(path: str | Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable; a no-op where directories cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half.

    Temp file in the same folder, fsync, ``os.replace``, fsync the folder.
    """
    path = Path(path)
    fd, tmp = temp_file(path.parent, path.name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """``atomic_write_bytes`` of ``text`` encoded as UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_copy(src: Path, dst: Path) -> None:
    """Copy ``src`` over ``dst`` atomically (the temp name keeps ``dst``'s suffix, which
    Keras reads the format from)."""
    fd, tmp = temp_file(dst.parent, dst.stem, dst.suffix)
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        fsync_file(tmp)
        os.replace(tmp, dst)
    except BaseException:
        discard(tmp)
        raise
    fsync_dir(dst.parent)
