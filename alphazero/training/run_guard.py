"""What keeps a run folder's saved work safe: one trainer at a time (``RunLock``), and an
earlier run's files moved aside, never deleted, when a new run is asked to replace it
(``move_aside``, for ``train.py --overwrite``)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from .atomic import fsync_dir, is_temp_name
from .replay_buffer import _one_line
from .run_errors import CheckpointError
from .run_files import CONFIG_FILE, METADATA_FILE
from .run_folder import RunFolder

LOCK_FILE = "train.lock"


class RunLock:
    """The lock a trainer holds on its run folder: ``<run>/train.lock``, holding its pid.

    ``fcntl.flock`` rather than a file made with ``O_EXCL`` and a check of the pid in it:
    the kernel drops a flock when its holder dies, however it dies (even SIGKILL), so a lock
    left by a dead trainer never blocks, and there is no pid to check that the system may
    since have given to another process. The pid in the file is only for the message. The
    lock is advisory: ``play.py`` never takes it, so it can read a run while it trains.
    (Self-play workers are spawned, not forked, so they do not hold it after the trainer.)
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, making the folder if needed; ``CheckpointError`` (one line naming
        the holder's pid) if another process holds it."""
        if self.folder.exists() and not self.folder.is_dir():
            raise CheckpointError(f"{self.folder}: exists and is not a folder")
        fd: int | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            while fd is None:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = _pid_in(fd)
                    raise CheckpointError(self._held_line(holder)) from None
                # The holder before us deletes the file as it lets go: if it did so after
                # our open, we hold a lock on a file that others no longer find. Try again.
                if not _same_file(fd, self.path):
                    os.close(fd)
                    fd = None
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except BaseException as error:
            if fd is not None:
                os.close(fd)
            if isinstance(error, OSError):
                raise CheckpointError(
                    f"{self.folder}: cannot lock the run folder for training ({_one_line(error)})"
                ) from None
            raise
        self._fd = fd

    def release(self) -> None:
        """Let go, deleting the file (before unlocking it: see ``acquire``)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self._fd)
        self._fd = None

    def _held_line(self, pid: int | None) -> str:
        who = f"process {pid}" if pid is not None else "another process"
        return (
            f"{self.folder}: {who} is training this run (it holds {self.path}); wait for it "
            f"to finish or stop it first (play.py can read the run meanwhile)"
        )

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


def _pid_in(fd: int) -> int | None:
    """The pid a lock file holds; None while its holder has not written it yet."""
    try:
        return int(os.pread(fd, 32, 0).decode("ascii").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)


def move_aside(folder: str | os.PathLike[str]) -> tuple[Path, list[str]] | None:
    """Move an earlier run's files into ``<folder>/overwritten-<date-time>/``, where they
    form a run folder of their own (``--resume --run-dir`` continues it); None if there was
    nothing to move. Call it holding the folder's ``RunLock``.

    Everything of the run moves, its ``config.yaml`` and leftover temp files too, and nothing
    is deleted; what a failed move leaves is in one place or the other, and the error names
    both.
    """
    run = RunFolder(folder)
    earlier = run.earlier_run_files()
    if not earlier:
        return None
    entries = [name.split("/")[0] for name in earlier]  # models/iter_0005.keras -> models
    entries += [CONFIG_FILE] if (run.path / CONFIG_FILE).exists() else []
    entries += sorted(p.name for p in run.path.iterdir() if is_temp_name(p.name))
    # metadata.json first: once it has gone, the folder no longer claims a checkpoint.
    entries.sort(key=lambda name: name != METADATA_FILE)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = run.path / f"overwritten-{stamp}"
    number = 1
    try:
        while True:
            try:
                aside.mkdir()
                break
            except FileExistsError:  # two overwrites within a second
                number += 1
                aside = run.path / f"overwritten-{stamp}-{number}"
        for name in dict.fromkeys(entries):  # once each, in order
            os.rename(run.path / name, aside / name)
    except OSError as error:
        raise CheckpointError(
            f"{run.path}: cannot move the earlier run aside into {aside} ({_one_line(error)}); "
            f"nothing was deleted, its files are in one folder or the other"
        ) from None
    fsync_dir(run.path)
    return aside, earlier
