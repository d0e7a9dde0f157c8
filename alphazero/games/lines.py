"""Bitboards for games won by n stones in a row (tic-tac-toe, Gomoku, Connect Four).

A board is ``major x minor`` cells; cell ``(i, j)`` is bit ``i * stride + j`` of a Python int,
with ``stride = minor + 1``. The spare bit closing each major line is never set, so shifting a
bitboard by ``1`` (along a line), ``stride`` (across lines) or ``stride +- 1`` (the diagonals)
never joins cells that are not neighbours on the board. Gomoku lays rows along the major axis;
Connect Four lays columns there, so that a column is a run of consecutive bits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .base import bit_rows

MARKS_HELP = (
    "The last stone is drawn in (parentheses), and the line that wins, once there is one, "
    "in [brackets]."
)
"""How ``render`` marks a line game's board, for the games' ``move_help``."""


def _run_shifts(step: int, n: int) -> tuple[int, ...]:
    """Shifts that reduce a bitboard to the start bits of its runs of ``n`` along ``step``.

    Doubling: after ``m &= m >> (step * length)`` a set bit marks a run of ``2 * length``;
    a last partial shift tops the run up to exactly ``n`` (``n = 4`` needs two shifts).
    """
    shifts = []
    length = 1
    while 2 * length <= n:
        shifts.append(step * length)
        length *= 2
    if length < n:
        shifts.append(step * (n - length))
    return tuple(shifts)


@dataclass(frozen=True)
class LineBoard:
    """Geometry of a ``major x minor`` bitboard on which ``n_in_row`` stones in a line win."""

    major: int
    minor: int
    n_in_row: int
    stride: int = field(init=False)
    full: int = field(init=False)
    """Every playable bit set."""
    run_shifts: tuple[tuple[int, ...], ...] = field(init=False)
    """For each of the 4 directions, the shifts of ``_run_shifts``."""

    def __post_init__(self) -> None:
        stride = self.minor + 1
        object.__setattr__(self, "stride", stride)
        line = (1 << self.minor) - 1
        object.__setattr__(self, "full", sum(line << (i * stride) for i in range(self.major)))
        directions = (1, stride, stride - 1, stride + 1)
        runs = tuple(_run_shifts(d, self.n_in_row) for d in directions)
        object.__setattr__(self, "run_shifts", runs)

    def bit(self, i: int, j: int) -> int:
        return 1 << (i * self.stride + j)

    def has_line(self, stones: int) -> bool:
        """Whether ``stones`` hold ``n_in_row`` (or more) in a row in any direction."""
        return self.line_test(stones)

    @cached_property
    def line_test(self) -> Callable[[int], bool]:
        """``has_line`` as a flat closure: the search calls it once per child it creates.

        Lines of 3 and 4 need two shifts per direction, 5 to 8 need three; those are
        unrolled, lines of 2 and of 9 or more loop.
        """
        runs = self.run_shifts
        if all(len(r) == 2 for r in runs):
            (a1, a2), (b1, b2), (c1, c2), (d1, d2) = runs

            def test2(p: int) -> bool:
                return bool(
                    (m := p & (p >> a1)) & (m >> a2)
                    or (m := p & (p >> b1)) & (m >> b2)
                    or (m := p & (p >> c1)) & (m >> c2)
                    or (m := p & (p >> d1)) & (m >> d2)
                )

            return test2
        if all(len(r) == 3 for r in runs):
            (a1, a2, a3), (b1, b2, b3), (c1, c2, c3), (d1, d2, d3) = runs

            def test3(p: int) -> bool:
                return bool(
                    (m := (m := p & (p >> a1)) & (m >> a2)) & (m >> a3)
                    or (m := (m := p & (p >> b1)) & (m >> b2)) & (m >> b3)
                    or (m := (m := p & (p >> c1)) & (m >> c2)) & (m >> c3)
                    or (m := (m := p & (p >> d1)) & (m >> d2)) & (m >> d3)
                )

            return test3

        def test_any(p: int) -> bool:
            for shifts in runs:
                m = p
                for s in shifts:
                    m &= m >> s
                if m:
                    return True
            return False

        return test_any

    @cached_property
    def _nbytes(self) -> int:
        return (self.major * self.stride + 7) // 8

    def to_array(self, stones: int) -> np.ndarray:
        """The bitboard as a bool array ``[major, minor]``."""
        raw = np.frombuffer(stones.to_bytes(self._nbytes, "little"), dtype=np.uint8)
        bits = np.unpackbits(raw, bitorder="little")[: self.major * self.stride]
        return bits.reshape(self.major, self.stride)[:, : self.minor].astype(bool)

    def to_arrays(self, boards: Sequence[int]) -> np.ndarray:
        """Many bitboards as one bool array ``[B, major, minor]`` (``to_array`` of each)."""
        bits = bit_rows(boards, self.major * self.stride)
        return bits.reshape(len(boards), self.major, self.stride)[:, :, : self.minor].astype(bool)

    def winning_cells(self, stones: int, empty: int) -> list[int]:
        """The bits of ``empty`` that would give ``stones`` a line, lowest first.

        Only a point next to a stone can complete a line (the line's next point is one), so
        only those are tried.
        """
        stride = self.stride
        row = stones | stones << 1 | stones >> 1
        near = (row | row << stride | row >> stride) & empty
        cells = []
        while near:
            bit = near & -near
            if self.line_test(stones | bit):
                cells.append(bit)
            near ^= bit
        return cells


def line_through(board: np.ndarray, row: int, col: int, n_in_row: int) -> list[tuple[int, int]]:
    """The cells of a line of at least ``n_in_row`` stones like the one at ``(row, col)``
    that passes through it, in ``board`` (``[rows, cols]``, +1 / -1 stones), sorted; empty
    if there is none. A stone that completes two lines at once gives the first found: a
    line is what gets marked, and one straight line reads best."""
    rows, cols = board.shape
    stone = board[row, col]
    if not stone:
        return []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        line = [(row, col)]
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < rows and 0 <= c < cols and board[r, c] == stone:
                line.append((r, c))
                r, c = r + sign * dr, c + sign * dc
        if len(line) >= n_in_row:
            return sorted(line)
    return []
