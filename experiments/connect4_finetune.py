"""Is a Connect Four network short of training steps, of capacity, or of better data?

Trains a network on replay buffers of a run (its ``buffer_NNNN.npz`` files; several are
joined, keeping each identical example once, as neighbouring buffers share many) and every
``--every`` steps prints the raw network's measures on the solved positions
(``alphazero.evaluation.solved_positions``): correct and exact share of its top moves, and the share
of positions its value reads as the exact result with its mean squared error. The
positions only measure: nothing here learns from them.

* ``--model``: a saved model trains further, at a constant rate by default. If more steps at
  a lower rate raise its measures, the run is short of training; if the training losses fall
  and the measures do not, the network fits its data as well as it generalises.
* ``--fresh FILTERSxBLOCKS``: a new network of that size learns the same self-play data from
  scratch. Against a fresh network of the run's own size on the same data and steps, this
  tells whether a larger network would get more out of what self-play produced.

Run:

    python experiments/connect4_finetune.py \\
        --model checkpoints/pretrained/connect4/models/iter_0150.keras \\
        --buffer checkpoints/pretrained/connect4/buffer_0150.npz --lr 1e-5 --steps 3000
    python experiments/connect4_finetune.py --fresh 128x6 --buffer b1.npz b2.npz \\
        --lr 1e-3 --schedule cosine --steps 8000 --every 1000 --save big.keras
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

from alphazero.config import ConfigError, NetworkConfig, TrainConfig
from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.solved_positions import evaluate_network, load_positions
from alphazero.games import Game, make
from alphazero.network import tf_setup  # first: imports TensorFlow without its start-up chatter
from alphazero.network.model import InferenceModel, build_network
from alphazero.training.checkpoints import load_model
from alphazero.training.interrupts import stop_on_ctrl_c
from alphazero.training.replay_buffer import ReplayBuffer, ReplayBufferError
from alphazero.training.run_errors import CheckpointError
from alphazero.training.trainer import Trainer


def load_union(paths: list[Path], game: Game) -> ReplayBuffer:
    """One buffer holding every distinct example of the buffers at ``paths``, oldest first.

    A run's consecutive buffers overlap (each holds the last ``capacity`` examples), so an
    example (position, policy target and value target, byte for byte) already seen, in an
    earlier file or the same one, is not added again.
    """
    parts = []
    for path in paths:
        buffer = ReplayBuffer.load(path, plane_shape=game.plane_shape, num_actions=game.num_actions)
        parts.append(buffer.arrays())
    planes, policies, values = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
    rows = np.concatenate(
        [
            planes.reshape(len(planes), -1).view(np.uint8),
            policies.view(np.uint8),
            values.reshape(-1, 1).view(np.uint8),
        ],
        axis=1,
    )
    _, first = np.unique(np.ascontiguousarray(rows).view(f"V{rows.shape[1]}"), return_index=True)
    keep = np.sort(first)
    union = ReplayBuffer(len(keep), game.plane_shape, game.num_actions)
    union.add(planes[keep], policies[keep], values[keep])
    return union


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    start_from = parser.add_mutually_exclusive_group(required=True)
    start_from.add_argument("--model", type=Path, help="run folder or .keras file to train on")
    start_from.add_argument(
        "--fresh", metavar="FILTERSxBLOCKS", help="train a new network, e.g. 128x6"
    )
    parser.add_argument(
        "--buffer", type=Path, nargs="+", required=True, help="a run's buffer_NNNN.npz files"
    )
    parser.add_argument("--lr", type=float, default=1e-5, help="Adam learning rate")
    parser.add_argument(
        "--schedule",
        choices=["constant", "cosine"],
        default="constant",
        help="constant rate, or cosine decay to a tenth of --lr over --steps",
    )
    parser.add_argument("--steps", type=int, default=3000, help="train steps in all")
    parser.add_argument("--every", type=int, default=500, help="steps between measurements")
    parser.add_argument("--batch-size", type=int, default=256, help="positions a step")
    parser.add_argument(
        "--seed", type=non_negative_integer, default=0, help="seed of the batch sampling"
    )
    parser.add_argument("--save", type=Path, help="write the trained model here (.keras)")
    args = parser.parse_args()
    if not 0 < args.lr < math.inf:  # NaN too, which passed '<= 0'
        parser.error(f"--lr must be above 0 and finite, got {args.lr:g}")
    for name in ("steps", "every", "batch_size"):
        if getattr(args, name) < 1:
            option = "--" + name.replace("_", "-")
            parser.error(f"{option} must be at least 1, got {getattr(args, name)}")
    if args.schedule == "cosine" and args.model is not None:
        # A schedule is a function of the optimizer's step count, which a saved model has
        # long passed: the decay would already be over.
        parser.error("--schedule cosine needs --fresh")
    network = None
    if args.fresh is not None:
        try:
            network = NetworkConfig.from_size(args.fresh)
        except ConfigError as error:
            parser.error(f"--fresh: {error}")
    game = make("connect4")
    try:
        buffer = load_union(args.buffer, game)
        if args.model is not None:
            model = load_model(args.model, game, compile=True)
            name = str(args.model)
        else:
            assert network is not None  # --model and --fresh are one required choice
            tf_setup.keras.utils.set_random_seed(args.seed)
            model = build_network(game.plane_shape, game.num_actions, network)
            size = f"{network.filters}x{network.blocks}"
            name = f"a fresh {size} network ({model.count_params():,} weights)"
    except (CheckpointError, ReplayBufferError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    config = TrainConfig(
        batch_size=args.batch_size,
        learning_rate=args.lr,
        lr_schedule=args.schedule,
        lr_decay_steps=args.steps,
    )
    # A saved Adam keeps its moments (a run's resume_NNNN.keras has one; its other model
    # files hold the weights alone, and get a new Adam); the constant rate replaces the
    # run's schedule.
    trainer = Trainer(model, config)
    positions = load_positions()
    rng = np.random.default_rng(args.seed)
    files = ", ".join(path.name for path in args.buffer)
    print(f"{name} on {files} ({len(buffer):,} distinct positions), lr {args.lr:g} {args.schedule}")
    print(f"{'step':>6} {'policy correct':>15} {'exact':>7} {'value result':>13} {'mse':>6}"
          f" {'train policy loss':>18} {'value loss':>11} {'seconds':>8}")  # fmt: skip

    # One forward pass for every report: it reads the model's variables as they train, and a
    # new one each time would trace its tf.function again (TensorFlow warns of retracing).
    inference = InferenceModel(model, max_batch=1024)

    def report(step: int, losses: dict[str, float], seconds: float) -> None:
        policy, values = evaluate_network(inference, positions)
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
    step = 0
    try:
        # Inside stop_on_ctrl_c the trainer stops between steps at a Ctrl-C even when
        # TensorFlow's finalizers swallowed the KeyboardInterrupt.
        with stop_on_ctrl_c():
            for step in range(args.every, args.steps + 1, args.every):
                losses = trainer.train(lambda n: buffer.sample(n, rng), args.every, progress=False)
                report(step, losses, time.perf_counter() - start)
    except KeyboardInterrupt:
        unsaved = f"; {args.save} not written" if args.save is not None else ""
        print(f"stopped by Ctrl-C during steps {step - args.every + 1}-{step}{unsaved}")
        return 130
    if args.save is not None:
        model.save(args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
