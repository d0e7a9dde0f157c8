"""A run's metrics: ``metrics.jsonl`` (appended, repaired, read back), TensorBoard, summary lines.

One record an iteration; its keys are the names in ``metrics.jsonl`` and TensorBoard alike.
"""

from __future__ import annotations

import functools
import json
import os
import platform
from pathlib import Path
from typing import Any

from ..config import Config
from ..evaluation.arena import format_elo
from ..progress.eta import RunProgress, format_seconds
from ..selfplay.pending import json_default
from .atomic import atomic_write_text
from .run_files import METRICS_FILE, TENSORBOARD_DIR
from .run_folder import RunFolder


@functools.cache
def machine() -> str:
    """This machine as ``metrics.jsonl`` records it with every iteration, e.g. ``"Intel(R)
    Xeon(R) Processor, 2 cores, avx512"``: the processor, its cores, its widest vector
    instructions (``amx``, ``avx512``, ``avx2``: TensorFlow's fast kernels need them) and
    ``bf16`` where it computes bfloat16 natively (``search.inference_precision: auto``).

    A run's CPU-seconds only compare with others from the same kind of machine (AVX2 and
    AVX-512 CPUs differ by nearly 2x in training), and a run resumed over several stretches of
    work may move between machines.
    """
    model, flags = "", set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and not model:
                    model = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:  # not Linux
        model = platform.processor()
    units = (("amx", "amx_tile"), ("avx512", "avx512f"), ("avx2", "avx2"))
    widest = next((unit for unit, flag in units if flag in flags), "")
    parts = [model or platform.machine() or "unknown processor", f"{os.cpu_count()} cores"]
    parts += [widest] if widest else []
    parts += ["bf16"] if flags & {"avx512_bf16", "amx_bf16"} else []
    return ", ".join(parts)


@functools.cache
def software() -> str:
    """The libraries that did the arithmetic, as ``metrics.jsonl`` records them with every
    iteration, e.g. ``"Python 3.11.2, TensorFlow 2.21.0, Keras 3.15.1, NumPy 2.3.5"``: a run
    resumed after an upgrade changes kernels, and so its speed and its numbers."""
    from importlib import metadata

    parts = [f"Python {platform.python_version()}"]
    for name, package in (("TensorFlow", "tensorflow"), ("Keras", "keras"), ("NumPy", "numpy")):
        try:
            parts.append(f"{name} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name} absent")
    return ", ".join(parts)


def append_jsonl(path: str | os.PathLike[str], record: dict[str, Any]) -> None:
    """Append ``record`` as one JSON line to ``path`` and flush it to disk."""
    line = json.dumps(record, default=json_default) + "\n"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())


def append_metrics(run_dir: str | os.PathLike[str] | RunFolder, record: dict[str, Any]) -> None:
    """Append ``record`` as one JSON line to ``metrics.jsonl`` and flush it to disk."""
    folder = run_dir.path if isinstance(run_dir, RunFolder) else Path(run_dir)
    append_jsonl(folder / METRICS_FILE, record)


def repair_metrics(run_path: Path, iteration: int, last: dict[str, Any] | None = None) -> None:
    """Mend what a crash can leave in ``metrics.jsonl``: drop a half-written last line and
    lines of iterations the checkpoint does not hold, and write back ``last`` (the
    checkpoint's own record of ``iteration``) if a crash came between the checkpoint and its
    line."""
    path = run_path / METRICS_FILE
    if not path.exists():
        return
    lines = path.read_text(encoding="utf-8").splitlines()
    kept, newest = [], 0
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("iteration", 0) <= iteration:
            kept.append(line)
            newest = max(newest, record.get("iteration", 0))
    if last is not None and last.get("iteration") == iteration > newest:
        kept.append(json.dumps(last, default=json_default))
    if kept != lines:
        atomic_write_text(path, "".join(f"{line}\n" for line in kept))


def read_records(run_path: Path) -> list[dict[str, Any]]:
    """The iterations' records in ``metrics.jsonl``, oldest first (none if it is absent);
    a line that is not a JSON record is skipped, as ``repair_metrics`` would drop it."""
    path = run_path / METRICS_FILE
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def last_speeds(run_path: Path, config: Config) -> tuple[dict[str, float], float | None]:
    """Seconds per game, per training step and per evaluation, and moves per game, in the
    run's metrics so far, so that a resumed run's first iteration has an ETA from the start."""
    path = run_path / METRICS_FILE
    speeds: dict[str, float] = {}
    moves_per_game: float | None = None
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    except (OSError, UnicodeDecodeError):
        lines = []
    for line in lines[-max(config.evaluation.every, 1) :]:  # back to the last evaluation
        try:
            record = json.loads(line)
            selfplay = record["selfplay"]
            if selfplay["games"]:
                speeds["self-play"] = selfplay["seconds"] / selfplay["games"]
                moves_per_game = selfplay["moves"] / selfplay["games"]
            if record["train"] and config.train.steps_per_iteration:
                speeds["train"] = record["train_seconds"] / config.train.steps_per_iteration
            if "evaluation_seconds" in record:
                speeds["evaluation"] = record["evaluation_seconds"]
        except (ValueError, KeyError, TypeError, ZeroDivisionError):
            continue
    return speeds, moves_per_game


def _flatten(record: dict[str, Any], prefix: str = "") -> dict[str, float]:
    flat: dict[str, float] = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}/"))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            flat[prefix + key] = float(value)
    return flat


def write_tensorboard(run_path: Path, record: dict[str, Any]) -> None:
    """The record's numbers as TensorBoard scalars at its iteration, nested keys joined by /."""
    # TensorFlow only here: the rest of the module reads and writes text without it.
    import tensorflow as tf

    writer = tf.summary.create_file_writer(str(run_path / TENSORBOARD_DIR))
    with writer.as_default():
        for key, value in _flatten(record).items():
            tf.summary.scalar(key, value, step=record["iteration"])
    writer.flush()
    writer.close()


def summary_line(
    record: dict[str, Any], iterations: int | None = None, tracker: RunProgress | None = None
) -> str:
    """The iteration in one line (``iteration 3/30: ...``), with its time and the run's."""
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
    timing = ""
    if tracker is not None:
        seconds = tracker.iteration_seconds()
        run_eta = tracker.run_eta()
        timing = (
            f"; {format_seconds(seconds)} "
            f"(run {format_seconds(tracker.run_seconds + seconds)}"
            f"{', ' + run_eta if run_eta else ''})"
        )
    of = f"/{iterations}" if iterations is not None else ""
    return (
        f"iteration {record['iteration']}{of}: {sp['games']} games "
        f"(first {sp['first_win_rate']:.0%}, second {sp['second_win_rate']:.0%}, "
        f"draws {sp['draw_rate']:.0%}, {sp['mean_length']:.1f} moves), "
        f"{sp['simulations_per_second']:.0f} sims/s; {losses}{evaluation}{timing}"
    )
