"""``play.py``'s program: read the options, build the players, then serve the page (``--web``),
play a match (no person playing) or run a terminal session."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path

from ..evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions
from ..evaluation.model_search import PlaySearch
from ..evaluation.player_specs import PlayerSpecError, model_spec_parts
from ..evaluation.players import Player, make_player
from ..evaluation.time_budget import CLOCKS, TimeBudget
from ..games import make
from ..games.base import Game, GameError
from ..training.run_errors import CheckpointError
from .board import Style, use_color
from .cli_checks import Lineup, check_model_options, check_model_paths, option_problem, read_lineup
from .defaults import DEFAULT_CACHE, DEFAULT_GAME
from .human import HumanPlayer
from .match import run_match
from .models import (
    default_model,
    fallback_notice,
    how_to_train,
    named_models,
    other_game_problem,
)
from .options import parse_args, parse_game
from .prompt import LineReader
from .session import HintModel, Session, is_human
from .text import is_tty
from .web import serve


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


def _reconfigure_stdio() -> None:
    """Undecodable input becomes U+FFFD and unencodable output '?': never a crash."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


class _NoModel(Exception):
    """The default opponent (a model) is needed and there is none; the message says why."""


def _run(args: argparse.Namespace) -> int:
    """Check the options, build the players, then a match or a ``Session``."""

    def fail(message: str) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 2

    try:
        name, params = parse_game(args.game)
    except (ValueError, GameError) as error:
        return fail(str(error))
    problem = option_problem(args) or other_game_problem(named_models(args), name, params)
    if problem is not None:
        return fail(problem)
    if args.web:
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
        check_model_paths(args, model_path)
        lineup = read_lineup(args, model_path)
        check_model_options(args, lineup)
        p1, p2 = _players(args, new_game(), lineup)
    except _NoModel as missing:
        print(missing, file=sys.stderr)
        return 2
    except (PlayerSpecError, CheckpointError, GameError, ValueError) as error:  # EngineError too
        return fail(str(error))

    humans = [p for p in (p1, p2) if is_human(p)]
    if not humans:
        games = args.games or 1
        return run_match(p1, p2, new_game, games, not args.quiet, args.json, args.save)
    first, second = _seating(p1, p2, args)
    names = {id(humans[0]): "you"} if len(humans) == 1 else {id(p1): "player 1", id(p2): "player 2"}
    model = next((p for p in (p1, p2) if isinstance(p, ModelPlayer)), None)
    return _session(args, new_game, model, model_path, names).play(first, second, args.games)


def _budget(args: argparse.Namespace) -> int | TimeBudget:
    """The model's budget a move: ``--sims``, or the time ``--move-time`` or ``--game-time``
    gives."""
    if args.move_time is not None:
        return TimeBudget(args.move_time)
    if args.game_time is not None:
        return TimeBudget(args.game_time, per_game=True)
    return int(args.sims)


def _session(
    args: argparse.Namespace,
    new_game: Callable[[], Game],
    model: ModelPlayer | None,
    model_path: Path | None,
    names: dict[int, str],
) -> Session:
    """The terminal session of the games with a person; ``model`` (else the one at
    ``model_path``) gives the hints."""
    stdin_tty = is_tty(sys.stdin)
    if stdin_tty:
        # Line editing and history at the prompt; only on a terminal, where it belongs (and
        # its import alone can write escape codes).
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401
    return Session(
        new_game,
        reader=LineReader(sys.stdout, echo=not stdin_tty),
        out=sys.stdout,
        style=Style(use_color(sys.stdout, args.color)),
        hint=_hint(args, model, model_path, new_game()),
        names=names,
        show_thoughts=not args.quiet,
        save=args.save,
    )


def _model(args: argparse.Namespace, path: Path) -> tuple[ModelSource, PlaySearch, PlayerOptions]:
    """How the options have the model at ``path`` play, and give hints (``ModelPlayer``)."""
    source = ModelSource(path, engine=args.engine, symmetric=args.symmetric, cache=DEFAULT_CACHE)
    search = PlaySearch(args.search, args.c_puct, args.leaves)
    return source, search, PlayerOptions(seed=args.seed or 0, clock=CLOCKS[args.clock])


def _hint(
    args: argparse.Namespace, model: ModelPlayer | None, model_path: Path | None, game: Game
) -> HintModel:
    """The hints' model: the model playing, else the one at ``model_path`` (if any) once asked."""
    if model is not None or model_path is None:
        return HintModel(model)
    source, search, options = _model(args, model_path)
    return HintModel(None, source, game, _budget(args), search, options)


def _players(args: argparse.Namespace, start: Game, lineup: Lineup) -> list[Player]:
    """The players at ``lineup``'s seats, ``--p1``'s first; ``_NoModel`` when the model is
    needed and there is none, and a line on stderr when a person plays the fallback."""
    seeds = (args.seed, None if args.seed is None else args.seed + 1)
    players: list[Player] = []
    for seat, seed in zip(lineup.seats, seeds, strict=True):
        if seat.kind in ("no model", "fallback"):
            shown = "" if args.game == DEFAULT_GAME else args.game.strip()
            if seat.kind == "no model":
                raise _NoModel(how_to_train(start.name, start.params, shown))
            # A person still gets a game: against a baseline (built below as any spec), and
            # told why in one line.
            print(fallback_notice(start.name, start.params, shown), file=sys.stderr, flush=True)
        if seat.kind == "model" and lineup.model_path is not None:  # always set for "model"
            print(f"loading the model {lineup.model_path} ...", flush=True)
            source, search, options = _model(args, lineup.model_path)
            players.append(ModelPlayer(source, start, _budget(args), search, options))
            continue
        if seat.kind == "person":
            players.append(HumanPlayer())
            continue
        spec = _with_sims(seat.spec, _budget(args), args.symmetric)
        if seat.kind == "model spec":
            print(f"loading {spec} ...", flush=True)
        players.append(
            make_player(
                spec,
                start,
                seed=seed,
                leaves=args.leaves,
                engine=args.engine,
                cache=DEFAULT_CACHE,
                search=PlaySearch(args.search, args.c_puct),
                clock=CLOCKS[args.clock],
            )
        )
    return players


def _with_sims(spec: str, simulations: int | TimeBudget, symmetric: bool = False) -> str:
    """``model:PATH[:symmetric]`` -> ``model:PATH:SIMS[:symmetric]`` (or ``:2s``,
    ``:60s/game`` for a time budget; a spec that gives its own budget is kept, and
    ``cli_checks`` refuses --sims, --move-time and --game-time when no other model reads
    them), and ``:symmetric`` added with ``symmetric``."""
    model = model_spec_parts(spec)
    if model is None:
        return spec.strip()
    path, budget, spec_symmetric = model
    flag = ":symmetric" if symmetric or spec_symmetric else ""
    return f"model:{path}:{budget or simulations}{flag}"


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
