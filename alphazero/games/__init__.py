"""The games, made by name: ``make("connect4", rows=6, cols=7)``, and how a person sees each:
``view_for(game)``.

A new game is one new file with a ``Game`` subclass (the rules and the network's encoding)
and, if moves are typed other than as action numbers, a ``GameView`` subclass (the board and
the notation); plus a line in ``GAMES`` and one in ``VIEWS``.
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
from .connect4 import Connect4, Connect4View
from .dots_and_boxes import DotsAndBoxes, DotsAndBoxesView
from .gomoku import Gomoku, GomokuView
from .tictactoe import TicTacToe, TicTacToeView
from .view import GameView

GAMES: dict[str, type[Game]] = {
    cls.name: cls for cls in (TicTacToe, Connect4, Gomoku, DotsAndBoxes)
}
VIEWS: dict[str, type[GameView[Any]]] = {
    TicTacToe.name: TicTacToeView,
    Connect4.name: Connect4View,
    Gomoku.name: GomokuView,
    DotsAndBoxes.name: DotsAndBoxesView,
}
"""Each game's view by the game's name; a game without one gets the plain ``GameView``."""


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


def view_for(game: Game) -> GameView[Any]:
    """How a person sees ``game``'s board and types its moves (any position of the board)."""
    return VIEWS.get(game.name, GameView)(game)


__all__ = [
    "GAMES",
    "VIEWS",
    "Connect4",
    "DotsAndBoxes",
    "Game",
    "GameError",
    "GameOverError",
    "GameView",
    "Gomoku",
    "IllegalMoveError",
    "MoveParseError",
    "TicTacToe",
    "UnknownGameError",
    "game_params",
    "make",
    "value_to_parent",
    "view_for",
]
