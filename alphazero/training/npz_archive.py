"""``.npz`` files read by what they declare first: every member an ``.npy`` array whose
header (shape and dtype) matches the bytes the zip entry unpacks to, checked before any
array is unpacked; then arrays read whole, or only their newest rows.

``np.load`` unpacks a whole array into memory whatever its size, and hands back the raw bytes
of a member that is not an ``.npy``; a crafted file of a few megabytes can declare gigabytes.
Reading the headers first lets a caller refuse shapes its run cannot have before a byte of
data is unpacked, and ``read_rows`` keeps at most the rows asked for.
"""

from __future__ import annotations

import math
import zipfile
from dataclasses import dataclass
from typing import IO

import numpy as np

_CHUNK = 1 << 22


class NpzError(ValueError):
    """An ``.npz`` refused by what it declares; one line, without the file name."""


@dataclass(frozen=True)
class Member:
    """One array of an ``.npz``, as its ``.npy`` header declares it."""

    info: zipfile.ZipInfo
    shape: tuple[int, ...]
    dtype: np.dtype
    fortran_order: bool

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def npy_members(archive: zipfile.ZipFile) -> dict[str, Member]:
    """Every array of ``archive`` by name (without ``.npy``), from its header alone.

    ``NpzError`` for a member that is not an ``.npy``, a name given twice, an object array
    (it would need pickle), or an entry whose declared size is not its header's shape.
    """
    members: dict[str, Member] = {}
    for info in archive.infolist():
        name = info.filename
        if not name.endswith(".npy"):
            raise NpzError(f"holds {name[:80]!r}, which is not an .npy array")
        if name[:-4] in members:
            raise NpzError(f"holds {name[:80]!r} twice")
        with archive.open(info) as entry:
            member = _header(entry, info)
            start = entry.tell()
        if member.dtype.hasobject:
            raise NpzError(f"{name[:80]} holds Python objects")
        if start + member.nbytes != info.file_size:
            raise NpzError(
                f"{name[:80]} declares {info.file_size:,} bytes, but its header "
                f"{list(member.shape)} {member.dtype} makes {start + member.nbytes:,}"
            )
        members[name[:-4]] = member
    return members


def _header(entry: IO[bytes], info: zipfile.ZipInfo) -> Member:
    try:
        version = np.lib.format.read_magic(entry)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(entry)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(entry)
        else:
            raise NpzError(f"{info.filename[:80]}: .npy version {version} is not supported")
    except NpzError:
        raise
    except (ValueError, EOFError, SyntaxError, TypeError) as error:
        raise NpzError(f"{info.filename[:80]} has no valid .npy header ({error})") from None
    return Member(info, tuple(int(d) for d in shape), np.dtype(dtype), bool(fortran))


def read_rows(archive: zipfile.ZipFile, member: Member, keep: int | None = None) -> np.ndarray:
    """``member``'s array, or only its last ``keep`` rows (the first axis): the rows before
    are unpacked in chunks and dropped, so memory holds ``keep`` rows at most."""
    rows = member.shape[0] if member.shape else 1
    keep = rows if keep is None or not member.shape else min(rows, keep)
    if member.fortran_order and keep != rows:
        raise NpzError(f"{member.info.filename[:80]} is stored in Fortran order")
    row_bytes = member.nbytes // rows if rows else 0
    with archive.open(member.info) as entry:
        _header(entry, member.info)
        _skip(entry, (rows - keep) * row_bytes)
        data = _read_exactly(entry, keep * row_bytes)
    shape = (keep, *member.shape[1:]) if member.shape else ()
    order = "F" if member.fortran_order else "C"
    return np.frombuffer(data, dtype=member.dtype).reshape(shape, order=order)


def read_int(archive: zipfile.ZipFile, member: Member) -> int:
    """The integer scalar ``member`` holds; ``NpzError`` from its header alone, before a
    byte is unpacked, if it declares anything else."""
    if member.shape != () or member.dtype.kind not in "iu":
        raise NpzError(f"must be an integer scalar, got {member.dtype} {member.shape}")
    return int(read_rows(archive, member))


def _skip(entry: IO[bytes], count: int) -> None:
    while count > 0:
        chunk = entry.read(min(count, _CHUNK))
        if not chunk:
            raise NpzError("an array ends early (truncated)")
        count -= len(chunk)


def _read_exactly(entry: IO[bytes], count: int) -> bytearray:
    data = bytearray(count)
    view, done = memoryview(data), 0
    while done < count:
        got = entry.readinto(view[done : done + _CHUNK])  # type: ignore[attr-defined]
        if not got:
            raise NpzError("an array ends early (truncated)")
        done += got
    return data
