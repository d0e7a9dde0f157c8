"""What sets the ceiling of self-play on a Ray cluster: the learner, and the bytes moved.

Two parts (docs/research/ray_scaling.md puts their figures together):

``--learner CONFIG...``: for each recipe, the learner's training steps per second on this
machine (the recipe's network and batch, every core, random planes: a step's cost does not
depend on them), the weights the driver puts in Ray's object store every iteration (bytes;
one copy travels to each node) and the bytes of one training example sent back.

``--cluster``: games per hour on a Ray cluster started with ``ray start`` (a head and a
second node, one CPU each, token authentication on, inside a private network and PID
namespace as in tests/ray_cluster_cases.py), with 1 actor (one node's CPU) and 2 actors (one
on each node), in interleaved rounds. On one machine both nodes share its cores: with two
cores and other work running, the two-node figure is oversubscribed and says how the code
scales only as far as the cores allow.

    python benchmarks/ray_scaling.py --learner configs/connect4.yaml configs/gomoku_15x15.yaml
    python benchmarks/ray_scaling.py --cluster --rounds 3 --games 32
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from alphazero.config.command_line import OneLineParser

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # ray_nodes: the tests' ``ray start`` cluster

CLUSTER_CONFIG = {
    "game": {"name": "connect4"},
    "network": {"filters": 32, "blocks": 2, "value_hidden": 32},
    "search": {"algorithm": "gumbel", "simulations": 16, "gumbel_considered": 7},
    "selfplay": {"parallel_games": 16, "backend": "ray"},
    "seed": 0,
}
"""A small Connect Four self-play: the cluster part measures the plumbing, not the recipe."""


def learner(path: str, steps: int) -> dict[str, float | str]:
    """Steps per second (wall, every core; CPU seconds per step), weights and example bytes."""
    import numpy as np

    from alphazero.config import load_config
    from alphazero.games import make
    from alphazero.network.model import build_network
    from alphazero.training.trainer import Trainer

    config = load_config(path)
    game = make(config.game.name, **config.game.params)
    shape = game.encode().shape
    model = build_network(shape, game.num_actions, config.network)
    trainer = Trainer(model, config.train)
    batch = config.train.batch_size
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (batch, *shape)).astype(np.float32)
    policies = rng.dirichlet(np.ones(game.num_actions), batch).astype(np.float32)
    values = rng.choice(np.array([-1.0, 0.0, 1.0], np.float32), batch)
    for _ in range(3):  # the trace
        trainer.train_step(planes, policies, values)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        trainer.train_step(planes, policies, values)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    example = planes[0].nbytes + policies[0].nbytes + values[0].nbytes
    return {
        "config": path,
        "network": f"{config.network.filters}x{config.network.blocks}",
        "batch": batch,
        "steps_per_second": steps / wall,
        "cpu_seconds_per_step": cpu / steps,
        "weights_bytes": int(sum(w.nbytes for w in model.get_weights())),
        "example_bytes": int(example),
        "games_per_iteration": config.selfplay.games_per_iteration,
        "steps_per_iteration": config.train.steps_per_iteration,
    }


def cluster(rounds: int, games: int) -> None:
    """Inside the private namespace: the interleaved 1- and 2-actor rounds."""
    import numpy as np
    from ray_nodes import Cluster, token_env

    from alphazero.config import config_from_dict
    from alphazero.games import make
    from alphazero.network.model import build_network
    from alphazero.workers.ray_backend import RayBackend

    root = Path(tempfile.mkdtemp(prefix="ray_scaling_"))
    env = token_env(root / "home")
    os.environ.update(env)  # before Ray loads: it reads RAY_AUTH_MODE once
    import ray

    with Cluster(root, env) as nodes:
        nodes.start_head(cpus=1)
        nodes.add_node(cpus=1)
        nodes.wait_for_nodes(2)
        ray.init(address=nodes.address, logging_level="ERROR", log_to_driver=False)
        rates: dict[int, list[float]] = {1: [], 2: []}
        for r in range(rounds):
            for workers in (1, 2) if r % 2 == 0 else (2, 1):
                data = {**CLUSTER_CONFIG}
                data["selfplay"] = {**data["selfplay"], "workers": workers,
                                    "games_per_iteration": games}  # fmt: skip
                config = config_from_dict(data)
                game = make(config.game.name)
                model = build_network(game.encode().shape, game.num_actions, config.network)
                backend = RayBackend(config, model, progress=False)  # actors start untimed
                try:
                    start = time.perf_counter()
                    backend.play(games, np.random.default_rng(r))
                    rates[workers].append(games / (time.perf_counter() - start) * 3600)
                finally:
                    backend.close()
                print(f"round {r + 1}: {workers} actor(s) {rates[workers][-1]:.0f} games/hour")
        ray.shutdown()
    shutil.rmtree(root, ignore_errors=True)
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    print(f"\ngames/hour, median of {rounds} rounds ({games} games each, Connect Four 32x2,")
    print(f"16 simulations, 16 games at once per actor; {os.cpu_count()} cores, shared):")
    print(f"  1 node, 1 actor:   {one:8.0f}")
    print(f"  2 nodes, 2 actors: {two:8.0f}  ({two / one:.2f}x)")


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learner", nargs="*", default=[], metavar="CONFIG",
                        help="recipes whose learner to measure")  # fmt: skip
    parser.add_argument("--steps", type=int, default=10, help="timed training steps (10)")
    parser.add_argument("--cluster", action="store_true", help="games/hour on 1 and 2 nodes")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (3)")
    parser.add_argument("--games", type=int, default=32, help="games per measurement (32)")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for flag in ("steps", "rounds", "games"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be at least 1, got {getattr(args, flag)}")
    if not args.learner and not args.cluster:
        parser.error("give --learner CONFIG... and/or --cluster")
    for path in args.learner:
        from alphazero.config import ConfigError

        try:
            print(json.dumps(learner(path, args.steps)), flush=True)
        except ConfigError as error:
            parser.error(str(error))
    if args.inside:
        cluster(args.rounds, args.games)
    elif args.cluster:
        if os.geteuid() != 0:
            parser.error("--cluster needs root, for a private network namespace")
        inner = [sys.executable, __file__, "--cluster", "--inside",
                 "--rounds", str(args.rounds), "--games", str(args.games)]  # fmt: skip
        script = 'ip link set lo up && "$0" "$@"'
        return subprocess.run(
            ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc",
             "sh", "-c", script, *inner],
            env={**os.environ, "RAY_worker_niceness": "0"},
        ).returncode  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
