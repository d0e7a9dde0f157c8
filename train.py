"""Train an AlphaZero agent by self-play from a YAML config.

python train.py                                  # Connect Four, configs/connect4.yaml
python train.py --config configs/tictactoe.yaml  # another game
python train.py --resume                         # continue the run where it stopped
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

DEFAULT_CONFIG = Path("configs/connect4.yaml")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train an AlphaZero agent by self-play. Each iteration plays games against "
        "itself, trains the network on the replay buffer and writes a checkpoint to the run "
        "folder (resolved config, metadata.json, models, replay buffer, metrics.jsonl, "
        "TensorBoard logs). Ctrl-C stops cleanly; --resume continues exactly.",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help=f"YAML config (default: {DEFAULT_CONFIG}); see configs/ for one per game",
    )
    parser.add_argument(
        "--run-dir",
        type=Path,
        default=None,
        help="run folder (default: checkpoints/<the config's run_name, else its file name>)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in the run folder with its saved config",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        metavar="N",
        help="stop after N iterations of this session (the run can be resumed later)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars or summaries")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # A process started in the background by a script inherits SIGINT as ignored, and
    # Python then never installs its Ctrl-C handler; training must stop cleanly anyway.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from alphazero.checkpoints import CheckpointError
    from alphazero.config import ConfigError, load_config
    from alphazero.workers import WorkerError

    try:
        if args.resume:
            run_dir = args.run_dir
            if run_dir is None:
                config = load_config(args.config or DEFAULT_CONFIG)
                run_dir = Path("checkpoints") / (config.run_name or "run")
            config = None
        else:
            config = load_config(args.config or DEFAULT_CONFIG)
            run_dir = args.run_dir or Path("checkpoints") / (config.run_name or "run")
        if args.iterations is not None and args.iterations < 1:
            raise ConfigError(f"--iterations must be at least 1, got {args.iterations}")
        from alphazero.training import train  # TensorFlow loads here, after the quick checks

        train(
            config,  # type: ignore[arg-type]  # None only with --resume: the run's own config
            run_dir,
            resume=args.resume,
            progress=not args.quiet,
            max_iterations=args.iterations,
        )
    except (ConfigError, CheckpointError, WorkerError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
