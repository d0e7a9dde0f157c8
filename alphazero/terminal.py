"""The terminal game: a person against a model or a baseline, or a match between two players.

``python play.py`` (a thin wrapper around ``main``) reads the options, builds the players and
then either runs a match through ``alphazero.arena`` (no person playing) or a ``Session``: the
board with coordinates and the last move marked (in colour on a terminal), a prompt that takes
moves in the game's own notation and the commands ``help``, ``hint``, ``undo``, ``moves``,
``board`` and ``quit``, and after each of a model's moves what it thought (the move played,
then its most visited others, with their share of the visits and their value, and its outlook:
the search's value or the result it proved). A won game's last board marks the winning line.
With ``--web`` the same options serve the board in a browser instead (``alphazero.play.web``).

Everything a person types goes through ``Session.ask``: no input can end the program with a
traceback. End of input and Ctrl-C leave politely with exit code 0.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .games.base import Game, GameError, MoveParseError
from .players import SPEC_FORMS, HumanPlayer, Player, Thought

if TYPE_CHECKING:
    from .arena import MatchResult

DEFAULT_GAME = "connect4"
DEFAULT_SIMULATIONS = 800
"""What the README's strength table measures; about 2 s a Connect Four move on 2 cores."""
PRETRAINED_DIR = Path("checkpoints", "pretrained")
"""Shipped models: ``checkpoints/pretrained/<game>/``, a run folder (``best.keras`` inside)."""
PROJECT_PRETRAINED_DIR = Path(__file__).resolve().parents[1] / PRETRAINED_DIR
"""The shipped models of the checkout this package lives in, so that ``play.py`` run from
another folder (where ``PRETRAINED_DIR``, a relative path, finds nothing) still has them."""
RUNS_DIR = Path("checkpoints")
"""Where ``train.py`` writes its runs by default: ``checkpoints/<config name>/``."""
MAX_INPUT = 100
"""Longer lines are refused without being parsed."""
RECORD_FORMAT = 1
COMMANDS = ("help", "hint", "undo", "moves", "board", "quit")

TITLES = {
    "tictactoe": "Tic-tac-toe",
    "connect4": "Connect Four",
    "gomoku": "Gomoku",
    "dots_and_boxes": "Dots and Boxes",
}

GAME_ALIASES: dict[str, tuple[str, dict[str, int]]] = {
    "ttt": ("tictactoe", {}),
    "c4": ("connect4", {}),
    "boxes": ("dots_and_boxes", {}),
    "dots": ("dots_and_boxes", {}),
}
"""Short names for ``--game``; ``gomokuN`` (N x N, five in a row from 8 up, else four) too."""

GAMES_HELP = (
    "games (--game NAME or NAME:key=value,..., here with the defaults):",
    (
        ("connect4:rows=6,cols=7,n_in_row=4", "a move is a column: 1-7"),
        (
            "tictactoe",
            "a move is a point: its column letter and its row from the bottom, b2, or "
            "column,row: 2,2",
        ),
        ("gomoku:size=15,n_in_row=5", "a point, as in tic-tac-toe: h8 or 8,8"),
        (
            "dots_and_boxes:rows=3,cols=3",
            "boxes; a move is an edge, by its two dots: a1-b1 (columns are letters, rows "
            "numbers from the top)",
        ),
        (
            "short names",
            "c4, ttt, boxes, gomoku6 (6x6, four in a row), gomoku8 and gomoku15 (five)",
        ),
    ),
)
"""Help sections are a heading and rows of two columns, laid out for the terminal's width
by ``two_columns``."""

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
        (
            "python play.py --p1 uct:1000 --p2 random --games 100 --json match.json",
            "a match of 100 games, its result written to match.json",
        ),
        ("python play.py --web", "the board in your browser, played with the mouse"),
    ),
)

SAVE_HELP = """\
--save FILE writes JSON Lines: one JSON object per game, e.g.
  {"format": 1, "game": "connect4",
   "params": {"rows": 6, "cols": 7, "n_in_row": 4},
   "players": {"X": "human", "O": "model:connect4:800"},
   "moves": ["4", "4", "3"], "actions": [3, 3, 2],
   "result": "X wins", "score": 1, "winner": "human"}
Moves are in notation, actions as numbers; X moves first; result is "X wins", "O wins", \
"draw" or "abandoned" (score null); the file is rewritten after every game."""


# ------------------------------------------------------------------------------ options
ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` when set; 80 when the output is not one)."""
    return shutil.get_terminal_size().columns


def fill(text: str, width: int, columns: bool = True) -> str:
    """``text`` with every line wider than ``width`` wrapped; lines that fit are kept as
    written, so hand-made layouts (tables, examples) stay as they are where there is room.

    A wrapped line of prose goes on at its own indent, an indented line (an item of a list)
    two further in. With ``columns``, a line laid out in two columns (a gap of two or more
    spaces after its first words) goes on under its second column, where that column starts
    in the left half; otherwise as an item. Never wider than ``width`` (at least 20).
    """
    width = max(width, 20)
    out = []
    for line in text.splitlines():
        if len(ANSI_CODE.sub("", line)) <= width:  # colour codes take no room on the screen
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        hang = lead + 2 if lead else 0
        second = re.match(r" *\S.*?\S {2,}(?=\S)", line) if columns else None
        if second is not None and second.end() <= width // 2:
            hang = second.end()
        # Deep indents (continuations of a table's column) would leave too little room.
        lead, hang = min(lead, width // 3), min(hang, width // 3)
        out.extend(
            textwrap.wrap(
                line.strip(),
                width,
                initial_indent=" " * lead,
                subsequent_indent=" " * hang,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and the epilog keep their own line breaks and layout, as with
    ``RawDescriptionHelpFormatter``, but a line too wide for the terminal is wrapped
    (``fill``): raw text alone runs off the side of a narrow terminal."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in fill(text, width).splitlines())


def two_columns(rows: Sequence[tuple[str, str]], width: int, indent: int = 2) -> str:
    """``rows`` as two columns within ``width``: the second starts after the widest first
    part that takes at most half the width; a first part wider than that stands on its own
    line, its second part under the column. Each part wraps within its room."""
    width = max(width, 30)
    gap = 2
    fitting = [len(left) for left, _ in rows if indent + len(left) + gap <= width // 2]
    start = indent + (max(fitting) + gap if fitting else 4)
    lines = []
    for left, right in rows:
        body = textwrap.wrap(right, width - start, break_on_hyphens=False)
        if indent + len(left) + gap <= start and body:
            lines.append((" " * indent + left).ljust(start) + body.pop(0))
        else:
            margin = " " * indent
            lines += textwrap.wrap(
                left,
                width,
                initial_indent=margin,
                subsequent_indent=margin + "  ",
                break_on_hyphens=False,
            )
        lines += [" " * start + line for line in body]
    return "\n".join(lines)


def epilog(width: int) -> str:
    """The end of ``play.py --help``: examples, games, player specs, the prompt's commands
    and the ``--save`` format, laid out for ``width`` columns."""
    sections = [
        f"{heading}\n{two_columns(rows, width)}" for heading, rows in (EXAMPLES, GAMES_HELP)
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
    parser.add_argument(
        "--game",
        default=DEFAULT_GAME,
        metavar="NAME[:k=v,...]",
        help="the game and its size, e.g. connect4, tictactoe, gomoku:size=8,n_in_row=5, "
        "gomoku6, dots_and_boxes:rows=2,cols=2 (default: connect4)",
    )
    parser.add_argument(
        "--model",
        type=Path,
        default=None,
        metavar="PATH",
        help="the model to play against (and to ask for hints): a run folder (its "
        "best.keras) or a .keras file (default: checkpoints/pretrained/<game> in this folder, "
        "else in this project's, else the run checkpoints/<game> that train.py writes)",
    )
    parser.add_argument(
        "--sims",
        type=int,
        default=DEFAULT_SIMULATIONS,
        metavar="N",
        help=f"the model's search: simulations per move, also for hints and for model:PATH "
        f"specs that give none (default {DEFAULT_SIMULATIONS})",
    )
    parser.add_argument(
        "--symmetric",
        action="store_true",
        help="the model, hints and model:PATH specs average the network over the board's "
        "symmetries: better moves for more inference (one spec: model:PATH:SIMS:symmetric)",
    )
    parser.add_argument(
        "--first",
        choices=("human", "ai", "random"),
        default=None,
        help="who moves first in a game with a person: human, ai (the other player) or "
        "random (default: human; with --p1 given, --p1); sides alternate over --games",
    )
    parser.add_argument(
        "--p1",
        default=None,
        metavar="SPEC",
        help="a player (default: human); in a match it moves first in the odd games",
    )
    parser.add_argument(
        "--p2",
        default=None,
        metavar="SPEC",
        help="the other player (default: the model, see --model), e.g. uct:2000, random",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=1,
        metavar="N",
        help="games to play; sides alternate (default 1)",
    )
    parser.add_argument(
        "--json", type=Path, default=None, metavar="PATH", help="write a match's result here"
    )
    parser.add_argument(
        "--save",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the record of every game (moves, players, result) as JSON Lines, see below",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed for the random and UCT players and --first random (default: a fresh one)",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="don't show what the model thought after its moves (and no progress bar)",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colours: auto = when the output is a terminal and NO_COLOR is not set",
    )
    from .play.web import DEFAULT_HOST, DEFAULT_PORT

    web = parser.add_argument_group(
        "in the browser",
        "--web serves a page with the board, played with the mouse; --game, --model, --sims "
        "and --first choose the first game, and the page can change them",
    )
    web.add_argument(
        "--web", action="store_true", help="play in the browser instead of the terminal"
    )
    web.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"the port to serve on (default {DEFAULT_PORT}; 0: any free port)",
    )
    web.add_argument(
        "--host",
        default=None,
        help=f"the address to serve on (default {DEFAULT_HOST}, this machine only; another "
        "lets other machines play, with a warning)",
    )
    web.add_argument(
        "--no-browser", action="store_true", help="print the address without opening a browser"
    )
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """``play.py``'s options."""
    return build_parser().parse_args(argv)


def parse_game(text: str) -> tuple[str, dict[str, int]]:
    """``name[:key=value,...]`` or a short name -> ``(name, params)``; validated.

    Raises ``ValueError`` (or a ``GameError``) with a one-line reason.
    """
    from .games import make

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
        if not sep or not value.strip().isdigit():
            raise ValueError(f"--game {text!r}: parameters are key=number, like size=8")
        params[key.strip()] = int(value)
    make(name, **params)  # validates the name and the parameters
    return name, params


def default_model(name: str, params: Mapping[str, int] | None = None) -> Path | None:
    """The model ``play.py`` uses for game ``name`` with ``params`` when none is given.

    A shipped run folder in ``checkpoints/pretrained/`` first (the working folder's, else this
    checkout's: see ``pretrained_dirs``), else a run of ``train.py`` in ``checkpoints/`` that
    has saved a model; either must train this very game (the name and the parameters in its
    ``config.yaml``), so Gomoku 6x6 and 8x8 each find their own.
    ``None`` when there is none.
    """
    from .games import make

    wanted = make(name, **(params or {})).params
    bases = [(base, False) for base in pretrained_dirs()] + [(RUNS_DIR, True)]
    for base, needs_model in bases:
        if not base.is_dir():
            continue
        # The folder named after the game first, so a user's own run of the default config
        # wins over experiments that happen to train the same game.
        folders = sorted(p for p in base.iterdir() if p.is_dir() and p != PRETRAINED_DIR)
        folders.sort(key=lambda p: p.name != name)
        for folder in folders:
            if needs_model and not any(
                (folder / file).is_file() for file in ("best.keras", "latest.keras")
            ):
                continue
            if _config_game(folder / "config.yaml") == (name, wanted):
                return folder
    return None


def pretrained_dirs() -> list[Path]:
    """Where shipped models are looked for, in order: ``checkpoints/pretrained`` in the working
    folder, then in the checkout this package lives in (when that is another folder)."""
    dirs = [PRETRAINED_DIR]
    # Only where it is there: an installed (not editable) package has no checkpoints beside it.
    if PROJECT_PRETRAINED_DIR.is_dir() and PROJECT_PRETRAINED_DIR != PRETRAINED_DIR.resolve():
        dirs.append(PROJECT_PRETRAINED_DIR)
    return dirs


def _config_game(config: Path) -> tuple[str, dict[str, int]] | None:
    """The game (name, full parameters) a config or run folder's config trains, if readable."""
    from .config import ConfigError, read_yaml
    from .games import make

    try:  # the bounded loader: any config.yaml under checkpoints/ is read here, unasked
        data = read_yaml(config)
        game = data["game"]
        name = str(game["name"])
        return name, make(name, **(game.get("params") or {})).params
    except (ConfigError, ValueError, TypeError, KeyError, AttributeError, GameError):
        return None


def how_to_train(name: str, params: Mapping[str, int] | None = None, shown: str = "") -> str:
    """One line: there is no model for game ``name`` with ``params``, and how to train one.

    ``shown`` is the ``--game`` text as the person typed it. The line names the config in
    ``configs/`` that trains this very board; when none does, ``configs/<name>.yaml`` with the
    parameters to change.
    """
    from .games import make

    title = TITLES.get(name, name)
    wanted = make(name, **(params or {})).params
    configs = sorted(Path("configs").glob("*.yaml"))
    configs.sort(key=lambda p: p.stem != name)  # configs/<name>.yaml first
    config = next((c for c in configs if _config_game(c) == (name, wanted)), None)
    if config is None and _config_game(Path("configs", f"{name}.yaml")) is None:
        config = Path("configs", f"{name}.yaml")  # not here to read (run from elsewhere)
    game_option = "" if name == DEFAULT_GAME and not shown else f" --game {shown or name}"
    if config is None:
        config = Path("configs", f"{name}.yaml")
        settings = ",".join(f"{k}={v}" for k, v in wanted.items())
        train = f"`python train.py --config {config}` (set its game params to {settings})"
    elif config.stem == DEFAULT_GAME:
        train = "`python train.py`"
    else:
        train = f"`python train.py --config {config}`"
    play = f"`python play.py{game_option} --model {RUNS_DIR / config.stem}`"
    looked = " or ".join(str(d) for d in pretrained_dirs())
    return (
        f"no {title} model yet (none in {looked} for this board): train one with "
        f"{train}, then play it with {play} (or play a baseline: --p2 uct:2000)"
    )


# ------------------------------------------------------------------------------ colours
ANSI = {
    "reset": "0",
    "bold": "1",
    "dim": "2",
    "underline": "4",
    "reverse": "7",
    "red": "31",
    "yellow": "33",
}
MARK_COLORS = {"X": "red", "O": "yellow"}


def use_color(stream: TextIO, mode: str = "auto", environ: Mapping[str, str] | None = None) -> bool:
    """Whether to write ANSI colours to ``stream``.

    ``always`` / ``never`` decide; ``auto`` colours a terminal only, and never when
    ``NO_COLOR`` is set to anything non-empty (https://no-color.org) or ``TERM=dumb``.
    """
    if mode == "always":
        return True
    if mode == "never":
        return False
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


@dataclass(frozen=True)
class Style:
    """ANSI styling, or none at all (``color=False``: every method returns its text)."""

    color: bool

    def paint(self, text: str, *styles: str) -> str:
        if not self.color or not styles:
            return text
        codes = ";".join(ANSI[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def mark(self, mark: str, last: bool = False) -> str:
        """A player's mark in its colour; the last move bold and underlined."""
        styles = (MARK_COLORS[mark],) if mark in MARK_COLORS else ()
        return self.paint(mark, *styles, *(("bold", "underline") if last else ()))

    def board(self, text: str) -> str:
        """Colour a ``Game.render()`` board: marks, the last move (in parentheses, or the
        ``*`` edge of Dots and Boxes), the winning line (in brackets) and the empty points."""
        if not self.color:
            return text

        def repl(m: re.Match[str]) -> str:
            if m.group(1):
                return "(" + self.mark(m.group(1), last=True) + ")"
            if m.group(2):
                return "[" + self.winning(m.group(2)) + "]"
            if m.group(3):
                return self.paint(m.group(3), "bold")
            if m.group(4):
                return self.mark(m.group(4))
            return self.paint(m.group(5), "dim")

        pattern = r"\(([XO])\)|\[([XO])\]|(-\*-|\*)|\b([XO])\b|(?<= )(\.)(?= |$)"
        return re.sub(pattern, repl, text)

    def winning(self, mark: str) -> str:
        """A stone of the winning line: its colour reversed, so the line stands out."""
        styles = (MARK_COLORS[mark],) if mark in MARK_COLORS else ()
        return self.paint(mark, *styles, "bold", "reverse")


# ------------------------------------------------------------------------------ text
def printable(text: str, limit: int = 40) -> str:
    """``text`` as it can be shown back: control characters escaped, cut at ``limit``."""
    shown = text if text.isprintable() else ascii(text)[1:-1]
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def title_of(game: Game) -> str:
    """``Connect Four``, ``Gomoku 8x8, five in a row``, ``Dots and Boxes 2x2``..."""
    title = TITLES.get(game.name, game.name)
    params = game.params
    if game.name == "gomoku":
        return f"{title} {params['size']}x{params['size']}, {params['n_in_row']} in a row"
    if game.name == "dots_and_boxes":
        return f"{title}, {params['rows']}x{params['cols']} boxes"
    if game.name == "connect4" and params != {"rows": 6, "cols": 7, "n_in_row": 4}:
        return f"{title} {params['rows']}x{params['cols']}, {params['n_in_row']} in a row"
    return title


def notation(game: Game) -> str:
    """What a move looks like, in a few words."""
    if game.name == "connect4":
        return f"a column 1-{game.params['cols']}"
    if game.name == "dots_and_boxes":
        return "an edge by its two dots, like a1-b1"
    return "a point like b2, or column,row like 2,2"


def _box_score(game: Game) -> str | None:
    """``boxes: X 1, O 0`` in Dots and Boxes; None in games without boxes."""
    boxes = getattr(game, "boxes", None)
    if boxes is None:
        return None
    marks = _marks(game)
    return f"boxes: {marks[1]} {boxes[0]}, {marks[-1]} {boxes[1]}"


def game_help(game: Game, width: int = 80) -> str:
    """The ``help`` text: the notation of ``game`` and the commands, wrapped to ``width``."""
    p = game.params
    if game.name == "connect4":
        moves = (
            f"Type a column, 1-{p['cols']} from the left: your stone drops to the lowest free "
            f"cell. {p['n_in_row']} in a row (across, down or diagonal) wins."
        )
    elif game.name == "dots_and_boxes":
        last = "abcdefghijklmnopqrstuvwxyz"[p["cols"]]
        moves = (
            f"Type an edge by the two dots it joins: columns are letters a-{last}, rows are "
            f"numbers 1-{p['rows'] + 1} from the top. a1-b1 is the top edge of the top-left "
            f"box, a1-a2 its left edge. Completing a box scores it and you move again; more "
            f"boxes wins. The edge drawn last shows as *."
        )
    else:
        size = int(getattr(game, "size", 3))
        n = p.get("n_in_row", 3)
        last = "abcdefghijklmnopqrstuvwxyz"[size - 1]
        moves = (
            f"Type a point: its column letter a-{last} and its row number 1-{size} from the "
            f"bottom, like b2, or the two numbers column,row like 2,2. {n} in a row wins."
        )
    if game.name != "dots_and_boxes":
        moves += (
            " The last stone is drawn in (parentheses), and the line that wins, once there is "
            "one, in [brackets]."
        )
    paragraphs = (
        moves,
        "Commands: help (this), hint (the model's suggestion), undo (take back your last move "
        "and the replies to it), moves (the moves so far), board (draw the board again), quit "
        "(or end of input, or Ctrl-C).",
        "A hint lists the most searched moves, the one suggested first: their share of the "
        "visits, and in parentheses their value, from -1 (a loss) to +1 (a win) for the player "
        "to move. The outlook is what the move was chosen by: the search's value of the "
        "position on the same scale, or the result the search proved; in parentheses, the "
        "network's own win / draw / loss guess before searching (the network alone).",
    )
    return "\n".join(fill(paragraph, width) for paragraph in paragraphs)


def signed(value: float) -> str:
    """A value in [-1, 1] with its sign and two decimals: ``+0.31``, ``-1.00``, and ``+0.00``
    for anything that rounds to zero (formatting -0.001 directly gives ``-0.00``)."""
    # round() first, then + 0.0 turns the -0.0 it can return into 0.0.
    return f"{round(value, 2) + 0.0:+.2f}"


PROVEN = {1.0: "a proven win", 0.0: "a proven draw", -1.0: "a proven loss"}
WHY_CHOSEN = {
    1.0: "the quickest proven win",
    0.0: "it keeps the proven draw",
    -1.0: "the position is lost and it holds out longest",
    None: "the more searched moves are proven lost",
}
"""Why a search plays a move other than its most visited one (``Node.next``'s rules)."""


def format_thought(
    thought: Thought, top_label: str, outlook_label: str, chosen: str = "played"
) -> list[str]:
    """What a search found, in two lines (three when the move chosen is not the most visited).

    The moves searched come with their share of the visits and their value, the move chosen
    (``chosen``: played, suggested) first. The outlook puts what the move was chosen by
    first: the search's value, or the result it proved; the network's own win / draw / loss
    guess, from before the search ("the network alone"), follows in parentheses, and is left
    out once the search has proved the result (beside a proof it only reads as a
    contradiction). Values and percentages are for the player to move in the position
    searched.
    """
    top = sorted(thought.top, key=lambda m: m.action != thought.action)  # stable: chosen first
    moves = ", ".join(f"{m.move} {m.share:.0%} ({signed(m.value)})" for m in top)
    lines = [f"  {top_label}: {moves}   [share of {thought.simulations} visits (value)]"]
    first = top[0] if top and top[0].action == thought.action else None
    if first is not None and any(m.visits > first.visits for m in top[1:]):
        why = WHY_CHOSEN.get(thought.proven, WHY_CHOSEN[None])
        lines.append(f"  {chosen} {first.move}, not the most searched move: {why}")
    if thought.proven is not None:
        outlook = f"{PROVEN[thought.proven]} (value {signed(thought.proven)})"
    else:
        outlook = f"search value {signed(thought.value)}"
        if thought.wdl is not None:
            win, draw, loss = thought.wdl
            outlook += f" (the network alone: win {win:.0%}, draw {draw:.0%}, loss {loss:.0%})"
    lines.append(f"  {outlook_label}: {outlook}")
    return lines


# ------------------------------------------------------------------------------ records
@dataclass
class GameRecord:
    """One game as ``--save`` writes it (one JSON object per line)."""

    game: str
    params: dict[str, int]
    players: dict[str, str]
    """``{"X": first player's name, "O": second's}``."""
    moves: list[str] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    result: str = "abandoned"
    score: int | None = None
    winner: str | None = None
    format: int = RECORD_FORMAT

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, ``format`` first."""
        data = asdict(self)
        return {"format": data.pop("format"), **data}

    @classmethod
    def of(
        cls, start: Game, names: Mapping[int, str], actions: list[int], final: Game | None
    ) -> GameRecord:
        """The record of the game from ``start`` through ``actions``; ``final`` is the last
        position if the game was played to the end (else it was abandoned)."""
        marks = _marks(start)
        record = cls(
            game=start.name,
            params=dict(start.params),
            players={marks[1]: names[1], marks[-1]: names[-1]},
            actions=[int(a) for a in actions],
        )
        position = start
        for action in actions:
            record.moves.append(position.format_move(action))
            position = position.sim_move(action)
        if final is not None and final.score is not None:
            record.score = int(final.score)
            record.result = "draw" if final.score == 0 else f"{marks[final.score]} wins"
            record.winner = names[final.score] if final.score else None
        return record


def save_records(path: Path, records: list[GameRecord]) -> None:
    """Write ``records`` to ``path`` as JSON Lines (the whole file, each time)."""
    text = "".join(json.dumps(r.to_dict()) + "\n" for r in records)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _marks(game: Game) -> dict[int, str]:
    marks = getattr(game, "marks", {})
    return {1: marks.get(1, "X"), -1: marks.get(-1, "O")}


# ------------------------------------------------------------------------------ input
class LineReader:
    """What a person types, one line at a time; ``None`` at the end of input.

    With ``stream=None`` it reads standard input with ``input()`` (line editing on a
    terminal). With ``echo`` the line is written back after the prompt, so that a transcript
    of piped input reads like a session at a terminal.
    """

    def __init__(self, out: TextIO, stream: TextIO | None = None, echo: bool = False) -> None:
        self.out = out
        self.stream = stream
        self.echo = echo

    def read(self, prompt: str) -> str | None:
        if self.stream is None:
            try:
                line = input(prompt)
            except EOFError:
                return None
            except UnicodeDecodeError:  # stdin without errors="replace": not text
                line = "\ufffd"
        else:
            self.out.write(prompt)
            self.out.flush()
            raw = self.stream.readline()
            if not raw:
                return None
            line = raw.rstrip("\r\n")
        if self.echo:
            self.out.write(printable(line, 60) + "\n")
        return line


class Leave(Exception):
    """The person left the game: ``quit`` or the end of input."""


# ------------------------------------------------------------------------------ hints
class HintModel:
    """Where ``hint`` gets a model: a player that is one, or a model loaded on first use."""

    def __init__(
        self,
        player: Any | None = None,
        path: Path | None = None,
        game: Game | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        seed: int | None = None,
        symmetric: bool = False,
    ) -> None:
        self.player = player
        self.path = path
        self.game = game
        self.simulations = simulations
        self.seed = seed
        self.symmetric = symmetric
        self.error: str | None = None

    def get(self) -> tuple[Any | None, str]:
        """``(model player, "")`` or ``(None, why there is none)``."""
        if self.player is not None:
            return self.player, ""
        if self.path is None or self.game is None:
            return None, "no model is loaded, so no hint: start with --model PATH to get hints"
        if self.error is None:
            from .checkpoints import CheckpointError
            from .players import ModelPlayer

            try:
                self.player = ModelPlayer(
                    self.path,
                    self.game,
                    simulations=self.simulations,
                    seed=self.seed or 0,
                    symmetric=self.symmetric,
                )
                return self.player, ""
            except (CheckpointError, GameError, ValueError, OSError) as error:
                self.error = f"no hint: the model cannot be loaded ({error})"
        return None, self.error


# ------------------------------------------------------------------------------ session
def is_human(player: Player) -> bool:
    return isinstance(player, HumanPlayer)


@dataclass
class Undo:
    """``ask``'s answer when the person takes moves back: truncate the game at ``index``."""

    index: int


class Session:
    """Games between a person and another player (or two people) at the terminal.

    ``new_game`` makes the starting position. ``names`` shows players by ``id``. Output goes
    to ``out``; input comes from ``reader``.
    """

    def __init__(
        self,
        new_game: Callable[[], Game],
        *,
        reader: LineReader,
        out: TextIO,
        style: Style,
        hint: HintModel,
        names: Mapping[int, str],
        show_thoughts: bool = True,
        save: Path | None = None,
        width: int | None = None,
    ) -> None:
        self.new_game = new_game
        self._width = width
        """Columns to wrap help and thoughts to; None: the terminal's, asked each time (it
        may have been resized)."""
        self.reader = reader
        self.out = out
        self.style = style
        self.hint = hint
        self.names = names
        self.show_thoughts = show_thoughts
        self.save_path = save
        self.records: list[GameRecord] = []
        self._live = _isatty(out)
        # the game in progress, for the record of an abandoned game
        self._start: Game | None = None
        self._seats: dict[int, Player] = {}
        self._history: list[tuple[Game, int]] = []

    # ------------------------------------------------------------------ output
    def say(self, *lines: str) -> None:
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()

    def width(self) -> int:
        return self._width if self._width is not None else terminal_width()

    def say_wrapped(self, *lines: str) -> None:
        """Long lines (a game's introduction, a model's thoughts), wrapped with an indent on
        a terminal, which would otherwise break them at its edge, flush left; written whole
        into a file or a pipe, one line each, as a transcript is read and searched."""
        if self._live or self._width is not None:
            lines = tuple(fill(line, self.width(), columns=False) for line in lines)
        self.say(*lines)

    def name(self, player: Player) -> str:
        return self.names.get(id(player), player.name)

    def show_board(self, game: Game) -> None:
        self.say("", self.style.board(game.render()), "")

    def label(self, game: Game, player: int) -> str:
        """``X (you)``, ``O (random)``: the mark in colour and who plays it."""
        mark = _marks(game)[player]
        return f"{self.style.mark(mark)} ({self.name(self._seats[player])})"

    def announce(self, game: Game, player: int) -> str:
        """``you play`` / ``random (O) plays``: the start of the line naming a move."""
        name = self.name(self._seats[player])
        if name == "you":
            return "you play"
        return f"{name} ({self.style.mark(_marks(game)[player])}) plays"

    # ------------------------------------------------------------------ games
    def play(self, first: Player, second: Player, games: int = 1) -> int:
        """Play ``games`` games, ``first`` moving first in the odd ones; the exit code."""
        wins = {id(first): 0, id(second): 0}
        draws = 0
        try:
            for number in range(games):
                seats = {1: first, -1: second} if number % 2 == 0 else {1: second, -1: first}
                if games > 1:
                    self.say(f"--- game {number + 1} of {games} ---")
                final = self.play_game(seats)
                self._record(final)
                if final.score:
                    wins[id(seats[final.score])] += 1
                else:
                    draws += 1
                if games > 1:
                    self.say(
                        f"score after {number + 1} game{'s' if number else ''}: "
                        f"{self.name(first)} {wins[id(first)]}, "
                        f"{self.name(second)} {wins[id(second)]}, draws {draws}",
                        "",
                    )
        except (Leave, KeyboardInterrupt, EOFError):
            if self._start is not None:
                self._record(None)
            self.say("", "bye")
        return 0

    def _record(self, final: Game | None) -> None:
        assert self._start is not None
        names = {p: self._seats[p].name for p in (1, -1)}
        actions = [action for _, action in self._history]
        self.records.append(GameRecord.of(self._start, names, actions, final))
        self._start = None
        if self.save_path is not None:
            try:
                save_records(self.save_path, self.records)
            except OSError as error:
                print(f"cannot write {self.save_path}: {error}", file=sys.stderr)

    def play_game(self, seats: dict[int, Player]) -> Game:
        """One game to the end; the final position. Raises ``Leave`` if the person leaves."""
        game = self.new_game()
        self._start, self._seats, self._history = game, seats, []
        history = self._history
        self.say_wrapped(
            f"{title_of(game)}: {self.label(game, 1)} against {self.label(game, -1)}; "
            f"{_marks(game)[1]} moves first.",
            f"Type a move ({notation(game)}), or help, hint, undo, quit.",
        )
        shown: Game | None = None
        while game.score is None:
            mover = seats[game.player]
            if is_human(mover):
                if shown is not game:
                    self.show_board(game)
                    shown = game
                answer = self.ask(game)
                if isinstance(answer, Undo):
                    game = history[answer.index][0]
                    del history[answer.index :]
                    continue
                action = answer
                self.say(f"{self.announce(game, game.player)} {game.format_move(action)}")
            else:
                action = self.machine_move(mover, game)
            history.append((game, action))
            before, game = game, game.sim_move(action)
            if game.score is None and game.player == before.player:
                self.say(self.again_line(game))
        self.show_board(game)
        self.say(self.result_line(game), self.moves_line())
        return game

    def again_line(self, game: Game) -> str:
        """Said when a move leaves the same player to move (a box completed in Dots and
        Boxes), so that a run of moves by one player reads as such."""
        mark = _marks(game)[game.player]
        score = _box_score(game)
        if score is None:
            return f"  {mark} moves again"
        return f"  {mark} completes a box ({score}) and moves again"

    def machine_move(self, player: Player, game: Game) -> int:
        """The move of a player that is not a person, with what it thought if it says."""
        if self._live:
            self.out.write(f"{self.name(player)} is thinking...")
            self.out.flush()
        thought: Thought | None = None
        think = getattr(player, "think", None)
        try:
            if callable(think):
                thought = think(game)
                action = thought.action
            else:
                action = int(player(game))
        finally:
            if self._live:
                self.out.write("\r\x1b[K")
        self.say(f"{self.announce(game, game.player)} {game.format_move(action)}")
        if thought is not None and self.show_thoughts:
            self.say_wrapped(*format_thought(thought, "its search", "its outlook"))
        return action

    def result_line(self, game: Game) -> str:
        if game.score == 0:
            text = "result: draw"
        else:
            assert game.score is not None
            text = f"result: {self.label(game, game.score)} wins"
            if self.name(self._seats[game.score]) == "you":
                text += " - well played!"
        score = _box_score(game)
        if score is not None:
            text += f" ({score})"
        return text

    def moves_line(self) -> str:
        if not self._history:
            return "moves: none yet"
        marks = _marks(self._history[0][0])
        return "moves: " + ", ".join(
            f"{marks[position.player]} {position.format_move(action)}"
            for position, action in self._history
        )

    # ------------------------------------------------------------------ the prompt
    def ask(self, game: Game) -> int | Undo:
        """Read lines until one is a legal move (an action) or an ``undo`` that can be done.

        Commands are answered here; anything else gets a short reason and the prompt again.
        Raises ``Leave`` on ``quit`` and at the end of input.
        """
        mark = _marks(game)[game.player]
        who = self.name(self._seats[game.player])
        prompt = f"your move ({mark}): " if who == "you" else f"{who} to move ({mark}): "
        while True:
            line = self.reader.read(prompt)
            if line is None:
                raise Leave("end of input")
            text = line.strip()
            command = text.lower()
            if not text:
                self.say("type a move, or help")
            elif len(text) > MAX_INPUT:
                self.say(f"that line is too long to be a move ({len(text)} characters)")
            elif command in ("quit", "exit", "q"):
                raise Leave("quit")
            elif command in ("help", "h", "?"):
                self.say(game_help(game, self.width()))
            elif command == "hint":
                self.give_hint(game)
            elif command in ("undo", "u"):
                index = self.undo_point(game)
                if index is None:
                    self.say("nothing to undo: you have not moved yet")
                else:
                    taken = self._history[index:]
                    marks = _marks(game)
                    self.say(
                        f"took back {len(taken)} move{'s' if len(taken) > 1 else ''}: "
                        + ", ".join(f"{marks[p.player]} {p.format_move(a)}" for p, a in taken)
                    )
                    return Undo(index)
            elif command == "moves":
                self.say(self.moves_line())
            elif command == "board":
                self.show_board(game)
            else:
                try:
                    action = game.parse_move(text)
                    game.sim_move(action)
                except MoveParseError as error:
                    self.say(f"{_reason(error, game)}; or type help")
                    continue
                except GameError as error:
                    self.say(_reason(error, game))
                    continue
                return action

    def undo_point(self, game: Game) -> int | None:
        """Where ``undo`` goes back to: the last move made by the player to move now, so
        that it is their turn again in the position before it (Dots and Boxes has extra
        turns: never assume that the players alternate). ``None`` if they have not moved."""
        for index in range(len(self._history) - 1, -1, -1):
            if self._history[index][0].player == game.player:
                return index
        return None

    def give_hint(self, game: Game) -> None:
        player, reason = self.hint.get()
        if player is None:
            self.say(reason)
            return
        thought = player.think(game)
        self.say_wrapped(*format_thought(thought, "hint", "your outlook", chosen="suggested"))


# ------------------------------------------------------------------------------ main
def _reconfigure_stdio() -> None:
    """Undecodable input becomes U+FFFD and unencodable output '?': never a crash."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def _with_sims(spec: str, simulations: int, symmetric: bool = False) -> str:
    """``model:PATH[:symmetric]`` -> ``model:PATH:SIMS[:symmetric]`` (a spec that gives its
    own budget is kept), and ``:symmetric`` added with ``symmetric``."""
    from .players import model_spec_parts

    model = model_spec_parts(spec)
    if model is None:
        return spec.strip()
    path, budget, spec_symmetric = model
    flag = ":symmetric" if symmetric or spec_symmetric else ""
    return f"model:{path}:{budget or simulations}{flag}"


def main(argv: list[str] | None = None) -> int:
    """``play.py``: returns the exit code (0 played or left, 2 bad options or no model, 1 a
    match whose --json or --save could not be written)."""
    args = parse_args(argv)
    _reconfigure_stdio()
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("\nbye")
        return 0
    except BrokenPipeError:  # the reader of our output went away
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (silence the exit flush)
        return 0


def output_problem(option: str, path: Path) -> str | None:
    """Why ``option``'s file ``path`` could not be written, or ``None``. Checked before any
    game: a match can take hours, and its result must not be lost to a mistyped path."""
    if path.is_dir():
        return f"{option} {path}: that is a folder, not a file name"
    if not path.parent.is_dir():
        return f"{option} {path}: the folder {path.parent} does not exist"
    if not os.access(path.parent, os.W_OK):
        return f"{option} {path}: the folder {path.parent} is not writable"
    return None


class _NoModel(Exception):
    """The default opponent (a model) is needed and there is none; the message says why."""


def _run(args: argparse.Namespace) -> int:
    """Check the options, build the players, then a match or a ``Session``."""
    from .checkpoints import CheckpointError
    from .games import make
    from .players import ModelPlayer, PlayerSpecError

    def fail(message: str) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 2

    try:
        name, params = parse_game(args.game)
    except (ValueError, GameError) as error:
        return fail(str(error))
    if args.games < 1:
        return fail(f"--games must be at least 1, got {args.games}")
    if args.sims < 1:
        return fail(f"--sims must be at least 1, got {args.sims}")
    for option, path in (("--json", args.json), ("--save", args.save)):
        problem = None if path is None else output_problem(option, path)
        if problem is not None:
            return fail(problem)
    if args.web:
        from .play.web import serve

        return serve(args)
    for option, given in (
        ("--port", args.port is not None),
        ("--host", args.host is not None),
        ("--no-browser", args.no_browser),
    ):
        if given:
            return fail(f"{option} goes with --web")

    def new_game() -> Game:
        return make(name, **params)

    model_path = args.model if args.model is not None else default_model(name, params)
    try:
        p1, p2 = _players(args, new_game(), model_path)
    except _NoModel as missing:
        print(missing, file=sys.stderr)
        return 2
    except (PlayerSpecError, CheckpointError, GameError, ValueError) as error:
        return fail(str(error))

    humans = [p for p in (p1, p2) if is_human(p)]
    if not humans:
        return _match(p1, p2, new_game, args)
    first, second = _seating(p1, p2, args)
    names = {id(humans[0]): "you"} if len(humans) == 1 else {id(p1): "player 1", id(p2): "player 2"}
    model = next((p for p in (p1, p2) if isinstance(p, ModelPlayer)), None)
    stdin_tty = _isatty(sys.stdin)
    if stdin_tty:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing and history at the prompt)
    session = Session(
        new_game,
        reader=LineReader(sys.stdout, echo=not stdin_tty),
        out=sys.stdout,
        style=Style(use_color(sys.stdout, args.color)),
        hint=HintModel(model, model_path, new_game(), args.sims, args.seed, args.symmetric),
        names=names,
        show_thoughts=not args.quiet,
        save=args.save,
    )
    return session.play(first, second, args.games)


def _players(args: argparse.Namespace, start: Game, model_path: Path | None) -> list[Player]:
    """``--p1`` (default human) and ``--p2`` (default the model at ``model_path``)."""
    from .players import ModelPlayer, make_player

    seeds = (args.seed, None if args.seed is None else args.seed + 1)
    players: list[Player] = []
    for spec, seed in zip((args.p1 or "human", args.p2), seeds, strict=True):
        if spec is None:
            if model_path is None:
                shown = "" if args.game == DEFAULT_GAME else args.game.strip()
                raise _NoModel(how_to_train(start.name, start.params, shown))
            print(f"loading the model {model_path} ...", flush=True)
            players.append(
                ModelPlayer(
                    model_path,
                    start,
                    simulations=args.sims,
                    seed=args.seed or 0,
                    symmetric=args.symmetric,
                )
            )
            continue
        spec = _with_sims(spec, args.sims, args.symmetric)
        if spec.lower().startswith("model:"):
            print(f"loading {spec} ...", flush=True)
        players.append(make_player(spec, start, seed=seed))
    return players


def _seating(p1: Player, p2: Player, args: argparse.Namespace) -> tuple[Player, Player]:
    """Who moves first in the first game: ``--first`` with one person playing, else ``--p1``
    when it was given, else the person."""
    humans = [p for p in (p1, p2) if is_human(p)]
    if len(humans) != 1:
        return p1, p2
    human = humans[0]
    other = p2 if human is p1 else p1
    choice = args.first or ("human" if args.p1 is None else None)
    if choice == "random":
        choice = random.Random(args.seed).choice(("human", "ai"))
    if choice == "human":
        return human, other
    if choice == "ai":
        return other, human
    return p1, p2


def _reason(error: GameError, game: Game) -> str:
    """A game's error message without the game's name in front."""
    return str(error).removeprefix(f"{game.name}: ")


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _match(p1: Player, p2: Player, new_game: Callable[[], Game], args: argparse.Namespace) -> int:
    """No person playing: a match through the arena, its table, and the files asked for."""
    from .arena import play_match

    result = play_match(p1, p2, new_game, args.games, not args.quiet)
    print(result.table())
    # The paths were checked up front; what can still fail (a full disk, a file that is not
    # writable) fails with one line, after the table, so the result is still on the screen.
    try:
        _write_match(result, p1, p2, new_game, args)
    except OSError as error:
        print(f"error: cannot write the match: {error}", file=sys.stderr)
        return 1
    return 0


def _write_match(
    result: MatchResult,
    p1: Player,
    p2: Player,
    new_game: Callable[[], Game],
    args: argparse.Namespace,
) -> None:
    """``--json`` (the result) and ``--save`` (every game's record) of a match."""
    from .arena import save_results

    if args.json:
        save_results([result], args.json)
        print(f"written to {args.json}")
    if args.save:
        records = []
        for number, actions in enumerate(result.moves):
            names = {1: p1.name, -1: p2.name} if number % 2 == 0 else {1: p2.name, -1: p1.name}
            start = new_game()
            final = start
            for action in actions:
                final = final.sim_move(action)
            records.append(GameRecord.of(start, names, actions, final))
        save_records(args.save, records)
        print(f"games written to {args.save}")
