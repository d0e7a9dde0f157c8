"""``play.py``'s option checks, before anything loads: the numbers, the engine and the output
files (``option_problem``), who sits where (``read_lineup``: a ``Lineup`` of two ``Seat``s),
and the model's options that nothing would read there (``check_model_options``), each one
line rather than an option silently ignored."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..evaluation.player_specs import (
    MAX_SIMULATIONS,
    model_spec_parts,
    searches_for_a_time,
)
from ..evaluation.time_budget import BUDGET_RANGE, MAX_SECONDS, MIN_SECONDS, TimeBudget
from ..network.engines import EngineError, resolve_engine
from ..training.run_metadata import check_usable_path
from .defaults import FALLBACK_OPPONENT
from .options import output_problem


def option_problem(args: argparse.Namespace) -> str | None:
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
            f"{listed(timed)} {verb} for the terminal and matches: the page searches --sims "
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


def listed(flags: list[str]) -> str:
    """``--a``, ``--a and --b``, ``--a, --b and --c``."""
    return flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"


def check_model_paths(args: argparse.Namespace, model_path: Path | None) -> None:
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

    @property
    def budget(self) -> int | TimeBudget | None:
        """A ``model:PATH`` spec's own budget (``:400``, ``:2s``, ``:60s/game``), which
        ``--sims``, ``--move-time`` and ``--game-time`` do not replace; None for any other
        seat, and for a spec that gives none."""
        parts = model_spec_parts(self.spec) if self.kind == "model spec" else None
        return None if parts is None else parts[1]

    @property
    def timed(self) -> bool:
        """Whether the player here searches for a time its spec gives (``model:PATH:2s``,
        ``model:PATH:60s/game``, ``uct:2s``, ``rave:0.5s``), counted by ``--clock``."""
        return self.kind in ("model spec", "spec") and searches_for_a_time(self.spec)


@dataclass(frozen=True)
class Lineup:
    """Who plays: ``--p1``'s seat and ``--p2``'s, and the default model's path (the model
    that plays ``--p2`` left out, or gives a person hints when no model plays)."""

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
    def models(self) -> list[Seat]:
        """The seats of the models that play (or of the one needed and missing, which
        ``cli._players`` says in its own words). With a person, the model playing also gives
        the hints."""
        return [seat for seat in self.seats if seat.kind in ("model", "model spec", "no model")]

    @property
    def model_reads_options(self) -> bool:
        """Whether a model reads ``MODEL_OPTIONS`` here: one plays, or gives a person hints."""
        return bool(self.models) or (self.person and self.model_path is not None)


def read_lineup(args: argparse.Namespace, model_path: Path | None) -> Lineup:
    """Who sits where, from ``--p1`` (default a person), ``--p2`` (default the model at
    ``model_path``; with none, ``FALLBACK_OPPONENT`` against a person, else no one) and
    ``model_path``: the one rule ``check_model_options`` and ``cli._players`` both read.
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


BUDGET_OPTIONS = ("--sims", "--move-time", "--game-time")
"""The model's options that a ``model:PATH`` spec's own budget replaces (``cli._with_sims``);
``--leaves``, ``--search``, ``--c-puct``, ``--engine``, ``--symmetric`` and ``--clock`` still
reach its model."""


def check_model_options(args: argparse.Namespace, lineup: Lineup) -> None:
    """``ValueError`` in one line for the model's options (``MODEL_OPTIONS``) written where
    nothing would read them: any of them where no model plays or gives hints (``--p1 human
    --p2 uct:2000 --move-time 2`` with no model for the game); ``--sims``, ``--move-time`` or
    ``--game-time`` where every model that plays has a budget of its own (``--p2
    model:PATH:400 --sims 800``); ``--clock`` in a game with a person where nothing searches
    for a time. An option left out is never refused, whatever its default."""
    if not args.model_options:
        return
    # uct:2s and rave:2s count their seconds by --clock too, with no model playing.
    clocked = "--clock" in args.model_options and any(seat.timed for seat in lineup.seats)
    unread = [flag for flag in args.model_options if not (clocked and flag == "--clock")]
    if unread and not lineup.model_reads_options:
        hints = ", and no model for hints" if lineup.person else ""
        players = f"{lineup.p1.spec} against {lineup.p2.spec}"
        raise ValueError(
            f"only a model reads {listed(unread)}, and none plays here ({players}{hints}): "
            f"leave {'it' if len(unread) == 1 else 'them'} out, or have a model play (--p2 "
            "model:PATH)"
        )
    _check_own_budgets(args, lineup)
    # A match prints (and --json writes) each model's seconds a move, counted by --clock
    # whatever its budget; a game with a person shows no seconds, so there --clock is read
    # only by a time budget.
    timed = (
        args.move_time is not None
        or args.game_time is not None
        or any(seat.timed for seat in lineup.seats)
    )
    if "--clock" in args.model_options and lineup.person and not timed:
        raise ValueError(
            "--clock goes with --move-time or --game-time (or a spec like model:PATH:2s or "
            "uct:2s): without one, the model searches a number of simulations and no clock "
            "is read"
        )


def _check_own_budgets(args: argparse.Namespace, lineup: Lineup) -> None:
    """``ValueError`` for ``BUDGET_OPTIONS`` written where every model that plays is a
    ``model:PATH`` spec with a budget of its own: none of them reads the options, and no
    hints' model does (a person's hints come from the model playing)."""
    given = [flag for flag in BUDGET_OPTIONS if flag in args.model_options]
    models = lineup.models
    if not given or not models or any(seat.budget is None for seat in models):
        return
    specs = listed([seat.spec for seat in models])
    budgets = [f":{seat.budget}" for seat in models]
    one_given, one_model = len(given) == 1, len(models) == 1
    gives = "gives its own budget" if one_model else "give their own budgets"
    drop = f"the spec's {budgets[0]}" if one_model else f"a spec's budget ({listed(budgets)})"
    raise ValueError(
        f"{listed(given)} {'is' if one_given else 'are'} not read: {specs} {gives}; leave "
        f"{'it' if one_given else 'them'} out, or drop {drop}"
    )
