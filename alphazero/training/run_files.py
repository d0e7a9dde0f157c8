"""The run folder ``checkpoints/<run>/``: the names of its files, and what an earlier run left.

Layout::

    config.yaml              the resolved config (``Config.to_yaml()``)
    metadata.json            the checkpoint: iteration, counters, and the files below it uses
    resume_NNNN.keras        the model with its optimizer's state: what ``--resume`` loads
    models/iter_NNNN.keras   per-iteration models (kept per ``keep``; latest and best always)
    latest.keras, best.keras copies of the newest / best model, for people and ``play.py``
    buffer_NNNN.npz          the replay buffer of the iteration metadata names (only that one)
    metrics.jsonl            one JSON line per iteration (``alphazero.training.metrics``)
    tensorboard/             the same metrics for TensorBoard
    pending_selfplay.npz     after Ctrl-C mid-iteration: that iteration's finished games

Only the resume point carries the optimizer's state; every other model file holds the weights
alone (``model_files``). ``checkpoints`` writes and reads these files, ``run_folder`` opens
the folder, and ``alphazero.migrate_run`` brings a folder of an older format to this one.

Temporary names carry the writer's pid and a random part, so two processes never write the
same one; a kill leaves them behind, and ``remove_temp_files`` clears them.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from .atomic import temp_base

CONFIG_FILE = "config.yaml"
METADATA_FILE = "metadata.json"
METRICS_FILE = "metrics.jsonl"
MODELS_DIR = "models"
LATEST_FILE = "latest.keras"
BEST_FILE = "best.keras"
TENSORBOARD_DIR = "tensorboard"
PENDING_FILE = "pending_selfplay.npz"
_RUN_FILE = re.compile(
    r"(metadata\.json|config\.yaml|metrics\.jsonl|pending_selfplay\.npz|latest\.keras"
    r"|best\.keras|buffer_[0-9]{4,}\.npz|(resume|iter)_[0-9]{4,}\.keras)"
)
"""The files a save writes through a temporary file (``remove_temp_files``)."""


def model_name(iteration: int) -> str:
    return f"{MODELS_DIR}/iter_{iteration:04d}.keras"


def buffer_name(iteration: int) -> str:
    return f"buffer_{iteration:04d}.npz"


def resume_name(iteration: int) -> str:
    return f"resume_{iteration:04d}.keras"


def earlier_run_files(folder: Path) -> list[str]:
    """What a run has saved in ``folder``, relative to it: metadata, models, buffers, metrics
    and kept games (not ``config.yaml``, written before anything is trained, nor temp
    files)."""
    if not folder.is_dir():
        return []
    found = [n for n in (METADATA_FILE, LATEST_FILE, BEST_FILE) if (folder / n).exists()]
    found += sorted((p.name for p in folder.glob("resume_*.keras")), key=_by_number)
    models = [f"{MODELS_DIR}/{p.name}" for p in folder.glob(f"{MODELS_DIR}/iter_*")]
    found += sorted(models, key=_by_number)
    found += sorted((p.name for p in folder.glob("buffer_*.npz")), key=_by_number)
    if (folder / METRICS_FILE).exists():
        found.append(METRICS_FILE)
    if (folder / PENDING_FILE).exists():
        found.append(PENDING_FILE)
    tensorboard = folder / TENSORBOARD_DIR
    if tensorboard.is_dir() and any(tensorboard.iterdir()):
        found.append(f"{TENSORBOARD_DIR}/")
    return found


def describe_files(names: list[str]) -> str:
    """``earlier_run_files`` for one line: more than two models (or buffers) are given by
    their count, first and last."""
    groups = [
        ("models", [n for n in names if n.startswith(f"{MODELS_DIR}/iter_")]),
        ("buffers", [n for n in names if n.startswith("buffer_")]),
    ]
    summary = {
        group[0]: f"{len(group)} {kind} ({group[0]} to {Path(group[-1]).name})"
        for kind, group in groups
        if len(group) > 2
    }
    summarised = {n for _, group in groups if len(group) > 2 for n in group}
    parts = [summary.get(n, n) for n in names if n in summary or n not in summarised]
    return ", ".join(parts)


def remove_temp_files(folder: Path) -> None:
    """Delete the temporary files of saves that a kill interrupted. Only while no other
    process can be saving here: a trainer holding the run's lock, or within a save.
    Only names that a save makes (``atomic.temp_file``'s, with the writer's pid, for one
    of the run's files) go: any other file stays, whatever its name."""
    for place in (folder, folder / MODELS_DIR):
        if not place.is_dir() or place.is_symlink():
            continue
        for file in place.iterdir():
            base = temp_base(file.name)
            if base is not None and _RUN_FILE.fullmatch(base) and file.is_file():
                with contextlib.suppress(FileNotFoundError):
                    file.unlink()


def _by_number(name: str) -> tuple[int, str]:
    """Sort key of numbered file names: iter_10000 comes after iter_9999."""
    return len(name), name


__all__ = [
    "BEST_FILE",
    "CONFIG_FILE",
    "LATEST_FILE",
    "METADATA_FILE",
    "METRICS_FILE",
    "MODELS_DIR",
    "PENDING_FILE",
    "TENSORBOARD_DIR",
    "buffer_name",
    "describe_files",
    "earlier_run_files",
    "model_name",
    "remove_temp_files",
    "resume_name",
]
