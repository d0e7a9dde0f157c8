"""A training step's cost on this CPU, with TensorFlow's oneDNN kernels and without.

One step is what ``Trainer.train_step`` does in a run: forward, loss, gradients and Adam on a
batch of Connect Four positions (random planes and targets: the cost does not depend on
them), for the 64x5 and 128x6 networks. TensorFlow reads ``TF_ENABLE_ONEDNN_OPTS`` once, as
it loads, so every measurement is a fresh process; on x86-64 without AVX-512 or AMX it leaves
oneDNN off unless asked, and ``alphazero.network.tf_setup`` asks for it.

Rounds are interleaved (every network and kernel choice once per round, in a rotating order)
so that a machine whose load changes affects them alike; each figure is the median over
rounds of CPU milliseconds per step (all threads of the process), and the ratio is off / on
in the same row. Run:

    python benchmarks/training_step.py --rounds 3
    python benchmarks/training_step.py --threads 1   # one intra-op thread, as two runs side by side
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from alphazero.config.command_line import OneLineParser

NETWORKS = {"64x5": (64, 5), "128x6": (128, 6)}
KERNELS = {"onednn": "1", "plain": "0"}


def measure(filters: int, blocks: int, batch: int, steps: int) -> dict[str, float]:
    """CPU and wall milliseconds per training step, after 3 warm-up steps (the trace)."""
    import numpy as np

    from alphazero.config import NetworkConfig, TrainConfig
    from alphazero.games import make
    from alphazero.network.model import build_network
    from alphazero.training.trainer import Trainer

    game = make("connect4")
    shape = game.encode().shape
    model = build_network(shape, game.num_actions, NetworkConfig(filters, blocks, 64))
    trainer = Trainer(model, TrainConfig(batch_size=batch))
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (batch, *shape)).astype(np.float32)
    policies = rng.dirichlet(np.ones(game.num_actions), batch).astype(np.float32)
    values = rng.choice(np.array([-1.0, 0.0, 1.0], np.float32), batch)
    for _ in range(3):
        trainer.train_step(planes, policies, values)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        trainer.train_step(planes, policies, values)
    return {
        "cpu_ms": 1000 * (time.process_time() - cpu) / steps,
        "wall_ms": 1000 * (time.perf_counter() - wall) / steps,
    }


def run_child(network: str, kernels: str, args: argparse.Namespace) -> dict[str, float]:
    """``measure`` in a fresh Python with the kernel choice and thread count in its env."""
    env = {**os.environ, "TF_ENABLE_ONEDNN_OPTS": KERNELS[kernels], "TF_CPP_MIN_LOG_LEVEL": "3"}
    if args.threads:
        env["TF_NUM_INTRAOP_THREADS"] = env["TF_NUM_INTEROP_THREADS"] = str(args.threads)
    done = subprocess.run(
        [sys.executable, __file__, "--child", network, "--batch", str(args.batch),
         "--steps", str(args.steps)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{network} {kernels}: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--steps", type=int, default=10, help="timed steps per measurement")
    parser.add_argument("--batch", type=int, default=256, help="positions per step")
    parser.add_argument("--networks", default="64x5,128x6", help="of " + ", ".join(NETWORKS))
    parser.add_argument(
        "--threads", type=int, default=0, help="TensorFlow's intra-op threads; 0: every core"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    networks = args.networks.split(",")
    for name in [*networks, *([args.child] if args.child else [])]:
        if name not in NETWORKS:
            parser.error(f"--networks: unknown {name!r}; known: {', '.join(NETWORKS)}")
    for flag in ("rounds", "steps", "batch"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be at least 1, got {getattr(args, flag)}")
    if args.threads < 0:
        parser.error(f"--threads must be at least 0, got {args.threads}")
    if args.child:
        print(json.dumps(measure(*NETWORKS[args.child], args.batch, args.steps)))
        return 0

    cells = [(network, kernels) for network in networks for kernels in KERNELS]
    results: dict[tuple[str, str], list[dict[str, float]]] = {cell: [] for cell in cells}
    for r in range(args.rounds):
        for cell in cells[r % len(cells) :] + cells[: r % len(cells)]:
            results[cell].append(run_child(*cell, args))
            print(f"round {r + 1}: {cell[0]} {cell[1]} {results[cell][-1]['cpu_ms']:.0f} ms CPU")

    threads = args.threads or "one per core"
    print(
        f"\nConnect Four training step, batch {args.batch}, intra-op threads: {threads}, "
        f"median of {args.rounds} rounds (CPU ms per step, all threads; wall in brackets)"
    )
    for network in networks:
        row = {
            k: {
                key: statistics.median(r[key] for r in results[network, k])
                for key in ("cpu_ms", "wall_ms")
            }
            for k in KERNELS
        }
        on, off = row["onednn"], row["plain"]
        print(
            f"  {network:6} oneDNN {on['cpu_ms']:6.0f} ({on['wall_ms']:.0f})   "
            f"plain {off['cpu_ms']:6.0f} ({off['wall_ms']:.0f})   "
            f"plain / oneDNN: {off['cpu_ms'] / on['cpu_ms']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
