"""Train an AlphaZero agent by self-play from a YAML config.

python train.py                                  # Connect Four, configs/connect4.yaml
python train.py --config configs/tictactoe.yaml  # another game
python train.py --resume                         # continue the run where it stopped
python train.py --overwrite                      # a new run; the old one moves aside
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alphazero.config import Config

DEFAULT_CONFIG = Path("configs/connect4.yaml")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    # A bad --iterations is one line naming it, as play.py's numbers are.
    from alphazero.config.command_line import OneLineParser, integer

    parser = OneLineParser(
        description="Train an AlphaZero agent by self-play. Each iteration plays games against "
        "itself, trains the network on the replay buffer and writes a checkpoint to the run "
        "folder (resolved config, metadata.json, models, replay buffer, metrics.jsonl, "
        "TensorBoard logs). Ctrl-C stops cleanly; --resume continues exactly.",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help=f"YAML config (default: {DEFAULT_CONFIG}); see configs/ for one per game. With "
        "--resume it only names the run folder (checkpoints/<run_name>): a run continues with "
        "its own config.yaml",
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
        "--fresh-buffer",
        action="store_true",
        help="with --resume: go on with an empty replay buffer, for a run folder kept without "
        "its buffer (a shipped model, or one slimmed with --drop-buffer). Self-play refills it "
        "before training resumes (train.min_positions); the run no longer repeats exactly, "
        "and metadata.json records where (fresh_buffers)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="start a new run in a folder that holds an earlier one: its files (models, "
        "buffer, metrics, config) move into <run-dir>/overwritten-<date-time>/, nothing is "
        "deleted. Without it a new run refuses such a folder",
    )
    parser.add_argument(
        "--iterations",
        type=integer,
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
    # The error types come with numpy only (a fifth of a second); TensorFlow loads in train().
    from alphazero.config import ConfigError
    from alphazero.training.checkpoints import RunDir
    from alphazero.training.run_errors import CheckpointError, TrainingDiverged
    from alphazero.workers import WorkerError

    run_dir: Path | None = args.run_dir
    try:
        if args.overwrite and args.resume:
            raise ConfigError(
                "--overwrite starts a new run over an earlier one; --resume continues it: "
                "give one of them"
            )
        if args.fresh_buffer and not args.resume:
            raise ConfigError("--fresh-buffer goes with --resume: a new run starts empty anyway")
        config, run_dir = _config_and_run_dir(args)
        if args.iterations is not None and args.iterations < 1:
            raise ConfigError(f"--iterations must be at least 1, got {args.iterations}")
        if not args.resume and not args.overwrite:  # say so now, not after TensorFlow loads
            RunDir(run_dir).refuse_earlier_run()
        if args.resume:  # a missing folder or a bad config.yaml: also before TensorFlow loads
            run = RunDir.open(run_dir)
            run.load_config()
            if not args.fresh_buffer and run.has_checkpoint:
                run.require_buffer()
        from alphazero.training.loop import train  # TensorFlow loads here, after the quick checks

        train(
            config,  # type: ignore[arg-type]  # None only with --resume: the run's own config
            run_dir,
            resume=args.resume,
            progress=not args.quiet,
            max_iterations=args.iterations,
            overwrite=args.overwrite,
            fresh_buffer=args.fresh_buffer,
        )
    except KeyboardInterrupt:
        # Before the training loop's own handler (TensorFlow's import and the network's build
        # take seconds): as clean a stop as one between iterations, told in the same words.
        from alphazero.training.interrupts import interrupted_message

        print(f"\n{interrupted_message(run_dir)}", file=sys.stderr)
    except TrainingDiverged as error:  # not a bad input: exit 1, as a failed run
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (ConfigError, CheckpointError, WorkerError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def _config_and_run_dir(args: argparse.Namespace) -> tuple[Config | None, Path]:
    """The config to start a run with (None to resume: the run's own) and its folder."""
    from alphazero.config import ConfigError, load_config

    if not args.resume:
        config = load_config(args.config or DEFAULT_CONFIG)
        return config, args.run_dir or config.default_run_dir()
    if args.run_dir is not None:
        if args.config is not None:  # which settings did the user mean? Ask, don't guess.
            raise ConfigError(
                f"--config cannot be combined with --resume --run-dir: the run continues with "
                f"its own {args.run_dir / 'config.yaml'} (edit that to change its settings)"
            )
        return None, args.run_dir
    # Without --run-dir the config only names the run folder (checkpoints/<run_name>).
    config = load_config(args.config or DEFAULT_CONFIG)
    run_dir = config.default_run_dir()
    if args.config is not None:
        _warn_if_the_run_differs(args.config, config, run_dir)
    return None, run_dir


def _warn_if_the_run_differs(config_path: Path, config: Config, run_dir: Path) -> None:
    """Say so when the settings in --config are not the ones the resumed run goes on with."""
    from alphazero.training.checkpoints import RunDir
    from alphazero.training.run_errors import CheckpointError

    try:
        saved = RunDir(run_dir).load_config()
    except CheckpointError:
        return  # resuming reports it, in one line
    # run_name only names the folder, which is already chosen: a run folder moved or renamed
    # (an experiment promoted to the flagship) goes on with the same settings.
    if dataclasses.replace(saved, run_name=None) != dataclasses.replace(config, run_name=None):
        print(
            f"warning: {config_path} differs from {run_dir / 'config.yaml'}, which the resumed "
            f"run goes on with (edit that to change its settings)",
            file=sys.stderr,
        )


if __name__ == "__main__":
    sys.exit(main())
