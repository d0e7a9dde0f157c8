"""The run folder ``checkpoints/<run>/``: crash-safe checkpoints of a training run.

Layout::

    config.yaml              the resolved config (``Config.to_yaml()``)
    metadata.json            the checkpoint: iteration, counters, and the files below it uses
    resume_NNNN.keras        the model with its optimizer's state: what ``--resume`` loads
    models/iter_NNNN.keras   per-iteration models (kept per ``keep``; latest and best always)
    latest.keras, best.keras copies of the newest / best model, for people and ``play.py``
    buffer_NNNN.npz          the replay buffer of the iteration metadata names (only that one)
    paused_NNNN.npz          with ``selfplay.carry_over``: the self-play games paused at the
                             end of that iteration, to go on in the next (only that one)
    metrics.jsonl            one JSON line per iteration (``alphazero.training.metrics``)
    tensorboard/             the same metrics for TensorBoard
    pending_selfplay.npz     after Ctrl-C mid-iteration: that iteration's finished games

``metadata.json`` is the single source of truth. ``RunDir.save`` writes every new file under
a fresh name first and replaces ``metadata.json`` atomically only once they are all durable;
files the new metadata no longer names are deleted afterwards. A crash (even SIGKILL) at any
point therefore leaves either the old metadata with all of its files or the new one with all
of its files. ``latest.keras`` and ``best.keras`` are conveniences refreshed after the
metadata, and may lag behind it by one save after a crash (the next save repairs them).

Only the resume point carries the optimizer's state (Adam's moments and step count, about
twice the weights again); every other model file holds the weights alone
(``model_files``). Folders of format 1, from before, kept the optimizer in every model file
and resumed from ``models/iter_NNNN.keras``: they resume as they are, and their next save
writes the new layout (``_drop_optimizers`` rewrites their best and kept models), as
``RunDir.drop_optimizer_states`` does in place.

Temporary names carry the writer's pid and a random part, so two processes never write the
same one; a kill leaves them behind, and ``remove_temp_files`` clears them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Config, ConfigError, config_from_dict, read_yaml
from ..games import make
from ..network.model_files import (
    check_model_fits,
    check_network_matches,
    drop_optimizer,
    holds_optimizer,
    load_keras_file,
    save_model_atomic,
)
from ..selfplay.paused import PausedGame, paused_bytes, read_paused
from ..selfplay.pending import PendingGames, json_default, pending_bytes, read_pending
from .atomic import (
    atomic_copy,
    atomic_write_bytes,
    atomic_write_text,
    fsync_dir,
    is_temp_name,
    temp_base,
)
from .buffer_format import symmetry_tables
from .replay_buffer import ReplayBuffer, ReplayBufferError
from .run_errors import CheckpointError, TrainingDiverged
from .run_metadata import (
    check_inside,
    check_metadata,
    check_usable_path,
    read_metadata_file,
)

if TYPE_CHECKING:
    import keras

    from ..games.base import Game

__all__ = [
    "BEST_FILE",
    "CONFIG_FILE",
    "FORMAT",
    "LATEST_FILE",
    "METADATA_FILE",
    "METRICS_FILE",
    "MODELS_DIR",
    "PENDING_FILE",
    "TENSORBOARD_DIR",
    "CheckpointError",
    "PendingGames",
    "RunDir",
    "TrainingDiverged",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_model_fits",
    "check_network_matches",
    "describe_files",
    "is_temp_name",
    "json_default",
    "load_model",
]

FORMAT = 3
"""Version of ``metadata.json`` written by this module: 3 is laid out as 2, but its
self-play no longer draws the removed weak side's random number at each game's start, so
the games a seed gives differ from format 2's (a run resumed across the change goes on with
the new games); 2 names the resume point (``resume``); 1 resumed from ``model``, which
carried the optimizer like every model file. (A version that reads only format 1 refuses
format 2, rather than resuming from a model without its optimizer.)"""

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
    r"|best\.keras|(buffer|paused)_[0-9]{4,}\.npz|(resume|iter)_[0-9]{4,}\.keras)"
)
"""The files a save writes through a temporary file (``remove_temp_files``)."""


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
        run = RunDir(path)
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
            metadata = run.read_metadata()
            file = path / metadata["best"]
        shown = str(file)
    elif path.exists():
        file = path
    else:
        raise CheckpointError(f"{shown}: no such model file or run folder")
    return file, shown


# -------------------------------------------------------------------------- run folder
class RunDir:
    """One training run's folder; see the module docstring for the layout."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"RunDir({str(self.path)!r})"

    # -------------------------------------------------------------- opening / creating
    @classmethod
    def create(cls, path: str | os.PathLike[str], config: Config) -> RunDir:
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
    def open(cls, path: str | os.PathLike[str]) -> RunDir:
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
        """What a run has saved here, relative to the folder: metadata, models, buffers,
        metrics and kept games (not ``config.yaml``, written before anything is trained, nor
        temp files)."""
        if not self.path.is_dir():
            return []
        found = [n for n in (METADATA_FILE, LATEST_FILE, BEST_FILE) if (self.path / n).exists()]
        found += sorted((p.name for p in self.path.glob("resume_*.keras")), key=_by_number)
        models = [f"{MODELS_DIR}/{p.name}" for p in self.path.glob(f"{MODELS_DIR}/iter_*")]
        found += sorted(models, key=_by_number)
        found += sorted((p.name for p in self.path.glob("buffer_*.npz")), key=_by_number)
        found += sorted((p.name for p in self.path.glob("paused_*.npz")), key=_by_number)
        if (self.path / METRICS_FILE).exists():
            found.append(METRICS_FILE)
        if (self.path / PENDING_FILE).exists():
            found.append(PENDING_FILE)
        tensorboard = self.path / TENSORBOARD_DIR
        if tensorboard.is_dir() and any(tensorboard.iterdir()):
            found.append(f"{TENSORBOARD_DIR}/")
        return found

    def remove_temp_files(self) -> None:
        """Delete the temporary files of saves that a kill interrupted. Only while no other
        process can be saving here: a trainer holding the run's lock, or within a save.
        Only names that a save makes (``atomic.temp_file``'s, with the writer's pid, for one
        of the run's files) go: any other file stays, whatever its name."""
        for folder in (self.path, self.path / MODELS_DIR):
            if not folder.is_dir() or folder.is_symlink():
                continue
            for file in folder.iterdir():
                base = temp_base(file.name)
                if base is not None and _RUN_FILE.fullmatch(base) and file.is_file():
                    with contextlib.suppress(FileNotFoundError):
                        file.unlink()

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

    # ------------------------------------------------------------------------- saving
    def model_name(self, iteration: int) -> str:
        return f"{MODELS_DIR}/iter_{iteration:04d}.keras"

    def buffer_name(self, iteration: int) -> str:
        return f"buffer_{iteration:04d}.npz"

    def resume_name(self, iteration: int) -> str:
        return f"resume_{iteration:04d}.keras"

    def save(
        self,
        iteration: int,
        model: keras.Model,
        buffer: ReplayBuffer,
        metadata: dict[str, Any],
        keep: bool,
        is_best: bool,
        paused: list[PausedGame] | None = None,
    ) -> dict[str, Any]:
        """Save a checkpoint of ``iteration``; returns the metadata written.

        ``metadata`` holds the caller's fields (games, positions, timings, metrics, rng...);
        this adds ``format``, ``iteration``, ``resume``, ``model``, ``buffer``, ``best``,
        ``kept_models`` and, when absent, ``game`` (from ``config.yaml``). ``keep`` keeps this
        iteration's model file for good; otherwise it goes once neither the latest nor the
        best. ``resume`` names the one file with the optimizer's state; ``model`` and every
        other model file hold the weights alone. ``paused`` (``selfplay.carry_over``) goes to
        ``paused_NNNN.npz``, which the metadata names as ``paused``.

        Order: resume file, model file, buffer file (and paused games), ``metadata.json`` (the
        commit point),
        the named models that still hold an optimizer (a format 1 folder's best and kept
        ones), ``latest.keras`` / ``best.keras``, then removal of what the new metadata does
        not name (the previous resume file among them). Iterations must increase, so no file
        a previous checkpoint names is ever overwritten.
        """
        iteration = int(iteration)
        old = self.read_metadata() if self.has_checkpoint else None
        if old is not None and iteration <= old["iteration"]:
            raise CheckpointError(
                f"{self.path}: cannot save iteration {iteration}, the checkpoint already holds "
                f"iteration {old['iteration']}"
            )
        resume_name = self.resume_name(iteration)
        model_name = self.model_name(iteration)
        buffer_name = self.buffer_name(iteration)
        best = model_name if is_best or old is None else old["best"]
        kept = list(old.get("kept_models", [])) if old is not None else []
        if keep and model_name not in kept:
            kept.append(model_name)
        new = dict(metadata)
        if "game" not in new and (self.path / CONFIG_FILE).is_file():
            new["game"] = self.load_config().game.name
        new.update(
            format=FORMAT,
            iteration=iteration,
            resume=resume_name,
            model=model_name,
            buffer=buffer_name,
            best=best,
            kept_models=kept,
        )
        new.pop("paused", None)
        if paused is not None:
            new["paused"] = self.paused_name(iteration)
        text = json.dumps(new, indent=2, default=json_default) + "\n"  # fail before writing
        check_metadata(json.loads(text), self.path / METADATA_FILE, self.path)  # and readable

        (self.path / MODELS_DIR).mkdir(parents=True, exist_ok=True)
        save_model_atomic(model, self.path / resume_name)  # (1)
        save_model_atomic(model, self.path / model_name, include_optimizer=False)  # (2)
        buffer.save(self.path / buffer_name)  # (3)
        if paused is not None:
            atomic_write_bytes(self.path / new["paused"], paused_bytes(paused, new.get("game")))
        atomic_write_text(self.path / METADATA_FILE, text)  # (4) the commit point
        # (5) No longer the resume point, a format 1 folder's models keep their optimizer for
        # nothing; each is rewritten whole, so a kill leaves it loadable either way.
        self._drop_optimizers(new)
        atomic_copy(self.path / model_name, self.path / LATEST_FILE)  # (6)
        atomic_copy(self.path / best, self.path / BEST_FILE)
        self._remove_unused(new)  # (7)
        return json.loads(text)

    def _drop_optimizers(self, metadata: dict[str, Any]) -> list[str]:
        """Rewrite without its optimizer each model file ``metadata`` names, but the resume
        point, that still has one; the names rewritten."""
        named = dict.fromkeys([metadata["model"], metadata["best"], *metadata["kept_models"]])
        rewritten = []
        for name in named:
            file = self.path / name
            if name != resume_point(metadata) and holds_optimizer(file):
                drop_optimizer(file)
                rewritten.append(name)
        return rewritten

    def drop_optimizer_states(self) -> list[str]:
        """Convert this run folder in place to the layout where only the resume point holds
        the optimizer's state; the files rewritten (relative names). Only while no trainer
        saves here (``alphazero.slim_run`` holds the run's lock).

        A format 1 folder first gets its resume point: a byte copy of the model it resumes
        from, named in ``metadata.json`` (the commit point). Then every model file but that
        one loses its optimizer: the named models, and ``latest.keras`` / ``best.keras``,
        copied again from them so that they stay byte for byte the same files (one blob in
        git). A kill at any step leaves the folder resumable, and running this again
        finishes the work; on a converted folder it changes nothing.
        """
        metadata = self.read_metadata()
        rewritten: list[str] = []
        if "resume" not in metadata:
            source = self.path / metadata["model"]
            model = load_keras_file(source, str(source))  # it must be the resume point it was
            if getattr(model, "optimizer", None) is None:
                raise CheckpointError(f"{source}: {_NO_OPTIMIZER}")
            resume = self.resume_name(metadata["iteration"])
            atomic_copy(source, self.path / resume)
            metadata = {**metadata, "format": FORMAT, "resume": resume}
            text = json.dumps(metadata, indent=2, default=json_default) + "\n"
            atomic_write_text(self.path / METADATA_FILE, text)
            rewritten.append(METADATA_FILE)
        rewritten += self._drop_optimizers(metadata)
        for copy, source in ((LATEST_FILE, metadata["model"]), (BEST_FILE, metadata["best"])):
            if source in (copy, resume_point(metadata)):  # a slimmed folder (slim_run)
                continue
            copy_file, source_file = self.path / copy, self.path / source
            if not copy_file.is_file() or copy_file.read_bytes() != source_file.read_bytes():
                atomic_copy(source_file, copy_file)
                rewritten.append(copy)
        self._remove_unused(metadata)
        return rewritten

    def _remove_unused(self, metadata: dict[str, Any]) -> None:
        """Delete resume files, buffers, models and temp files that ``metadata`` does not
        need."""
        needed = {resume_point(metadata), metadata["model"], metadata["buffer"], metadata["best"]}
        needed.update(metadata.get("kept_models", []))
        if metadata.get("paused"):
            needed.add(metadata["paused"])
        doomed: list[Path] = []
        doomed += [p for p in self.path.glob("resume_*.keras") if p.name not in needed]
        doomed += [p for p in self.path.glob("buffer_*.npz") if p.name not in needed]
        doomed += [p for p in self.path.glob("paused_*.npz") if p.name not in needed]
        models = self.path / MODELS_DIR
        doomed += [p for p in models.glob("iter_*.keras") if f"{MODELS_DIR}/{p.name}" not in needed]
        for file in doomed:
            with contextlib.suppress(FileNotFoundError):
                file.unlink()
        self.remove_temp_files()

    # ------------------------------------------- games paused between iterations (carry-over)
    def paused_name(self, iteration: int) -> str:
        return f"paused_{iteration:04d}.npz"

    def load_paused(self, metadata: dict[str, Any], game: Game) -> list[PausedGame]:
        """The games the checkpoint ``metadata`` paused (none if it names no file), checked
        against ``game`` (its initial position: they must replay from it): every problem is
        a one-line ``CheckpointError`` naming the file."""
        name = metadata.get("paused")
        if name is None:
            return []
        check_inside(name, self.path.resolve(), f"{self.path / METADATA_FILE}: 'paused'")
        return read_paused(self.path / name, game, metadata.get("iteration"))

    # --------------------------------------------------- games of an interrupted iteration
    def save_pending(self, pending: PendingGames) -> None:
        """Keep ``pending`` in ``pending_selfplay.npz`` (atomically: a kill leaves the
        earlier file or this one)."""
        atomic_write_bytes(self.path / PENDING_FILE, pending_bytes(pending))

    def load_pending(
        self, plane_shape: tuple[int, ...] | None = None, num_actions: int | None = None
    ) -> PendingGames | None:
        """The kept games, or None if there are none; a damaged file, or one of examples
        shaped otherwise than ``plane_shape`` and ``num_actions``, is a one-line
        ``CheckpointError``."""
        file = self.path / PENDING_FILE
        if not file.is_file():
            return None
        pending = read_pending(file)
        planes, actions = tuple(pending.planes.shape[1:]), pending.policies.shape[1:]
        if (plane_shape is not None and planes != tuple(plane_shape)) or (
            num_actions is not None and actions != (num_actions,)
        ):
            raise CheckpointError(
                f"{file}: its games are not of this run's game (planes {list(planes)}, "
                f"{list(actions)} actions); remove the file to play them again"
            )
        return pending

    def discard_pending(self) -> None:
        """Forget the kept games (a checkpoint holds them now)."""
        try:
            (self.path / PENDING_FILE).unlink()
        except FileNotFoundError:
            return
        fsync_dir(self.path)

    # ------------------------------------------------------------------------ loading
    def load(
        self, capacity: int | None = None, *, compile: bool = True
    ) -> tuple[keras.Model, ReplayBuffer, dict[str, Any]]:
        """The model, replay buffer and metadata of the saved checkpoint.

        The model is the resume point, with its optimizer's state (unless ``compile`` is
        false). ``capacity`` (default: the config's ``replay.capacity``) sizes the buffer; a
        smaller one keeps the most recent positions. Every problem raises a one-line
        ``CheckpointError`` naming the file.
        """
        metadata = self.read_metadata()
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
        model_file = self.path / resume_point(metadata)
        model = load_keras_file(model_file, str(model_file), compile=compile)
        # A resume point without an optimizer would have the trainer start a new one from
        # step 0, without a word; format 1 folders resume as they always did.
        if compile and "resume" in metadata and getattr(model, "optimizer", None) is None:
            raise CheckpointError(f"{model_file}: {_NO_OPTIMIZER}")
        check_model_fits(model, game, str(model_file))
        check_network_matches(model, config.network, str(self.path / CONFIG_FILE))
        buffer_file = self.path / metadata["buffer"]
        try:
            buffer = ReplayBuffer.load(
                buffer_file,
                config.replay.capacity if capacity is None else capacity,
                plane_shape=game.plane_shape,
                num_actions=game.num_actions,
                symmetries=symmetry_tables(game.symmetries, game.plane_shape, game.num_actions),
            )
        except ReplayBufferError as error:
            raise CheckpointError(str(error)) from None
        return model, buffer, metadata


_NO_OPTIMIZER = (
    "holds no optimizer state (a weights-only model), so the run cannot resume from it exactly"
)


def resume_point(metadata: dict[str, Any]) -> str:
    """The file of the checkpoint ``metadata`` that holds the optimizer's state: ``resume``,
    or in a format 1 folder the model."""
    return str(metadata.get("resume", metadata["model"]))


def _by_number(name: str) -> tuple[int, str]:
    """Sort key of numbered file names: iter_10000 comes after iter_9999."""
    return len(name), name


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


def _one_line_text(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
