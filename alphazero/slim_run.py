"""Drop the optimizer's state from a run folder's model files but its resume point, in place:
``python -m alphazero.slim_run RUN_DIR...``.

What a save with this version does to a folder of the earlier layout (where every model file
carried Adam's moments, three times the weights), done at once for a whole folder, kept
models included, e.g. before committing it. It holds the run's lock, so it refuses a folder
that a trainer is writing, and a kill at any moment leaves the folder resumable (running it
again finishes the work); a converted folder is left as it is.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .checkpoints import METADATA_FILE, CheckpointError, RunDir
from .run_guard import RunLock


def _model_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*.keras") if p.is_file())


def slim_run(path: str | os.PathLike[str]) -> list[str]:
    """Convert the run folder ``path`` in place (``RunDir.drop_optimizer_states``) holding
    its lock; the files rewritten. Every problem is a one-line ``CheckpointError``."""
    folder = Path(path)
    if not (folder / METADATA_FILE).is_file():  # the lock would make a missing folder
        raise CheckpointError(f"{folder}: not a run folder with a checkpoint ({METADATA_FILE})")
    with RunLock(folder):
        return RunDir(folder).drop_optimizer_states()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.slim_run",
        description="Drop the optimizer's state from every model file of a run folder but "
        "its resume point (the layout train.py now writes).",
    )
    parser.add_argument(
        "run_dirs", type=Path, nargs="+", metavar="RUN_DIR", help="run folders to slim"
    )
    args = parser.parse_args(argv)
    for folder in args.run_dirs:
        before = _model_bytes(folder) if folder.is_dir() else 0
        try:
            rewritten = slim_run(folder)
        except CheckpointError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        after = _model_bytes(folder)
        what = ", ".join(rewritten) if rewritten else "nothing to do"
        print(f"{folder}: {what}; model files {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
