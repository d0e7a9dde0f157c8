"""Is a Connect Four network short of training steps, or of better data?

Trains a saved model further on a replay buffer it was trained on (a run's
``buffer_NNNN.npz``), at a constant learning rate, and every ``--every`` steps prints the
raw network's measures on the solved positions (``alphazero.solved_positions``): correct and
exact share of its top moves, and the share of positions its value reads as the exact result
with its mean squared error. If more steps at a lower rate raise these, the run is short of
training; if the training losses fall and the measures do not, the network already fits its
data as well as it generalises, and better targets or positions are what would help. The
positions only measure: nothing here learns from them. Run:

    python benchmarks/connect4_finetune.py \\
        --model checkpoints/pretrained/connect4/models/iter_0245.keras \\
        --buffer checkpoints/pretrained/connect4/buffer_0245.npz --lr 1e-5 --steps 3000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from alphazero.checkpoints import CheckpointError, load_model
from alphazero.config import TrainConfig
from alphazero.games import make
from alphazero.network import InferenceModel
from alphazero.replay_buffer import ReplayBuffer, ReplayBufferError
from alphazero.solved_positions import evaluate_network, load_positions
from alphazero.trainer import Trainer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="run folder or .keras file")
    parser.add_argument("--buffer", type=Path, required=True, help="a run's buffer_NNNN.npz")
    parser.add_argument("--lr", type=float, default=1e-5, help="constant Adam learning rate")
    parser.add_argument("--steps", type=int, default=3000, help="train steps in all")
    parser.add_argument("--every", type=int, default=500, help="steps between measurements")
    parser.add_argument("--batch-size", type=int, default=256, help="positions a step")
    parser.add_argument("--seed", type=int, default=0, help="seed of the batch sampling")
    parser.add_argument("--save", type=Path, help="write the trained model here (.keras)")
    args = parser.parse_args()
    for name in ("lr", "steps", "every", "batch_size"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    game = make("connect4")
    try:
        model = load_model(args.model, game, compile=True)
        buffer = ReplayBuffer.load(
            args.buffer, plane_shape=game.plane_shape, num_actions=game.num_actions
        )
    except (CheckpointError, ReplayBufferError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    config = TrainConfig(batch_size=args.batch_size, learning_rate=args.lr, lr_schedule="constant")
    # The saved Adam keeps its moments; the constant rate replaces the run's schedule.
    trainer = Trainer(model, config)
    positions = load_positions()
    rng = np.random.default_rng(args.seed)
    print(f"{args.model} on {args.buffer} ({len(buffer)} positions), lr {args.lr:g}")
    print(f"{'step':>6} {'policy correct':>15} {'exact':>7} {'value result':>13} {'mse':>6}"
          f" {'train policy loss':>18} {'value loss':>11} {'seconds':>8}")  # fmt: skip

    def report(step: int, losses: dict[str, float], seconds: float) -> None:
        policy, values = evaluate_network(InferenceModel(model, max_batch=1024), positions)
        train = (
            f"{losses['policy_loss']:>18.4f} {losses['value_loss']:>11.4f}" if losses else " " * 30
        )
        print(
            f"{step:>6} {policy['all']['correct']:>15.1%} {policy['all']['exact']:>7.1%} "
            f"{values['all']['result']:>13.1%} {values['all']['mse']:>6.3f} {train} "
            f"{seconds:>8.0f}",
            flush=True,
        )

    report(0, {}, 0.0)
    start = time.perf_counter()
    for step in range(args.every, args.steps + 1, args.every):
        losses = trainer.train(lambda n: buffer.sample(n, rng), args.every, progress=False)
        report(step, losses, time.perf_counter() - start)
    if args.save is not None:
        model.save(args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
