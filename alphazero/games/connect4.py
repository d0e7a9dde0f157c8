"""Connect Four: drop stones into columns, ``n_in_row`` in a line wins.

Actions are column numbers from the left, 0-based, as in OpenSpiel's ``connect_four``; a
person types columns 1-based (``4`` is the centre of the usual board). The board is a bitboard
with one run of ``rows + 1`` bits per column (see ``lines.py``): the lowest empty cell of
column ``c`` is ``(mask + bottom[c]) & column[c]``, one addition.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from functools import cache
from typing import Any, Self

import numpy as np

from .base import Game, MoveParseError, Moves, check_param
from .lines import MARKS_HELP, LineBoard, line_through
from .view import GameView


class _Connect4Rules:
    """Tables shared by every position of one board shape."""

    def __init__(self, rows: int, cols: int, n_in_row: int) -> None:
        self.rows, self.cols, self.n_in_row = rows, cols, n_in_row
        self.lines = LineBoard(major=cols, minor=rows, n_in_row=n_in_row)
        self.has_line = self.lines.line_test
        stride = self.lines.stride
        self.bottom = tuple(1 << (c * stride) for c in range(cols))
        self.top = tuple(1 << (c * stride + rows - 1) for c in range(cols))
        self.column = tuple(((1 << rows) - 1) << (c * stride) for c in range(cols))
        self.bottoms = sum(self.bottom)
        """Every column's bottom bit: ``(mask + bottoms) & full`` is the next free cell of
        every column that has one."""
        # The playout draws random bytes; bytes past the largest multiple of `cols` map to a
        # phantom column `cols` that is always full, so every real column stays equally likely.
        accepted = 256 - 256 % cols
        self.byte_to_column = bytes(b % cols if b < accepted else cols for b in range(256))
        self.bottom_or_phantom = (*self.bottom, 0)
        self.column_or_phantom = (*self.column, 0)


@cache
def _rules(rows: int, cols: int, n_in_row: int) -> _Connect4Rules:
    return _Connect4Rules(rows, cols, n_in_row)


class Connect4(Game):
    """Connect Four on ``rows x cols`` (6x7 by default) with ``n_in_row`` (4) to win."""

    __slots__ = ("_first", "_mask", "_rules")
    name = "connect4"

    def __init__(self, rows: int = 6, cols: int = 7, n_in_row: int = 4) -> None:
        check_param(self.name, "rows", rows, 2, 20)
        check_param(self.name, "cols", cols, 2, 20)
        check_param(self.name, "n_in_row", n_in_row, 2, max(rows, cols))
        self._rules = _rules(rows, cols, n_in_row)
        self._first = 0  # stones of the first player (+1)
        self._mask = 0  # every stone
        self.player = 1
        self.score = None
        self.last_move = None

    # ------------------------------------------------------------------ rules
    @property
    def rows(self) -> int:
        return self._rules.rows

    @property
    def cols(self) -> int:
        return self._rules.cols

    @property
    def n_in_row(self) -> int:
        return self._rules.n_in_row

    @property
    def params(self) -> dict[str, int]:
        r = self._rules
        return {"rows": r.rows, "cols": r.cols, "n_in_row": r.n_in_row}

    @property
    def has_solved_positions(self) -> bool:
        return self.params == {"rows": 6, "cols": 7, "n_in_row": 4}

    @property
    def num_actions(self) -> int:
        return self._rules.cols

    @property
    def available_moves(self) -> list[int]:
        if self.score is not None:
            return []
        mask = self._mask
        return [c for c, top in enumerate(self._rules.top) if not mask & top]

    def is_legal(self, action: int) -> bool:
        return self.score is None and not self._mask & self._rules.top[action]

    def ending_moves(self) -> list[int]:
        if self.score is not None:
            return []
        rules = self._rules
        mask = self._mask
        playable = (mask + rules.bottoms) & rules.lines.full
        if mask | playable == rules.lines.full and not playable & (playable - 1):
            return [self._column_of(playable)]  # the last free cell: it ends the game
        mover = self._first if self.player == 1 else mask ^ self._first
        if mover.bit_count() < rules.n_in_row - 1:  # too few stones for a line
            return []
        return [self._column_of(bit) for bit in rules.lines.winning_cells(mover, playable)]

    def _column_of(self, bit: int) -> int:
        return (bit.bit_length() - 1) // self._rules.lines.stride

    def illegal_reason(self, action: int) -> str:
        return f"{self.name}: column {action + 1} is full"

    def copy(self) -> Self:
        new = object.__new__(type(self))
        new._rules = self._rules
        new._first = self._first
        new._mask = self._mask
        new.player = self.player
        new.score = self.score
        new.last_move = self.last_move
        return new

    def _apply(self, action: int) -> None:
        rules = self._rules
        mask = self._mask
        bit = (mask + rules.bottom[action]) & rules.column[action]
        mask |= bit
        self._mask = mask
        if self.player == 1:
            self._first |= bit
            mover = self._first
        else:
            mover = mask ^ self._first
        if rules.has_line(mover):
            self.score = self.player
        elif mask == rules.lines.full:
            self.score = 0
        self.player = -self.player
        self.last_move = action

    def playout(
        self, rng: random.Random, moves: Moves | None = None, knowledge: bool = False
    ) -> tuple[int, int]:
        """Uniformly random moves to the end: ``(absolute score, moves played)``; Connect
        Four has no rollout knowledge.

        The hottest loop of the UCT baseline, so for the usual four in a row it stays flat:
        random bytes name columns, a full column is redrawn (uniform over the legal ones),
        nobody is tested for a line before they can have one, the line test is unrolled, and
        the winner follows from the parity of the moves played. Recording the moves is a
        second copy of the loop, so that the first tests nothing per move for it.
        """
        if self.score is not None or self._rules.n_in_row != 4:
            return super().playout(rng, moves)
        if moves is not None:
            return self._recorded_playout(rng, moves)
        rules = self._rules
        bottom, column = rules.bottom_or_phantom, rules.column_or_phantom
        table, full = rules.byte_to_column, rules.lines.full
        s2 = rules.lines.stride
        s3, s4 = s2 - 1, s2 + 1
        d2, d3, d4 = 2 * s2, 2 * s3, 2 * s4
        mask = self._mask
        start = mask.bit_count()
        quiet = max(0, 6 - start)  # nobody can have four before the 7th stone
        mover = self._first if self.player == 1 else mask ^ self._first  # the side to move
        while True:
            for c in rng.randbytes(64).translate(table):
                bit = (mask + bottom[c]) & column[c]
                if not bit:
                    if mask == full:
                        return 0, mask.bit_count() - start
                    continue
                mask |= bit
                mover |= bit
                if quiet:
                    quiet -= 1
                elif (
                    (m := mover & (mover >> 1)) & (m >> 2)
                    or (m := mover & (mover >> s2)) & (m >> d2)
                    or (m := mover & (mover >> s3)) & (m >> d3)
                    or (m := mover & (mover >> s4)) & (m >> d4)
                ):
                    played = mask.bit_count() - start
                    return (self.player if played % 2 else -self.player), played
                mover ^= mask  # now the opponent's stones: it is their move

    def _recorded_playout(self, rng: random.Random, moves: Moves) -> tuple[int, int]:
        """``playout``'s loop (four in a row) appending ``(player, action)`` to ``moves``."""
        rules = self._rules
        bottom, column = rules.bottom_or_phantom, rules.column_or_phantom
        table, full = rules.byte_to_column, rules.lines.full
        s2 = rules.lines.stride
        s3, s4 = s2 - 1, s2 + 1
        d2, d3, d4 = 2 * s2, 2 * s3, 2 * s4
        mask = self._mask
        start = mask.bit_count()
        quiet = max(0, 6 - start)  # nobody can have four before the 7th stone
        player = self.player
        mover = self._first if player == 1 else mask ^ self._first
        append = moves.append
        while True:
            for c in rng.randbytes(64).translate(table):
                bit = (mask + bottom[c]) & column[c]
                if not bit:
                    if mask == full:
                        return 0, mask.bit_count() - start
                    continue
                mask |= bit
                mover |= bit
                append((player, c))
                if quiet:
                    quiet -= 1
                elif (
                    (m := mover & (mover >> 1)) & (m >> 2)
                    or (m := mover & (mover >> s2)) & (m >> d2)
                    or (m := mover & (mover >> s3)) & (m >> d3)
                    or (m := mover & (mover >> s4)) & (m >> d4)
                ):
                    return player, mask.bit_count() - start
                mover ^= mask
                player = -player

    # -------------------------------------------------------- views of the position
    @property
    def state(self) -> np.ndarray:
        """``[rows, cols]`` int8, row 0 at the top as drawn."""
        lines = self._rules.lines
        first = lines.to_array(self._first)  # [cols, rows], row 0 at the bottom
        second = lines.to_array(self._mask ^ self._first)
        return (first.astype(np.int8) - second).T[::-1]

    def key(self) -> tuple[int, ...]:
        return (self._first, self._mask, self.player)

    def encode(self) -> np.ndarray:
        """Planes ``[rows, cols, 3]``: the mover's stones, the opponent's, and ones."""
        lines = self._rules.lines
        first, second = self._first, self._mask ^ self._first
        mine, theirs = (first, second) if self.player == 1 else (second, first)
        planes = np.ones((self.rows, self.cols, 3), dtype=np.float32)
        planes[:, :, 0] = lines.to_array(mine).T[::-1]  # [cols, rows] -> row 0 on top
        planes[:, :, 1] = lines.to_array(theirs).T[::-1]
        return planes

    @classmethod
    def encode_batch(cls, games: Sequence[Self]) -> np.ndarray:
        lines = games[0]._rules.lines
        boards = []
        for game in games:  # the mover's stones, then the opponent's
            first, second = game._first, game._mask ^ game._first
            boards += (first, second) if game.player == 1 else (second, first)
        stones = lines.to_arrays(boards)  # [2B, cols, rows], row 0 at the bottom
        stones = stones.reshape(len(games), 2, lines.major, lines.minor)
        planes = np.ones((len(games), lines.minor, lines.major, 3), dtype=np.float32)
        planes[..., :2] = stones.transpose(0, 3, 2, 1)[:, ::-1]  # row 0 on top, planes last
        return planes

    @classmethod
    def mask_batch(cls, games: Sequence[Self]) -> np.ndarray:
        rules = games[0]._rules
        full_columns = rules.lines.to_arrays([game._mask for game in games])[:, :, -1]
        going_on = np.array([game.score is None for game in games])
        return ~full_columns & going_on[:, None]

    def symmetries(
        self, planes: np.ndarray, policy: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The position and its mirror image (columns reversed)."""
        return [(planes, policy), (np.ascontiguousarray(planes[:, ::-1]), policy[::-1].copy())]


class Connect4View(GameView[Connect4]):
    """Columns numbered from 1 on the left; stones drop into them."""

    @property
    def title(self) -> str:
        return "Connect Four"

    @property
    def full_title(self) -> str:
        board = self.start
        if board.has_solved_positions:  # the usual board
            return self.title
        return f"{self.title} {board.rows}x{board.cols}, {board.n_in_row} in a row"

    @property
    def notation(self) -> str:
        return f"a column 1-{self.start.cols}"

    @property
    def move_help(self) -> str:
        return (
            f"Type a column, 1-{self.start.cols} from the left: your stone drops to the lowest "
            f"free cell. {self.start.n_in_row} in a row (across, down or diagonal) wins. "
            + MARKS_HELP
        )

    def parse_move(self, text: str) -> int:
        cols = self.start.cols
        cleaned = text.strip()
        if not re.fullmatch(r"[0-9]{1,3}", cleaned):
            raise MoveParseError(f"{text[:20]!r} is not a column: type a number 1-{cols}")
        column = int(cleaned)
        if not 1 <= column <= cols:
            raise MoveParseError(f"there is no column {column}: type a number 1-{cols}")
        return column - 1

    def format_move(self, action: int) -> str:
        return str(action + 1)

    def board_view(self, game: Connect4) -> dict[str, Any]:
        return {"layout": "columns", "n_in_row": game.n_in_row}

    def winning_line(self, game: Connect4) -> list[tuple[int, int]]:
        if not game.score or game.last_move is None:
            return []
        return line_through(game.state, _last_row(game), game.last_move, game.n_in_row)

    def render(self, game: Connect4) -> str:
        """The board, columns numbered; the last stone in parentheses, and once the game is
        won the winning line in square brackets (the last stone with it)."""
        board = game.state
        width = 3
        header = "".join(f"{c + 1:^{width}}" for c in range(game.cols))
        lines = [header]
        last = None if game.last_move is None else (_last_row(game), game.last_move)
        won = set(self.winning_line(game))
        for r in range(game.rows):
            cells = []
            for c in range(game.cols):
                mark = self.marks[int(board[r, c])]
                if (r, c) in won:
                    cells.append(f"[{mark}]")
                elif (r, c) == last:
                    cells.append(f"({mark})")
                else:
                    cells.append(f" {mark} ")
            lines.append("".join(cells))
        lines.append(header)
        return "\n".join(lines)


def _last_row(game: Connect4) -> int:
    """The row (0 at the top) of the last stone: the highest one in the last column."""
    assert game.last_move is not None
    heights = int((game.state[:, game.last_move] != 0).sum())
    return game.rows - heights
