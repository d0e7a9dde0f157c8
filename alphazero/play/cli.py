"""``play.py``'s program: read the options, build the players, then serve the page (``--web``),
play a match (no person playing) or run a terminal session."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions
from ..evaluation.model_search import PlaySearch
from ..evaluation.player_specs import (
    MAX_SIMULATIONS,
    PlayerSpecError,
    model_spec_parts,
    searches_for_a_time,
)
from ..evaluation.players import Player, make_player
from ..evaluation.time_budget import BUDGET_RANGE, CLOCKS, MAX_SECONDS, MIN_SECONDS, TimeBudget
from ..games import make
from ..games.base import Game, GameError
from ..network.engines import EngineError, resolve_engine
from ..training.run_errors import CheckpointError
from ..training.run_metadata import check_usable_path
from .board import Style, use_color
from .human import HumanPlayer
from .match import run_match
from .models import default_model, fallback_notice, how_to_train
from .options import (
    DEFAULT_CACHE,
    DEFAULT_GAME,
    FALLBACK_OPPONENT,
    output_problem,
    parse_args,
    parse_game,
)
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
    problem = _option_problem(args)
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
        _check_model_paths(args, model_path)
        lineup = _lineup(args, model_path)
        _check_model_options(args, lineup)
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


def _option_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the numbers, the engine and the output files the options name,
    before anything loads; None if nothing is."""
    if args.games is not None and args.games < 1:
        return f"--games must be at least 1, got {args.games}"
    if args.sims < 2:  # the first simulation evaluates the position itself (as model:PATH:N)
        return f"--sims must be at least 2, got {args.sims}"
    if args.sims > MAX_SIMULATIONS:  # a search's tree grows with them, without bound
        return f"--sims must be at most {MAX_SIMULATIONS:,}"
    if (problem := _time_problem(args)) is not None:
        return problem
    if args.leaves < 1:
        return f"--leaves must be at least 1, got {args.leaves}"
    if args.c_puct is not None and not 0 < args.c_puct <= 100:
        return f"--c-puct must be above 0 and at most 100, got {args.c_puct:g}"
    try:
        resolve_engine(args.engine)  # a missing engine is named before any model loads
    except EngineError as error:
        return f"--engine {args.engine}: {error}"
    for option, path in (("--json", args.json), ("--save", args.save)):
        problem = None if path is None else output_problem(option, path, args.force)
        if problem is not None:
            return problem
    return None


PAGE_UNTIMED = ("--move-time", "--game-time", "--clock")
"""The model's options the page does not read: its searches are a number of simulations,
never a time (``--leaves``, ``--search``, ``--c-puct``, ``--engine`` and ``--symmetric``
are every game's search there)."""


def _time_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--move-time``, ``--game-time`` and ``--clock``, or None."""
    timed = [flag for flag in PAGE_UNTIMED if flag in args.model_options]
    if args.web and timed:
        verb = "is" if len(timed) == 1 else "are"
        return (
            f"{_listed(timed)} {verb} for the terminal and matches: the page searches --sims "
            "simulations"
        )
    options = (("--move-time", args.move_time), ("--game-time", args.game_time))
    given = [(option, seconds) for option, seconds in options if seconds is not None]
    if len(given) > 1:
        return "give --move-time or --game-time, not both"
    if not given:
        return None
    option, seconds = given[0]
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:  # NaN too
        return f"{option} must be {BUDGET_RANGE}, got {seconds:g}"
    if args.search == "gumbel":
        return f"{option} needs the puct search: Gumbel plans its simulations before the first"
    return None


def _listed(flags: list[str]) -> str:
    """``--a``, ``--a and --b``, ``--a, --b and --c``."""
    return flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"


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


def _check_model_paths(args: argparse.Namespace, model_path: Path | None) -> None:
    """``CheckpointError`` for a model path (``--model``, ``model:PATH``) that the system
    cannot even look up, such as a name too long: one line, before anything loads."""
    specs = [model_spec_parts(spec) for spec in (args.p1, args.p2) if spec is not None]
    paths = [model_path, *(Path(parts[0]) for parts in specs if parts is not None)]
    for path in paths:
        if path is not None:
            check_usable_path(path)


SeatKind = Literal["person", "model", "model spec", "spec", "fallback", "no model"]
"""Who sits at a seat: a person, the model at ``model_path`` (``--p2`` left out), a
``model:PATH`` spec, another spec (``uct:2000``, ``random``...), ``FALLBACK_OPPONENT`` (``--p2``
left out, no model, a person at ``--p1``), or no one: the model is needed and there is none."""


@dataclass(frozen=True)
class Seat:
    """One seat of ``Lineup``: its kind, and its spec as written, stripped (``human`` in the
    person's own capitals; ``FALLBACK_OPPONENT`` for the fallback; empty for the model at
    ``model_path`` and for no one)."""

    kind: SeatKind
    spec: str = ""


@dataclass(frozen=True)
class Lineup:
    """Who plays: ``--p1``'s seat and ``--p2``'s, and the default model's path (the model
    that plays ``--p2`` left out, or gives a person hints)."""

    p1: Seat
    p2: Seat
    model_path: Path | None

    @property
    def seats(self) -> tuple[Seat, Seat]:
        """``--p1``'s seat, then ``--p2``'s."""
        return self.p1, self.p2

    @property
    def person(self) -> bool:
        """Whether a person plays: a terminal session rather than a match."""
        return any(seat.kind == "person" for seat in self.seats)

    @property
    def model_reads_options(self) -> bool:
        """Whether a model reads ``MODEL_OPTIONS`` here: one plays, or gives a person hints
        (or one is needed and missing, which ``_players`` says in its own words)."""
        kinds = {seat.kind for seat in self.seats}
        if kinds & {"model", "model spec", "no model"}:
            return True
        return self.person and self.model_path is not None


def _lineup(args: argparse.Namespace, model_path: Path | None) -> Lineup:
    """Who sits where, from ``--p1`` (default a person), ``--p2`` (default the model at
    ``model_path``; with none, ``FALLBACK_OPPONENT`` against a person, else no one) and
    ``model_path``: the one rule ``_check_model_options`` and ``_players`` both read.
    ``PlayerSpecError`` for a ``model:PATH`` spec whose budget cannot be one."""

    def seat(spec: str) -> Seat:
        text = spec.strip()
        if text.lower() == "human":  # the evaluation's players hold no person
            return Seat("person", text)
        if model_spec_parts(text) is not None:
            return Seat("model spec", text)
        return Seat("spec", text)

    p1 = seat(args.p1 or "human")
    if args.p2 is not None:
        p2 = seat(args.p2)
    elif model_path is not None:
        p2 = Seat("model")
    elif p1.kind == "person":
        p2 = Seat("fallback", FALLBACK_OPPONENT)  # a person still gets a game
    else:
        p2 = Seat("no model")
    return Lineup(p1, p2, model_path)


def _check_model_options(args: argparse.Namespace, lineup: Lineup) -> None:
    """``ValueError`` naming the options only a model reads (``MODEL_OPTIONS``: ``--sims``,
    ``--move-time``...) written where no model plays or gives hints, such as ``--p1 human
    --p2 uct:2000 --move-time 2`` with no model for the game, and for ``--clock`` in a game
    with a person where no model searches for a time: one line, where they would be ignored.
    An option left out is never refused, whatever its default."""
    if not args.model_options:
        return
    if not lineup.model_reads_options:
        given = args.model_options
        named = _listed(given)
        hints = ", and no model for hints" if lineup.person else ""
        players = f"{lineup.p1.spec} against {lineup.p2.spec}"
        raise ValueError(
            f"only a model reads {named}, and none plays here ({players}{hints}): leave "
            f"{'it' if len(given) == 1 else 'them'} out, or have a model play (--p2 model:PATH)"
        )
    # A match prints (and --json writes) each model's seconds a move, counted by --clock
    # whatever its budget; a game with a person shows no seconds, so there --clock is read
    # only by a time budget. uct:2s and rave:2s always count the wall's seconds.
    timed = (
        args.move_time is not None
        or args.game_time is not None
        or any(
            seat.kind == "model spec" and searches_for_a_time(seat.spec) for seat in lineup.seats
        )
    )
    if "--clock" in args.model_options and lineup.person and not timed:
        raise ValueError(
            "--clock goes with --move-time or --game-time (or a spec like model:PATH:2s): "
            "without one, the model searches a number of simulations and no clock is read"
        )


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
    ``:60s/game`` for a time budget; a spec that gives its own budget is kept), and
    ``:symmetric`` added with ``symmetric``."""
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
