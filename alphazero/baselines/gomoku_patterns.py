"""Gomoku shapes along the lines of a board, kept up to date one stone at a time.

A *line* is a row, column or diagonal long enough to hold ``n`` in a row. For one player, the
opponent's stones cut a line into *segments*; a segment shorter than ``n`` can never hold a
line and is worth nothing. Each segment is read from three sets of empty cells:

* ``wins``: a stone there makes ``n`` in a row;
* ``fours``: a stone there makes a new win cell (the segment becomes a four);
* ``threes``: a stone there makes two new win cells at once (an open four, which cannot be
  blocked).

and is named by the best shape it holds, each with its score (``SHAPE_SCORES``):

* five (``n`` in a row), open four (two or more win cells), four (one win cell);
* open three (two cells that make an open four, as ``.XXX.`` in open space), broken three (one
  such cell, as ``.X.XX.``, or an open three against the edge);
* three (a four can be made, as ``OXXX..``), two (a stone makes an open three);
* otherwise the room the player's stones have: the sum over the segment's ``n``-cell windows
  of the squared count of stones in each.

The definitions use ``n`` only, so they hold for any ``n_in_row``. Line contents are read from
two bitmasks (bit ``p``: the ``p``-th cell of the line) and every reading is memoised, so a
shape is worked out once per process and then looked up. ``PatternBoard`` keeps the shapes of
every line for both players, refreshing only the (at most four) lines through a changed cell.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

FIVE = 10_000_000
OPEN_FOUR = 100_000
FOUR = 1_000
OPEN_THREE = 1_000
BROKEN_THREE = 800
THREE = 150
TWO = 100
MAX_LINE = 26
"""The longest line (the largest board the game allows)."""
MAX_MEMO = 500_000
"""Line readings kept at most; past this the memo starts afresh. A deep search meets a few
hundred thousand lines in a few dozen moves (about 250 bytes each), and a training run's
ladder may play this player for days in one process."""
SHAPE_SCORES = {
    "five": FIVE,
    "open four": OPEN_FOUR,
    "four": FOUR,
    "open three": OPEN_THREE,
    "broken three": BROKEN_THREE,
    "three": THREE,
    "two": TWO,
}


class Shape(NamedTuple):
    """One player's reading of a segment or a line; masks hold the line's empty cells."""

    score: int
    wins: int
    threes: int
    fours: int


def _bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class Shapes:
    """Memoised readings of segments and lines for ``n`` in a row."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._threats: dict[tuple[int, int], tuple[bool, int, int, int]] = {}
        self._segments: dict[tuple[int, int], Shape] = {}
        # by line length, then ``own << length | opp``
        self._lines: list[dict[int, Shape]] = [{} for _ in range(MAX_LINE + 1)]
        self._gains: list[dict[int, tuple[int, ...]]] = [{} for _ in range(MAX_LINE + 1)]
        self._entries = 0

    def _win_cells(self, length: int, stones: int) -> tuple[bool, int]:
        """(whether ``stones`` hold ``n`` in a row, the empty cells that would complete one)."""
        n = self.n
        window = (1 << n) - 1
        five, wins = False, 0
        for start in range(length - n + 1):
            cells = window << start
            count = (stones & cells).bit_count()
            if count == n:
                five = True
            elif count == n - 1:
                wins |= cells & ~stones
        return five, wins

    def threats(self, length: int, stones: int) -> tuple[bool, int, int, int]:
        """(five, wins, threes, fours) of a segment of ``length`` cells holding ``stones``."""
        key = (length, stones)
        if (found := self._threats.get(key)) is not None:
            return found
        five, wins = self._win_cells(length, stones)
        threes = fours = 0
        if not five:
            for p in range(length):
                cell = 1 << p
                if stones & cell or wins & cell:
                    continue
                new = self._win_cells(length, stones | cell)[1] & ~wins
                if new:
                    fours |= cell
                    if new & (new - 1):
                        threes |= cell
        found = (five, wins, threes, fours)
        self._threats[key] = found
        return found

    def segment(self, length: int, stones: int) -> Shape:
        """The shape of a segment (no opponent stone in it) of ``length >= n`` cells."""
        key = (length, stones)
        if (found := self._segments.get(key)) is not None:
            return found
        five, wins, threes, fours = self.threats(length, stones)
        if five:
            score = FIVE
        elif wins:
            score = OPEN_FOUR if wins & (wins - 1) else FOUR
        elif threes:
            score = OPEN_THREE if threes & (threes - 1) else BROKEN_THREE
        elif fours:
            score = THREE
        else:
            empty = [1 << p for p in range(length) if not stones >> p & 1]
            makes_three = any(self.threats(length, stones | cell)[2] for cell in empty)
            score = TWO if makes_three else 0
        window = (1 << self.n) - 1
        score += sum(
            (stones & window << start).bit_count() ** 2 for start in range(length - self.n + 1)
        )
        found = Shape(score, wins, threes, fours)
        self._segments[key] = found
        return found

    def line(self, length: int, own: int, opp: int) -> Shape:
        """The shape of a whole line for the player with stones ``own`` against ``opp``."""
        memo = self._lines[length]
        key = own << length | opp
        found = memo.get(key)
        if found is None:
            self._count()
            found = memo[key] = self._read_line(length, own, opp)
        return found

    def _count(self) -> None:
        self._entries += 1
        if self._entries > MAX_MEMO:
            for memo in (*self._lines, *self._gains):
                memo.clear()
            self._entries = 0

    def _read_line(self, length: int, own: int, opp: int) -> Shape:
        score = wins = threes = fours = 0
        start = 0
        while start < length:
            if opp >> start & 1:
                start += 1
                continue
            end = start
            while end < length and not opp >> end & 1:
                end += 1
            size = end - start
            if size >= self.n:
                shape = self.segment(size, (own >> start) & ((1 << size) - 1))
                score += shape.score
                wins |= shape.wins << start
                threes |= shape.threes << start
                fours |= shape.fours << start
            start = end
        return Shape(score, wins, threes, fours)

    def gains(self, length: int, own: int, opp: int) -> tuple[int, ...]:
        """For each cell of the line, how much a stone of ``own`` there raises its score less
        the opponent's (what it builds plus what it blocks); 0 on a taken cell."""
        memo = self._gains[length]
        key = own << length | opp
        found = memo.get(key)
        if found is None:
            self._count()
            line = self.line
            mine, theirs = line(length, own, opp).score, line(length, opp, own).score
            taken = own | opp
            found = memo[key] = tuple(
                0
                if taken >> p & 1
                else line(length, own | 1 << p, opp).score
                - mine
                + theirs
                - line(length, opp, own | 1 << p).score
                for p in range(length)
            )
        return found


class _Geometry(NamedTuple):
    lines: tuple[tuple[int, ...], ...]
    """The cells (row * size + column) of each line, in order along it."""
    through: tuple[tuple[tuple[int, int], ...], ...]
    """For each cell, ``(line, bit)`` of every line through it."""
    near: tuple[tuple[int, ...], ...]
    """For each cell, the cells within two steps of it (king moves), itself excluded."""


@cache
def _geometry(size: int, n: int) -> _Geometry:
    lines: list[tuple[int, ...]] = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(size):
            for c in range(size):
                if 0 <= r - dr < size and 0 <= c - dc < size:
                    continue  # not the first cell of its line
                cells = []
                rr, cc = r, c
                while 0 <= rr < size and 0 <= cc < size:
                    cells.append(rr * size + cc)
                    rr, cc = rr + dr, cc + dc
                if len(cells) >= n:
                    lines.append(tuple(cells))
    through: list[list[tuple[int, int]]] = [[] for _ in range(size * size)]
    for index, cells in enumerate(lines):
        for p, cell in enumerate(cells):
            through[cell].append((index, 1 << p))
    near = tuple(
        tuple(
            (r + dr) * size + c + dc
            for dr in range(-2, 3)
            for dc in range(-2, 3)
            if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size
        )
        for r, c in (divmod(cell, size) for cell in range(size * size))
    )
    return _Geometry(tuple(lines), tuple(tuple(t) for t in through), near)


@cache
def shapes_for(n: int) -> Shapes:
    """The memo of shapes for ``n`` in a row, shared by every board of that ``n``."""
    return Shapes(n)


def _flip(lines: set[int], line: int, present: int) -> None:
    if present:
        lines.add(line)
    else:
        lines.discard(line)


class PatternBoard:
    """Both players' shapes on every line of a ``size x size`` board, updated per stone.

    Players are indexed 0 (the first player, ``+1``) and 1 (the second, ``-1``). ``total[i]``
    is the sum of player ``i``'s line scores; ``win_lines[i]``, ``three_lines[i]`` and
    ``four_lines[i]`` are the lines where ``i`` has win cells, open-four cells and four cells.
    """

    def __init__(self, size: int, n: int, state: np.ndarray | None = None) -> None:
        self.size = size
        self.shapes = shapes_for(n)
        geometry = _geometry(size, n)
        self.lines = geometry.lines
        self.through = geometry.through
        self.near_cells = geometry.near
        self.lengths = tuple(len(cells) for cells in self.lines)
        count = len(self.lines)
        self.masks = [[0] * count, [0] * count]
        empty = [self.shapes.line(length, 0, 0) for length in self.lengths]
        self.line_shapes = [list(empty), list(empty)]
        no_gains = [self.shapes.gains(length, 0, 0) for length in self.lengths]
        self.line_gains = [list(no_gains), list(no_gains)]
        """For each player and line, ``Shapes.gains`` of the line as it stands."""
        self.total = [sum(s.score for s in empty)] * 2
        self.win_lines: list[set[int]] = [set(), set()]
        self.three_lines: list[set[int]] = [set(), set()]
        self.four_lines: list[set[int]] = [set(), set()]
        self.stones = bytearray(size * size)
        """1 where a stone stands."""
        self.near = [0] * (size * size)
        """How many stones stand within two steps of each cell."""
        self.count = 0
        if state is not None:
            for cell, value in enumerate(np.asarray(state).reshape(-1).tolist()):
                if value:
                    self.place(cell, 0 if value == 1 else 1)

    # ------------------------------------------------------------------ updates
    def place(self, cell: int, who: int) -> None:
        """Put a stone of player ``who`` (0 or 1) on the empty ``cell``."""
        own = self.masks[who]
        for line, bit in self.through[cell]:
            own[line] |= bit
            self._refresh(line)
        self._mark(cell, 1)

    def remove(self, cell: int, who: int) -> None:
        """Take back the stone of player ``who`` on ``cell``."""
        own = self.masks[who]
        for line, bit in self.through[cell]:
            own[line] &= ~bit
            self._refresh(line)
        self._mark(cell, -1)

    def _mark(self, cell: int, step: int) -> None:
        self.stones[cell] = 1 if step > 0 else 0
        self.count += step
        near = self.near
        for other in self.near_cells[cell]:
            near[other] += step

    def _refresh(self, line: int) -> None:
        length = self.lengths[line]
        first, second = self.masks[0][line], self.masks[1][line]
        shapes = self.shapes
        for who, shape in (
            (0, shapes.line(length, first, second)),
            (1, shapes.line(length, second, first)),
        ):
            old = self.line_shapes[who][line]
            if shape is old:
                continue
            self.line_shapes[who][line] = shape
            self.total[who] += shape.score - old.score
            if bool(shape.wins) != bool(old.wins):
                _flip(self.win_lines[who], line, shape.wins)
            if bool(shape.threes) != bool(old.threes):
                _flip(self.three_lines[who], line, shape.threes)
            if bool(shape.fours) != bool(old.fours):
                _flip(self.four_lines[who], line, shape.fours)
        self.line_gains[0][line] = shapes.gains(length, first, second)
        self.line_gains[1][line] = shapes.gains(length, second, first)

    # ------------------------------------------------------------------ queries
    def _cells(self, lines: set[int], who: int, field: int) -> set[int]:
        found = set()
        for line in lines:
            cells = self.lines[line]
            for p in _bits(self.line_shapes[who][line][field]):
                found.add(cells[p])
        return found

    def win_cells(self, who: int) -> set[int]:
        """Empty cells where ``who`` would make ``n`` in a row."""
        return self._cells(self.win_lines[who], who, 1)

    def three_cells(self, who: int) -> set[int]:
        """Empty cells where ``who`` would make an open four."""
        return self._cells(self.three_lines[who], who, 2)

    def four_cells(self, who: int) -> set[int]:
        """Empty cells where ``who`` would make a four (or more)."""
        return self._cells(self.four_lines[who], who, 3)

    def defences(self, who: int) -> set[int] | None:
        """Empty cells where ``who`` takes away every open-four cell of the opponent: the
        answers to an open (or broken) three. None when the opponent has no such cell."""
        other = 1 - who
        lines = self.three_lines[other]
        if not lines:
            return None
        answer: set[int] | None = None
        for line in lines:
            length, cells = self.lengths[line], self.lines[line]
            theirs, mine = self.masks[other][line], self.masks[who][line]
            empty = ((1 << length) - 1) & ~(theirs | mine)
            here = {
                cells[p]
                for p in _bits(empty)
                if not self.shapes.line(length, theirs, mine | 1 << p).threes
            }
            answer = here if answer is None else answer & here
        return answer

    def near_empty(self) -> list[int]:
        """Empty cells within two steps of a stone; the centre on an empty board."""
        if not self.count:
            centre = self.size // 2
            return [centre * self.size + centre]
        stones = self.stones
        return [cell for cell, n in enumerate(self.near) if n and not stones[cell]]

    def gain(self, cell: int, who: int) -> int:
        """How much a stone of ``who`` on ``cell`` raises ``total[who] - total[other]``:
        what it builds plus what it blocks, a cheap order for the search's moves."""
        gains = self.line_gains[who]
        return sum(gains[line][bit.bit_length() - 1] for line, bit in self.through[cell])
