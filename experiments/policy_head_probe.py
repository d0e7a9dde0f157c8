"""Does a wider policy head fit self-play targets better? A supervised probe on a run's buffer.

Fresh networks that differ only in their policy head's channels (``build_network``'s
``policy_channels``) are fitted to the same replay buffer from the same seed, with the same
batches; the buffer's newest ``--held-out`` examples (by insertion order, so mostly whole
games the fit never sees) are held out. Printed at each
quarter of ``--steps``: the held-out policy cross-entropy against the search's visit
distribution, the share of held-out positions where the network's top move is the search's,
and the process CPU so far. No solved positions are used.

Run (the buffer of the Connect Four flagship run at iteration 70, from the git history):
  git show 3196be3:checkpoints/c4_value_channels8/buffer_0070.npz > /tmp/buffer_0070.npz
  python experiments/policy_head_probe.py /tmp/buffer_0070.npz --channels 2 16
"""

from __future__ import annotations

import sys
import time

import numpy as np

from alphazero.config import NetworkConfig, TrainConfig
from alphazero.config.command_line import OneLineParser
from alphazero.network.model import build_network
from alphazero.network.tf_setup import keras  # without TensorFlow's start-up chatter
from alphazero.training.replay_buffer import ReplayBuffer, ReplayBufferError
from alphazero.training.trainer import Trainer


def held_out_scores(model: keras.Model, planes: np.ndarray, targets: np.ndarray) -> tuple:
    """(policy cross-entropy, top-move agreement) of ``model`` on ``planes [N, H, W, C]``
    against visit distributions ``targets [N, A]``."""
    logits, _ = model.predict(planes, batch_size=2048, verbose=0)
    log_probs = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    cross_entropy = float(-(targets * log_probs).sum(axis=1).mean())
    agreement = float((logits.argmax(axis=1) == targets.argmax(axis=1)).mean())
    return cross_entropy, agreement


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("buffer", help="a run's buffer_NNNN.npz")
    parser.add_argument(
        "--channels",
        type=int,
        nargs="+",
        default=[2, 16],
        help="policy_channels of each network (default 2 16)",
    )
    parser.add_argument("--steps", type=int, default=2000, help="train steps of 256 (2000)")
    parser.add_argument("--held-out", type=int, default=20000, help="newest examples held out")
    parser.add_argument("--value-channels", type=int, default=8, help="(8, the flagship's)")
    args = parser.parse_args()
    for option, value in (
        ("--channels", min(args.channels)),
        ("--steps", args.steps),
        ("--held-out", args.held_out),  # none: no score to print
        ("--value-channels", args.value_channels),
    ):
        if value < 1:
            parser.error(f"{option} must be at least 1, got {value}")

    try:
        buffer = ReplayBuffer.load(args.buffer)
    except ReplayBufferError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    planes, policies, values = buffer.arrays()
    if args.held_out >= len(planes):  # the fit needs an example to draw its batches from
        parser.error(
            f"--held-out must be below the buffer's {len(planes):,} examples, got {args.held_out:,}"
        )
    split = len(planes) - args.held_out
    test_planes, test_policies = planes[split:].astype(np.float32), policies[split:]
    print(f"{len(planes)} examples, the newest {args.held_out} held out", flush=True)
    for channels in args.channels:
        keras.utils.set_random_seed(0)
        rng = np.random.default_rng(0)
        shape = NetworkConfig(value_channels=args.value_channels)
        model = build_network(
            tuple(planes.shape[1:]), policies.shape[1], shape, policy_channels=channels
        )
        trainer = Trainer(model, TrainConfig(batch_size=256, learning_rate=1e-3))
        start = time.process_time()
        for step in range(1, args.steps + 1):
            rows = rng.integers(0, split, 256)
            trainer.train_step(planes[rows], policies[rows], values[rows])
            if step % max(1, args.steps // 4) == 0:
                loss, agreement = held_out_scores(model, test_planes, test_policies)
                print(
                    f"policy_channels {channels}, step {step}: held-out policy loss "
                    f"{loss:.4f}, top move agrees {agreement:.1%}, "
                    f"CPU {time.process_time() - start:.0f} s",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
