"""Checkpoints of a training run, crash-safe: saving one, loading it back to resume, and the
model a run folder (or a file) offers to play.

``metadata.json`` is the single source of truth. ``RunDir.save`` writes every new file under
a fresh name first and replaces ``metadata.json`` atomically only once they are all durable;
files the new metadata no longer names are deleted afterwards. A crash (even SIGKILL) at any
point therefore leaves either the old metadata with all of its files or the new one with all
of its files. ``latest.keras`` and ``best.keras`` are conveniences refreshed after the
metadata, and may lag behind it by one save after a crash (the next save repairs them).

The folder's layout is ``run_files``'. A folder of format 1, whose every model file held the
optimizer's state, is neither resumed nor saved into: ``load`` and ``save`` name the command
that migrates it (``alphazero.migrate_run``). Format 2 is laid out as this one and resumes
as it is.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..games import make
from ..network.model_files import (
    check_model_fits,
    check_network_matches,
    load_keras_file,
    save_model_atomic,
)
from ..selfplay.pending import json_default
from .atomic import atomic_copy, atomic_write_text
from .buffer_format import symmetry_tables
from .replay_buffer import ReplayBuffer, ReplayBufferError
from .run_errors import CheckpointError
from .run_files import (
    BEST_FILE,
    CONFIG_FILE,
    LATEST_FILE,
    METADATA_FILE,
    MODELS_DIR,
    buffer_name,
    model_name,
    resume_name,
)
from .run_folder import RunFolder
from .run_metadata import check_metadata, check_usable_path

if TYPE_CHECKING:
    import keras

    from ..games.base import Game

FORMAT = 3
"""Version of ``metadata.json`` written by this module: 3 is laid out as 2, but its
self-play no longer draws the removed weak side's random number at each game's start, so
the games a seed gives differ from format 2's (a run resumed across the change goes on with
the new games); 2 names the resume point (``resume``); 1 resumed from ``model``, which
carried the optimizer like every model file. (A version that reads only format 1 refuses
format 2, rather than resuming from a model without its optimizer.)"""
MIGRATE_COMMAND = "python -m alphazero.migrate_run"
"""What brings a run folder of an older format to ``FORMAT`` (``alphazero.migrate_run``)."""


class RunDir(RunFolder):
    """One training run's folder with its checkpoints; see the module docstring."""

    def save(
        self,
        iteration: int,
        model: keras.Model,
        buffer: ReplayBuffer,
        metadata: dict[str, Any],
        keep: bool,
        is_best: bool,
    ) -> dict[str, Any]:
        """Save a checkpoint of ``iteration``; returns the metadata written.

        ``metadata`` holds the caller's fields (games, positions, timings, metrics, rng...);
        this adds ``format``, ``iteration``, ``resume``, ``model``, ``buffer``, ``best``,
        ``kept_models`` and, when absent, ``game`` (from ``config.yaml``). ``keep`` keeps this
        iteration's model file for good; otherwise it goes once neither the latest nor the
        best. ``resume`` names the one file with the optimizer's state; ``model`` and every
        other model file hold the weights alone.

        Order: resume file, model file, buffer file, ``metadata.json`` (the
        commit point), ``latest.keras`` / ``best.keras``, then removal of what the new
        metadata does not name (the previous resume file among them). Iterations must
        increase, so no file a previous checkpoint names is ever overwritten.
        """
        iteration = int(iteration)
        old = self.read_metadata() if self.has_checkpoint else None
        if old is not None:
            check_current(old, self.path)
            if iteration <= old["iteration"]:
                raise CheckpointError(
                    f"{self.path}: cannot save iteration {iteration}, the checkpoint already "
                    f"holds iteration {old['iteration']}"
                )
        new = self._new_metadata(iteration, metadata, old, keep, is_best)
        text = json.dumps(new, indent=2, default=json_default) + "\n"  # fail before writing
        check_metadata(json.loads(text), self.path / METADATA_FILE, self.path)  # and readable

        (self.path / MODELS_DIR).mkdir(parents=True, exist_ok=True)
        save_model_atomic(model, self.path / new["resume"])  # (1)
        save_model_atomic(model, self.path / new["model"], include_optimizer=False)  # (2)
        buffer.save(self.path / new["buffer"])  # (3)
        atomic_write_text(self.path / METADATA_FILE, text)  # (4) the commit point
        atomic_copy(self.path / new["model"], self.path / LATEST_FILE)  # (5)
        atomic_copy(self.path / new["best"], self.path / BEST_FILE)
        self.remove_unused(new)  # (6)
        return json.loads(text)

    def _new_metadata(
        self,
        iteration: int,
        metadata: dict[str, Any],
        old: dict[str, Any] | None,
        keep: bool,
        is_best: bool,
    ) -> dict[str, Any]:
        """``save``'s metadata: the caller's fields, and the files of ``iteration``."""
        model = model_name(iteration)
        best = model if is_best or old is None else old["best"]
        kept = list(old.get("kept_models", [])) if old is not None else []
        if keep and model not in kept:
            kept.append(model)
        new = dict(metadata)
        if "game" not in new and (self.path / CONFIG_FILE).is_file():
            new["game"] = self.load_config().game.name
        new.update(
            format=FORMAT,
            iteration=iteration,
            resume=resume_name(iteration),
            model=model,
            buffer=buffer_name(iteration),
            best=best,
            kept_models=kept,
        )
        return new

    def remove_unused(self, metadata: dict[str, Any]) -> None:
        """Delete resume files, buffers, models and temp files that ``metadata`` does not
        need."""
        needed = {metadata["resume"], metadata["model"], metadata["buffer"], metadata["best"]}
        needed.update(metadata.get("kept_models", []))
        doomed: list[Path] = []
        doomed += [p for p in self.path.glob("resume_*.keras") if p.name not in needed]
        doomed += [p for p in self.path.glob("buffer_*.npz") if p.name not in needed]
        models = self.path / MODELS_DIR
        doomed += [p for p in models.glob("iter_*.keras") if f"{MODELS_DIR}/{p.name}" not in needed]
        for file in doomed:
            with contextlib.suppress(FileNotFoundError):
                file.unlink()
        self.remove_temp_files()

    def require_buffer(self) -> None:
        """``CheckpointError``, naming ``--fresh-buffer``, when the checkpoint's replay buffer
        file is missing: a folder shipped or slimmed without it (``slim_run --drop-buffer``)."""
        metadata = self.read_metadata()
        check_current(metadata, self.path)
        if not (self.path / metadata["buffer"]).exists():
            raise CheckpointError(
                f"{self.path / metadata['buffer']}: no such replay buffer file (a folder "
                f"shipped or slimmed without it); to go on with an empty one, which cannot "
                f"repeat the run exactly: python train.py --resume --fresh-buffer --run-dir "
                f"{self.path}"
            )

    def load(
        self, capacity: int | None = None, *, compile: bool = True, fresh_buffer: bool = False
    ) -> tuple[keras.Model, ReplayBuffer, dict[str, Any]]:
        """The model, replay buffer and metadata of the saved checkpoint.

        The model is the resume point, with its optimizer's state (unless ``compile`` is
        false). ``capacity`` (default: the config's ``replay.capacity``) sizes the buffer; a
        smaller one keeps the most recent positions. ``fresh_buffer`` gives an empty buffer
        instead of the saved one (which may be missing). Every problem raises a one-line
        ``CheckpointError`` naming the file.
        """
        metadata = self.read_metadata()
        check_current(metadata, self.path)
        if not fresh_buffer:
            self.require_buffer()
        config = self.load_config()
        saved_game = metadata.get("game", config.game.name)
        saved_params = dict(config.game.params)
        if isinstance(saved_game, dict):  # {"name": ..., "params": {...}}
            saved_params = saved_game.get("params", saved_params)
            saved_game = saved_game.get("name")
        if saved_game != config.game.name or saved_params != dict(config.game.params):
            raise CheckpointError(
                f"{self.path / METADATA_FILE}: the checkpoint is of game {saved_game!r} "
                f"{saved_params}, but {CONFIG_FILE} says {config.game.name!r} "
                f"{dict(config.game.params)}"
            )
        game = make(config.game.name, **config.game.params)
        model_file = self.path / metadata["resume"]
        model = load_keras_file(model_file, str(model_file), compile=compile)
        # A resume point without an optimizer would have the trainer start a new one from
        # step 0, without a word.
        if compile and getattr(model, "optimizer", None) is None:
            raise CheckpointError(f"{model_file}: {NO_OPTIMIZER}")
        check_model_fits(model, game, str(model_file))
        check_network_matches(model, config.network, str(self.path / CONFIG_FILE))
        capacity = config.replay.capacity if capacity is None else capacity
        symmetries = symmetry_tables(game.symmetries, game.plane_shape, game.num_actions)
        if fresh_buffer:
            buffer = ReplayBuffer(
                capacity, game.plane_shape, game.num_actions, symmetries=symmetries
            )
            return model, buffer, metadata
        try:
            buffer = ReplayBuffer.load(
                self.path / metadata["buffer"],
                capacity,
                plane_shape=game.plane_shape,
                num_actions=game.num_actions,
                symmetries=symmetries,
            )
        except ReplayBufferError as error:
            raise CheckpointError(str(error)) from None
        return model, buffer, metadata


NO_OPTIMIZER = (
    "holds no optimizer state (a weights-only model), so the run cannot resume from it exactly"
)


def check_current(metadata: dict[str, Any], folder: Path) -> None:
    """``CheckpointError``, naming the command that migrates it, for the metadata of a folder
    laid out otherwise than ``FORMAT``: format 1, which has no resume point."""
    if "resume" not in metadata:
        raise CheckpointError(
            f"{folder / METADATA_FILE}: a run folder of format 1 (every model file holds the "
            f"optimizer's state), which this version neither resumes nor saves into; migrate "
            f"it first: {MIGRATE_COMMAND} {folder}"
        )


# ---------------------------------------------------------------- the model to play
def load_model(
    path: str | os.PathLike[str], game: Game | None = None, *, compile: bool = True
) -> keras.Model:
    """Load a model from a run folder (its ``best.keras``, else ``latest.keras``) or a file.

    With ``game``, also check that the model fits it (and, for a run folder, that the run
    played that game). Every problem raises a one-line ``CheckpointError``.
    """
    file, shown = model_file(path, game)
    model = load_keras_file(file, shown, compile=compile)
    if game is not None:
        check_model_fits(model, game, shown)
    return model


def model_file(path: str | os.PathLike[str], game: Game | None = None) -> tuple[Path, str]:
    """The model file ``path`` names (a run folder's ``best.keras``, else ``latest.keras``, or
    the file itself) and how to name it in errors; with ``game``, ``CheckpointError`` for a
    run folder whose run trained another game. Reads no model: no TensorFlow."""
    path = Path(path)
    shown = str(path)
    check_usable_path(path)
    if path.is_dir():
        run = RunFolder(path)
        if game is not None and (path / CONFIG_FILE).is_file():
            config = run.load_config()
            if config.game.name != game.name:
                raise CheckpointError(
                    f"{shown}: this run trained {config.game.name}, not {game.name}"
                )
        for name in (BEST_FILE, LATEST_FILE):
            if (path / name).is_file():
                file = path / name
                break
        else:
            if not (path / METADATA_FILE).is_file():
                raise CheckpointError(
                    f"{shown}: no model in this folder (no {BEST_FILE}, {LATEST_FILE} "
                    f"or {METADATA_FILE})"
                )
            file = path / run.read_metadata()["best"]
        shown = str(file)
    elif path.exists():
        file = path
    else:
        raise CheckpointError(f"{shown}: no such model file or run folder")
    return file, shown


__all__ = [
    "FORMAT",
    "MIGRATE_COMMAND",
    "NO_OPTIMIZER",
    "RunDir",
    "check_current",
    "load_model",
    "model_file",
]
