"""The layout of a replay buffer file, format 2: the same examples as format 1, in fewer bytes.

Two ideas, both exact (a load gives back every array bit for bit):

- 0/1 planes are packed 8 to a byte (``np.packbits``), one row of bits an example.
- With ``selfplay.augment`` every position arrives with its symmetric copies, which are
  permutations of one another. An example that equals, bit for bit, a symmetry of a stored
  example a few rows before it (planes, policy and value) is stored as the pair
  ``(offset back to that example, symmetry id)`` instead of its arrays. The symmetries are
  saved in the file as index tables, so a load needs no game.

Members (beside ``format``, ``capacity`` and ``total_added``, which the buffer writes):
``plane_shape`` int64 ``[3]``; ``copy_offset`` uint8 ``[n]`` (0: stored, k: a copy of the
example k rows before, itself stored); ``copy_symmetry`` uint8 ``[n]``; ``symmetry_planes``
int32 ``[S, H*W*C]`` and ``symmetry_policies`` int32 ``[S, A]`` (``new = old[table]``); the
stored examples: ``packed_planes`` uint8 ``[m, ceil(H*W*C / 8)]`` (or ``planes`` float32
``[m, H, W, C]`` when planes are not 0/1), ``policies`` float32 ``[m, A]``, ``values``
float32 ``[m]``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .npz_archive import Member, NpzError, read_rows

MAX_SYMMETRIES = 48
"""The most symmetries a file may declare (a cube has 48; boards have at most 8)."""
MAX_OFFSET = 255
"""How far back (in examples) a copy may point: ``copy_offset`` is one byte."""
_CHUNK_ROWS = 1 << 14


@dataclass(frozen=True)
class Symmetry:
    """One symmetry as index tables over an example's flattened planes and its policy."""

    planes: np.ndarray
    """int ``[H*W*C]``: the transformed flat planes are ``flat[planes]``."""
    policy: np.ndarray
    """int ``[A]``: the transformed policy is ``policy[self.policy]``."""


SymmetriesFn = Callable[[np.ndarray, np.ndarray], list[tuple[np.ndarray, np.ndarray]]]


def symmetry_tables(
    symmetries: SymmetriesFn, plane_shape: tuple[int, int, int], num_actions: int
) -> tuple[Symmetry, ...]:
    """The symmetries a game's ``symmetries(planes, policy)`` applies, read off by feeding it
    each entry's own index; an output that is not a permutation of its input is left out."""
    size = int(np.prod(plane_shape))
    planes = np.arange(size, dtype=np.float64).reshape(plane_shape)
    policy = np.arange(num_actions, dtype=np.float64)
    tables = []
    for sym_planes, sym_policy in symmetries(planes, policy):
        flat = np.asarray(sym_planes).reshape(-1)
        moves = np.asarray(sym_policy).reshape(-1)
        if _is_permutation(flat, size) and _is_permutation(moves, num_actions):
            tables.append(Symmetry(flat.astype(np.int64), moves.astype(np.int64)))
    return tuple(tables)


def _is_permutation(indices: np.ndarray, size: int) -> bool:
    return indices.shape == (size,) and np.array_equal(np.sort(indices), np.arange(size))


# ----------------------------------------------------------------------------- writing
def encode(
    planes: np.ndarray,
    policies: np.ndarray,
    values: np.ndarray,
    symmetries: Sequence[Symmetry],
) -> dict[str, np.ndarray]:
    """The format 2 members for examples ``planes [n, H, W, C]`` (uint8 0/1 or float32),
    ``policies [n, A]`` and ``values [n]``, oldest first."""
    n, plane_shape = planes.shape[0], planes.shape[1:]
    flat = planes.reshape(n, int(np.prod(plane_shape)))
    symmetries = tuple(symmetries)[:MAX_SYMMETRIES]
    offsets, ids = _find_copies(flat, policies, values, symmetries)
    stored = offsets == 0
    members = {
        "plane_shape": np.array(plane_shape, dtype=np.int64),
        "copy_offset": offsets,
        "copy_symmetry": ids,
        "symmetry_planes": _table([s.planes for s in symmetries], flat.shape[1]),
        "symmetry_policies": _table([s.policy for s in symmetries], policies.shape[1]),
        "policies": policies[stored],
        "values": values[stored],
    }
    if planes.dtype == np.uint8:
        members["packed_planes"] = np.packbits(flat[stored], axis=1)
    else:
        members["planes"] = planes[stored]
    return members


def _table(rows: list[np.ndarray], width: int) -> np.ndarray:
    return np.array(rows, dtype=np.int32).reshape(len(rows), width)


def _find_copies(
    flat: np.ndarray, policies: np.ndarray, values: np.ndarray, symmetries: Sequence[Symmetry]
) -> tuple[np.ndarray, np.ndarray]:
    """For each example, ``(offset, symmetry id)`` of the stored example it copies, or
    ``(0, 0)``. Candidates come from hashes, and every copy chosen is then checked exactly."""
    n = flat.shape[0]
    window = min(MAX_OFFSET, len(symmetries))
    if n == 0 or window == 0 or flat.dtype != np.uint8:
        return np.zeros(n, dtype=np.uint8), np.zeros(n, dtype=np.uint8)
    own, moved = _hashes(flat, policies, symmetries)
    value_bits = values.view(np.uint32)
    # matches[k - 1, j]: a symmetry whose hash takes example j - k to example j, or -1.
    matches = np.full((window, n), -1, dtype=np.int16)
    for k in range(1, min(window, n - 1) + 1):
        hit = (moved[:-k] == own[k:, None]) & (value_bits[:-k] == value_bits[k:])[:, None]
        rows = np.flatnonzero(hit.any(axis=1))
        matches[k - 1, rows + k] = hit[rows].argmax(axis=1)
    offsets, ids = _choose(matches)
    copies = np.flatnonzero(offsets)
    tables_planes = np.stack([sym.planes for sym in symmetries])
    tables_policy = np.stack([sym.policy for sym in symmetries])
    for start in range(0, len(copies), _CHUNK_ROWS):
        j = copies[start : start + _CHUNK_ROWS]
        base, s = j - offsets[j], ids[j]
        exact = (np.take_along_axis(flat[base], tables_planes[s], axis=1) == flat[j]).all(
            axis=1
        ) & (
            np.take_along_axis(policies[base].view(np.uint32), tables_policy[s], axis=1)
            == policies[j].view(np.uint32)
        ).all(axis=1)
        # A hash collision: the example is stored whole (bases are stored, so none breaks).
        offsets[j[~exact]] = ids[j[~exact]] = 0
    return offsets, ids


def _hashes(
    flat: np.ndarray, policies: np.ndarray, symmetries: Sequence[Symmetry]
) -> tuple[np.ndarray, np.ndarray]:
    """Each example's hash ``[n]``, and the hash of each of its symmetric images ``[n, S]``.

    The hash is a weighted sum of the 0/1 planes and the policy quantized to 2^-20, with
    integer weights small enough for float64 sums to be exact in any order: an image's hash
    is the example's entries against permuted weights, and equals its copy's own hash.
    """
    rng = np.random.default_rng(0)
    plane_weights = rng.integers(1, 1 << 20, size=flat.shape[1]).astype(np.float64)
    policy_weights = rng.integers(1, 1 << 16, size=policies.shape[1]).astype(np.float64)
    moved_planes = np.zeros((flat.shape[1], len(symmetries)))
    moved_policy = np.zeros((policies.shape[1], len(symmetries)))
    for s, sym in enumerate(symmetries):
        # An image's entry p is the example's entry table[p]: weight[p] moves to table[p].
        moved_planes[sym.planes, s] = plane_weights
        moved_policy[sym.policy, s] = policy_weights
    own = np.empty(len(flat))
    moved = np.empty((len(flat), len(symmetries)))
    for start in range(0, len(flat), _CHUNK_ROWS):
        rows = slice(start, start + _CHUNK_ROWS)
        planes = flat[rows].astype(np.float64)
        quantized = np.round(policies[rows].astype(np.float64) * (1 << 20))
        own[rows] = planes @ plane_weights + quantized @ policy_weights
        moved[rows] = planes @ moved_planes + quantized @ moved_policy
    return own, moved


def _choose(matches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Oldest first, each example copies the nearest earlier match that is itself stored."""
    n = matches.shape[1]
    offsets = np.zeros(n, dtype=np.uint8)
    ids = np.zeros(n, dtype=np.uint8)
    stored = [True] * n
    candidates = np.flatnonzero((matches >= 0).any(axis=0)).tolist()
    columns = matches[:, candidates].T.tolist()
    for j, column in zip(candidates, columns, strict=True):
        for k, s in enumerate(column, start=1):
            if s >= 0 and stored[j - k]:
                stored[j] = False
                offsets[j], ids[j] = k, s
                break
    return offsets, ids


# ----------------------------------------------------------------------------- reading
MEMBERS = ("plane_shape", "copy_offset", "copy_symmetry", "symmetry_planes", "symmetry_policies")


def check_declared(
    members: dict[str, Member],
    plane_shape: tuple[int, ...] | None,
    num_actions: int | None,
) -> int:
    """The number of examples a format 2 file declares, with every
    member's declared shape checked against the others (and the game, when given) before any
    is unpacked. ``NpzError`` for any mismatch."""
    missing = [name for name in (*MEMBERS, "policies", "values") if name not in members]
    planes = members.get("packed_planes", members.get("planes"))
    if missing or planes is None:
        raise NpzError(f"no {(missing or ['planes'])[0]!r} array")
    offsets, ids = members["copy_offset"], members["copy_symmetry"]
    if len(offsets.shape) != 1 or offsets.dtype != np.uint8 or ids.dtype != np.uint8:
        raise NpzError("copy_offset and copy_symmetry must be uint8 [n]")
    n = offsets.shape[0]
    if ids.shape != (n,):
        raise NpzError(f"copy_symmetry must be [{n}], got {list(ids.shape)}")
    if members["plane_shape"].shape != (3,) or members["plane_shape"].dtype.kind not in "iu":
        raise NpzError("plane_shape must be 3 integers")
    policies, values = members["policies"], members["values"]
    if len(policies.shape) != 2 or policies.dtype != np.float32 or values.dtype != np.float32:
        raise NpzError("policies must be float32 [m, A] and values float32 [m]")
    m, actions = policies.shape
    if values.shape != (m,) or planes.shape[0] != m or m > n:
        raise NpzError(f"{m} stored examples of {n}, but planes {list(planes.shape)}")
    if num_actions is not None and actions != int(num_actions):
        raise NpzError(f"policies have {actions} actions, expected {num_actions}")
    if planes.dtype not in (np.uint8, np.float32) or (
        planes.info.filename == "packed_planes.npy"
    ) != (planes.dtype == np.uint8):
        raise NpzError(f"planes have unexpected dtype {planes.dtype}")
    tables = members["symmetry_planes"], members["symmetry_policies"]
    count = tables[0].shape[0] if tables[0].shape else -1
    if not 0 <= count <= MAX_SYMMETRIES or any(t.dtype != np.int32 for t in tables):
        raise NpzError(f"at most {MAX_SYMMETRIES} int32 symmetry tables, got {tables[0].shape}")
    if tables[1].shape != (count, actions) or len(tables[0].shape) != 2:
        raise NpzError("the symmetry tables do not match the policies")
    width = tables[0].shape[1]
    if planes.dtype == np.uint8 and planes.shape[1:] != ((width + 7) // 8,):
        raise NpzError(f"packed planes {list(planes.shape)} do not hold {width} bits a row")
    if planes.dtype != np.uint8 and int(np.prod(planes.shape[1:])) != width:
        raise NpzError(f"planes {list(planes.shape)} do not match the symmetry tables")
    if plane_shape is not None and width != int(np.prod(plane_shape)):
        raise NpzError(f"planes hold {width} entries, expected {list(plane_shape)}")
    return n


def decode(
    archive: zipfile.ZipFile, members: dict[str, Member], n: int, keep: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The newest ``keep`` of the ``n`` examples, rebuilt: only the stored examples they and
    the copies among them need are unpacked."""
    keep = min(keep, n)
    tail = min(n, keep + MAX_OFFSET)
    offsets = read_rows(archive, members["copy_offset"], tail).astype(np.int64)
    ids = read_rows(archive, members["copy_symmetry"], tail).astype(np.int64)
    shape = tuple(int(d) for d in read_rows(archive, members["plane_shape"]))
    sym_planes = read_rows(archive, members["symmetry_planes"])
    sym_policies = read_rows(archive, members["symmetry_policies"])
    width, actions = sym_planes.shape[1], sym_policies.shape[1]
    if len(shape) != 3 or min(shape) < 1 or int(np.prod(shape)) != width:
        raise NpzError(f"plane_shape {list(shape)} does not hold {width} entries")
    if (sym_planes < 0).any() or (sym_planes >= width).any():
        raise NpzError("a symmetry table points outside the planes")
    if (sym_policies < 0).any() or (sym_policies >= actions).any():
        raise NpzError("a symmetry table points outside the policy")
    stored = offsets == 0
    rows = int(stored.sum())
    planes_member = members.get("packed_planes", members.get("planes"))
    assert planes_member is not None
    if rows > planes_member.shape[0]:
        raise NpzError(f"the last {tail} examples store {rows}, more than the file holds")
    packed = read_rows(archive, planes_member, rows)
    flat = np.empty((tail, width), dtype=planes_member.dtype)
    flat[stored] = (
        np.unpackbits(packed, axis=1, count=width)
        if packed.dtype == np.uint8
        else packed.reshape(rows, width)
    )
    policies = np.empty((tail, actions), dtype=np.float32)
    values = np.empty(tail, dtype=np.float32)
    policies[stored] = read_rows(archive, members["policies"], rows)
    values[stored] = read_rows(archive, members["values"], rows)
    copies = np.flatnonzero(~stored)
    copies = copies[copies >= tail - keep]
    base = copies - offsets[copies]
    if (base < 0).any() or not stored[base].all() or (ids[copies] >= len(sym_planes)).any():
        raise NpzError("a copy refers to an example that is not stored before it")
    for s in range(len(sym_planes)):
        pick = ids[copies] == s
        to, source = copies[pick], base[pick]
        flat[to] = flat[source][:, sym_planes[s]]
        policies[to] = policies[source][:, sym_policies[s]]
        values[to] = values[source]
    start = tail - keep
    return flat[start:].reshape(-1, *shape), policies[start:], values[start:]
