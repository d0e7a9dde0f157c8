"""Reading what was typed on ``play.py``'s command line: the options (``parse_args``, which
notes the model's options that were written), the ``--game`` names with their short forms,
and whether the output files can be written. The options themselves are ``option_parser``'s."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from ..games import make
from .game_aliases import GAME_ALIASES
from .models import game_spec, named_game, named_models
from .option_parser import build_parser
from .records import records_problem

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
    command line, whatever their values (one at its default value too: it was asked for).
    Without ``--game``, the game is the one the runs of the models named trained (``--model``
    and ``model:PATH`` players: a run folder, or a model file in one; their ``config.yaml``),
    else ``DEFAULT_GAME``: ``--model RUN`` plays the run, whatever its game."""
    parser = build_parser()
    # argparse leaves an attribute already in the namespace alone unless the option is
    # written, so a marker tells the written options from the defaults.
    unset = object()
    written = argparse.Namespace(**dict.fromkeys([*MODEL_OPTIONS, "game"], unset))
    args = parser.parse_args(argv, written)
    args.model_options = []
    for dest, flag in MODEL_OPTIONS.items():
        if getattr(args, dest) is unset:
            setattr(args, dest, parser.get_default(dest))
        else:
            args.model_options.append(flag)
    if args.game is unset:
        trained = named_game(named_models(args))
        args.game = game_spec(*trained) if trained else parser.get_default("game")
    return args


def parse_game(text: str) -> tuple[str, dict[str, int]]:
    """``name[:key=value,...]`` or a short name (``GAME_ALIASES``, ``gomokuN``) ->
    ``(name, params)``; validated.

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
