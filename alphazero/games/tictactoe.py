"""Tic-tac-toe: Gomoku on a 3x3 board with three in a row.

Actions are ``row * 3 + col`` with row 0 at the top, as in OpenSpiel's ``tic_tac_toe``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .gomoku import Gomoku, GomokuView


class TicTacToe(Gomoku):
    """Three in a row on a 3x3 board; the rules are Gomoku's. Small enough to solve, and to
    play out uniformly (no rollout knowledge)."""

    __slots__ = ()
    name = "tictactoe"
    rollout_knowledge: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__(size=3, n_in_row=3)

    @property
    def params(self) -> dict[str, int]:
        return {}

    @property
    def solvable(self) -> bool:
        return True


class TicTacToeView(GomokuView):
    """Gomoku's notation, with marks in the cells of the board rather than on its points."""

    @property
    def title(self) -> str:
        return "Tic-tac-toe"

    @property
    def full_title(self) -> str:
        return self.title

    def board_view(self, game: Gomoku) -> dict[str, Any]:
        return {"layout": "cells", "n_in_row": 3}
