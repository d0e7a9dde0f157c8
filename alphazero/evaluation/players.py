"""Players: anything that maps a position to a move, ``player(game) -> action``.

Players are made from short text specs, the same on the command line and in configs:

    human            a person at the terminal (``play.py``'s alone: ``alphazero.play.human``)
    random           a uniformly random legal move
    perfect          memoised minimax (tic-tac-toe)
    uct:1000         plain UCT with random rollouts, 1000 simulations per move
    uct:2s           the same with 2 seconds per move
    uct:1000:knowledge  with rollout knowledge (Gomoku: near stones; Dots and Boxes: take
                     boxes, avoid third sides)
    rave:1000        UCT-RAVE
    alphabeta:3      Gomoku only: alpha-beta to 3 plies with a pattern evaluation, answering
                     threats (a win in one, a four, an open three) before it searches
    model:PATH       a trained network with PUCT search (a .keras file or a run folder)
    model:PATH:400   the same with 400 simulations per move
    model:PATH:2s    the same searching 2 seconds a move; model:PATH:60s/game: 60 seconds a
                     game, shared out move by move, the opening getting more (``time_budget``)

(``alphazero.evaluation.player_specs`` reads the specs; this module builds the players.)

A player that can search many games at once also has ``batch_moves(games) -> actions``; the
arena uses it so a model's games share one network call per step. A model player
(``model_player.ModelPlayer``) can also say what it thought of a position.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..baselines.alphabeta import AlphaBetaPlayer
from ..baselines.perfect import PerfectPlayer
from ..baselines.rave import RAVEPlayer
from ..baselines.uct import UCTPlayer
from ..games import view_for
from ..games.base import Game
from .model_player import ModelPlayer, ModelSource, PlayerOptions
from .model_search import PlaySearch
from .player_specs import (
    DEFAULT_MODEL_SIMULATIONS,
    SPEC_FORMS,
    PlayerSpecError,
    alphabeta_depth,
    budget,
    model_spec_parts,
    strip_knowledge,
)
from .time_budget import Clock


@runtime_checkable
class Player(Protocol):
    name: str

    def __call__(self, game: Game) -> int: ...


@runtime_checkable
class BatchPlayer(Player, Protocol):
    def batch_moves(self, games: Sequence[Game]) -> list[int]: ...


class RandomPlayer:
    """A uniformly random legal move."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = np.random.default_rng(seed)

    def __call__(self, game: Game) -> int:
        moves = game.available_moves
        return int(moves[self.rng.integers(len(moves))])


def make_player(
    spec: str,
    game: Game,
    seed: int | None = None,
    knowledge: bool = False,
    *,
    leaves: int = 1,
    engine: str = "tensorflow",
    cache: int = 0,
    search: PlaySearch | None = None,
    clock: Clock = time.perf_counter,
) -> Player:
    """Build the player ``spec`` describes for ``game``; ``PlayerSpecError`` if it can't.

    ``knowledge`` turns on rollout knowledge for UCT and RAVE (as ``:knowledge`` does);
    ``leaves``, ``engine``, ``cache`` and ``search`` go to a model's search and network
    (``ModelPlayer``); ``clock`` counts the seconds of a time budget, a model's or UCT's and
    RAVE's (``uct:2s``), and a model's seconds a move (its ``log``).
    """
    text = spec.strip()
    kind, _, rest = text.partition(":")
    kind = kind.lower()
    if kind == "human" and not rest:  # built by play/, which asks the person for moves
        raise PlayerSpecError(f"{spec!r}: a person plays only in play.py")
    if kind == "random" and not rest:
        return RandomPlayer(seed)
    if kind == "perfect" and not rest:
        if not game.solvable:
            raise PlayerSpecError(
                f"{spec!r}: there is no perfect player for {view_for(game).full_title} (minimax "
                "solves only small games: tic-tac-toe, Dots and Boxes up to 2x2)"
            )
        player = PerfectPlayer(np.random.default_rng(seed))
        player.name = "perfect"  # type: ignore[attr-defined]
        return player  # type: ignore[return-value]
    if kind in ("uct", "rave") and rest:
        budget_text, with_knowledge = strip_knowledge(rest)
        budget_args = budget(budget_text, spec)
        options = {"seed": seed, "knowledge": knowledge or with_knowledge, "clock": clock}
        baseline = UCTPlayer if kind == "uct" else RAVEPlayer
        player = baseline(**budget_args, **options)  # type: ignore[arg-type]
        if options["knowledge"]:
            player.name += ":knowledge"
        return player
    if kind == "alphabeta" and rest:
        depth = alphabeta_depth(rest, spec)
        if game.name != "gomoku":
            title = view_for(game).full_title
            raise PlayerSpecError(f"{spec!r}: alphabeta plays only Gomoku, not {title}")
        return AlphaBetaPlayer(depth, seed=seed)
    if (model := model_spec_parts(spec)) is not None:
        path, simulations, symmetric = model
        return ModelPlayer(
            ModelSource(path, engine=engine, symmetric=symmetric, cache=cache),
            game,
            simulations or DEFAULT_MODEL_SIMULATIONS,
            dataclasses.replace(search or PlaySearch(), leaves=leaves),
            PlayerOptions(seed=seed or 0, clock=clock),
        )
    raise PlayerSpecError(f"unknown player {spec!r}; the forms are: {SPEC_FORMS}")
