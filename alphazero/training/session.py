"""Where a training session starts: a new run, or the checkpoint of one resumed (its model,
buffer, counters, random state and kept games), and what its iterations use
(trainer, inference, self-play backend, progress).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..network import tf_setup  # noqa: F401  (imports TensorFlow quietly, so it comes first)

# isort: split

import keras

from ..config import Config
from ..evaluation.run_evaluation import check_model_opponents, top_score_from_metrics
from ..games import Game, make
from ..games.base import DIHEDRAL_OPS
from ..network.model import InferenceModel, build_network
from ..progress import bars as progress_bars
from ..progress.eta import RunProgress
from ..selfplay.pending import PendingGames
from ..workers import SelfPlayBackend, make_backend
from .buffer_format import symmetry_tables
from .checkpoints import RunDir
from .metrics import last_speeds, read_records, repair_metrics
from .replay_buffer import ReplayBuffer
from .run_errors import CheckpointError
from .run_files import CONFIG_FILE, METADATA_FILE, PENDING_FILE, describe_files
from .run_guard import move_aside
from .run_state import RunState
from .trainer import Trainer


@dataclass
class Start:
    """Where a session starts: the run folder, its config, model, buffer, counters and random
    state, and the line that says so."""

    run: RunDir
    config: Config
    model: Any
    buffer: ReplayBuffer
    state: RunState
    rng: np.random.Generator
    line: str


def start_run(
    config: Config,
    run_path: Path,
    resume: bool,
    max_iterations: int | None,
    overwrite: bool,
    fresh_buffer: bool = False,
) -> Start | RunState:
    """Resume the checkpoint in ``run_path``, or start a new run there (also when the folder
    holds only the first iteration's kept games); the saved state of a finished run.
    ``fresh_buffer`` resumes with an empty replay buffer, recorded in the run's state."""
    run = RunDir.open(run_path) if resume else None
    # Ctrl-C in the first iteration leaves only its kept games: the run starts from its
    # config as a new one would (same seed, same network), with those games.
    first_kept = run is not None and run.earlier_run_files() == [PENDING_FILE]
    if run is not None and not first_kept:
        run.remove_temp_files()  # a kill's leftovers (no one else saves: we hold the lock)
        config = run.load_config()
        model, buffer, meta = run.load(fresh_buffer=fresh_buffer)
        state = RunState.from_metadata(meta)
        if state.iteration >= config.iterations:  # nothing to do: say so, and why
            print(
                _finished_line(run.path, state.iteration, config, max_iterations), file=sys.stderr
            )
            return state
        check_model_opponents(config)
        _apply_l2(model, config.network.l2)
        repair_metrics(run.path, state.iteration, meta.get("metrics"))
        if state.top_score is None and state.elo_history:  # saved before it was recorded
            state.top_score = top_score_from_metrics(read_records(run.path))
        if "rng" not in meta:  # the schema checks its type, but a hand-made one may lack it
            raise CheckpointError(f"{run.path / METADATA_FILE}: missing key 'rng'")
        rng = np.random.default_rng()
        rng.bit_generator.state = meta["rng"]
        line = f"resuming {run.path} at iteration {state.iteration}"
        if fresh_buffer:
            state.fresh_buffers.append(state.iteration)
            line += " with an empty replay buffer (--fresh-buffer)"
        return Start(run, config, model, buffer, state, rng, line)
    if run is not None:
        run.remove_temp_files()
        config = run.load_config()
        check_model_opponents(config)
        started = f"resuming {run.path} at iteration 0"
    else:
        if overwrite and (moved := move_aside(run_path)) is not None:
            aside, files = moved
            print(f"--overwrite: moved {describe_files(files)} into {aside}", file=sys.stderr)
        run = RunDir.create(run_path, config)
        started = f"new run in {run.path}"
    keras.utils.set_random_seed(config.seed)
    game = make(config.game.name, **config.game.params)
    model = build_network(game.plane_shape, game.num_actions, config.network)
    buffer = ReplayBuffer(
        config.replay.capacity,
        game.plane_shape,
        game.num_actions,
        symmetries=symmetry_tables(game.symmetries, game.plane_shape, game.num_actions),
    )
    return Start(
        run, config, model, buffer, RunState(), np.random.default_rng(config.seed), started
    )


@dataclass
class Session:
    """A started run and what its iterations use: trainer, inference, self-play backend,
    progress, and the games of an interrupted iteration."""

    run: RunDir
    config: Config
    model: Any
    buffer: ReplayBuffer
    state: RunState
    rng: np.random.Generator
    progress: bool
    trainer: Trainer
    inference: InferenceModel
    backend: SelfPlayBackend
    tracker: RunProgress
    pending: PendingGames | None
    """Games kept by an earlier Ctrl-C, for the first iteration to go on from."""
    in_flight: PendingGames | None = None
    """The iteration's finished games, kept on disk if Ctrl-C comes before its checkpoint."""
    cpu_mark: float = field(default_factory=time.process_time)
    """Where this process's CPU time is counted from: where the last iteration's count
    ended, so that its solved positions and its checkpoint count in the next."""

    @classmethod
    def begin(cls, start: Start, progress: bool) -> Session:
        """Find kept games, say how the run starts, and make the trainer and the backend."""
        run, config, state, rng = start.run, start.config, start.state, start.rng
        game = make(config.game.name, **config.game.params)
        pending = _kept_games(run, game, config.selfplay.games_per_iteration, state.iteration)
        started = start.line
        if pending is not None:
            rng.bit_generator.state = pending.rng  # these games' own draws are behind it
            started += f"; {_kept_line(pending, config)}"
        progress_bars.write(started, enabled=progress)
        progress_bars.write(plan_line(config, start.model), enabled=progress)
        trainer = Trainer(start.model, config.train)
        inference = InferenceModel(
            start.model,
            max_batch=config.selfplay.parallel_games,
            precision=config.search.inference_precision,
        )
        backend = make_backend(config, start.model, inference, progress)
        tracker = RunProgress(config.iterations, *last_speeds(run.path, config))
        return cls(
            run=run,
            config=config,
            model=start.model,
            buffer=start.buffer,
            state=state,
            rng=rng,
            progress=progress,
            trainer=trainer,
            inference=inference,
            backend=backend,
            tracker=tracker,
            pending=pending,
        )

    def new_game(self) -> Game:
        return make(self.config.game.name, **self.config.game.params)


def plan_line(config: Config, model: Any) -> str:
    """What the run will do, in one line, before it starts: what a person needs to judge
    the cost of the command they ran."""
    search, selfplay, train = config.search, config.selfplay, config.train
    moves = f"{search.algorithm.upper()}, {search.simulations:,} simulations a move"
    if selfplay.fast_simulations is not None:
        moves += f" ({selfplay.fast_simulations:,} in fast moves)"
    training = (
        f"{train.steps_per_iteration:,} training steps of {train.batch_size:,} positions"
        if train.steps_per_iteration
        else "no training"
    )
    network, rated = config.network, config.evaluation
    evaluation = (
        f"evaluation every {rated.every} against {', '.join(rated.opponents)}"
        if rated.every and rated.opponents
        else "no evaluation"
    )
    return (
        f"plan: {config.iterations:,} iteration{'s' * (config.iterations != 1)} of "
        f"{selfplay.games_per_iteration:,} self-play "
        f"games ({moves}) and {training}; network {network.blocks} residual "
        f"block{'s' * (network.blocks != 1)} x {network.filters} channels "
        f"({model.count_params():,} weights); {evaluation}"
    )


def _kept_games(run: RunDir, game: Game, games: int, saved: int) -> PendingGames | None:
    """The kept games of the iteration after checkpoint ``saved``, if any. A file of an
    iteration the checkpoint holds (a crash after the save, before its removal) goes; one of
    an iteration beyond the next (a checkpoint put back from a backup?) is an error, as no
    network of this run played them. It may hold at most what ``games`` games make: every
    position of the longest game, in every symmetric copy."""
    most = games * game.plies[1] * len(DIHEDRAL_OPS)
    pending = run.load_pending(game.plane_shape, game.num_actions, most)
    if pending is None or pending.iteration == saved + 1:
        return pending
    if pending.iteration <= saved:
        run.discard_pending()
        return None
    raise CheckpointError(
        f"{run.path / PENDING_FILE}: holds games of iteration {pending.iteration}, but the "
        f"checkpoint holds iteration {saved}; remove the file to go on from iteration {saved + 1}"
    )


def _kept_line(pending: PendingGames, config: Config) -> str:
    if pending.complete:
        return f"iteration {pending.iteration}'s {pending.games} games were played before the stop"
    return (
        f"{pending.games} of iteration {pending.iteration}'s "
        f"{config.selfplay.games_per_iteration} games were played before the stop"
    )


def _finished_line(run_path: Path, done: int, config: Config, max_iterations: int | None) -> str:
    """Why resuming a finished run does nothing, and what would make it train on."""
    line = (
        f"{run_path} has finished its {config.iterations} "
        f"iteration{'s' * (config.iterations != 1)}"
        + (f" (it holds iteration {done})" if done != config.iterations else "")
        + f"; raise `iterations` in {run_path / CONFIG_FILE} to train further"
    )
    if max_iterations is not None:  # people read --iterations as the run's total
        line += (
            f" (--iterations {max_iterations} limits this session's iterations, it does not "
            f"raise the run's total)"
        )
    return line


def _apply_l2(model: Any, l2: float) -> None:
    """Give a resumed model the config's ``network.l2``.

    Unlike the network's shape (``RunDir.load`` refuses a changed one), the L2 penalty is a
    training setting like the learning rate: the weights fit any value, so an edited one
    takes effect. Keras reads the penalty from each kernel (``model.losses``) and saves the
    layer's ``kernel_regularizer``, so both change.
    """
    for layer in model.layers:
        if not hasattr(layer, "kernel_regularizer") or getattr(layer, "kernel", None) is None:
            continue
        current = layer.kernel_regularizer
        if float(getattr(current, "l2", 0.0)) == l2:
            continue
        regularizer = keras.regularizers.L2(l2) if l2 > 0 else None
        layer.kernel_regularizer = regularizer
        layer.kernel.regularizer = regularizer
