"""The finished self-play games of an interrupted iteration, as ``pending_selfplay.npz`` holds
them: plain arrays and a JSON header, no pickle."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..training.npz_archive import Member, npy_members, read_rows
from ..training.replay_buffer import _one_line
from ..training.run_errors import CheckpointError

PENDING_FORMAT = 1
"""Version of the kept games' file written by this module."""
_ARRAYS = ("info", "planes", "policies", "values")
MAX_INFO_BYTES = 1 << 20
"""The most the JSON header may declare: it holds counts and a generator's state, a few KB."""


def json_default(value: Any) -> Any:
    """Let JSON (``metadata.json``, the kept games' header) hold numpy scalars and arrays (e.g.
    an RNG state, a float32 loss)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return value.as_posix()
    raise TypeError(f"metadata value of type {type(value).__name__} is not JSON serializable")


@dataclass
class PendingGames:
    """The finished self-play games of iteration ``iteration``, kept when Ctrl-C stopped it
    before its checkpoint, so that ``--resume`` plays only the games still missing."""

    iteration: int
    planes: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    stats: dict[str, Any]
    """``SelfPlayStats.to_dict()`` of these games."""
    rng: dict[str, Any]
    """The training generator's state after these games: the rest of the iteration draws
    from there (the checkpoint's state would replay these games' own draws)."""
    complete: bool
    """Whether they are the whole iteration's self-play (Ctrl-C came later, in training or
    evaluation): the resumed iteration then goes on exactly as it would have."""

    @property
    def games(self) -> int:
        return int(self.stats.get("games", 0))


def pending_bytes(pending: PendingGames) -> bytes:
    info = {
        "format": PENDING_FORMAT,
        "iteration": pending.iteration,
        "stats": pending.stats,
        "rng": pending.rng,
        "complete": pending.complete,
    }
    text = json.dumps(info, default=json_default)
    data = io.BytesIO()
    np.savez_compressed(
        data,
        info=np.frombuffer(text.encode("utf-8"), dtype=np.uint8),  # no pickle, no object array
        planes=pending.planes,
        policies=pending.policies,
        values=pending.values,
    )
    return data.getvalue()


def read_pending(
    file: Path,
    plane_shape: tuple[int, ...] | None = None,
    num_actions: int | None = None,
    max_examples: int | None = None,
) -> PendingGames:
    """``PendingGames`` from ``file``; any problem is a one-line ``CheckpointError``.

    What the arrays' headers declare is checked before any is unpacked: their lengths agree,
    their examples are shaped ``plane_shape`` and ``num_actions`` (where given) and number
    at most ``max_examples``, so a small file cannot unpack into more than a run's one
    iteration of games.
    """

    def fail(what: str) -> CheckpointError:
        return CheckpointError(
            f"{file}: {what} (the kept games of an interrupted iteration; remove the file to "
            f"play them again)"
        )

    # np.load takes other bytes for a pickle, and refuses them with advice to unpickle.
    if not zipfile.is_zipfile(file):
        raise fail("not a pending games file (not an .npz archive)")
    try:
        with zipfile.ZipFile(file) as archive:  # every member an .npy, as its header says
            members = npy_members(archive)
            missing = [n for n in _ARRAYS if n not in members]
            if missing:
                raise fail(f"not a pending games file (no {missing[0]!r} array)")
            _check_declared(members, plane_shape, num_actions, max_examples, fail)
            # Only the arrays checked: another member could declare anything.
            arrays = {name: read_rows(archive, members[name]) for name in _ARRAYS}
        info = json.loads(arrays["info"].tobytes().decode("utf-8"))
        if not isinstance(info, dict) or info.get("format") != PENDING_FORMAT:
            raise fail(f"not a pending games file of format {PENDING_FORMAT}")
        pending = PendingGames(
            iteration=int(info["iteration"]),
            planes=arrays["planes"],
            policies=arrays["policies"],
            values=arrays["values"],
            stats=dict(info["stats"]),
            rng=dict(info["rng"]),
            complete=bool(info["complete"]),
        )
    except CheckpointError:
        raise
    except ValueError as error:  # NpzError too: an object array, a header that lies
        raise fail(f"truncated or corrupt ({_one_line(error)})") from None
    except Exception as error:  # BadZipFile, KeyError, EOFError, OSError...
        raise fail(f"truncated or corrupt ({_one_line(error)})") from None
    return pending


def _check_declared(
    members: dict[str, Member],
    plane_shape: tuple[int, ...] | None,
    num_actions: int | None,
    max_examples: int | None,
    fail: Callable[[str], CheckpointError],
) -> None:
    """``read_pending``'s checks of the arrays' headers, before a byte is unpacked."""
    info, planes, policies, values = (members[name] for name in _ARRAYS)
    if len(info.shape) != 1 or info.dtype != np.uint8 or info.nbytes > MAX_INFO_BYTES:
        raise fail(f"its info is not a short text ({list(info.shape)} {info.dtype})")
    n = values.shape[0] if len(values.shape) == 1 else -1
    if (
        len(policies.shape) != 2
        or len(planes.shape) < 2
        or not (n == planes.shape[0] == policies.shape[0])
    ):
        raise fail("its arrays disagree in length")
    if (plane_shape is not None and planes.shape[1:] != tuple(plane_shape)) or (
        num_actions is not None and policies.shape[1:] != (num_actions,)
    ):
        raise fail(
            f"its games are not of this run's game (planes {list(planes.shape[1:])}, "
            f"{list(policies.shape[1:])} actions)"
        )
    if max_examples is not None and n > max_examples:
        raise fail(f"declares {n:,} examples, more than an iteration of this run makes")
