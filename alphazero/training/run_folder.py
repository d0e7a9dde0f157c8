"""Opening a run folder: a new run's, refused over an earlier run; an existing one's, with its
config, its checked metadata and the games of an interrupted iteration.

``checkpoints.RunDir`` adds the checkpoints (save and load); the layout is ``run_files``'.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Self

from ..config import Config, ConfigError, config_from_dict, read_yaml
from ..selfplay.pending import PendingGames, pending_bytes, read_pending
from .atomic import atomic_write_bytes, atomic_write_text, fsync_dir
from .run_errors import CheckpointError
from .run_files import (
    BEST_FILE,
    CONFIG_FILE,
    LATEST_FILE,
    METADATA_FILE,
    MODELS_DIR,
    PENDING_FILE,
    describe_files,
    earlier_run_files,
    remove_temp_files,
)
from .run_metadata import check_usable_path, read_metadata_file


class RunFolder:
    """One training run's folder (``run_files`` gives the layout)."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    @classmethod
    def create(cls, path: str | os.PathLike[str], config: Config) -> Self:
        """Start a new run in ``path``: make the folder and write ``config.yaml``.

        Refuses (``CheckpointError``) a folder that holds anything an earlier run saved
        (``earlier_run_files``): a new run would overwrite its models and best.keras, delete
        the ones the new metadata does not name, and append to its metrics. A folder with
        only a ``config.yaml`` (a run stopped before its first checkpoint) is reused.
        """
        run = cls(path)
        run.refuse_earlier_run()
        try:
            (run.path / MODELS_DIR).mkdir(parents=True, exist_ok=True)
            atomic_write_text(run.path / CONFIG_FILE, config.to_yaml())
        except OSError as error:
            raise CheckpointError(f"{run.path}: cannot create the run folder ({error})") from None
        return run

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Self:
        """An existing run folder, for resuming (``load`` says if it holds no checkpoint)."""
        run = cls(path)
        check_usable_path(run.path)
        if not run.path.is_dir():
            raise CheckpointError(
                f"{run.path}: no such run folder — start without --resume, or check --run-dir"
            )
        return run

    @property
    def has_checkpoint(self) -> bool:
        """Whether a checkpoint (``metadata.json``) has been saved here."""
        return (self.path / METADATA_FILE).is_file()

    def refuse_earlier_run(self) -> None:
        """``CheckpointError`` unless a new run may start here (see ``create``)."""
        check_usable_path(self.path)
        if self.path.exists() and not self.path.is_dir():
            raise CheckpointError(f"{self.path}: exists and is not a folder")
        if earlier := self.earlier_run_files():
            resume = (
                "continue it with --resume"
                if METADATA_FILE in earlier or earlier == [PENDING_FILE]
                else f"it needs its {METADATA_FILE} back to --resume"
            )
            raise CheckpointError(
                f"{self.path}: holds an earlier run ({describe_files(earlier)}); {resume}, "
                f"start the new one in another --run-dir, or pass --overwrite to move those "
                f"files aside into {self.path}/overwritten-<date-time>/"
            )

    def earlier_run_files(self) -> list[str]:
        """What a run has saved here (``run_files.earlier_run_files``)."""
        return earlier_run_files(self.path)

    def remove_temp_files(self) -> None:
        """Delete what killed saves left here (``run_files.remove_temp_files``): only while
        no other process can be saving here."""
        remove_temp_files(self.path)

    def load_config(self) -> Config:
        """The run's resolved config from ``config.yaml``."""
        file = self.path / CONFIG_FILE
        if not file.exists():
            raise CheckpointError(f"{file}: missing (the run's config)")
        try:
            data = read_yaml(file)
        except ConfigError as error:  # already one line naming the file
            raise CheckpointError(str(error)) from None
        try:
            return config_from_dict({} if data is None else data)
        except ConfigError as error:
            raise CheckpointError(f"{file}: {_one_line_text(error)}") from None

    def read_metadata(self) -> dict[str, Any]:
        """``metadata.json``, checked against its schema (``run_metadata``): the format, the
        keys every checkpoint has, every field's type, and every file it names inside this
        folder (symlinks followed)."""
        file = self.path / METADATA_FILE
        if not file.is_file():
            if earlier := self.earlier_run_files():  # starting over would refuse, or lose them
                raise CheckpointError(self._lost_metadata_line(earlier))
            raise CheckpointError(
                f"{self.path}: no checkpoint here ({METADATA_FILE} missing) — "
                f"start without --resume"
            )
        return read_metadata_file(file, self.path)

    def _lost_metadata_line(self, earlier: list[str]) -> str:
        """Why a run whose ``metadata.json`` is gone cannot resume, and how to recover it."""
        models = [n for n in earlier if n.startswith(f"{MODELS_DIR}/")]
        models = models or [n for n in (LATEST_FILE, BEST_FILE) if n in earlier]
        play = (
            f"; its newest model still plays: python play.py --model {self.path / models[-1]}"
            if models
            else ""
        )
        return (
            f"{self.path}: {METADATA_FILE} is missing, so this run cannot resume as it is; "
            f"nothing was changed and it still holds {describe_files(earlier)}. To recover, "
            f"put {METADATA_FILE} back (from a backup, or git checkout for a shipped run) "
            f"and resume{play}; start any new run in another --run-dir"
        )

    # --------------------------------------------------- games of an interrupted iteration
    def save_pending(self, pending: PendingGames) -> None:
        """Keep ``pending`` in ``pending_selfplay.npz`` (atomically: a kill leaves the
        earlier file or this one)."""
        atomic_write_bytes(self.path / PENDING_FILE, pending_bytes(pending))

    def load_pending(
        self,
        plane_shape: tuple[int, ...] | None = None,
        num_actions: int | None = None,
        max_examples: int | None = None,
    ) -> PendingGames | None:
        """The kept games, or None if there are none; a damaged file, or one of examples
        shaped otherwise than ``plane_shape`` and ``num_actions`` or more than
        ``max_examples``, is a one-line ``CheckpointError`` (``read_pending``)."""
        file = self.path / PENDING_FILE
        if not file.is_file():
            return None
        return read_pending(file, plane_shape, num_actions, max_examples)

    def discard_pending(self) -> None:
        """Forget the kept games (a checkpoint holds them now)."""
        try:
            (self.path / PENDING_FILE).unlink()
        except FileNotFoundError:
            return
        fsync_dir(self.path)


def _one_line_text(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
