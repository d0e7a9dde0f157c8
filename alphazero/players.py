"""Players: anything that maps a position to a move, ``player(game) -> action``.

Players are made from short text specs, the same on the command line and in configs:

    human            a person at the terminal
    random           a uniformly random legal move
    perfect          memoised minimax (tic-tac-toe)
    uct:1000         plain UCT with random rollouts, 1000 simulations per move
    uct:2s           the same with 2 seconds per move
    rave:1000        UCT-RAVE
    model:PATH       a trained network with PUCT search (a .keras file or a run folder)
    model:PATH:400   the same with 400 simulations per move

A player that can search many games at once also has ``batch_moves(games) -> actions``; the
arena uses it so a model's games share one network call per step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from .games.base import Game, GameError

SPEC_FORMS = (
    "human, random, perfect, uct:SIMS, uct:SECONDSs, rave:SIMS, rave:SECONDSs, "
    "model:PATH, model:PATH:SIMS"
)
DEFAULT_MODEL_SIMULATIONS = 200


class PlayerSpecError(ValueError):
    """A player spec that cannot be read; the message lists the forms."""


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


class HumanPlayer:
    """Reads moves typed at the terminal until one is legal."""

    def __init__(self, prompt: str = "your move: ") -> None:
        self.name = "human"
        self.prompt = prompt

    def __call__(self, game: Game) -> int:
        while True:
            try:
                text = input(self.prompt)
            except EOFError:
                raise SystemExit("\nend of input: game abandoned") from None
            try:
                action = game.parse_move(text)
                game.sim_move(action)  # raises with a reason if illegal
            except GameError as error:
                print(error)
                continue
            return action


class ModelPlayer:
    """A trained network guiding PUCT search; plays the most visited move, no noise."""

    def __init__(
        self,
        path: str | Path,
        game: Game,
        simulations: int = DEFAULT_MODEL_SIMULATIONS,
        c_puct: float = 1.5,
        max_batch: int = 256,
        seed: int = 0,
        model=None,
    ) -> None:
        from .checkpoints import load_model
        from .network import InferenceModel

        self.path = str(path)
        self.simulations = simulations
        self.c_puct = c_puct
        self.name = f"model:{Path(path).name}:{simulations}"
        model = model if model is not None else load_model(path, game, compile=False)
        self.inference = InferenceModel(model, max_batch=max_batch, precision="auto")
        self.rng = np.random.default_rng(seed)

    def batch_moves(self, games: Sequence[Game]) -> list[int]:
        from .search import Node, run_simulations

        roots = [Node(game) for game in games]
        run_simulations(roots, self.inference, self.simulations, self.c_puct)
        return [root.next(0.0, self.rng).action for root in roots]

    def __call__(self, game: Game) -> int:
        return self.batch_moves([game])[0]


def _budget(text: str, spec: str) -> dict[str, float | int]:
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
        _budget(rest, spec)
        return
    if kind == "model" and rest:
        return
    raise PlayerSpecError(f"unknown player {spec!r}; the forms are: {SPEC_FORMS}")


def make_player(spec: str, game: Game, seed: int | None = None) -> Player:
    """Build the player ``spec`` describes for ``game``; ``PlayerSpecError`` if it can't."""
    text = spec.strip()
    kind, _, rest = text.partition(":")
    kind = kind.lower()
    if kind == "human" and not rest:
        return HumanPlayer()
    if kind == "random" and not rest:
        return RandomPlayer(seed)
    if kind == "perfect" and not rest:
        from .baselines.perfect import PerfectPlayer, is_solvable

        if not is_solvable(game):
            raise PlayerSpecError(
                f"{spec!r}: a perfect player exists only for tic-tac-toe and 2x2 Dots and Boxes"
            )
        player = PerfectPlayer(np.random.default_rng(seed))
        player.name = "perfect"  # type: ignore[attr-defined]
        return player  # type: ignore[return-value]
    if kind in ("uct", "rave") and rest:
        budget = _budget(rest, spec)
        if kind == "uct":
            from .baselines.uct import UCTPlayer

            return UCTPlayer(**budget, seed=seed)  # type: ignore[arg-type]
        from .baselines.rave import RAVEPlayer

        return RAVEPlayer(**budget, seed=seed)  # type: ignore[arg-type]
    if kind == "model" and rest:
        path, simulations = rest, DEFAULT_MODEL_SIMULATIONS
        if m := re.fullmatch(r"(.+):([0-9]+)", rest):
            path, simulations = m.group(1), int(m.group(2))
        if simulations < 1:
            raise PlayerSpecError(f"{spec!r}: simulations must be at least 1")
        return ModelPlayer(path, game, simulations=simulations, seed=seed or 0)
    raise PlayerSpecError(f"unknown player {spec!r}; the forms are: {SPEC_FORMS}")
