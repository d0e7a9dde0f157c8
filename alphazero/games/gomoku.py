"""Gomoku / n-in-a-row: stones on a square board, ``n_in_row`` or more in a line wins.

Actions are ``row * size + col`` with row 0 at the top, as in OpenSpiel's ``gomoku``. In the
notation a person types, columns are letters from the left and rows numbers from the bottom
(``c3``), or the same as two numbers ``column,row`` (``3,3``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from functools import cache, cached_property
from typing import Any, ClassVar, Self

import numpy as np

from .base import (
    DIHEDRAL_OPS,
    Game,
    MoveParseError,
    Moves,
    apply_symmetries,
    check_param,
    grid_policy_permutations,
)
from .lines import MARKS_HELP, LineBoard, line_through
from .view import GameView

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_MAX_SIZE = len(_LETTERS)


class _GridRules:
    """Tables shared by every position of one board size and line length."""

    def __init__(self, size: int, n_in_row: int) -> None:
        self.size = size
        self.n_in_row = n_in_row
        self.lines = LineBoard(major=size, minor=size, n_in_row=n_in_row)
        self.has_line = self.lines.line_test
        self.action_bits = tuple(self.lines.bit(a // size, a % size) for a in range(size * size))
        action_grid = np.arange(size * size).reshape(size, size)
        self.sym_perms = grid_policy_permutations(action_grid, DIHEDRAL_OPS)

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """For each point, its neighbours on the board (8-neighbourhood): rollout knowledge."""
        size = self.size
        return tuple(
            tuple(
                (r + dr) * size + c + dc
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size
            )
            for r, c in (divmod(a, size) for a in range(size * size))
        )


@cache
def _rules(size: int, n_in_row: int) -> _GridRules:
    return _GridRules(size, n_in_row)


def point_name(action: int, size: int) -> str:
    """The point of ``action`` on a ``size x size`` board as a person names it: ``c3``."""
    row, col = divmod(action, size)
    return f"{_LETTERS[col]}{size - row}"


def _dilate(stones: int, stride: int) -> int:
    """Every point next to (or on) a stone, spare bits and bits off the board included."""
    row = stones | stones << 1 | stones >> 1
    return row | row << stride | row >> stride


class Gomoku(Game):
    """n-in-a-row on a ``size x size`` board (15x15 five by default; overlines win).

    Rollout knowledge: every move is a random empty point next to a stone (8-neighbourhood),
    any empty point only on an empty board; ``candidate_moves`` keeps the same points for the
    tree (a win or a block is always next to a stone, so nothing tactical is lost).
    """

    __slots__ = ("_first", "_rules", "_second")
    name = "gomoku"
    rollout_knowledge: ClassVar[bool] = True

    def __init__(self, size: int = 15, n_in_row: int = 5) -> None:
        check_param(self.name, "size", size, 3, _MAX_SIZE)
        check_param(self.name, "n_in_row", n_in_row, 3, size)
        self._rules = _rules(size, n_in_row)
        self._first = 0  # stones of the first player (+1)
        self._second = 0
        self.player = 1
        self.score = None
        self.last_move = None

    # ------------------------------------------------------------------ rules
    @property
    def size(self) -> int:
        return self._rules.size

    @property
    def n_in_row(self) -> int:
        return self._rules.n_in_row

    @property
    def params(self) -> dict[str, int]:
        return {"size": self._rules.size, "n_in_row": self._rules.n_in_row}

    @property
    def num_actions(self) -> int:
        return self._rules.size * self._rules.size

    @property
    def available_moves(self) -> list[int]:
        # The empty points' bits unpacked by NumPy: half the CPU of testing each of the 225
        # points' bits in Python, and the search asks for every position it expands.
        if self.score is not None:
            return []
        lines = self._rules.lines
        empty = lines.full & ~(self._first | self._second)
        return np.flatnonzero(lines.to_array(empty)).tolist()

    @classmethod
    def mask_batch(cls, games: Sequence[Self]) -> np.ndarray:
        """The empty points of each unfinished game, all unpacked in one NumPy call: the
        base class's loop over ``available_moves`` took a hundred times the CPU on 15x15."""
        lines = games[0]._rules.lines
        empty = [0 if g.score is not None else lines.full & ~(g._first | g._second) for g in games]
        return lines.to_arrays(empty).reshape(len(games), -1)

    def is_legal(self, action: int) -> bool:
        return (
            self.score is None
            and not (self._first | self._second) & self._rules.action_bits[action]
        )

    def illegal_reason(self, action: int) -> str:
        return f"{self.name}: {point_name(action, self.size)} is already taken"

    def ending_moves(self) -> list[int]:
        if self.score is not None:
            return []
        rules = self._rules
        empty = rules.lines.full & ~(self._first | self._second)
        if not empty & (empty - 1):  # the last empty point: it ends the game
            return [self._action_of(empty)]
        mover = self._first if self.player == 1 else self._second
        if mover.bit_count() < rules.n_in_row - 1:  # too few stones for a line
            return []
        return [self._action_of(bit) for bit in rules.lines.winning_cells(mover, empty)]

    def _action_of(self, bit: int) -> int:
        row, col = divmod(bit.bit_length() - 1, self._rules.lines.stride)
        return row * self._rules.size + col

    def copy(self) -> Self:
        new = object.__new__(type(self))
        new._rules = self._rules
        new._first = self._first
        new._second = self._second
        new.player = self.player
        new.score = self.score
        new.last_move = self.last_move
        return new

    def _apply(self, action: int) -> None:
        rules = self._rules
        bit = rules.action_bits[action]
        if self.player == 1:
            self._first |= bit
            won = rules.has_line(self._first)
        else:
            self._second |= bit
            won = rules.has_line(self._second)
        if won:
            self.score = self.player
        elif self._first | self._second == rules.lines.full:
            self.score = 0
        self.player = -self.player
        self.last_move = action

    def playout(
        self, rng: random.Random, moves: Moves | None = None, knowledge: bool = False
    ) -> tuple[int, int]:
        """A random order of the empty points is a uniform random game; with ``knowledge``,
        random points next to a stone. Each way of recording the moves is its own loop."""
        if self.score is not None:
            return self.score, 0
        if knowledge and self.rollout_knowledge:
            return self._playout_near_stones(rng, moves)
        if moves is not None:
            return self._recorded_playout(rng, moves)
        rules = self._rules
        has_line = rules.has_line
        stones = {1: self._first, -1: self._second}
        player = self.player
        empty = [bit for bit in rules.action_bits if not (self._first | self._second) & bit]
        rng.shuffle(empty)  # a random order of the empty points is a uniform random game
        for played, bit in enumerate(empty, start=1):
            stones[player] |= bit
            if has_line(stones[player]):
                return player, played
            player = -player
        return 0, len(empty)

    def _recorded_playout(self, rng: random.Random, moves: Moves) -> tuple[int, int]:
        """``playout``'s uniform loop appending ``(player, action)`` to ``moves``."""
        rules = self._rules
        has_line = rules.has_line
        bits = rules.action_bits
        occupied = self._first | self._second
        empty = [a for a, bit in enumerate(bits) if not occupied & bit]
        rng.shuffle(empty)
        player = self.player
        mine, theirs = (self._first, self._second) if player == 1 else (self._second, self._first)
        append = moves.append
        for played, action in enumerate(empty, start=1):
            mine |= bits[action]
            append((player, action))
            if has_line(mine):
                return player, played
            mine, theirs = theirs, mine
            player = -player
        return 0, len(empty)

    def _playout_near_stones(self, rng: random.Random, moves: Moves | None) -> tuple[int, int]:
        """Random moves next to a stone. The candidates are a list with lazy deletion: a
        point joins when a neighbour is played, and leaves when it is drawn and found taken."""
        rules = self._rules
        bits = rules.action_bits
        has_line, full = rules.has_line, rules.lines.full
        neighbours = rules.neighbours
        player = self.player
        mine, theirs = (self._first, self._second) if player == 1 else (self._second, self._first)
        occupied = mine | theirs
        start = occupied.bit_count()
        near = _dilate(occupied, rules.lines.stride) & ~occupied
        candidates = [a for a, bit in enumerate(bits) if near & bit]
        listed = near  # bits of the points ever put in `candidates`
        random_ = rng.random
        while True:
            while True:
                if not candidates:  # only on an empty board: any point
                    action = int(random_() * len(bits))
                    break
                i = int(random_() * len(candidates))
                action = candidates[i]
                if not occupied & bits[action]:
                    break
                candidates[i] = candidates[-1]
                candidates.pop()
            bit = bits[action]
            mine |= bit
            occupied |= bit
            if moves is not None:
                moves.append((player, action))
            if has_line(mine):
                return player, occupied.bit_count() - start
            if occupied == full:
                return 0, occupied.bit_count() - start
            for b in neighbours[action]:
                if not listed & bits[b]:
                    listed |= bits[b]
                    if not occupied & bits[b]:
                        candidates.append(b)
            mine, theirs = theirs, mine
            player = -player

    def candidate_moves(self, knowledge: bool = False) -> list[int]:
        if knowledge and self.rollout_knowledge and self.score is None:
            rules = self._rules
            occupied = self._first | self._second
            near = _dilate(occupied, rules.lines.stride) & ~occupied
            moves = [a for a, bit in enumerate(rules.action_bits) if near & bit]
            if moves:
                return moves
        return self.available_moves

    # -------------------------------------------------------- views of the position
    @property
    def state(self) -> np.ndarray:
        lines = self._rules.lines
        return lines.to_array(self._first).astype(np.int8) - lines.to_array(self._second)

    def key(self) -> tuple[int, ...]:
        return (self._first, self._second, self.player)

    def encode(self) -> np.ndarray:
        """Planes ``[size, size, 3]``: the mover's stones, the opponent's, and ones."""
        lines = self._rules.lines
        mine, theirs = (
            (self._first, self._second)
            if self.player == 1
            else (
                self._second,
                self._first,
            )
        )
        planes = np.ones((self.size, self.size, 3), dtype=np.float32)
        planes[:, :, 0] = lines.to_array(mine)
        planes[:, :, 1] = lines.to_array(theirs)
        return planes

    @classmethod
    def encode_batch(cls, games: Sequence[Self]) -> np.ndarray:
        lines = games[0]._rules.lines
        boards = []
        for game in games:  # the mover's stones, then the opponent's
            first, second = game._first, game._second
            boards += (first, second) if game.player == 1 else (second, first)
        stones = lines.to_arrays(boards).reshape(len(games), 2, lines.major, lines.minor)
        planes = np.ones((len(games), lines.major, lines.minor, 3), dtype=np.float32)
        planes[..., :2] = stones.transpose(0, 2, 3, 1)
        return planes

    def symmetries(
        self, planes: np.ndarray, policy: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        return apply_symmetries(planes, policy, DIHEDRAL_OPS, self._rules.sym_perms)


class GomokuView(GameView[Gomoku]):
    """Points named by a column letter and a row number from the bottom, as on a Go board."""

    @property
    def title(self) -> str:
        return "Gomoku"

    @property
    def full_title(self) -> str:
        size = self.start.size
        return f"{self.title} {size}x{size}, {self.start.n_in_row} in a row"

    @property
    def notation(self) -> str:
        return "a point like b2, or column,row like 2,2"

    @property
    def move_help(self) -> str:
        size = self.start.size
        return (
            f"Type a point: its column letter a-{_LETTERS[size - 1]} and its row number "
            f"1-{size} from the bottom, like b2, or the two numbers column,row like 2,2. "
            f"{self.start.n_in_row} in a row wins. " + MARKS_HELP
        )

    def parse_move(self, text: str) -> int:
        size = self.start.size
        cleaned = text.strip().lower()
        if m := re.fullmatch(r"([a-z])\s*([0-9]{1,2})", cleaned):
            col = _LETTERS.index(m.group(1)) + 1
            row = int(m.group(2))
        elif m := re.fullmatch(r"([0-9]{1,2})\s*[, ]\s*([0-9]{1,2})", cleaned):
            col, row = int(m.group(1)), int(m.group(2))
        else:
            raise MoveParseError(
                f"{text[:20]!r} is not a point: type a column letter and a row number "
                f"like c3, or column,row like 3,3"
            )
        last = _LETTERS[size - 1]
        if not (1 <= col <= size and 1 <= row <= size):
            raise MoveParseError(
                f"{text.strip()[:20]!r} is off the board: columns a-{last}, rows 1-{size}"
            )
        return (size - row) * size + (col - 1)

    def format_move(self, action: int) -> str:
        return point_name(action, self.start.size)

    def board_view(self, game: Gomoku) -> dict[str, Any]:
        return {"layout": "grid", "n_in_row": game.n_in_row}

    def winning_line(self, game: Gomoku) -> list[tuple[int, int]]:
        if not game.score or game.last_move is None:
            return []
        row, col = divmod(game.last_move, game.size)
        return line_through(game.state, row, col, game.n_in_row)

    def render(self, game: Gomoku) -> str:
        """The board with letters and numbers; the last stone in parentheses, and once the
        game is won the winning line in square brackets (the last stone with it)."""
        size = game.size
        board = game.state
        letters = "   " + "".join(f" {_LETTERS[c]} " for c in range(size))
        rows = [letters]
        won = set(self.winning_line(game))
        for r in range(size):
            cells = []
            for c in range(size):
                mark = self.marks[int(board[r, c])]
                if (r, c) in won:
                    cells.append(f"[{mark}]")
                elif game.last_move == r * size + c:
                    cells.append(f"({mark})")
                else:
                    cells.append(f" {mark} ")
            label = size - r
            rows.append(f"{label:>2} " + "".join(cells) + f" {label}")
        rows.append(letters)
        return "\n".join(rows)
