"""``play.py``'s options: the parser, its groups, each option's default and help. Reading what
was typed (which options were written, the ``--game`` names, the output files) is
``options``'."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..config.command_line import OneLineParser, integer, non_negative_integer, number
from ..evaluation.time_budget import CLOCKS, OPENING_MOVES, OPENING_WEIGHT
from ..network.engines import ENGINES
from .defaults import (
    DEFAULT_ENGINE,
    DEFAULT_GAME,
    DEFAULT_HOST,
    DEFAULT_LEAVES,
    DEFAULT_PORT,
    DEFAULT_SIMULATIONS,
    FALLBACK_OPPONENT,
)
from .option_help import HelpFormatter, epilog
from .text import terminal_width


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``play.py``, its help laid out for the terminal's width."""
    parser = OneLineParser(
        prog="play.py",
        formatter_class=HelpFormatter,
        description="Play a game in the terminal against a trained model or a baseline, or "
        "run a match between any two players. With no options: you against the best "
        "Connect Four model shipped in checkpoints/pretrained/connect4. With no person "
        "playing it runs a match and prints wins, draws, losses, the score with a 95% "
        "confidence interval and the Elo difference.",
        # argparse formats for the terminal's columns less 2; the epilog is not indented.
        epilog=epilog(terminal_width() - 2),
    )
    _game_options(parser)
    _search_options(parser)
    _player_options(parser)
    _output_options(parser)
    _web_options(parser)
    return parser


def _game_options(parser: argparse.ArgumentParser) -> None:
    """What is played, and against which model."""
    group = parser.add_argument_group("the game and the model")
    group.add_argument(
        "--game",
        default=DEFAULT_GAME,
        metavar="NAME[:k=v,...]",
        help="the game and its size, e.g. connect4, tictactoe, gomoku (15x15, five in a row), "
        "gomoku:size=8,n_in_row=5, gomoku6, dots_and_boxes:rows=2,cols=2 (default: connect4, "
        "or the game of the run of --model or of a model:PATH player)",
    )
    group.add_argument(
        "--model",
        type=Path,
        default=None,
        metavar="PATH",
        help="the model to play against (and to ask for hints): a run folder (its "
        "best.keras) or a .keras file (default: a "
        "shipped run from checkpoints/pretrained/ in the current directory, else in the "
        "project play.py is part of, else a run of train.py in checkpoints/ in the current "
        "directory that has saved a model; each must train this game with these parameters, "
        "and a folder named after the game is tried first; with none, you play the baseline "
        f"{FALLBACK_OPPONENT}). Without --game, the game of its run is played (the "
        "config.yaml in the folder, beside the file, or above models/)",
    )


def _search_options(parser: argparse.ArgumentParser) -> None:
    """How the model searches and runs its network, for hints and ``model:PATH`` specs too."""
    group = parser.add_argument_group("the model's search")
    group.add_argument(
        "--sims",
        type=integer,
        default=DEFAULT_SIMULATIONS,
        metavar="N",
        help=f"the model's search: simulations per move, also for hints and for model:PATH "
        f"specs that give none (default {DEFAULT_SIMULATIONS})",
    )
    group.add_argument(
        "--move-time",
        type=number,
        default=None,
        metavar="SECONDS",
        help="instead of --sims: the model searches each move for SECONDS, in chunks of "
        "simulations (at least one chunk, 32); also for hints and model:PATH specs that give "
        "no budget of their own (one spec: model:PATH:2s). PUCT only",
    )
    group.add_argument(
        "--game-time",
        type=number,
        default=None,
        metavar="SECONDS",
        help="instead of --sims: SECONDS for each whole game of the model, shared out move by "
        f"move from the plies played, the first move {OPENING_WEIGHT:g} times a middle-game "
        f"move's, falling to 1 time by the player's move {OPENING_MOVES} (one spec: "
        "model:PATH:60s/game). PUCT only",
    )
    group.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="wall",
        help="the clock of time budgets (--move-time, --game-time, and specs like "
        "model:PATH:2s, uct:2s, rave:2s) and of a match's models' seconds a move (printed, and "
        "--json's seconds_per_move): wall = seconds waited (default), cpu = this process's CPU "
        "seconds (steadier on a busy machine)",
    )
    group.add_argument(
        "--leaves",
        type=integer,
        default=DEFAULT_LEAVES,
        metavar="N",
        help="the model's search (hints and model:PATH specs too) evaluates N leaves per "
        f"network call, kept apart by a virtual loss: faster moves (default {DEFAULT_LEAVES}; "
        "1: one at a time). PUCT only: --search gumbel evaluates one leaf at a time",
    )
    group.add_argument(
        "--search",
        choices=("puct", "gumbel"),
        default=None,
        help="the model's search algorithm (hints and model:PATH specs too); default: puct, "
        "with the constants of the run that trained the model (its config.yaml): as strong "
        "as gumbel at play's budgets for half the CPU (docs/research/play_search.md)",
    )
    group.add_argument(
        "--c-puct",
        type=number,
        default=None,
        metavar="C",
        help="PUCT's exploration constant (default: the model's run's config.yaml, else 1.5)",
    )
    group.add_argument(
        "--engine",
        choices=ENGINES,
        default=DEFAULT_ENGINE,
        help="what runs the network: openvino (installed with the package; faster at the "
        "small batches of play, and no TensorFlow to load), tensorflow, or auto = openvino "
        "when installed (default)",
    )
    group.add_argument(
        "--symmetric",
        action="store_true",
        help="the model, hints and model:PATH specs average the network over the board's "
        "symmetries: better moves for more inference (one spec: model:PATH:SIMS:symmetric)",
    )


def _player_options(parser: argparse.ArgumentParser) -> None:
    """Who plays, who moves first, and how many games."""
    group = parser.add_argument_group("the players and the games")
    group.add_argument(
        "--first",
        choices=("human", "ai", "random"),
        default=None,
        help="who moves first in a game with a person: human, ai (the other player) or "
        "random (default: human; with --p1 given, --p1); sides alternate over --games",
    )
    group.add_argument(
        "--p1",
        default=None,
        metavar="SPEC",
        help="a player (default: human); in a match it moves first in the odd games",
    )
    group.add_argument(
        "--p2",
        default=None,
        metavar="SPEC",
        help="the other player (default: the model, see --model), e.g. uct:2000, random",
    )
    group.add_argument(
        "--games",
        type=integer,
        metavar="N",
        help="games to play; sides alternate (default: a match plays 1; with a person, "
        "another game is offered after each, sides swapped, with the running score)",
    )
    group.add_argument(
        "--seed",
        type=non_negative_integer,
        default=None,
        help="seed for the random and UCT players and --first random (default: a fresh one)",
    )


def _output_options(parser: argparse.ArgumentParser) -> None:
    """What is written where: a match's result, the game records, the model's thoughts."""
    group = parser.add_argument_group("output")
    group.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="PATH",
        help="write a match's result here (a new file; --force replaces one that is there)",
    )
    group.add_argument(
        "--save",
        type=Path,
        default=None,
        metavar="FILE",
        help="add the record of every game (moves, players, result) to FILE as JSON Lines, "
        "after the games it holds; see below",
    )
    group.add_argument(
        "--force",
        action="store_true",
        help="let --json replace a file that is there, and --save one that is not a file of "
        "game records",
    )
    group.add_argument(
        "--quiet",
        action="store_true",
        help="don't show what the model thought after its moves (and no progress bar)",
    )
    group.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colours: auto = when the output is a terminal and NO_COLOR is not set",
    )


def _web_options(parser: argparse.ArgumentParser) -> None:
    """``--web`` and where it serves."""
    group = parser.add_argument_group(
        "in the browser",
        "--web serves a page with the board, played with the mouse; --game, --model, --sims "
        "and --first choose the first game, and the page can change them; --leaves, --search, "
        "--c-puct, --engine and --symmetric are every game's search there (never a time: "
        "--move-time, --game-time and --clock are for the terminal)",
    )
    group.add_argument(
        "--web", action="store_true", help="play in the browser instead of the terminal"
    )
    group.add_argument(
        "--port",
        type=integer,
        default=None,
        help=f"the port to serve on (default {DEFAULT_PORT}; 0: any free port)",
    )
    group.add_argument(
        "--host",
        default=None,
        help=f"the address to serve on (default {DEFAULT_HOST}, this machine only; another, "
        "or 0.0.0.0 for all, lets other machines play, with a warning; pages are answered "
        "only under this machine's own names and addresses, or the name given here)",
    )
    group.add_argument(
        "--no-browser", action="store_true", help="print the address without opening a browser"
    )
