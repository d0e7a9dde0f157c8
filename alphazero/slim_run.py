"""Slim a run folder in place to what play, the report and an exact ``--resume`` read:
``python -m alphazero.slim_run RUN_DIR...``.

A slimmed folder holds ``config.yaml``, ``metadata.json``, ``metrics.jsonl``, ``best.keras``,
the resume point (``resume_NNNN.keras``, the newest model with its optimizer's state) and the
replay buffer it resumes with, cut to the examples training can still draw (its sampling
window): no per-iteration models and no ``latest.keras``, which repeat weights held elsewhere.
This is how a shipped model, or a long run committed between sittings, is kept.
``--keep-models`` keeps the per-iteration models and ``latest.keras``. ``--drop-buffer``
deletes the replay buffer too, for a folder to ship when the buffer is most of it: such a
folder plays, reports and trains on with ``train.py --resume --fresh-buffer``, no longer
exactly as the unbroken run would. A folder of format 1 is
refused with the command that migrates it (``alphazero.migrate_run``).

It holds the run's lock, so it refuses a folder that a trainer is writing. Every step is an
atomic rename and ``metadata.json`` switches before any file it stops naming is deleted, so a
kill at any moment leaves the folder resumable, and running it again finishes the work.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path

from .games import make
from .selfplay.pending import json_default
from .training.atomic import atomic_write_text
from .training.buffer_format import symmetry_tables
from .training.checkpoints import RunDir, check_current
from .training.replay_buffer import ReplayBuffer, ReplayBufferError
from .training.run_errors import CheckpointError
from .training.run_files import BEST_FILE, LATEST_FILE, METADATA_FILE, MODELS_DIR
from .training.run_guard import RunLock
from .training.run_metadata import check_usable_path


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def slim_run(
    path: str | os.PathLike[str],
    *,
    keep_models: bool = False,
    whole_buffer: bool = False,
    drop_buffer: bool = False,
) -> list[str]:
    """Slim the run folder ``path`` in place, holding its lock; the files rewritten or
    removed (relative names). Every problem is a one-line ``CheckpointError``."""
    if whole_buffer and drop_buffer:
        raise CheckpointError("--whole-buffer keeps the replay buffer, --drop-buffer deletes it")
    folder = Path(path)
    if not (folder / METADATA_FILE).is_file():  # the lock would make a missing folder
        raise CheckpointError(f"{folder}: not a run folder with a checkpoint ({METADATA_FILE})")
    with RunLock(folder):
        run = RunDir(folder)
        check_current(run.read_metadata(), run.path)
        changed: list[str] = []
        if not keep_models:
            changed += _drop_models(run)
        if drop_buffer:
            changed += _drop_buffer(run)
        elif not whole_buffer:
            changed += _cut_buffer(run)
        return changed


def _drop_buffer(run: RunDir) -> list[str]:
    """Delete the replay buffer; ``metadata.json`` keeps naming it, and resuming without it
    asks for ``--fresh-buffer``. The names changed."""
    name = run.read_metadata()["buffer"]
    file = run.path / name
    if not file.exists():
        return []
    file.unlink()
    return [name]


def _cut_buffer(run: RunDir) -> list[str]:
    """Cut the replay buffer to the examples the next iterations can still sample: the newest
    ``replay.window`` of all made so far (and at least ``train.min_positions``, which decides
    whether training runs at all). The window never grows faster than examples arrive, so
    the resumed run draws exactly the same batches. The names changed."""
    metadata = run.read_metadata()
    if "positions" not in metadata:  # not a count every checkpoint has: the window is unknown
        return []
    config = run.load_config()
    game = make(config.game.name, **config.game.params)
    file = run.path / metadata["buffer"]
    if not file.exists():  # dropped before (--drop-buffer): nothing to cut
        return []
    try:
        buffer = ReplayBuffer.load(
            file,
            config.replay.capacity,
            plane_shape=game.plane_shape,
            num_actions=game.num_actions,
            symmetries=symmetry_tables(game.symmetries, game.plane_shape, game.num_actions),
        )
    except ReplayBufferError as error:
        raise CheckpointError(str(error)) from None
    keep = max(config.replay.window(int(metadata["positions"])), config.train.min_positions)
    if keep >= len(buffer):
        return []
    buffer.keep_newest(keep)
    buffer.save(file)  # atomic: the old buffer or the cut one, never half of one
    return [metadata["buffer"]]


def _drop_models(run: RunDir) -> list[str]:
    """Point ``metadata.json`` at ``best.keras`` and the resume point instead of per-iteration
    models, then delete those models and ``latest.keras``; the names changed."""
    metadata = run.read_metadata()
    slim = {**metadata, "model": metadata["resume"], "best": BEST_FILE, "kept_models": []}
    changed: list[str] = []
    if slim != metadata:
        text = json.dumps(slim, indent=2, default=json_default) + "\n"
        atomic_write_text(run.path / METADATA_FILE, text)  # the commit point
        changed.append(METADATA_FILE)
    models = run.path / MODELS_DIR
    doomed = [run.path / LATEST_FILE, *sorted(models.glob("*.keras"))]
    for file in doomed:
        if file.is_file():
            file.unlink()
            changed.append(str(file.relative_to(run.path)))
    with contextlib.suppress(OSError):  # only when empty
        models.rmdir()
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.slim_run",
        description="Slim run folders in place to what play, the report and an exact "
        "--resume read: best.keras, the resume point, the replay buffer (cut to the examples "
        "training can still sample), config.yaml, metadata.json and metrics.jsonl. Refuses a "
        "folder that a trainer is writing.",
    )
    parser.add_argument(
        "run_dirs", type=Path, nargs="+", metavar="RUN_DIR", help="run folders to slim"
    )
    parser.add_argument(
        "--keep-models",
        action="store_true",
        help="keep the per-iteration models and latest.keras",
    )
    parser.add_argument(
        "--whole-buffer",
        action="store_true",
        help="keep every example of the replay buffer, not only those training can still "
        "sample (its window)",
    )
    parser.add_argument(
        "--drop-buffer",
        action="store_true",
        help="delete the replay buffer as well (a folder to ship when the buffer is most of "
        "it); the run then trains on only with train.py --resume --fresh-buffer",
    )
    args = parser.parse_args(argv)
    for folder in args.run_dirs:
        try:
            check_usable_path(folder)
        except CheckpointError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        before = _folder_bytes(folder) if folder.is_dir() else 0
        try:
            changed = slim_run(
                folder,
                keep_models=args.keep_models,
                whole_buffer=args.whole_buffer,
                drop_buffer=args.drop_buffer,
            )
        except CheckpointError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        after = _folder_bytes(folder)
        what = f"{len(set(changed))} files rewritten or removed" if changed else "already slim"
        print(f"{folder}: {what}; {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
