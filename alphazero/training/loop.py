"""The training loop: self-play -> replay buffer -> trainer -> checkpoint, once per iteration.

Everything that decides what happens next (model and optimizer, buffer, counters, random
state) is in the checkpoint, so ``--resume`` continues exactly where a run stopped. A run
killed at any moment loses at most the iteration in flight; Ctrl-C keeps that iteration's
finished games too (``pending_selfplay.npz``), and ``--resume`` plays only the rest.

How a session starts (new or resumed) is in ``run_session``, the run's counters in
``run_state``, and each iteration's evaluation in ``run_evaluation``.
"""

from __future__ import annotations

import contextlib
import errno
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..network import tf_setup  # noqa: F401  (imports TensorFlow quietly, so it comes first)

# isort: split

from ..config import Config
from ..evaluation.run_evaluation import (
    BEST_RULE,
    check_model_opponents,
    evaluate_iteration,
    solved_positions_metrics,
)
from ..progress import bars as progress_bars
from ..progress.eta import format_seconds
from ..selfplay.pending import PendingGames
from ..selfplay.results import Examples, SelfPlayStats
from ..workers import SelfPlayInterrupted
from .checkpoints import RunDir
from .interrupts import (
    deferred_interrupt,
    interrupted_message,
    raise_if_interrupted,
    stop_on_ctrl_c,
)
from .metrics import append_metrics, machine, software, summary_line, write_tensorboard
from .run_errors import CheckpointError, TrainingDiverged
from .run_files import BEST_FILE, CONFIG_FILE, PENDING_FILE
from .run_guard import RunLock
from .run_state import RunState
from .session import Session, start_run


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C in the training phase: the steps it took are thrown away, for the checkpoint
    saves a network and its optimizer only at the iteration's end, with its games and
    counters (a network ahead of them would train those steps twice on resuming)."""

    def __init__(self, iteration: int, steps: int) -> None:
        self.iteration, self.steps = iteration, steps
        super().__init__(
            f"iteration {iteration}'s {steps} training step{'s' * (steps != 1)} so far are not "
            "kept: resuming takes them again, after its self-play games (which are kept)"
        )


def train(
    config: Config,
    run_path: Path,
    resume: bool = False,
    progress: bool = True,
    max_iterations: int | None = None,
    overwrite: bool = False,
    fresh_buffer: bool = False,
) -> RunState:
    """Train from ``config`` into ``run_path`` (or resume the run there).

    ``max_iterations`` stops after that many iterations of this call (for tests and for
    stretches of work of limited length); the run can be resumed later. A new run refuses a folder
    holding an earlier run's files, unless ``overwrite`` moves them aside. ``fresh_buffer``
    resumes with an empty replay buffer (a folder kept without its buffer). The run folder is
    locked while this runs: a second trainer on it stops with one line naming this one.
    """
    if resume and overwrite:
        raise ValueError("overwrite starts a new run: it cannot be combined with resume")
    if fresh_buffer and not resume:
        raise ValueError("fresh_buffer is for resuming: a new run starts with an empty buffer")
    if resume:
        RunDir.open(run_path)  # a missing folder: say so (the lock would create it)
    else:
        # Before the folder and the seed: a bad ladder creates nothing, and loading a model
        # draws random numbers.
        check_model_opponents(config)
    # From the start: a Ctrl-C that a finalizer swallows while the run loads or the workers
    # start is raised at the loop's first step.
    with RunLock(run_path), stop_on_ctrl_c():
        return _train(
            config, Path(run_path), resume, progress, max_iterations, overwrite, fresh_buffer
        )


def _train(
    config: Config,
    run_path: Path,
    resume: bool,
    progress: bool,
    max_iterations: int | None,
    overwrite: bool,
    fresh_buffer: bool,
) -> RunState:
    """``train``, holding the run folder's lock: start or resume, iterate, say how it ended."""
    start = start_run(config, run_path, resume, max_iterations, overwrite, fresh_buffer)
    if isinstance(start, RunState):  # a finished run: nothing to do
        return start
    session = Session.begin(start, progress)
    stop_at = session.config.iterations
    if max_iterations is not None:
        stop_at = min(stop_at, session.state.iteration + max_iterations)
    try:
        with session.tracker.active():
            while session.state.iteration < stop_at:
                raise_if_interrupted()
                _iteration(session)
    except KeyboardInterrupt as stop:
        if session.in_flight is not None:
            _keep(session.run, session.in_flight)
        if isinstance(stop, TrainingInterrupted) and stop.steps:
            print(f"\n{stop}", file=sys.stderr, end="")
        print(f"\n{interrupted_message(session.run.path)}", file=sys.stderr)
        return session.state
    finally:
        session.backend.close()
    progress_bars.write(_end_line(session, max_iterations), enabled=progress)
    return session.state


def _iteration(s: Session) -> None:
    """One iteration: self-play, training, evaluation, then the checkpoint and the metrics."""
    config, state, tracker = s.config, s.state, s.tracker
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
        rated, is_best = evaluate_iteration(
            s.model, config, s.new_game, state, iteration, s.progress
        )
    evaluation_seconds = time.perf_counter() - evaluation_start

    state.iteration = iteration
    state.games += stats.games
    state.positions += len(examples)
    state.selfplay_seconds += stats.seconds
    state.train_seconds += train_seconds
    counted, s.cpu_mark = s.cpu_mark, time.process_time()  # what follows counts in the next
    state.cpu_seconds += s.cpu_mark - counted
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
        "machine": machine(),  # CPU-seconds compare only on the same kind of machine
        "software": software(),
    }
    if rated is not None:
        record["evaluation"] = rated
        record["evaluation_seconds"] = evaluation_seconds
    if config.evaluation.solved_positions:
        record["connect4_positions"] = solved_positions_metrics(s.inference)
    _save(s, record, is_best)


def _self_play(
    s: Session, iteration: int, kept: PendingGames | None, to_play: int
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
    s.in_flight = _pending(iteration, examples, stats, s.rng, complete=True)
    if stats.games:
        s.tracker.moves_per_game = stats.moves / stats.games
        if not s.tracker.estimate_shown:
            s.tracker.estimate_shown = True
            progress_bars.write(_first_estimate(s.config, iteration, stats), enabled=s.progress)
    s.buffer.add(examples.planes, examples.policies, examples.values)
    return examples, stats


def _first_estimate(config: Config, iteration: int, stats: SelfPlayStats) -> str:
    """The run's self-play time at the pace of this session's first games: what the run will
    cost, said before its first iteration ends (the run ETA needs a whole timed iteration)."""
    first = f"first games: {stats.games:,} in {format_seconds(stats.seconds)}"
    left = config.iterations - iteration  # this iteration's games are played
    if not left:
        return f"{first}; the run's last iteration, so its self-play is done"
    seconds = stats.seconds / stats.games * config.selfplay.games_per_iteration * left
    return (
        f"{first}; at that pace self-play alone takes about "
        f"{format_seconds(seconds)} for the {_iterations(left)} left (training "
        "and evaluation add to it; the run ETA follows once an iteration has been timed)"
    )


def _play(s: Session, to_play: int) -> tuple[Examples, SelfPlayStats]:
    """``to_play`` games through the backend."""
    if not to_play:
        return Examples.empty(s.new_game()), SelfPlayStats()
    return s.backend.play(to_play, s.rng)


def _train_network(
    s: Session, iteration: int, window: int
) -> tuple[dict[str, float], float, float]:
    """Train on the buffer's newest ``window`` examples once it holds enough:
    ``(losses, wall seconds, CPU seconds)``; a diverged network stops the run unsaved."""
    config = s.config
    train_metrics: dict[str, float] = {}
    train_start = time.perf_counter()
    train_cpu_start = time.process_time()
    enough = len(s.buffer) >= max(config.train.min_positions, 1)  # 0 still needs one to sample
    if enough and config.train.steps_per_iteration:
        with s.tracker.phase("train"):
            try:
                train_metrics = s.trainer.train(
                    lambda n: s.buffer.sample(n, s.rng, window),
                    config.train.steps_per_iteration,
                    s.progress,
                )
            except KeyboardInterrupt:
                raise TrainingInterrupted(iteration, s.trainer.steps_taken) from None
        s.state.train_steps += config.train.steps_per_iteration
        _check_finite(train_metrics, iteration, s.run)
    else:
        s.tracker.skip("train")
    return train_metrics, time.perf_counter() - train_start, time.process_time() - train_cpu_start


def _save(s: Session, record: dict[str, Any], is_best: bool) -> None:
    """The checkpoint, then the metrics: ``metrics.jsonl``, TensorBoard, the summary line."""
    config, state = s.config, s.state
    iteration = record["iteration"]
    if is_best:
        state.best_cost = {"games": state.games, "cpu_seconds": state.cpu_seconds}
    if is_best or state.best_rule is None:
        state.best_rule = BEST_RULE if config.evaluation.every else "latest (evaluation.every is 0)"
    state.wall_seconds += s.tracker.end_iteration()
    meta = {
        **state.to_metadata(),
        "game": {"name": config.game.name, "params": dict(config.game.params)},
        "metrics": record,
        "rng": s.rng.bit_generator.state,
    }
    keep = bool(config.checkpoint.keep_every) and iteration % config.checkpoint.keep_every == 0
    with deferred_interrupt(), _disk_full_is_one_line(s.run, iteration):
        s.run.save(iteration, s.model, s.buffer, meta, keep=keep, is_best=is_best)
        s.in_flight = None  # the checkpoint holds the games now
        s.run.discard_pending()
        append_metrics(s.run.path, record)
        write_tensorboard(s.run.path, record)
    progress_bars.write(summary_line(record, config.iterations, s.tracker), enabled=s.progress)


@contextlib.contextmanager
def _disk_full_is_one_line(run: RunDir, iteration: int) -> Iterator[None]:
    """A full disk (or quota) while saving ``iteration`` becomes one ``CheckpointError``
    line: what the folder holds, and how to go on. A save writes every file under a
    temporary name and removes it on failure, so the last checkpoint is whole either way."""
    try:
        yield
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        try:
            held = run.read_metadata()["iteration"] if run.has_checkpoint else None
        except CheckpointError:
            held = None
        if held is None:
            kept = "nothing was saved yet; free some space and start the run again"
        else:
            lost = "" if held == iteration else f"iteration {iteration} was not saved; "
            kept = (
                f"{lost}the checkpoint of iteration {held} was kept whole. Free some space, "
                f"then continue with: python train.py --resume --run-dir {run.path}"
            )
        raise CheckpointError(
            f"the disk is full ({error.strerror}) while saving iteration {iteration} in "
            f"{run.path}: {kept}"
        ) from None


def _end_line(s: Session, max_iterations: int | None) -> str:
    """What a session that was not interrupted leaves behind, and how to go on."""
    run, config, state = s.run, s.config, s.state
    if state.iteration >= config.iterations:
        return (
            f"finished: {run.path} has trained its {_iterations(config.iterations)} "
            f"({state.games} games); the best model is {run.path / BEST_FILE}"
        )
    return (
        f"stopped after this session's {_iterations(max_iterations or 0)}: {run.path} holds "
        f"iteration {state.iteration} of {config.iterations}; continue with: "
        f"python train.py --resume --run-dir {run.path}"
    )


def _iterations(count: int) -> str:
    """``1 iteration``, ``2 iterations``."""
    return f"{count} iteration{'s' * (count != 1)}"


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
) -> PendingGames:
    return PendingGames(
        iteration=iteration,
        planes=examples.planes,
        policies=examples.policies,
        values=examples.values,
        stats=stats.to_dict(),
        rng=rng.bit_generator.state,
        complete=complete,
    )


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


__all__ = ["train"]
