"""Reading a run folder's ``metadata.json``: the one place that checks it against its schema.

The metadata names the run's files (``resume``, ``model``, ``buffer``, ``best``,
``kept_models``), and a save rewrites or deletes what it names; so every such path must lie
inside the run folder once symlinks are followed, or a hand-edited (or hostile) metadata
file would have a save rewrite files elsewhere. Every other field has its type checked here
too, so that whoever reads it (resume, ``slim_run``, ``play.py``, a report) meets one line,
never a traceback, for a wrong one.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .run_errors import CheckpointError
from .run_state import TOP_SCORE_KEYS, is_top_score

READ_FORMATS = (1, 2, 3)
"""``metadata.json`` formats this version reads (``checkpoints.FORMAT`` for what it writes)."""
REQUIRED_KEYS = ("format", "iteration", "model", "buffer", "best")
FILE_KEYS = ("resume", "model", "buffer", "best")
"""Keys naming one file of the run folder (``kept_models`` names a list of them)."""
MAX_BYTES = 16 << 20
"""A checkpoint's metadata is a few kilobytes; more is not one of ours."""
MAX_PATH = 1024
"""Characters of a file name the metadata may give (the project's are under 30)."""


def read_metadata_file(file: Path, folder: Path) -> dict[str, Any]:
    """``file`` (a run folder's ``metadata.json``) parsed and checked: the format, the keys
    every checkpoint has, the type of every known field, and every file it names inside
    ``folder``. Every problem is a one-line ``CheckpointError`` naming the file."""
    try:
        with open(file, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise CheckpointError(f"{file}: cannot read it ({_describe(error)})") from None
    if len(data) > MAX_BYTES:
        raise CheckpointError(f"{file}: over {MAX_BYTES >> 20} MB, not a checkpoint's metadata")
    try:
        metadata = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise CheckpointError(f"{file}: not valid JSON (nested too deeply)") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise CheckpointError(f"{file}: not valid JSON ({_describe(error)})") from None
    check_metadata(metadata, file, folder)
    return metadata


def check_metadata(metadata: Any, file: Path, folder: Path) -> None:
    """``CheckpointError`` (one line naming ``file``) unless ``metadata`` fits the schema."""
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{file}: expected a JSON object, got {type(metadata).__name__}")
    if type(metadata.get("format")) is not int or metadata["format"] not in READ_FORMATS:
        shown = _short(metadata.get("format"))
        raise CheckpointError(
            f"{file}: checkpoint format {shown} is not supported "
            f"(this version reads formats {', '.join(map(str, READ_FORMATS))})"
        )
    required = REQUIRED_KEYS + (("resume",) if metadata["format"] >= 2 else ())
    missing = [key for key in required if key not in metadata]
    if missing:
        raise CheckpointError(f"{file}: missing key {missing[0]!r}")
    for key, (check, wanted) in _FIELDS.items():
        if key in metadata and not check(metadata[key]):
            raise CheckpointError(f"{file}: {key!r} must be {wanted}, not {_short(metadata[key])}")
    # Edited by hand to keep a hand-picked best: checked now, not at the next evaluation.
    if not is_top_score(metadata.get("top_score")):
        raise CheckpointError(
            f"{file}: 'top_score' must be null or an object of non-negative integers "
            f"{', '.join(TOP_SCORE_KEYS)}"
        )
    root = _resolved(folder, file)
    for key in FILE_KEYS:
        if key in metadata:
            check_inside(metadata[key], root, f"{file}: {key!r}")
    kept = metadata.get("kept_models", [])
    if not isinstance(kept, list):
        raise CheckpointError(f"{file}: 'kept_models' must be a list of file names")
    for name in kept:
        check_inside(name, root, f"{file}: 'kept_models'")


def check_inside(name: Any, root: Path, what: str) -> None:
    """``CheckpointError`` unless ``name`` is a relative path that stays inside the folder
    ``root`` (resolved) once ``..`` and symlinks are followed."""
    inside = f"{what} must be a path inside the run folder"
    if not isinstance(name, str) or not name or len(name) > MAX_PATH or "\0" in name:
        raise CheckpointError(f"{inside}, not {_short(name)}")
    path = Path(name)
    if path.is_absolute() or ".." in path.parts:
        raise CheckpointError(f"{inside}, not {_short(name)}")
    try:
        target = (root / path).resolve()
    except (OSError, RuntimeError) as error:  # a symlink loop, a name too long
        raise CheckpointError(f"{inside} ({_describe(error)})") from None
    if target == root or not target.is_relative_to(root):
        raise CheckpointError(f"{inside}: {_short(name)} leads to {_short(str(target))}")


def check_usable_path(path: Path) -> None:
    """``CheckpointError`` for a path the system cannot even look up (a name too long, a loop
    of symlinks), which would otherwise surface as a traceback wherever it is first used; a
    missing file is left to its reader to name."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as error:
        raise CheckpointError(f"{_cut(str(path))}: {error.strerror or _describe(error)}") from None


def _cut(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _resolved(folder: Path, file: Path) -> Path:
    try:
        return folder.resolve()
    except (OSError, RuntimeError) as error:
        raise CheckpointError(
            f"{file}: cannot resolve the run folder ({_describe(error)})"
        ) from None


# ------------------------------------------------------------------------ field types
def _count(value: Any) -> bool:
    """A JSON integer >= 0 (``true`` is not one)."""
    return type(value) is int and value >= 0


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _optional(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


def _numbers_by_name(value: Any) -> bool:
    return isinstance(value, dict) and all(_number(v) for v in value.values())


def _elo_history(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, list) and len(item) == 2 and _count(item[0]) and _number(item[1])
        for item in value
    )


def _game(value: Any) -> bool:
    if isinstance(value, str):
        return True
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("params", {}), dict)
        and all(_count(v) for v in value.get("params", {}).values())
    )


def _rng_state(value: Any) -> bool:
    """A NumPy bit generator's state that the run's generator (``default_rng``) takes."""
    if not isinstance(value, dict) or value.get("bit_generator") != "PCG64":
        return False
    try:
        np.random.default_rng().bit_generator.state = value
    except (ValueError, TypeError, KeyError, OverflowError):
        return False
    return True


_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "iteration": (lambda v: _count(v) and v >= 1, "an integer of at least 1"),
    "games": (_count, "a non-negative integer"),
    "positions": (_count, "a non-negative integer"),
    "train_steps": (_count, "a non-negative integer"),
    "timings": (_numbers_by_name, "an object of numbers (seconds)"),
    "ladder": (_optional(_numbers_by_name), "null or an object of Elo ratings"),
    "best_elo": (_optional(_number), "null or a number"),
    "ladder_openings": (_count, "a non-negative integer"),
    "elo_history": (_elo_history, "a list of [iteration, Elo] pairs"),
    "best_rule": (_optional(lambda v: isinstance(v, str)), "null or a string"),
    "best_cost": (_optional(_numbers_by_name), "null or an object of numbers"),
    "fresh_buffers": (
        lambda v: isinstance(v, list) and all(_count(i) for i in v),
        "a list of iterations",
    ),
    "game": (_game, "a game name or an object with its name and integer params"),
    "metrics": (lambda v: isinstance(v, dict), "an object (the iteration's metrics record)"),
    "rng": (_rng_state, "the state of a NumPy PCG64 generator"),
}


def _short(value: Any) -> str:
    """``value`` for one line of a message: its repr, cut short."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else ""
    first = first if len(first) <= 200 else first[:197] + "..."
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


__all__ = [
    "FILE_KEYS",
    "READ_FORMATS",
    "REQUIRED_KEYS",
    "check_inside",
    "check_metadata",
    "check_usable_path",
    "read_metadata_file",
]
