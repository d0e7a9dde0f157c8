"""The games, made by name: ``make("connect4", rows=6, cols=7)``.

A new game is one new file with a ``Game`` subclass, plus one line in ``GAMES``.
"""

from __future__ import annotations

import inspect
from typing import Any

from .base import (
    Game,
    GameError,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    value_to_parent,
)
from .connect4 import Connect4
from .dots_and_boxes import DotsAndBoxes
from .gomoku import Gomoku
from .tictactoe import TicTacToe

GAMES: dict[str, type[Game]] = {
    cls.name: cls for cls in (TicTacToe, Connect4, Gomoku, DotsAndBoxes)
}


class UnknownGameError(GameError, ValueError):
    """A game name or parameter that the registry does not know."""


def game_params(name: str) -> dict[str, Any]:
    """The parameters a game takes, with their defaults."""
    signature = inspect.signature(_game_class(name).__init__)
    return {p.name: p.default for p in list(signature.parameters.values())[1:]}


def _game_class(name: str) -> type[Game]:
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGameError(
            f"unknown game {name!r}: choose one of {', '.join(sorted(GAMES))}"
        ) from None


def make(name: str, **params: Any) -> Game:
    """The starting position of game ``name`` with ``params`` (see ``game_params``)."""
    cls = _game_class(name)
    known = game_params(name)
    unknown = sorted(set(params) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise UnknownGameError(
            f"{name} has no parameter {', '.join(unknown)} (it takes: {allowed})"
        )
    return cls(**params)


__all__ = [
    "GAMES",
    "Connect4",
    "DotsAndBoxes",
    "Game",
    "GameError",
    "GameOverError",
    "Gomoku",
    "IllegalMoveError",
    "MoveParseError",
    "TicTacToe",
    "UnknownGameError",
    "game_params",
    "make",
    "value_to_parent",
]
