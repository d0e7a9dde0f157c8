"""Replay buffer files in format 1 (``savez_compressed`` of the arrays) and format 2
(``alphazero.training.buffer_format``: packed planes, symmetric copies as references): size,
save time and load time of each, on real buffers.

Each buffer is given by its run folder (the game comes from its ``config.yaml``) and read once
(format 1 or 2); then, for ``--rounds`` rounds, each format is saved and loaded in turn
(interleaved, so the machine's load falls on both alike), and the table gives the medians.
Every format 2 file is checked to load back bit for bit. Files are written to a temporary
folder; the run folders are only read.

Run:

    python benchmarks/buffer_format.py checkpoints/pretrained/* /tmp/g15_backup_iter5
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from alphazero.config import ConfigError, load_config
from alphazero.config.command_line import OneLineParser
from alphazero.games import make
from alphazero.training.buffer_format import symmetry_tables
from alphazero.training.replay_buffer import ReplayBuffer, ReplayBufferError


def write_format_1(buffer: ReplayBuffer, path: Path) -> None:
    """What ``ReplayBuffer.save`` wrote in format 1: the arrays oldest first, compressed."""
    order = buffer._order()
    np.savez_compressed(
        path,
        format=np.int64(1),
        capacity=np.int64(buffer.capacity),
        total_added=np.int64(buffer.total_added),
        planes=buffer._planes[order],
        policies=buffer._policies[order],
        values=buffer._values[order],
    )


def newest_buffer(run: Path) -> Path:
    buffers = sorted(run.glob("buffer_*.npz"))
    if not buffers:
        raise ValueError(f"{run}: no buffer_*.npz")
    return buffers[-1]


def timed(action: object) -> float:
    start = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - start


def measure(run: Path, rounds: int, folder: Path) -> dict[str, float | int | str]:
    """Sizes (bytes) and median save and load times (seconds) of ``run``'s newest buffer."""
    config = load_config(run / "config.yaml")
    game = make(config.game.name, **config.game.params)
    symmetries = symmetry_tables(game.symmetries, game.plane_shape, game.num_actions)
    source = newest_buffer(run)
    buffer = ReplayBuffer.load(source, symmetries=symmetries)
    files = {1: folder / "format1.npz", 2: folder / "format2.npz"}
    savers = {1: lambda: write_format_1(buffer, files[1]), 2: lambda: buffer.save(files[2])}
    times: dict[str, list[float]] = {key: [] for key in ("save1", "save2", "load1", "load2")}
    for _ in range(rounds):
        for version in (1, 2):
            times[f"save{version}"].append(timed(savers[version]))
            times[f"load{version}"].append(timed(lambda v=version: ReplayBuffer.load(files[v])))
    again = ReplayBuffer.load(files[2])
    if again.total_added != buffer.total_added or any(
        a.tobytes() != b.tobytes() for a, b in zip(again.arrays(), buffer.arrays(), strict=True)
    ):
        raise AssertionError(f"{source}: format 2 did not load back bit for bit")
    return {
        "buffer": f"{run.name}/{source.name}",
        "examples": len(buffer),
        "symmetries": len(symmetries),
        "size1": files[1].stat().st_size,
        "size2": files[2].stat().st_size,
        **{key: statistics.median(values) for key, values in times.items()},
    }


def table(rows: list[dict[str, float | int | str]]) -> str:
    lines = [
        "| buffer | examples | sym. | format 1 MB | format 2 MB | ratio "
        "| save 1 s | save 2 s | load 1 s | load 2 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        size1, size2 = float(row["size1"]), float(row["size2"])
        lines.append(
            f"| {row['buffer']} | {row['examples']:,} | {row['symmetries']} "
            f"| {size1 / 1e6:.2f} | {size2 / 1e6:.2f} | {size1 / size2:.1f}x "
            f"| {row['save1']:.2f} | {row['save2']:.2f} | {row['load1']:.2f} "
            f"| {row['load2']:.2f} |"
        )
    total1 = sum(float(row["size1"]) for row in rows)
    total2 = sum(float(row["size2"]) for row in rows)
    lines.append(f"| all | | | {total1 / 1e6:.2f} | {total2 / 1e6:.2f} | {total1 / total2:.1f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "runs", nargs="+", type=Path, help="run folders; each one's newest buffer_*.npz is used"
    )
    parser.add_argument("--rounds", type=int, default=3, help="save/load rounds (default 3)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    rows = []
    with tempfile.TemporaryDirectory(prefix="buffer_format_") as folder:
        for run in args.runs:
            try:
                rows.append(measure(run, args.rounds, Path(folder)))
            except (OSError, ValueError, ConfigError, ReplayBufferError) as error:
                print(f"{run}: {error}", file=sys.stderr)
                return 1
            print(f"measured {rows[-1]['buffer']}", file=sys.stderr)
    print(f"{os.cpu_count()} CPUs, {args.rounds} interleaved rounds, medians")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
