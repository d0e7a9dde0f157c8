"""The player-spec grammar (``uct:200``, ``model:PATH:64`` ...): reading a spec, building nothing.

A leaf module, so the config can check its ladder's specs without importing the players.
"""

from __future__ import annotations

import re

SPEC_FORMS = (
    "human, random, perfect, uct:SIMS, uct:SECONDSs, rave:SIMS, rave:SECONDSs "
    "(add :knowledge for rollout knowledge), alphabeta:DEPTH (Gomoku), model:PATH, "
    "model:PATH:SIMS "
    "(add :symmetric to average the network over the board's symmetries)"
)
DEFAULT_MODEL_SIMULATIONS = 200
MAX_ALPHABETA_DEPTH = 12
"""Deeper than this an ``alphabeta`` move on 15x15 takes far more than a minute
(docs/research/gomoku_alphabeta.md)."""


class PlayerSpecError(ValueError):
    """A player spec that cannot be read; the message lists the forms."""


def budget(text: str, spec: str) -> dict[str, float | int]:
    """``1000`` -> simulations, ``2s`` / ``0.5s`` -> seconds."""
    if m := re.fullmatch(r"([0-9]+)", text):
        simulations = int(m.group(1))
        if simulations >= 1:
            return {"simulations": simulations}
    elif m := re.fullmatch(r"([0-9]*\.?[0-9]+)s", text):
        seconds = float(m.group(1))
        if seconds > 0:
            return {"simulations": None, "seconds": seconds}
    raise PlayerSpecError(
        f"{spec!r}: the budget must be simulations (1000) or seconds (2s); forms: {SPEC_FORMS}"
    )


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


def alphabeta_depth(text: str, spec: str) -> int:
    """``3`` -> 3: the plies of an ``alphabeta:DEPTH`` player, 1 to ``MAX_ALPHABETA_DEPTH``."""
    if re.fullmatch(r"[0-9]+", text.strip()):
        depth = int(text)
        if 1 <= depth <= MAX_ALPHABETA_DEPTH:
            return depth
    raise PlayerSpecError(
        f"{spec!r}: the depth must be a whole number of plies from 1 to {MAX_ALPHABETA_DEPTH} "
        "(alphabeta:3)"
    )


def strip_knowledge(rest: str) -> tuple[str, bool]:
    """``1000:knowledge`` -> (``1000``, True)."""
    budget_text, _, flag = rest.partition(":")
    if flag and flag.lower() != "knowledge":
        raise PlayerSpecError(f"unknown option {flag!r}; the forms are: {SPEC_FORMS}")
    return budget_text, bool(flag)


def model_spec_parts(spec: str) -> tuple[str, int | None, bool] | None:
    """``model:PATH[:SIMS][:symmetric]`` -> (path, simulations or None, symmetric); None for
    a spec of another kind. ``PlayerSpecError`` for fewer than 2 simulations."""
    kind, _, path = spec.strip().partition(":")
    if kind.lower() != "model" or not path:
        return None
    symmetric = False
    if m := re.fullmatch(r"(?i)(.+):symmetric", path):
        path, symmetric = m.group(1), True
    simulations = None
    if m := re.fullmatch(r"(.+):([0-9]+)", path):
        path, simulations = m.group(1), int(m.group(2))
        if simulations < 2:  # the first simulation only evaluates the root
            raise PlayerSpecError(f"{spec!r}: a model needs at least 2 simulations per move")
    return path, simulations, symmetric
