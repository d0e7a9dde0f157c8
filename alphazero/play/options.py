"""``play.py``'s command line: its options with their help laid out for the terminal, and the
``--game`` names (short ones too)."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from ..evaluation.player_specs import SPEC_FORMS
from ..evaluation.time_budget import CLOCKS, OPENING_MOVES, OPENING_WEIGHT
from ..games import GAMES, game_params, make, view_for
from ..network.engines import ENGINES
from .records import SAVE_HELP, records_problem
from .text import fill, terminal_width, two_columns

DEFAULT_GAME = "connect4"
DEFAULT_SIMULATIONS = 800
"""What the README's strength table measures; with ``DEFAULT_LEAVES`` and ``DEFAULT_CACHE``
a move takes a fraction of a second on two cores (``benchmarks/play_speed.py``,
docs/research/benchmarks.md)."""
DEFAULT_LEAVES = 4
"""Leaves searched per network call (virtual loss keeps them apart): the search makes a
quarter of the calls, each of 4 positions, for the same simulations, and on the solved
Connect Four positions it plays as well as one leaf (docs/research/benchmarks.md)."""
DEFAULT_CACHE = 10_000
"""Positions whose network answers a model player keeps across its moves (``ModelPlayer``'s
``cache``): each move's search meets again most of the positions the last searches
evaluated, so a move is several times faster with the same moves (``benchmarks/play_speed.py``,
docs/research/benchmarks.md)."""
FALLBACK_OPPONENT = "uct:2000"
"""Whom a person plays in the terminal when the game has no model (said in one line): the UCT
baseline needs none, and plays every game on every board."""
DEFAULT_ENGINE = "auto"
"""OpenVINO (a dependency of the package) when installed, else TensorFlow."""
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
"""Where ``--web`` serves: this machine only, unless ``--host`` says otherwise."""

GAME_ALIASES: dict[str, tuple[str, dict[str, int]]] = {
    "ttt": ("tictactoe", {}),
    "c4": ("connect4", {}),
    "boxes": ("dots_and_boxes", {}),
    "dots": ("dots_and_boxes", {}),
}
"""Short names for ``--game``; ``gomokuN`` (N x N, five in a row from 8 up, else four, or N
below 4) too."""
SHORT_NAMES_HELP = (
    "short names",
    "c4, ttt, boxes, gomoku6 (6x6, four in a row), gomoku8 and gomoku15 (five)",
)

PROMPT_HELP = (
    "at the prompt: a move, or",
    (
        ("help", "the notation and these commands"),
        ("hint", "the model's suggestion for you"),
        ("undo", "take back your last move and the replies to it"),
        ("moves", "the moves so far"),
        ("board", "draw the board again"),
        ("quit", "leave (end of input and Ctrl-C leave too, exit code 0)"),
    ),
)
"""Help sections are a heading and rows of two columns, laid out for the terminal's width
by ``two_columns``."""

EXAMPLES = (
    "examples:",
    (
        ("python play.py", "you against the shipped Connect Four model"),
        ("python play.py --model checkpoints/connect4", "you against the model you trained"),
        ("python play.py --game tictactoe --p2 perfect", "you against perfect play"),
        ("python play.py --p1 human --p2 uct:2000", "you against a baseline (no model needed)"),
        (
            "python play.py --game gomoku8 --first ai --sims 400",
            "the shipped Gomoku 8x8 model moves first",
        ),
        ("python play.py --game gomoku", "Gomoku on the full 15x15 board, five in a row"),
        ("python play.py --game-time 60", "the model has 60 s a game, more for the opening"),
        (
            "python play.py --p1 uct:1000 --p2 random --games 100 --json match.json",
            "a match of 100 games, its result written to match.json",
        ),
        ("python play.py --web", "the board in your browser, played with the mouse"),
    ),
)


def games_help() -> tuple[str, tuple[tuple[str, str], ...]]:
    """Every game of the registry with its parameters' defaults and its notation, the
    default game first; then the short names."""
    rows = []
    for name in sorted(GAMES, key=lambda n: n != DEFAULT_GAME):
        params = ",".join(f"{key}={value}" for key, value in game_params(name).items())
        view = view_for(make(name))
        spec = f"{name}:{params}" if params else name
        rows.append((spec, f"{view.title}; a move is {view.notation}"))
    rows.append(SHORT_NAMES_HELP)
    return "games (--game NAME or NAME:key=value,..., here with the defaults):", tuple(rows)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and the epilog keep their own line breaks and layout, as with
    ``RawDescriptionHelpFormatter``, but a line too wide for the terminal is wrapped
    (``fill``): raw text alone runs off the side of a narrow terminal."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in fill(text, width).splitlines())


def epilog(width: int) -> str:
    """The end of ``play.py --help``: examples, games, player specs, the prompt's commands
    and the ``--save`` format, laid out for ``width`` columns."""
    sections = [
        f"{heading}\n{two_columns(rows, width)}" for heading, rows in (EXAMPLES, games_help())
    ]
    sections.append("player specs (--p1, --p2):\n" + fill("  " + SPEC_FORMS, width))
    heading, rows = PROMPT_HELP
    sections.append(f"{heading}\n{two_columns(rows, width)}")
    sections.append(fill(SAVE_HELP, width))
    return "\n\n".join(sections)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``play.py``, its help laid out for the terminal's width."""
    parser = argparse.ArgumentParser(
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
        "gomoku:size=8,n_in_row=5, gomoku6, dots_and_boxes:rows=2,cols=2 (default: connect4)",
    )
    group.add_argument(
        "--model",
        type=Path,
        default=None,
        metavar="PATH",
        help="the model to play against (and to ask for hints): a run folder (its "
        "best.keras) or a .keras file (default: the shipped run in checkpoints/pretrained/ of "
        "this folder, else of this project, else a run of train.py in checkpoints/ that has "
        "saved a model; each must train this game with these parameters, and a folder named "
        f"after the game is tried first; with none, you play the baseline {FALLBACK_OPPONENT})",
    )


def _search_options(parser: argparse.ArgumentParser) -> None:
    """How the model searches and runs its network, for hints and ``model:PATH`` specs too."""
    group = parser.add_argument_group("the model's search")
    group.add_argument(
        "--sims",
        type=int,
        default=DEFAULT_SIMULATIONS,
        metavar="N",
        help=f"the model's search: simulations per move, also for hints and for model:PATH "
        f"specs that give none (default {DEFAULT_SIMULATIONS})",
    )
    group.add_argument(
        "--move-time",
        type=float,
        default=None,
        metavar="SECONDS",
        help="instead of --sims: the model searches each move for SECONDS, in chunks of "
        "simulations (at least one chunk, 32); also for hints and model:PATH specs that give "
        "no budget of their own (one spec: model:PATH:2s). PUCT only",
    )
    group.add_argument(
        "--game-time",
        type=float,
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
        type=int,
        default=DEFAULT_LEAVES,
        metavar="N",
        help="the model's search (hints and model:PATH specs too) evaluates N leaves per "
        f"network call, kept apart by a virtual loss: faster moves (default {DEFAULT_LEAVES}; "
        "1: one at a time)",
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
        type=float,
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
        type=int,
        metavar="N",
        help="games to play; sides alternate (default: a match plays 1; with a person, "
        "another game is offered after each, sides swapped, with the running score)",
    )
    group.add_argument(
        "--seed",
        type=int,
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
        type=int,
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


MODEL_OPTIONS = {
    "model": "--model",
    "sims": "--sims",
    "move_time": "--move-time",
    "game_time": "--game-time",
    "clock": "--clock",
    "leaves": "--leaves",
    "search": "--search",
    "c_puct": "--c-puct",
    "engine": "--engine",
    "symmetric": "--symmetric",
}
"""The options only a model reads (the one playing, a ``model:PATH`` spec's, the hints'), by
their ``dest`` (``--clock`` is also read by ``uct:2s`` and ``rave:2s``): written where nothing
would read them, ``cli_checks`` refuses them rather than ignore them."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """``play.py``'s options; ``model_options`` lists those of ``MODEL_OPTIONS`` written on the
    command line, whatever their values (one at its default value too: it was asked for)."""
    parser = build_parser()
    # argparse leaves an attribute already in the namespace alone unless the option is
    # written, so a marker tells the written options from the defaults.
    unset = object()
    args = parser.parse_args(argv, argparse.Namespace(**dict.fromkeys(MODEL_OPTIONS, unset)))
    args.model_options = []
    for dest, flag in MODEL_OPTIONS.items():
        if getattr(args, dest) is unset:
            setattr(args, dest, parser.get_default(dest))
        else:
            args.model_options.append(flag)
    return args


def parse_game(text: str) -> tuple[str, dict[str, int]]:
    """``name[:key=value,...]`` or a short name -> ``(name, params)``; validated.

    Raises ``ValueError`` (or a ``GameError``) with a one-line reason.
    """
    name, _, rest = text.strip().partition(":")
    name = name.strip().lower()
    params: dict[str, int] = {}
    if name in GAME_ALIASES:
        name, defaults = GAME_ALIASES[name]
        params.update(defaults)
    elif m := re.fullmatch(r"gomoku([0-9]{1,2})", name):
        size = int(m.group(1))
        name = "gomoku"
        params.update(size=size, n_in_row=5 if size >= 8 else min(4, size))
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not (value.strip().isascii() and value.strip().isdigit()):
            raise ValueError(f"--game {text!r}: parameters are key=number, like size=8")
        params[key.strip()] = int(value)
    make(name, **params)  # validates the name and the parameters
    return name, params


def output_problem(option: str, path: Path, force: bool = False) -> str | None:
    """Why ``option``'s file ``path`` could not be written, or ``None``. Checked before any
    game: a match can take hours, and its result must not be lost to a mistyped path. A
    file that is there is never replaced without ``force``: ``--save`` adds to a file of game
    records, and refuses any other."""
    try:
        if path.is_dir():
            return f"{option} {path}: that is a folder, not a file name"
        if not path.parent.is_dir():
            return f"{option} {path}: the folder {path.parent} does not exist"
        if not os.access(path.parent, os.W_OK):
            return f"{option} {path}: the folder {path.parent} is not writable"
        if force or not path.is_file():  # a device (/dev/stdout) is written as it is
            return None
        if option == "--json":
            return (
                f"{option} {path}: the file is there; give another name, or --force to replace it"
            )
        if (problem := records_problem(path)) is not None:
            return (
                f"{option} {path}: the file is there and is not a file of game records "
                f"({problem}); give another name, or --force to replace it"
            )
    except OSError as error:  # a name too long, a loop of symlinks...
        shown = str(path) if len(str(path)) <= 80 else str(path)[:77] + "..."
        return f"{option} {shown}: cannot write there ({error.strerror or error})"
    return None
