"""The training loop: self-play -> replay buffer -> trainer -> checkpoint, once per iteration.

Everything that decides what happens next (model and optimizer, buffer, counters, random
state) is in the checkpoint, so ``--resume`` continues exactly where a run stopped. A run
killed at any moment loses at most the iteration in flight; Ctrl-C keeps that iteration's
finished games too (``pending_selfplay.npz``), and ``--resume`` plays only the rest.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import tf_setup  # noqa: F401  (imports TensorFlow quietly, so it comes first)

# isort: split

import keras

from . import evaluation  # called as evaluation.evaluate: tests replace it
from . import progress as progress_bars
from .checkpoints import (
    BEST_FILE,
    CONFIG_FILE,
    PENDING_FILE,
    CheckpointError,
    PendingGames,
    RunDir,
    TrainingDiverged,
    describe_files,
    load_model,
)
from .config import Config
from .games import Game, make
from .interrupts import deferred_interrupt, interrupted_message
from .metrics import append_metrics, last_speeds, repair_metrics, summary_line, write_tensorboard
from .network import InferenceModel, build_network
from .paused import PausedGame
from .paused import check as check_paused
from .player_specs import model_spec_parts
from .progress import RunProgress
from .replay_buffer import ReplayBuffer
from .run_guard import RunLock, move_aside
from .selfplay import Examples, SelfPlayStats
from .solved_positions import evaluate_network
from .trainer import Trainer
from .workers import SelfPlayBackend, SelfPlayInterrupted, make_backend


@dataclass
class RunState:
    """Counters carried from one iteration to the next (and across a resume)."""

    iteration: int = 0
    games: int = 0
    positions: int = 0
    train_steps: int = 0
    selfplay_seconds: float = 0.0
    train_seconds: float = 0.0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    """Wall time of the saved iterations (an interrupted one's lost part not counted)."""
    ladder: dict[str, float] | None = None
    """Elo ratings of the evaluation opponents, measured once per run."""
    best_elo: float | None = None
    elo_history: list[tuple[int, float]] = field(default_factory=list)
    best_rule: str | None = None
    """How best.keras was chosen; a hand-written one (a model picked by other measures) stays
    until the run picks a new best itself."""
    best_cost: dict[str, float] | None = None
    """Self-play ``games`` and ``cpu_seconds`` the run had spent when best.keras was saved
    (None in runs from before it was recorded)."""

    def to_metadata(self) -> dict[str, Any]:
        return {
            "iteration": self.iteration,
            "games": self.games,
            "positions": self.positions,
            "train_steps": self.train_steps,
            "timings": {
                "selfplay_seconds": self.selfplay_seconds,
                "train_seconds": self.train_seconds,
                "cpu_seconds": self.cpu_seconds,
                "wall_seconds": self.wall_seconds,
            },
            "ladder": self.ladder,
            "best_elo": self.best_elo,
            "elo_history": [list(item) for item in self.elo_history],
            "best_rule": self.best_rule,
            "best_cost": self.best_cost,
        }

    @classmethod
    def from_metadata(cls, meta: dict[str, Any]) -> RunState:
        timings = meta.get("timings", {})
        selfplay, train = timings.get("selfplay_seconds", 0.0), timings.get("train_seconds", 0.0)
        return cls(
            iteration=int(meta["iteration"]),
            games=int(meta.get("games", 0)),
            positions=int(meta.get("positions", 0)),
            train_steps=int(meta.get("train_steps", 0)),
            selfplay_seconds=float(timings.get("selfplay_seconds", 0.0)),
            train_seconds=float(timings.get("train_seconds", 0.0)),
            cpu_seconds=float(timings.get("cpu_seconds", 0.0)),
            # Runs from before it was recorded: their self-play and training, most of it.
            wall_seconds=float(timings.get("wall_seconds", selfplay + train)),
            ladder=meta.get("ladder"),
            best_elo=meta.get("best_elo"),
            elo_history=[(int(i), float(e)) for i, e in meta.get("elo_history", [])],
            best_rule=meta.get("best_rule"),
            best_cost=meta.get("best_cost"),
        )


def train(
    config: Config,
    run_path: Path,
    resume: bool = False,
    progress: bool = True,
    max_iterations: int | None = None,
    overwrite: bool = False,
) -> RunState:
    """Train from ``config`` into ``run_path`` (or resume the run there).

    ``max_iterations`` stops after that many iterations of this call (for tests and for
    sittings of limited length); the run can be resumed later. A new run refuses a folder
    holding an earlier run's files, unless ``overwrite`` moves them aside. The run folder is
    locked while this runs: a second trainer on it stops with one line naming this one.
    """
    if resume and overwrite:
        raise ValueError("overwrite starts a new run: it cannot be combined with resume")
    if resume:
        RunDir.open(run_path)  # a missing folder: say so (the lock would create it)
    else:
        # Before the folder and the seed: a bad ladder creates nothing, and loading a model
        # draws random numbers.
        _check_model_opponents(config)
    with RunLock(run_path):
        return _train(config, Path(run_path), resume, progress, max_iterations, overwrite)


def _train(
    config: Config,
    run_path: Path,
    resume: bool,
    progress: bool,
    max_iterations: int | None,
    overwrite: bool,
) -> RunState:
    """``train``, holding the run folder's lock: start or resume, iterate, say how it ended."""
    start = _start(config, run_path, resume, max_iterations, overwrite)
    if isinstance(start, RunState):  # a finished run: nothing to do
        return start
    session = _Session.begin(start, progress)
    stop_at = session.config.iterations
    if max_iterations is not None:
        stop_at = min(stop_at, session.state.iteration + max_iterations)
    try:
        with session.tracker.active():
            while session.state.iteration < stop_at:
                _iteration(session)
    except KeyboardInterrupt:
        if session.in_flight is not None:
            _keep(session.run, session.in_flight)
        print(f"\n{interrupted_message(session.run.path)}", file=sys.stderr)
        return session.state
    finally:
        session.backend.close()
    _log(progress, _end_line(session, max_iterations))
    return session.state


@dataclass
class _Start:
    """Where a session starts: the run folder, its config, model, buffer, counters and random
    state, and the line that says so."""

    run: RunDir
    config: Config
    model: Any
    buffer: ReplayBuffer
    state: RunState
    rng: np.random.Generator
    line: str
    paused: list[PausedGame] = field(default_factory=list)
    """The games the checkpoint paused (``selfplay.carry_over``), checked against the game."""


def _start(
    config: Config, run_path: Path, resume: bool, max_iterations: int | None, overwrite: bool
) -> _Start | RunState:
    """Resume the checkpoint in ``run_path``, or start a new run there (also when the folder
    holds only the first iteration's kept games); the saved state of a finished run."""
    run = RunDir.open(run_path) if resume else None
    # Ctrl-C in the first iteration leaves only its kept games: the run starts from its
    # config as a new one would (same seed, same network), with those games.
    first_kept = run is not None and run.earlier_run_files() == [PENDING_FILE]
    if run is not None and not first_kept:
        run.remove_temp_files()  # a kill's leftovers (no one else saves: we hold the lock)
        config = run.load_config()
        model, buffer, meta = run.load()
        state = RunState.from_metadata(meta)
        if state.iteration >= config.iterations:  # nothing to do: say so, and why
            print(
                _finished_line(run.path, state.iteration, config, max_iterations), file=sys.stderr
            )
            return state
        _check_model_opponents(config)
        _apply_l2(model, config.network.l2)
        repair_metrics(run.path, state.iteration)
        rng = np.random.default_rng()
        rng.bit_generator.state = meta["rng"]
        return _Start(
            run,
            config,
            model,
            buffer,
            state,
            rng,
            f"resuming {run.path} at iteration {state.iteration}",
            # Checked now, before any worker starts: a bad file is one line, not a crash.
            paused=_checkpoint_paused(run, config, meta),
        )
    if run is not None:
        run.remove_temp_files()
        config = run.load_config()
        _check_model_opponents(config)
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
    buffer = ReplayBuffer(config.replay.capacity, game.plane_shape, game.num_actions)
    return _Start(
        run, config, model, buffer, RunState(), np.random.default_rng(config.seed), started
    )


@dataclass
class _Session:
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
    paused: list[PausedGame] | None = None
    """With ``selfplay.carry_over``: the games paused at the end of the last self-play, for
    the next to go on with (and the checkpoint to keep); None without it."""

    @classmethod
    def begin(cls, start: _Start, progress: bool) -> _Session:
        """Find kept games, say how the run starts, and make the trainer and the backend."""
        run, config, state, rng = start.run, start.config, start.state, start.rng
        game = make(config.game.name, **config.game.params)
        pending = _kept_games(run, game, state.iteration)
        started = start.line
        if pending is not None:
            rng.bit_generator.state = pending.rng  # these games' own draws are behind it
            started += f"; {_kept_line(pending, config)}"
        _log(progress, started)
        trainer = Trainer(start.model, config.train)
        inference = InferenceModel(
            start.model,
            max_batch=config.selfplay.parallel_games * config.search.leaves_per_tree,
            precision=config.search.inference_precision,
        )
        paused = _carried(run, config, start.paused, pending, game)
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
            paused=paused,
        )

    def new_game(self) -> Game:
        return make(self.config.game.name, **self.config.game.params)


def _iteration(s: _Session) -> None:
    """One iteration: self-play, training, evaluation, then the checkpoint and the metrics."""
    config, state, tracker = s.config, s.state, s.tracker
    cpu_start = time.process_time()
    iteration = state.iteration + 1
    kept, s.pending = s.pending, None
    to_play = config.selfplay.games_per_iteration
    if kept is not None:
        to_play = 0 if kept.complete else max(0, to_play - kept.games)
    kept_stats = SelfPlayStats.from_dict(kept.stats) if kept is not None else None
    tracker.start_iteration(
        iteration,
        _plan(config, iteration, to_play),
        state.wall_seconds,
        spent=kept_stats.seconds if kept_stats is not None else 0.0,
    )
    examples, stats = _self_play(s, iteration, kept, to_play)
    window = config.replay.window(state.positions + len(examples))
    train_metrics, train_seconds, train_cpu_seconds = _train_network(s, iteration, window)
    evaluation_start = time.perf_counter()
    with tracker.phase("evaluation"):
        rated, is_best = _evaluate(s.model, config, s.new_game, state, iteration, s.progress)
    evaluation_seconds = time.perf_counter() - evaluation_start

    state.iteration = iteration
    state.games += stats.games
    state.positions += len(examples)
    state.selfplay_seconds += stats.seconds
    state.train_seconds += train_seconds
    state.cpu_seconds += time.process_time() - cpu_start
    if not s.backend.in_process:  # the workers' CPU is not this process's
        state.cpu_seconds += stats.cpu_seconds
    elif kept_stats is not None:  # an earlier process's, for the kept games
        state.cpu_seconds += kept_stats.cpu_seconds
    record = {
        "iteration": iteration,
        "games": state.games,
        "positions": state.positions,
        "buffer": len(s.buffer),
        "window": window,
        "selfplay": stats.summary(),
        "train": train_metrics,
        "train_seconds": train_seconds,
        "train_cpu_seconds": train_cpu_seconds,
        "cpu_seconds": state.cpu_seconds,
    }
    if rated is not None:
        record["evaluation"] = rated
        record["evaluation_seconds"] = evaluation_seconds
    if config.evaluation.solved_positions:
        record["connect4_positions"] = _solved_positions(s.inference)
    if s.paused is not None:  # games in flight at the iteration's end, to go on in the next
        record["selfplay"]["paused"] = len(s.paused)
    _save(s, record, is_best)


def _self_play(
    s: _Session, iteration: int, kept: PendingGames | None, to_play: int
) -> tuple[Examples, SelfPlayStats]:
    """The iteration's games (after any kept ones), added to the buffer; on Ctrl-C the
    finished ones become ``in_flight``, for ``_train`` to keep."""
    with s.tracker.phase("self-play"):
        try:
            examples, stats = _play(s, to_play)
        except SelfPlayInterrupted as stop:
            if stop.stats.games:  # else the kept file (if any) is still right
                examples, stats = _after(kept, stop.examples, stop.stats, s.new_game)
                s.in_flight = _pending(iteration, examples, stats, s.rng, complete=False)
            raise
    examples, stats = _after(kept, examples, stats, s.new_game)
    s.in_flight = _pending(iteration, examples, stats, s.rng, complete=True, paused=s.paused)
    if stats.games:
        s.tracker.moves_per_game = stats.moves / stats.games
    s.buffer.add(examples.planes, examples.policies, examples.values)
    return examples, stats


def _play(s: _Session, to_play: int) -> tuple[Examples, SelfPlayStats]:
    """``to_play`` games through the backend; with carry-over, going on with the paused games
    and leaving those it pauses in ``s.paused``."""
    if not to_play:
        return Examples.empty(s.new_game()), SelfPlayStats()
    if s.paused is None:
        return s.backend.play(to_play, s.rng)
    examples, stats, s.paused = s.backend.play_carrying(to_play, s.rng, s.paused)
    return examples, stats


def _train_network(
    s: _Session, iteration: int, window: int
) -> tuple[dict[str, float], float, float]:
    """Train on the buffer's newest ``window`` examples once it holds enough:
    ``(losses, wall seconds, CPU seconds)``; a diverged network stops the run unsaved."""
    config = s.config
    train_metrics: dict[str, float] = {}
    train_start = time.perf_counter()
    train_cpu_start = time.process_time()
    if len(s.buffer) >= config.train.min_positions and config.train.steps_per_iteration:
        with s.tracker.phase("train"):
            train_metrics = s.trainer.train(
                lambda n: s.buffer.sample(n, s.rng, window),
                config.train.steps_per_iteration,
                s.progress,
            )
        s.state.train_steps += config.train.steps_per_iteration
        _check_finite(train_metrics, iteration, s.run)
    else:
        s.tracker.skip("train")
    return train_metrics, time.perf_counter() - train_start, time.process_time() - train_cpu_start


def _save(s: _Session, record: dict[str, Any], is_best: bool) -> None:
    """The checkpoint, then the metrics: ``metrics.jsonl``, TensorBoard, the summary line."""
    config, state = s.config, s.state
    iteration = record["iteration"]
    if is_best:
        state.best_cost = {"games": state.games, "cpu_seconds": state.cpu_seconds}
    if is_best or state.best_rule is None:
        state.best_rule = (
            "highest Elo against the evaluation ladder"
            if config.evaluation.every
            else "latest (evaluation.every is 0)"
        )
    state.wall_seconds += s.tracker.iteration_seconds()
    meta = {
        **state.to_metadata(),
        "game": {"name": config.game.name, "params": dict(config.game.params)},
        "metrics": record,
        "rng": s.rng.bit_generator.state,
    }
    keep = bool(config.checkpoint.keep_every) and iteration % config.checkpoint.keep_every == 0
    with deferred_interrupt():
        s.run.save(iteration, s.model, s.buffer, meta, keep=keep, is_best=is_best, paused=s.paused)
        s.in_flight = None  # the checkpoint holds the games now
        s.run.discard_pending()
        append_metrics(s.run.path, record)
    write_tensorboard(s.run.path, record)
    _log(s.progress, summary_line(record, config.iterations, s.tracker))


def _end_line(s: _Session, max_iterations: int | None) -> str:
    """What a session that was not interrupted leaves behind, and how to go on."""
    run, config, state = s.run, s.config, s.state
    if state.iteration >= config.iterations:
        return (
            f"finished: {run.path} has trained its {config.iterations} iterations "
            f"({state.games} games); the best model is {run.path / BEST_FILE}"
        )
    return (
        f"stopped after this session's {max_iterations} iterations: {run.path} holds "
        f"iteration {state.iteration} of {config.iterations}; continue with: "
        f"python train.py --resume --run-dir {run.path}"
    )


def _kept_games(run: RunDir, game: Game, saved: int) -> PendingGames | None:
    """The kept games of the iteration after checkpoint ``saved``, if any. A file of an
    iteration the checkpoint holds (a crash after the save, before its removal) goes; one of
    an iteration beyond the next (a checkpoint put back from a backup?) is an error, as no
    network of this run played them."""
    pending = run.load_pending(game.plane_shape, game.num_actions)
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


def _after(
    kept: PendingGames | None, examples: Examples, stats: SelfPlayStats, new_game: Any
) -> tuple[Examples, SelfPlayStats]:
    """The kept games (if any) followed by ``examples`` and ``stats``, played after them."""
    if kept is None:
        return examples, stats
    before = Examples(kept.planes, kept.policies, kept.values)
    combined = SelfPlayStats.from_dict(kept.stats)
    combined.add(stats, after=True)
    return Examples.concatenate([before, examples], new_game()), combined


def _pending(
    iteration: int,
    examples: Examples,
    stats: SelfPlayStats,
    rng: np.random.Generator,
    complete: bool,
    paused: list[PausedGame] | None = None,
) -> PendingGames:
    return PendingGames(
        iteration=iteration,
        planes=examples.planes,
        policies=examples.policies,
        values=examples.values,
        stats=stats.to_dict(),
        rng=rng.bit_generator.state,
        complete=complete,
        paused=paused,
    )


def _checkpoint_paused(run: RunDir, config: Config, meta: dict[str, Any]) -> list[PausedGame]:
    """The games the checkpoint paused, checked, when the run carries games over (a run that
    no longer does leaves them, and its next checkpoint removes the file)."""
    if not config.selfplay.carry_over:
        return []
    return run.load_paused(meta, make(config.game.name, **config.game.params))


def _carried(
    run: RunDir,
    config: Config,
    saved: list[PausedGame],
    pending: PendingGames | None,
    game: Game,
) -> list[PausedGame] | None:
    """The paused games the first iteration goes on with (None without carry-over).

    Games kept by a Ctrl-C supersede the checkpoint's: after the whole self-play (Ctrl-C in
    training or evaluation) they hold the games it paused, so the run goes on exactly; in
    the middle of it, the checkpoint's paused games had gone on, to end among the kept games
    or to be lost in flight, so none is carried (that iteration is then another run's, as
    any interrupted self-play is).
    """
    if not config.selfplay.carry_over:
        return None
    if pending is None:
        return list(saved)
    if not pending.complete or pending.paused is None:
        return []
    try:
        check_paused(pending.paused, game)
    except ValueError as error:
        raise CheckpointError(
            f"{run.path / PENDING_FILE}: {error}; remove the file to play the iteration again"
        ) from None
    return list(pending.paused)


def _keep(run: RunDir, pending: PendingGames) -> None:
    """Save the finished games of the interrupted iteration (a second Ctrl-C waits)."""
    try:
        with deferred_interrupt():
            run.save_pending(pending)
    except OSError as error:
        print(
            f"warning: could not keep iteration {pending.iteration}'s finished games in "
            f"{run.path / PENDING_FILE} ({error})",
            file=sys.stderr,
        )


def _plan(config: Config, iteration: int, games: int) -> dict[str, float]:
    """The iteration's phases and their units, for its ETA."""
    plan = {"self-play": float(games)}
    if config.train.steps_per_iteration:
        plan["train"] = float(config.train.steps_per_iteration)
    if config.evaluation.every and iteration % config.evaluation.every == 0:
        plan["evaluation"] = 1.0
    return plan


def _finished_line(run_path: Path, done: int, config: Config, max_iterations: int | None) -> str:
    """Why resuming a finished run does nothing, and what would make it train on."""
    line = (
        f"{run_path} has finished its {config.iterations} iterations"
        + (f" (it holds iteration {done})" if done != config.iterations else "")
        + f"; raise `iterations` in {run_path / CONFIG_FILE} to train further"
    )
    if max_iterations is not None:  # people read --iterations as the run's total
        line += (
            f" (--iterations {max_iterations} limits this session's iterations, it does not "
            f"raise the run's total)"
        )
    return line


def _check_finite(metrics: dict[str, float], iteration: int, run: RunDir) -> None:
    """Stop before a diverged network is saved: every later iteration would train on from
    NaN weights and write NaN losses, while the run looked alive."""
    bad = {k: v for k, v in metrics.items() if not math.isfinite(v)}
    if not bad:
        return
    shown = ", ".join(f"{k} {v}" for k, v in bad.items())
    if run.has_checkpoint:
        then = (
            f"{run.path} still holds iteration {iteration - 1}: lower train.learning_rate in "
            f"{run.path / CONFIG_FILE} and resume"
        )
    else:
        then = "nothing saved: lower train.learning_rate in the config and start again"
    raise TrainingDiverged(f"training diverged at iteration {iteration} ({shown}); {then}")


def _check_model_opponents(config: Config) -> None:
    """Load every ``model:`` opponent of the evaluation ladder now, so that one of another
    game (or a damaged file) stops the run at its start, not at its first evaluation hours in.
    (The config only checks that the path exists: it reads no models.)"""
    if not config.evaluation.every:
        return
    game = make(config.game.name, **config.game.params)
    for i, spec in enumerate(config.evaluation.opponents):
        if (parts := model_spec_parts(spec)) is not None:
            try:
                load_model(parts[0], game, compile=False)
            except CheckpointError as error:
                raise CheckpointError(f"evaluation.opponents[{i}]: {error}") from None


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


def _evaluate(
    model: Any,
    config: Config,
    new_game: Any,
    state: RunState,
    iteration: int,
    progress: bool,
) -> tuple[dict[str, Any] | None, bool]:
    """Evaluate when due; ``(evaluation record or None, whether this model is the best)``.

    Evaluation draws its randomness from seeds of its own, so the training run's random
    state (and hence ``--resume``) does not depend on it.
    """

    every = config.evaluation.every
    if not every:
        return None, True
    if iteration % every:
        return None, state.best_elo is None  # until a model is rated, best is the latest
    seed = config.seed * 1_000_003 + iteration
    if state.ladder is None:
        _log(progress, f"rating the evaluation ladder: {', '.join(config.evaluation.opponents)}")
        state.ladder = evaluation.calibrate_ladder(config.evaluation, new_game, seed, progress)
    result = evaluation.evaluate(
        model, config.evaluation, new_game, state.ladder, seed, progress, config.search.c_puct
    )
    result["ladder"] = state.ladder
    state.elo_history.append((iteration, result["elo"]))
    # Ties go to the later model: a sweep of the whole ladder rates at the bound and a model
    # that only draws a perfect player at its rating, whatever the margin, so equal ratings
    # are models the ladder cannot tell apart, and the later one has trained longer.
    is_best = state.best_elo is None or result["elo"] >= state.best_elo
    if is_best:
        state.best_elo = result["elo"]
    return result, is_best


def _solved_positions(inference: Any) -> dict[str, float]:

    moves, values = evaluate_network(inference)
    flat = {
        "policy_correct": moves["all"]["correct"],
        "policy_exact": moves["all"]["exact"],
        "value_result": values["all"]["result"],
        "value_mse": values["all"]["mse"],
    }
    for stage, shares in moves.items():
        if stage != "all":
            flat[f"policy_correct_{stage}"] = shares["correct"]
    return flat


def _log(enabled: bool, text: str) -> None:
    if enabled:
        progress_bars.write(text)


__all__ = ["CheckpointError", "RunState", "train"]
