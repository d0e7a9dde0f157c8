"""Bring run folders of older formats to the current one, in place:
``python -m alphazero.migrate_run RUN_DIR...``.

- Format 1 (every model file with its optimizer's state, resumed from ``model``): the model
  it resumed from is copied byte for byte to its resume point (``resume_NNNN.keras``), which
  ``metadata.json`` then names; every other model file loses its optimizer, and
  ``latest.keras`` / ``best.keras`` are copied again from the files they copy.
- Format 2 (laid out as 3): ``metadata.json`` says 3. Resuming such a folder as it is gives
  the same run, so a folder of format 2 need not be migrated.
- A replay buffer of format 1 (``replay_buffer``) is written again in format 2: the same
  examples in fewer bytes, read back bit for bit.

``checkpoints`` neither resumes nor saves into a folder of format 1, and names this command.
It holds the run's lock, so it refuses a folder that a trainer is writing. Every step is an
atomic rename and ``metadata.json`` switches before any file it stops naming is deleted, so a
kill at any moment leaves the folder as it was or resumable, and running it again finishes
the work; on a folder of the current format it changes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zipfile
from pathlib import Path
from typing import Any

from .games import make
from .network.model_files import drop_optimizer, holds_optimizer, load_keras_file
from .selfplay.pending import json_default
from .training.atomic import atomic_copy, atomic_write_text
from .training.buffer_format import symmetry_tables
from .training.checkpoints import FORMAT, NO_OPTIMIZER, RunDir
from .training.npz_archive import npy_members, read_int
from .training.replay_buffer import FORMAT_VERSION, ReplayBuffer, ReplayBufferError
from .training.run_errors import CheckpointError
from .training.run_files import BEST_FILE, LATEST_FILE, METADATA_FILE, resume_name
from .training.run_guard import RunLock
from .training.run_metadata import check_usable_path


def migrate_run(path: str | os.PathLike[str]) -> list[str]:
    """Migrate the run folder ``path`` in place, holding its lock; the files rewritten
    (relative names). Every problem is a one-line ``CheckpointError``."""
    folder = Path(path)
    if not (folder / METADATA_FILE).is_file():  # the lock would make a missing folder
        raise CheckpointError(f"{folder}: not a run folder with a checkpoint ({METADATA_FILE})")
    with RunLock(folder):
        return migrate(RunDir(folder))


def migrate(run: RunDir) -> list[str]:
    """``migrate_run`` for a caller that holds the run's lock (``slim_run``)."""
    metadata = run.read_metadata()
    rewritten: list[str] = []
    if "resume" not in metadata or metadata["format"] < FORMAT:
        metadata = _current_metadata(run, metadata)
        rewritten.append(METADATA_FILE)
    rewritten += _drop_optimizers(run, metadata)
    rewritten += _refresh_copies(run, metadata)
    rewritten += _convert_buffer(run, metadata)
    run.remove_unused(metadata)
    return rewritten


def _current_metadata(run: RunDir, metadata: dict[str, Any]) -> dict[str, Any]:
    """Give a format 1 folder its resume point (a byte copy of the model it resumes from),
    then write ``metadata.json`` of ``FORMAT`` naming it: the commit point."""
    if "resume" not in metadata:
        source = run.path / metadata["model"]
        model = load_keras_file(source, str(source))  # it must be the resume point it was
        if getattr(model, "optimizer", None) is None:
            raise CheckpointError(f"{source}: {NO_OPTIMIZER}")
        resume = resume_name(metadata["iteration"])
        atomic_copy(source, run.path / resume)
        metadata = {**metadata, "resume": resume}
    metadata = {**metadata, "format": FORMAT}
    text = json.dumps(metadata, indent=2, default=json_default) + "\n"
    atomic_write_text(run.path / METADATA_FILE, text)
    return metadata


def _drop_optimizers(run: RunDir, metadata: dict[str, Any]) -> list[str]:
    """Rewrite without its optimizer each model file ``metadata`` names, but the resume
    point, that still has one; the names rewritten."""
    named = dict.fromkeys([metadata["model"], metadata["best"], *metadata["kept_models"]])
    rewritten = []
    for name in named:
        file = run.path / name
        if name != metadata["resume"] and holds_optimizer(file):
            drop_optimizer(file)
            rewritten.append(name)
    return rewritten


def _refresh_copies(run: RunDir, metadata: dict[str, Any]) -> list[str]:
    """Copy ``latest.keras`` and ``best.keras`` again from the models they copy, where they
    differ, so that they stay byte for byte the same files (one blob in git)."""
    rewritten = []
    for copy, source in ((LATEST_FILE, metadata["model"]), (BEST_FILE, metadata["best"])):
        if source in (copy, metadata["resume"]):  # a slimmed folder (slim_run)
            continue
        copy_file, source_file = run.path / copy, run.path / source
        if not copy_file.is_file() or copy_file.read_bytes() != source_file.read_bytes():
            atomic_copy(source_file, copy_file)
            rewritten.append(copy)
    return rewritten


def _convert_buffer(run: RunDir, metadata: dict[str, Any]) -> list[str]:
    """Write the replay buffer again in the current format if it is of an older one."""
    file = run.path / metadata["buffer"]
    try:  # by its header first: a crafted 'format' member could declare gigabytes
        with zipfile.ZipFile(file) as archive:
            version = read_int(archive, npy_members(archive)["format"])
    except Exception:  # ReplayBuffer.load below names what is wrong with it
        version = None
    if version == FORMAT_VERSION:
        return []
    config = run.load_config()
    game = make(config.game.name, **config.game.params)
    try:
        buffer = ReplayBuffer.load(
            file,
            plane_shape=game.plane_shape,
            num_actions=game.num_actions,
            symmetries=symmetry_tables(game.symmetries, game.plane_shape, game.num_actions),
        )
    except ReplayBufferError as error:
        raise CheckpointError(str(error)) from None
    buffer.save(file)  # atomic: the old buffer or the new one, never half of one
    return [metadata["buffer"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.migrate_run",
        description="Bring run folders of older formats to the current one, in place: the "
        "resume point and models without the optimizer's state (format 1), metadata.json's "
        "format, and the replay buffer's. Refuses a folder that a trainer is writing.",
    )
    parser.add_argument(
        "run_dirs", type=Path, nargs="+", metavar="RUN_DIR", help="run folders to migrate"
    )
    args = parser.parse_args(argv)
    for folder in args.run_dirs:
        try:
            check_usable_path(folder)
            changed = migrate_run(folder)
        except CheckpointError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        what = f"{len(set(changed))} files rewritten" if changed else "already current"
        print(f"{folder}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
