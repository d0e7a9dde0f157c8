"""The replay buffer: the most recent ``capacity`` training positions, in a ring.

Examples live in preallocated numpy arrays. Planes are stored as ``uint8`` (every game encodes
0/1 planes, so this is exact and takes a quarter of the memory); if planes with other values
ever arrive, the store switches to ``float32`` once and stays exact. ``sample`` always returns
``float32``.

``save`` writes an ``.npz`` (no pickled objects) atomically, in format 2 (``buffer_format``:
packed planes, symmetric copies stored as references); ``load`` reads formats 1 and 2 back with
``allow_pickle=False`` and turns every problem into one ``ReplayBufferError`` line.
"""

from __future__ import annotations

import contextlib
import os
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from . import buffer_format
from .atomic import fsync_dir, temp_file
from .buffer_format import Symmetry
from .npz_archive import Member, NpzError, npy_members, read_int, read_rows

FORMAT_VERSION = 2
"""Version of the ``.npz`` layout written by ``ReplayBuffer.save``; 1 is still read."""

_SCALARS = ("format", "capacity", "total_added")
_ARRAYS = ("planes", "policies", "values")
MAX_CAPACITY = 100_000_000
"""The largest ``replay.capacity`` a config may give (``config.ReplayConfig``)."""
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
"""How an ``.npz`` (a zip archive) starts: with its first entry, or, empty, its end record."""


class ReplayBufferError(ValueError):
    """A replay buffer file that cannot be used; the message names the file."""


class ReplayBuffer:
    """Ring buffer of ``(planes [H, W, C], policy [A], value)`` examples."""

    def __init__(
        self,
        capacity: int,
        plane_shape: tuple[int, int, int],
        num_actions: int,
        *,
        symmetries: Sequence[Symmetry] = (),
    ):
        """``symmetries`` (``buffer_format.symmetry_tables`` of the game) let ``save`` store a
        symmetric copy of an example as a reference to it."""
        capacity = int(capacity)
        if capacity < 1:
            raise ValueError(f"replay buffer capacity must be >= 1, got {capacity}")
        plane_shape = tuple(int(d) for d in plane_shape)
        if len(plane_shape) != 3 or min(plane_shape) < 1:
            raise ValueError(f"plane_shape must be (H, W, C) of positive sizes, got {plane_shape}")
        num_actions = int(num_actions)
        if num_actions < 1:
            raise ValueError(f"num_actions must be >= 1, got {num_actions}")
        self.capacity = capacity
        self.plane_shape: tuple[int, int, int] = plane_shape  # type: ignore[assignment]
        self.num_actions = num_actions
        self._planes = np.zeros((capacity, *plane_shape), dtype=np.uint8)
        self._policies = np.zeros((capacity, num_actions), dtype=np.float32)
        self._values = np.zeros((capacity,), dtype=np.float32)
        self._next = 0  # slot the next example goes to
        self._size = 0
        self.total_added = 0
        """Examples ever added, including those since pushed out."""
        self.symmetries = tuple(symmetries)

    # ------------------------------------------------------------------------- filling
    def __len__(self) -> int:
        return self._size

    @property
    def planes_dtype(self) -> np.dtype:
        """How planes are stored: ``uint8`` for 0/1 planes, else ``float32``."""
        return self._planes.dtype

    def add(self, planes: np.ndarray, policies: np.ndarray, values: np.ndarray) -> None:
        """Append a batch: planes ``[n, H, W, C]``, policies ``[n, A]``, values ``[n]``.

        When the buffer is full the oldest examples make room; of a batch larger than the
        capacity only the last ``capacity`` examples are kept.
        """
        planes = np.asarray(planes)
        policies = np.asarray(policies, dtype=np.float32)
        values = np.asarray(values, dtype=np.float32)
        if planes.ndim != 4 or planes.shape[1:] != self.plane_shape:
            raise ValueError(
                f"planes must have shape [n, {', '.join(map(str, self.plane_shape))}], "
                f"got {list(planes.shape)}"
            )
        n = planes.shape[0]
        if policies.shape != (n, self.num_actions):
            raise ValueError(
                f"policies must have shape [{n}, {self.num_actions}], got {list(policies.shape)}"
            )
        values = values.reshape(-1) if values.shape == (n, 1) else values
        if values.shape != (n,):
            raise ValueError(f"values must have shape [{n}], got {list(values.shape)}")
        if n == 0:
            return
        self.total_added += n
        if n > self.capacity:
            planes, policies, values = (
                planes[-self.capacity :],
                policies[-self.capacity :],
                values[-self.capacity :],
            )
            n = self.capacity
        if self._planes.dtype == np.uint8 and not _is_binary(planes):
            self._planes = self._planes.astype(np.float32)
        slots = (self._next + np.arange(n)) % self.capacity
        self._planes[slots] = planes
        self._policies[slots] = policies
        self._values[slots] = values
        self._next = (self._next + n) % self.capacity
        self._size = min(self._size + n, self.capacity)

    def keep_newest(self, count: int) -> None:
        """Drop all but the newest ``count`` examples; ``total_added`` is unchanged.

        Training samples only the newest ``window`` examples and the window never grows faster
        than examples arrive, so examples older than today's window are never drawn again: a
        buffer cut to its window trains on exactly the same batches (``sample`` draws by age,
        counted from the newest).
        """
        count = max(0, min(int(count), self._size))
        newest = self._order()[self._size - count :]
        for name in ("_planes", "_policies", "_values"):
            array = getattr(self, name)
            array[:count] = array[newest]
        self._size = count
        self._next = count % self.capacity

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of everything held, oldest first: planes (float32), policies, values."""
        order = self._order()
        return (
            self._planes[order].astype(np.float32),
            self._policies[order],
            self._values[order],
        )

    def _order(self) -> np.ndarray:
        """Slot indices from oldest to newest."""
        if self._size < self.capacity:
            return np.arange(self._size)
        return (self._next + np.arange(self.capacity)) % self.capacity

    # ------------------------------------------------------------------------ sampling
    def sample(
        self, batch_size: int, rng: np.random.Generator, newest: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``batch_size`` examples drawn uniformly, with replacement, from what is held (or
        from its ``newest`` examples only).

        Returns planes float32 ``[B, H, W, C]``, policies float32 ``[B, A]``, values float32
        ``[B]``.
        """
        if self._size == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        skip = 0 if newest is None else self._size - max(1, min(newest, self._size))
        # Draw positions in age order, not storage slots: a buffer saved and loaded again
        # is laid out oldest-first, and the same random state must pick the same examples.
        age = skip + rng.integers(0, self._size - skip, size=int(batch_size))
        oldest = self._next if self._size == self.capacity else 0
        index = (oldest + age) % self.capacity
        return (
            self._planes[index].astype(np.float32),
            self._policies[index],
            self._values[index],
        )

    # ---------------------------------------------------------------------- persistence
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write an ``.npz`` atomically: temp file in the same folder, fsync, ``os.replace``.

        The examples are stored oldest first (format 2, see ``buffer_format``), with the
        capacity, ``total_added`` and the format version; nothing is pickled.
        """
        path = Path(path)
        order = self._order()
        members = buffer_format.encode(
            self._planes[order], self._policies[order], self._values[order], self.symmetries
        )
        fd, tmp_name = temp_file(path.parent, path.name)
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez_compressed(
                    handle,
                    format=np.int64(FORMAT_VERSION),
                    capacity=np.int64(self.capacity),
                    total_added=np.int64(self.total_added),
                    **members,
                )
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp_name, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
            raise
        fsync_dir(path.parent)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        capacity: int | None = None,
        *,
        plane_shape: tuple[int, int, int] | None = None,
        num_actions: int | None = None,
        symmetries: Sequence[Symmetry] = (),
    ) -> ReplayBuffer:
        """Read a buffer written by ``save`` (format 1 or 2).

        ``capacity`` (default: the saved one) may differ from the saved capacity; a smaller one
        keeps the most recent examples. ``plane_shape`` and ``num_actions``, when given, must
        match the file; ``symmetries`` are the loaded buffer's, for its next ``save``. Any
        problem raises a one-line ``ReplayBufferError``.
        """
        path = Path(path)

        def fail(what: str) -> ReplayBufferError:
            return ReplayBufferError(f"{path}: {what}")

        if not path.is_file():
            raise fail("no such replay buffer file")
        # np.load takes any other bytes for a pickle, and refuses them with the advice to
        # unpickle "if you trust the file": never advice to give about a file that is not ours.
        try:
            with open(path, "rb") as handle:
                magic = handle.read(4)
        except OSError as error:
            raise fail(f"cannot read it ({_one_line(error)})") from None
        if magic not in _ZIP_MAGIC:
            raise fail("not a replay buffer file (not an .npz archive)")
        try:
            with zipfile.ZipFile(path) as archive:
                members = npy_members(archive)
                missing = [name for name in _SCALARS if name not in members]
                if missing:
                    raise fail(f"not a replay buffer file (no {missing[0]!r} array)")
                scalars = {name: _scalar(archive, members[name], name, fail) for name in _SCALARS}
                if scalars["format"] not in (1, FORMAT_VERSION):
                    raise fail(
                        f"replay buffer format {scalars['format']} is not supported "
                        f"(this version reads formats 1 and {FORMAT_VERSION})"
                    )
                if scalars["format"] == 1:
                    n = _check_declared(members, scalars, plane_shape, num_actions, fail)
                else:
                    n = buffer_format.check_declared(members, plane_shape, num_actions)
                    _check_counts(n, scalars, fail)
                # Only the newest rows the buffer keeps are unpacked: memory is bounded by
                # the capacity asked for, whatever the file declares.
                keep = min(n, scalars["capacity"] if capacity is None else int(capacity))
                if scalars["format"] == 1:
                    planes, policies, values = (
                        read_rows(archive, members[name], keep) for name in _ARRAYS
                    )
                else:
                    planes, policies, values = buffer_format.decode(archive, members, n, keep)
                    _check_shape(planes, plane_shape, fail)
        except ReplayBufferError:
            raise
        except NpzError as error:
            raise fail(f"corrupt or not a replay buffer file ({error})") from None
        except Exception as error:  # BadZipFile, EOFError, zlib.error, OSError...
            raise fail(f"truncated or corrupt replay buffer file ({_one_line(error)})") from None

        buffer = cls(
            scalars["capacity"] if capacity is None else capacity,
            planes.shape[1:],  # type: ignore[arg-type]
            policies.shape[1],
            symmetries=symmetries,
        )
        if planes.dtype != np.uint8:
            buffer._planes = buffer._planes.astype(np.float32)
        buffer.add(planes, policies, values)
        buffer.total_added = scalars["total_added"]
        return buffer

    def __repr__(self) -> str:
        return (
            f"ReplayBuffer({len(self)}/{self.capacity} positions, planes {list(self.plane_shape)}, "
            f"{self.num_actions} actions, {self.total_added} ever added)"
        )


def _scalar(
    archive: zipfile.ZipFile,
    member: Member,
    name: str,
    fail: Callable[[str], ReplayBufferError],
) -> int:
    try:
        return read_int(archive, member)
    except NpzError as error:
        raise fail(f"{name!r} {error}") from None


def _check_declared(
    members: dict[str, Member],
    scalars: dict[str, int],
    plane_shape: tuple[int, ...] | None,
    num_actions: int | None,
    fail: Callable[[str], ReplayBufferError],
) -> int:
    """The number of examples the arrays' headers declare, checked against each other, the
    saved counts and the game (``plane_shape``, ``num_actions``) before any is unpacked."""
    planes, policies, values = (members[name] for name in ("planes", "policies", "values"))
    if len(planes.shape) != 4:
        raise fail(f"planes must be [n, H, W, C], got shape {list(planes.shape)}")
    n = planes.shape[0]
    if len(policies.shape) != 2 or policies.shape[0] != n:
        raise fail(f"policies must be [{n}, A], got shape {list(policies.shape)}")
    if values.shape != (n,):
        raise fail(f"values must be [{n}], got shape {list(values.shape)}")
    if planes.dtype not in (np.uint8, np.float16, np.float32):
        raise fail(f"planes have unexpected dtype {planes.dtype}")
    if policies.dtype.kind != "f" or values.dtype.kind != "f":
        raise fail(f"policies/values must be floats, got {policies.dtype}/{values.dtype}")
    if policies.dtype.itemsize > 8 or values.dtype.itemsize > 8:
        raise fail(f"policies/values have unexpected dtypes {policies.dtype}/{values.dtype}")
    _check_counts(n, scalars, fail)
    saved_shape = planes.shape[1:]
    if plane_shape is not None and saved_shape != tuple(int(d) for d in plane_shape):
        raise fail(f"planes are {list(saved_shape)}, expected {list(plane_shape)}")
    if num_actions is not None and policies.shape[1] != int(num_actions):
        raise fail(f"policies have {policies.shape[1]} actions, expected {num_actions}")
    if min(saved_shape) < 1 or policies.shape[1] < 1:
        raise fail(f"empty example shapes: planes {list(saved_shape)}, {policies.shape[1]} actions")
    return n


def _check_counts(
    n: int, scalars: dict[str, int], fail: Callable[[str], ReplayBufferError]
) -> None:
    saved_capacity = scalars["capacity"]
    if not 1 <= saved_capacity <= MAX_CAPACITY or n > saved_capacity or scalars["total_added"] < n:
        raise fail(
            f"inconsistent sizes: {n} examples, capacity {saved_capacity}, "
            f"total_added {scalars['total_added']}"
        )


def _check_shape(
    planes: np.ndarray,
    plane_shape: tuple[int, ...] | None,
    fail: Callable[[str], ReplayBufferError],
) -> None:
    if plane_shape is not None and planes.shape[1:] != tuple(int(d) for d in plane_shape):
        raise fail(f"planes are {list(planes.shape[1:])}, expected {list(plane_shape)}")


def _is_binary(planes: np.ndarray) -> bool:
    return bool(np.all((planes == 0) | (planes == 1)))


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    first = text[0] if text else ""
    name = type(error).__name__
    first = first if len(first) <= 200 else first[:197] + "..."
    return f"{name}: {first}" if first else name
