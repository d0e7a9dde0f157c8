"""The text of ``play.py --help`` beyond its options: the epilog (examples, the games and their
short names, player specs, the prompt's commands, the ``--save`` format) and the formatter
that lays it out for the terminal's width."""

from __future__ import annotations

import argparse

from ..evaluation.player_specs import SPEC_FORMS
from ..games import GAMES, game_params, make, view_for
from .defaults import DEFAULT_GAME
from .game_aliases import GAME_ALIASES
from .records import SAVE_HELP
from .text import fill, two_columns

SHORT_NAMES_HELP = (
    "short names",
    ", ".join(GAME_ALIASES) + ", gomoku6 (6x6, four in a row), gomoku8 and gomoku15 (five)",
)
"""The games' help row for the short names ``options.parse_game`` reads: those of
``GAME_ALIASES``, then examples of its ``gomokuN`` rule."""

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
