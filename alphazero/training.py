"""The training loop: self-play -> replay buffer -> trainer -> checkpoint, once per iteration.

Everything that decides what happens next (model and optimizer, buffer, counters, random
state) is in the checkpoint, so ``--resume`` continues exactly where a run stopped. A run
killed at any moment loses at most the iteration in flight.
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

from .arena import format_elo
from .checkpoints import (
    BEST_FILE,
    CONFIG_FILE,
    CheckpointError,
    RunDir,
    TrainingDiverged,
    append_metrics,
    describe_files,
)
from .config import Config
from .games import make
from .interrupts import deferred_interrupt, interrupted_message
from .replay_buffer import ReplayBuffer
from .run_guard import RunLock, move_aside
from .workers import make_backend


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
        return cls(
            iteration=int(meta["iteration"]),
            games=int(meta.get("games", 0)),
            positions=int(meta.get("positions", 0)),
            train_steps=int(meta.get("train_steps", 0)),
            selfplay_seconds=float(timings.get("selfplay_seconds", 0.0)),
            train_seconds=float(timings.get("train_seconds", 0.0)),
            cpu_seconds=float(timings.get("cpu_seconds", 0.0)),
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
    """``train``, holding the run folder's lock."""
    import keras

    from .network import InferenceModel, build_network
    from .trainer import Trainer

    if resume:
        run = RunDir.open(run_path)
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
        _repair_metrics(run.path, state.iteration)
        rng = np.random.default_rng()
        rng.bit_generator.state = meta["rng"]
        _log(progress, f"resuming {run.path} at iteration {state.iteration}")
    else:
        if overwrite and (moved := move_aside(run_path)) is not None:
            aside, files = moved
            print(f"--overwrite: moved {describe_files(files)} into {aside}", file=sys.stderr)
        run = RunDir.create(run_path, config)
        keras.utils.set_random_seed(config.seed)
        game = make(config.game.name, **config.game.params)
        model = build_network(game.plane_shape, game.num_actions, config.network)
        buffer = ReplayBuffer(config.replay.capacity, game.plane_shape, game.num_actions)
        state = RunState()
        rng = np.random.default_rng(config.seed)
        _log(progress, f"new run in {run.path}")

    def new_game():
        return make(config.game.name, **config.game.params)

    trainer = Trainer(model, config.train)
    inference = InferenceModel(
        model,
        max_batch=config.selfplay.parallel_games * config.search.leaves_per_tree,
        precision=config.search.inference_precision,
    )
    backend = make_backend(config, model, inference, progress)
    stop_at = config.iterations
    if max_iterations is not None:
        stop_at = min(stop_at, state.iteration + max_iterations)

    try:
        while state.iteration < stop_at:
            cpu_start = time.process_time()
            iteration = state.iteration + 1

            examples, stats = backend.play(config.selfplay.games_per_iteration, rng)
            buffer.add(examples.planes, examples.policies, examples.values)

            train_metrics: dict[str, float] = {}
            train_start = time.perf_counter()
            train_cpu_start = time.process_time()
            window = config.replay.window(state.positions + len(examples))
            if len(buffer) >= config.train.min_positions and config.train.steps_per_iteration:
                train_metrics = trainer.train(
                    lambda n, window=window: buffer.sample(n, rng, window),
                    config.train.steps_per_iteration,
                    progress,
                )
                state.train_steps += config.train.steps_per_iteration
                _check_finite(train_metrics, iteration, run)
            train_seconds = time.perf_counter() - train_start
            train_cpu_seconds = time.process_time() - train_cpu_start

            evaluation, is_best = _evaluate(model, config, new_game, state, iteration, progress)

            state.iteration = iteration
            state.games += stats.games
            state.positions += len(examples)
            state.selfplay_seconds += stats.seconds
            state.train_seconds += train_seconds
            state.cpu_seconds += time.process_time() - cpu_start
            if not backend.in_process:  # the workers' CPU is not this process's
                state.cpu_seconds += stats.cpu_seconds
            record = {
                "iteration": iteration,
                "games": state.games,
                "positions": state.positions,
                "buffer": len(buffer),
                "window": window,
                "selfplay": stats.summary(),
                "train": train_metrics,
                "train_seconds": train_seconds,
                "train_cpu_seconds": train_cpu_seconds,
                "cpu_seconds": state.cpu_seconds,
            }
            if evaluation is not None:
                record["evaluation"] = evaluation
            if _tracks_solved_positions(config):
                record["connect4_positions"] = _solved_positions(inference)
            if is_best:
                state.best_cost = {"games": state.games, "cpu_seconds": state.cpu_seconds}
            if is_best or state.best_rule is None:
                state.best_rule = (
                    "highest Elo against the evaluation ladder"
                    if config.evaluation.every
                    else "latest (evaluation.every is 0)"
                )
            meta = {
                **state.to_metadata(),
                "game": {"name": config.game.name, "params": dict(config.game.params)},
                "metrics": record,
                "rng": rng.bit_generator.state,
            }
            keep = bool(config.checkpoint.keep_every) and (
                iteration % config.checkpoint.keep_every == 0
            )
            with deferred_interrupt():
                run.save(iteration, model, buffer, meta, keep=keep, is_best=is_best)
                append_metrics(run.path, record)
            _write_tensorboard(run.path, record)
            _log(progress, _summary_line(record))
    except KeyboardInterrupt:
        print(f"\n{interrupted_message(run.path)}", file=sys.stderr)
        return state
    finally:
        backend.close()
    if state.iteration >= config.iterations:
        _log(
            progress,
            f"finished: {run.path} has trained its {config.iterations} iterations "
            f"({state.games} games); the best model is {run.path / BEST_FILE}",
        )
    else:
        _log(
            progress,
            f"stopped after this session's {max_iterations} iterations: {run.path} holds "
            f"iteration {state.iteration} of {config.iterations}; continue with: "
            f"python train.py --resume --run-dir {run.path}",
        )
    return state


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
    from .checkpoints import load_model
    from .players import model_spec_parts

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
    import keras

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
    from .evaluation import ELO_BOUND, calibrate_ladder, evaluate

    every = config.evaluation.every
    if not every:
        return None, True
    if iteration % every:
        return None, state.best_elo is None  # until a model is rated, best is the latest
    seed = config.seed * 1_000_003 + iteration
    if state.ladder is None:
        _log(progress, f"rating the evaluation ladder: {', '.join(config.evaluation.opponents)}")
        state.ladder = calibrate_ladder(config.evaluation, new_game, seed, progress)
    result = evaluate(
        model, config.evaluation, new_game, state.ladder, seed, progress, config.search.c_puct
    )
    result["ladder"] = state.ladder
    state.elo_history.append((iteration, result["elo"]))
    # A sweep of the whole ladder rates at the bound, whatever the margin: the ladder can no
    # longer tell such models apart, and the later one has trained longer.
    is_best = state.best_elo is None or result["elo"] > state.best_elo or result["elo"] >= ELO_BOUND
    if is_best:
        state.best_elo = result["elo"]
    return result, is_best


def _tracks_solved_positions(config: Config) -> bool:
    """Standard Connect Four runs measure the raw network on the solved positions each
    iteration (one batched call): how often its top move is correct and its value reads the
    exact result, so both are seen to rise."""
    game = make(config.game.name, **config.game.params)
    return game.name == "connect4" and game.params == {"rows": 6, "cols": 7, "n_in_row": 4}


def _solved_positions(inference: Any) -> dict[str, float]:
    from .solved_positions import evaluate_network

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


def _repair_metrics(run_path: Path, iteration: int) -> None:
    """Drop what a crash can leave in ``metrics.jsonl``: a half-written last line, or lines
    of iterations the checkpoint does not hold."""
    import json

    from .checkpoints import atomic_write_text

    path = run_path / "metrics.jsonl"
    if not path.exists():
        return
    lines = path.read_text(encoding="utf-8").splitlines()
    kept = []
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("iteration", 0) <= iteration:
            kept.append(line)
    if kept != lines:
        atomic_write_text(path, "".join(f"{line}\n" for line in kept))


def _summary_line(record: dict[str, Any]) -> str:
    sp = record["selfplay"]
    tr = record["train"]
    losses = (
        f"policy loss {tr['policy_loss']:.3f}, value loss {tr['value_loss']:.3f}, "
        f"entropy {tr['policy_entropy']:.3f}"
        if tr
        else "no training yet (buffer filling)"
    )
    evaluation = ""
    if "evaluation" in record:
        scores = ", ".join(
            f"{spec} {r['score']:.0%}" for spec, r in record["evaluation"]["opponents"].items()
        )
        evaluation = f"; vs {scores}: Elo {format_elo(record['evaluation']['elo'])}"
    if "connect4_positions" in record:
        solved = record["connect4_positions"]
        evaluation += (
            f"; solved positions: policy {solved['policy_correct']:.1%} correct, "
            f"value {solved['value_result']:.1%} right"
        )
    return (
        f"iteration {record['iteration']}: {sp['games']} games "
        f"(first {sp['first_win_rate']:.0%}, second {sp['second_win_rate']:.0%}, "
        f"draws {sp['draw_rate']:.0%}, {sp['mean_length']:.1f} moves), "
        f"{sp['simulations_per_second']:.0f} sims/s; {losses}{evaluation}"
    )


def _log(enabled: bool, text: str) -> None:
    if enabled:
        from tqdm import tqdm

        tqdm.write(text)


def _flatten(record: dict[str, Any], prefix: str = "") -> dict[str, float]:
    flat: dict[str, float] = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}/"))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            flat[prefix + key] = float(value)
    return flat


def _write_tensorboard(run_path: Path, record: dict[str, Any]) -> None:
    import tensorflow as tf

    writer = tf.summary.create_file_writer(str(run_path / "tensorboard"))
    with writer.as_default():
        for key, value in _flatten(record).items():
            tf.summary.scalar(key, value, step=record["iteration"])
    writer.flush()
    writer.close()


__all__ = ["CheckpointError", "RunState", "train"]
