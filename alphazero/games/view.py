"""How a person sees a game and types its moves, apart from its rules.

A ``GameView`` serves every position of one board: the terminal draws a position with
``render``, the web page with ``board_view``, and both read and write moves in the game's
notation (``parse_move``, ``format_move``). A game's view lives in the game's own file, beside
its ``Game``; ``alphazero.games.view_for(game)`` finds it. The search, self-play and training
never use a view.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Generic, TypeVar

from .base import Game, MoveParseError

G = TypeVar("G", bound=Game)


class GameView(Generic[G]):
    """The plain view, which any game can use: moves are typed as action numbers, and the
    board is ``state`` drawn row by row. Games override what they show better."""

    marks: ClassVar[dict[int, str]] = {1: "X", -1: "O", 0: "."}
    """How the board shows the first player's stones, the second's and an empty cell."""

    def __init__(self, game: G) -> None:
        """The view of ``game``'s board; any position of it will do."""
        self.start: G = type(game)(**game.params)
        """The starting position of the board: what the view reads the board's size from."""

    # ------------------------------------------------------------------ words
    @property
    def title(self) -> str:
        """The game's name for people: ``Connect Four``."""
        return self.start.name

    @property
    def full_title(self) -> str:
        """The title with the board where it is not the usual one: ``Gomoku 8x8, 5 in a
        row``."""
        return self.title

    @property
    def notation(self) -> str:
        """What a typed move looks like, in a few words: ``a column 1-7``."""
        return f"a move like {self.format_move(0)}"

    @property
    def move_help(self) -> str:
        """How to type a move and how the game is won, in a paragraph (``help`` at the
        terminal's prompt)."""
        return f"Type {self.notation}."

    # ------------------------------------------------------------------ moves
    def parse_move(self, text: str) -> int:
        """Read a move in the notation a person would type; raises ``MoveParseError``.

        The result is a well-formed action number; legality is checked by ``sim_move``.
        """
        last = self.start.num_actions - 1
        cleaned = text.strip()
        if not cleaned.isdecimal() or not 0 <= int(cleaned) <= last:
            raise MoveParseError(f"{text.strip()[:20]!r} is not a move: type a number 0-{last}")
        return int(cleaned)

    def format_move(self, action: int) -> str:
        """The notation of ``action`` that ``parse_move`` reads back."""
        return str(action)

    def from_moves(self, moves: Iterable[int | str]) -> G:
        """The position reached by playing ``moves`` (notation or actions) from the start."""
        game = self.start
        for move in moves:
            game = game.sim_move(self.parse_move(move) if isinstance(move, str) else move)
        return game

    # ------------------------------------------------------------------ the board
    def render(self, game: G) -> str:
        """``game``'s board as text with coordinates, its last move marked."""
        board = game.state.reshape(game.state.shape[0], -1)
        return "\n".join(" ".join(self.marks.get(int(v), "?") for v in row) for row in board)

    def winning_line(self, game: G) -> list[tuple[int, int]]:
        """The cells ``(row, column)`` of ``game.state`` (row 0 at the top) that won the game,
        in order along the line; empty while the game goes on, after a draw, and in games not
        won by a line (Dots and Boxes). The terminal and the web page mark these cells."""
        return []

    def board_view(self, game: G) -> dict[str, Any]:
        """What a drawing of ``game``'s board (the web page) needs besides ``state``:
        ``layout``, one of ``grid`` (stones on the points of a square board), ``cells`` (marks
        in the cells of one), ``columns`` (stones dropping into columns) or ``dots`` (the
        lattice of Dots and Boxes), and the details that drawing takes."""
        return {"layout": "grid"}
