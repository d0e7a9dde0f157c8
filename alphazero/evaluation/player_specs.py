"""The player-spec grammar (``uct:200``, ``model:PATH:64`` ...): reading a spec, building nothing.

A leaf module, so the config can check its ladder's specs without importing the players.
"""

from __future__ import annotations

import re

from .time_budget import BUDGET_RANGE, MAX_SECONDS, MIN_SECONDS, TimeBudget

SPEC_FORMS = (
    "human, random, perfect, uct:SIMS, uct:SECONDSs, rave:SIMS, rave:SECONDSs "
    "(add :knowledge for rollout knowledge), alphabeta:DEPTH (Gomoku), model:PATH, "
    "model:PATH[:SIMS|:SECONDSs|:SECONDSs/game] (add :symmetric to average over symmetries)"
)
DEFAULT_MODEL_SIMULATIONS = 200
MAX_SIMULATIONS = 1_000_000
"""The most simulations a move may take: the config's own limit (``search.simulations``). A
search keeps its tree in memory, so more would grow without bound."""
MAX_ALPHABETA_DEPTH = 12
"""Deeper than this an ``alphabeta`` move on 15x15 takes far more than a minute
(docs/research/gomoku_alphabeta.md)."""


class PlayerSpecError(ValueError):
    """A player spec that cannot be read; the message lists the forms."""


def budget(text: str, spec: str) -> dict[str, float | int]:
    """``1000`` -> simulations, ``2s`` / ``0.5s`` -> seconds."""
    if m := re.fullmatch(r"([0-9]+)", text):
        simulations = _count(m.group(1))
        if simulations >= 1:
            return {"simulations": check_simulations(simulations, spec)}
    elif m := re.fullmatch(r"([0-9]*\.?[0-9]+)s", text):
        seconds = float(m.group(1))
        if seconds > MAX_SECONDS:
            raise PlayerSpecError(
                f"{_shown(spec)}: at most {MAX_SECONDS:.0f} seconds (a day) per move, "
                f"got {_shown(m.group(1))}"
            )
        if seconds > 0:
            return {"simulations": None, "seconds": seconds}
    raise PlayerSpecError(
        f"{_shown(spec)}: the budget must be simulations (1000) or seconds (2s); forms: "
        f"{SPEC_FORMS}"
    )


def check_simulations(simulations: int, what: str) -> int:
    """``simulations``, or ``PlayerSpecError`` past ``MAX_SIMULATIONS``."""
    if simulations > MAX_SIMULATIONS:
        raise PlayerSpecError(f"{_shown(what)}: at most {MAX_SIMULATIONS:,} simulations per move")
    return simulations


def _count(digits: str) -> int:
    """``digits`` as a number; past ``MAX_SIMULATIONS`` by a long way, one more than it (a
    number of thousands of digits is too long for ``int`` to read)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 12 else MAX_SIMULATIONS + 1


def _shown(text: str) -> str:
    """``text`` quoted for one line of a message, cut short."""
    shown = repr(text)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def check_spec(spec: str) -> None:
    """Raise ``PlayerSpecError`` unless ``spec`` has one of the forms (nothing is built)."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind in ("human", "random", "perfect") and not rest:
        return
    if kind in ("uct", "rave") and rest:
        budget(strip_knowledge(rest)[0], spec)
        return
    if kind == "alphabeta" and rest:
        alphabeta_depth(rest, spec)
        return
    if model_spec_parts(spec) is not None:
        return
    raise PlayerSpecError(f"unknown player {spec!r}; the forms are: {SPEC_FORMS}")


def searches_for_a_time(spec: str) -> bool:
    """Whether the player of a well-formed ``spec`` searches for a time (``uct:2s``,
    ``rave:0.5s:knowledge``, ``model:PATH:2s``, ``model:PATH:60s/game``) rather than a
    count of simulations or plies: its moves then depend on the machine and its load."""
    if (model := model_spec_parts(spec)) is not None:
        return isinstance(model[1], TimeBudget)
    kind, _, rest = spec.strip().partition(":")
    if kind.lower() in ("uct", "rave") and rest:
        return "seconds" in budget(strip_knowledge(rest)[0], spec)
    return False


def alphabeta_depth(text: str, spec: str) -> int:
    """``3`` -> 3: the plies of an ``alphabeta:DEPTH`` player, 1 to ``MAX_ALPHABETA_DEPTH``."""
    digits = text.strip().lstrip("0")
    if re.fullmatch(r"[0-9]{1,3}", digits):  # thousands of digits are too long for int()
        depth = int(digits)
        if 1 <= depth <= MAX_ALPHABETA_DEPTH:
            return depth
    shown = spec if len(spec) <= 40 else spec[:37] + "..."
    raise PlayerSpecError(
        f"{shown!r}: the depth must be a whole number of plies from 1 to {MAX_ALPHABETA_DEPTH} "
        "(alphabeta:3)"
    )


def strip_knowledge(rest: str) -> tuple[str, bool]:
    """``1000:knowledge`` -> (``1000``, True)."""
    budget_text, _, flag = rest.partition(":")
    if flag and flag.lower() != "knowledge":
        raise PlayerSpecError(f"unknown option {flag!r}; the forms are: {SPEC_FORMS}")
    return budget_text, bool(flag)


def model_spec_parts(spec: str) -> tuple[str, int | TimeBudget | None, bool] | None:
    """``model:PATH[:BUDGET][:symmetric]`` -> (path, budget or None, symmetric); None for a
    spec of another kind. The budget is simulations a move (``400``) or a ``TimeBudget``:
    seconds a move (``2s``) or a game (``60s/game``). ``PlayerSpecError`` for fewer than 2
    simulations, or a time that cannot be one."""
    kind, _, path = spec.strip().partition(":")
    if kind.lower() != "model" or not path:
        return None
    symmetric = False
    if m := re.fullmatch(r"(?i)(.+):symmetric", path):
        path, symmetric = m.group(1), True
    budget: int | TimeBudget | None = None
    if m := re.fullmatch(r"(.+):([0-9]+)", path):
        path, budget = m.group(1), _count(m.group(2))
        if budget < 2:  # the first simulation only evaluates the root
            raise PlayerSpecError(f"{_shown(spec)}: a model needs at least 2 simulations per move")
        check_simulations(budget, spec)
    elif m := re.fullmatch(r"(?i)(.+):([0-9.]+s(?:/\w*)?)", path):
        path, budget = m.group(1), _time_budget(m.group(2), spec)
    return path, budget, symmetric


def _time_budget(text: str, spec: str) -> TimeBudget:
    """``2s`` -> 2 seconds a move, ``60s/game`` -> 60 seconds a game."""
    m = re.fullmatch(r"(?i)([0-9]*\.?[0-9]+)s(/game)?", text)
    seconds = float(m.group(1)) if m and len(m.group(1)) <= 20 else 0.0
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise PlayerSpecError(
            f"{_shown(spec)}: a model's time is seconds a move (2s) or a game (60s/game), "
            f"{BUDGET_RANGE}"
        )
    return TimeBudget(seconds, per_game=m is not None and m.group(2) is not None)
