"""Dots and Boxes on ``rows x cols`` boxes: completing a box scores it and moves again.

Actions number the edges as OpenSpiel's ``dots_and_boxes`` does: first the horizontal edges
row by row (``r * cols + c`` for ``r`` in ``0..rows``), then the vertical ones
(``(rows + 1) * cols + r * (cols + 1) + c``). A person names an edge by its two dots, columns
as letters and rows as numbers from the top: ``a1-b1`` is the top edge of the top-left box,
``a1-a2`` its left edge.

The network sees the board as a lattice of ``(2 rows + 1) x (2 cols + 1)`` cells: dots at
even-even cells, edges between them and boxes at odd-odd cells.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar, Self

import numpy as np

from .base import (
    DIHEDRAL_OPS,
    RECTANGLE_OPS,
    Game,
    MoveParseError,
    Moves,
    apply_symmetries,
    bit_rows,
    check_param,
    grid_policy_permutations,
)
from .view import GameView

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class _BoxesRules:
    """Tables shared by every position of one board size."""

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        n_horizontal = (rows + 1) * cols
        self.num_actions = n_horizontal + rows * (cols + 1)
        self.all_edges = (1 << self.num_actions) - 1

        def horizontal(r: int, c: int) -> int:
            return r * cols + c

        def vertical(r: int, c: int) -> int:
            return n_horizontal + r * (cols + 1) + c

        # For each edge, the boxes it borders with the 4-edge mask of each box; and, for the
        # rollout knowledge, the same by index: each edge's boxes, each box's four edges.
        boxes_of_edge: list[list[tuple[int, int]]] = [[] for _ in range(self.num_actions)]
        edge_boxes: list[list[int]] = [[] for _ in range(self.num_actions)]
        box_edges = []
        for r in range(rows):
            for c in range(cols):
                sides = (horizontal(r, c), horizontal(r + 1, c), vertical(r, c), vertical(r, c + 1))
                box_mask = sum(1 << e for e in sides)
                box_edges.append(sides)
                for e in sides:
                    boxes_of_edge[e].append((1 << (r * cols + c), box_mask))
                    edge_boxes[e].append(r * cols + c)
        self.boxes_of_edge = tuple(tuple(b) for b in boxes_of_edge)
        self.edge_boxes = tuple(tuple(b) for b in edge_boxes)
        self.box_edges = tuple(box_edges)

        # Lattice cell of each edge (dot coordinates: row and column of its two ends).
        self.edge_cell: list[tuple[int, int]] = []
        self.edge_dots: list[tuple[tuple[int, int], tuple[int, int]]] = []
        for r in range(rows + 1):
            for c in range(cols):
                self.edge_cell.append((2 * r, 2 * c + 1))
                self.edge_dots.append(((r, c), (r, c + 1)))
        for r in range(rows):
            for c in range(cols + 1):
                self.edge_cell.append((2 * r + 1, 2 * c))
                self.edge_dots.append(((r, c), (r + 1, c)))
        self.edge_of_dots = {frozenset(d): a for a, d in enumerate(self.edge_dots)}
        self.edge_index = np.array(self.edge_cell).T  # [2, num_actions] lattice coordinates

        action_grid = np.full((2 * rows + 1, 2 * cols + 1), -1)
        action_grid[tuple(self.edge_index)] = np.arange(self.num_actions)
        self.sym_ops = DIHEDRAL_OPS if rows == cols else RECTANGLE_OPS
        self.sym_perms = grid_policy_permutations(action_grid, self.sym_ops)


def edge_name(action: int, rules: _BoxesRules) -> str:
    """The edge ``action`` as a person names it, by its two dots: ``a1-b1``."""
    (r1, c1), (r2, c2) = rules.edge_dots[action]
    return f"{_LETTERS[c1]}{r1 + 1}-{_LETTERS[c2]}{r2 + 1}"


@cache
def _rules(rows: int, cols: int) -> _BoxesRules:
    return _BoxesRules(rows, cols)


class DotsAndBoxes(Game):
    """Dots and Boxes; the player with more boxes wins, equal counts draw.

    Rollout knowledge: complete a box when one can be completed; otherwise draw a random edge
    that gives no box a third side while such a safe edge exists; otherwise a random edge.
    """

    __slots__ = ("_boxes_first", "_boxes_second", "_edges", "_rules")
    name = "dots_and_boxes"
    turns_alternate = False
    rollout_knowledge: ClassVar[bool] = True

    def __init__(self, rows: int = 3, cols: int = 3) -> None:
        check_param(self.name, "rows", rows, 1, 10)
        check_param(self.name, "cols", cols, 1, 10)
        self._rules = _rules(rows, cols)
        self._edges = 0
        self._boxes_first = 0
        self._boxes_second = 0
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
    def params(self) -> dict[str, int]:
        return {"rows": self._rules.rows, "cols": self._rules.cols}

    @property
    def num_actions(self) -> int:
        return self._rules.num_actions

    @property
    def plies(self) -> tuple[int, int]:
        """The edges drawn and all the edges (the lattice also shows the boxes taken)."""
        return self._edges.bit_count(), self._rules.num_actions

    @property
    def boxes(self) -> tuple[int, int]:
        """Boxes won so far by the first and by the second player."""
        return self._boxes_first.bit_count(), self._boxes_second.bit_count()

    @property
    def available_moves(self) -> list[int]:
        if self.score is not None:
            return []
        edges = self._edges
        return [a for a in range(self._rules.num_actions) if not edges >> a & 1]

    def is_legal(self, action: int) -> bool:
        return self.score is None and not self._edges >> action & 1

    @property
    def solvable(self) -> bool:
        return self.num_actions <= 12  # up to 2x2 boxes

    def illegal_reason(self, action: int) -> str:
        return f"{self.name}: edge {edge_name(action, self._rules)} is already drawn"

    def ending_moves(self) -> list[int]:
        free = self._rules.all_edges & ~self._edges
        if self.score is not None or free & (free - 1):
            return []
        return [free.bit_length() - 1]  # the last edge ends the game

    def copy(self) -> Self:
        new = object.__new__(type(self))
        new._rules = self._rules
        new._edges = self._edges
        new._boxes_first = self._boxes_first
        new._boxes_second = self._boxes_second
        new.player = self.player
        new.score = self.score
        new.last_move = self.last_move
        return new

    def _apply(self, action: int) -> None:
        rules = self._rules
        edges = self._edges | (1 << action)
        self._edges = edges
        completed = 0
        for box_bit, box_mask in rules.boxes_of_edge[action]:
            if edges & box_mask == box_mask:
                completed |= box_bit
        self.last_move = action
        if completed:  # the same player moves again
            if self.player == 1:
                self._boxes_first |= completed
            else:
                self._boxes_second |= completed
            if edges == rules.all_edges:
                first, second = self.boxes
                self.score = (first > second) - (first < second)
        else:
            self.player = -self.player

    def playout(
        self, rng: random.Random, moves: Moves | None = None, knowledge: bool = False
    ) -> tuple[int, int]:
        """A random order of the free edges is a uniform random game; with ``knowledge``,
        boxes taken and third sides avoided. Each way of recording the moves is its own loop."""
        if self.score is not None:
            return self.score, 0
        if knowledge:
            return self._playout_with_knowledge(rng, moves)
        if moves is not None:
            return self._recorded_playout(rng, moves)
        boxes_of_edge = self._rules.boxes_of_edge
        edges = self._edges
        player = self.player
        margin = self._boxes_first.bit_count() - self._boxes_second.bit_count()
        order = [a for a in range(self._rules.num_actions) if not edges >> a & 1]
        rng.shuffle(order)  # a random order of the free edges is a uniform random game
        for action in order:
            edges |= 1 << action
            gained = 0
            for _, box_mask in boxes_of_edge[action]:
                if edges & box_mask == box_mask:
                    gained += 1
            if gained:
                margin += gained * player
            else:
                player = -player
        return (margin > 0) - (margin < 0), len(order)

    def _recorded_playout(self, rng: random.Random, moves: Moves) -> tuple[int, int]:
        """``playout``'s uniform loop appending ``(player, action)`` to ``moves``."""
        boxes_of_edge = self._rules.boxes_of_edge
        edges = self._edges
        player = self.player
        margin = self._boxes_first.bit_count() - self._boxes_second.bit_count()
        order = [a for a in range(self._rules.num_actions) if not edges >> a & 1]
        rng.shuffle(order)
        append = moves.append
        for action in order:
            append((player, action))
            edges |= 1 << action
            gained = 0
            for _, box_mask in boxes_of_edge[action]:
                if edges & box_mask == box_mask:
                    gained += 1
            if gained:
                margin += gained * player
            else:
                player = -player
        return (margin > 0) - (margin < 0), len(order)

    def _playout_with_knowledge(self, rng: random.Random, moves: Moves | None) -> tuple[int, int]:
        """Take a box if one can be taken, else a safe edge (no box gets a third side) if one
        exists, else any edge.

        Kept incrementally: ``sides[b]`` counts the drawn sides of box ``b``; ``takeable``
        holds boxes that had three sides when last touched; ``safe`` and ``free`` are edge
        lists with lazy deletion (an edge, once unsafe or drawn, stays so).
        """
        rules = self._rules
        edge_boxes, box_edges = rules.edge_boxes, rules.box_edges
        edges = self._edges
        player = self.player
        margin = self._boxes_first.bit_count() - self._boxes_second.bit_count()
        sides = [sum(edges >> e & 1 for e in box) for box in box_edges]
        free = [a for a in range(rules.num_actions) if not edges >> a & 1]
        remaining = played = len(free)  # the game ends when every edge is drawn
        safe = [a for a in free if all(sides[b] < 2 for b in edge_boxes[a])]
        takeable = [b for b, n in enumerate(sides) if n == 3]
        random_ = rng.random
        while remaining:
            action = -1
            while takeable:
                b = takeable.pop()
                if sides[b] == 3:
                    for e in box_edges[b]:
                        if not edges >> e & 1:
                            action = e
                            break
                    break
            while action < 0 and safe:
                i = int(random_() * len(safe))
                e = safe[i]
                if not edges >> e & 1 and all(sides[b] < 2 for b in edge_boxes[e]):
                    action = e
                    break
                safe[i] = safe[-1]
                safe.pop()
            while action < 0:
                i = int(random_() * len(free))
                e = free[i]
                free[i] = free[-1]
                free.pop()
                if not edges >> e & 1:
                    action = e
            if moves is not None:
                moves.append((player, action))
            edges |= 1 << action
            remaining -= 1
            gained = 0
            for b in edge_boxes[action]:
                n = sides[b] + 1
                sides[b] = n
                if n == 4:
                    gained += 1
                elif n == 3:
                    takeable.append(b)
            if gained:
                margin += gained * player
            else:
                player = -player
        return (margin > 0) - (margin < 0), played

    # -------------------------------------------------------- views of the position
    def _box_array(self, boxes: int) -> np.ndarray:
        r, c = self._rules.rows, self._rules.cols
        bits = [(boxes >> i) & 1 for i in range(r * c)]
        return np.array(bits, dtype=np.int8).reshape(r, c)

    @property
    def state(self) -> np.ndarray:
        """The lattice ``[2 rows + 1, 2 cols + 1]``: 1 on drawn edges, box owners as +1 / -1."""
        rules = self._rules
        lattice = np.zeros((2 * rules.rows + 1, 2 * rules.cols + 1), dtype=np.int8)
        drawn = np.array([(self._edges >> a) & 1 for a in range(rules.num_actions)], np.int8)
        lattice[tuple(rules.edge_index)] = drawn
        lattice[1::2, 1::2] = self._box_array(self._boxes_first) - self._box_array(
            self._boxes_second
        )
        return lattice

    def key(self) -> tuple[int, ...]:
        return (self._edges, self._boxes_first, self._boxes_second, self.player)

    def encode(self) -> np.ndarray:
        """Planes ``[2 rows + 1, 2 cols + 1, 4]``: drawn edges, the mover's boxes, the
        opponent's boxes, and ones. Box ownership matters: the winner is who has more."""
        lattice = self.state
        boxes = np.zeros(lattice.shape, dtype=np.int8)
        boxes[1::2, 1::2] = lattice[1::2, 1::2] * self.player
        edges = np.zeros(lattice.shape, dtype=np.float32)
        edges[tuple(self._rules.edge_index)] = lattice[tuple(self._rules.edge_index)]
        planes = np.ones((*lattice.shape, 4), dtype=np.float32)
        planes[:, :, 0] = edges
        planes[:, :, 1] = boxes == 1
        planes[:, :, 2] = boxes == -1
        return planes

    @classmethod
    def encode_batch(cls, games: Sequence[Self]) -> np.ndarray:
        rules = games[0]._rules
        rows, cols = rules.rows, rules.cols
        boxes = []
        for game in games:  # the mover's boxes, then the opponent's
            first, second = game._boxes_first, game._boxes_second
            boxes += (first, second) if game.player == 1 else (second, first)
        owned = bit_rows(boxes, rows * cols).reshape(len(games), 2, rows, cols)
        planes = np.zeros((len(games), 2 * rows + 1, 2 * cols + 1, 4), dtype=np.float32)
        edge_rows, edge_cols = rules.edge_index
        planes[:, edge_rows, edge_cols, 0] = bit_rows([g._edges for g in games], rules.num_actions)
        planes[:, 1::2, 1::2, 1:3] = owned.transpose(0, 2, 3, 1)
        planes[..., 3] = 1.0
        return planes

    def symmetries(
        self, planes: np.ndarray, policy: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        return apply_symmetries(planes, policy, self._rules.sym_ops, self._rules.sym_perms)


class DotsAndBoxesView(GameView[DotsAndBoxes]):
    """Edges named by their two dots, columns as letters and rows as numbers from the top;
    boxes show their owner's mark."""

    marks: ClassVar[dict[int, str]] = {1: "X", -1: "O"}

    @property
    def _lattice(self) -> _BoxesRules:
        """Where every edge lies and which dots it joins."""
        return _rules(self.start.rows, self.start.cols)

    @property
    def title(self) -> str:
        return "Dots and Boxes"

    @property
    def full_title(self) -> str:
        return f"{self.title}, {self.start.rows}x{self.start.cols} boxes"

    @property
    def notation(self) -> str:
        return "an edge by its two dots, like a1-b1"

    @property
    def move_help(self) -> str:
        return (
            f"Type an edge by the two dots it joins: columns are letters "
            f"a-{_LETTERS[self.start.cols]}, rows are numbers 1-{self.start.rows + 1} from the "
            f"top. a1-b1 is the top edge of the top-left box, a1-a2 its left edge. Completing a "
            f"box scores it and you move again; more boxes wins. The edge drawn last shows as *."
        )

    def board_view(self, game: DotsAndBoxes) -> dict[str, Any]:
        first, second = game.boxes
        return {
            "layout": "dots",
            "rows": game.rows,
            "cols": game.cols,
            "edges": list(self._lattice.edge_cell),
            "boxes": [first, second],
        }

    def render(self, game: DotsAndBoxes) -> str:
        rules = self._lattice
        lattice = game.state
        last_cell = rules.edge_cell[game.last_move] if game.last_move is not None else None
        out = ["    " + "   ".join(_LETTERS[c] for c in range(rules.cols + 1))]
        for i in range(2 * rules.rows + 1):
            label = f"{i // 2 + 1:>2}  " if i % 2 == 0 else "    "
            cells = []
            for j in range(2 * rules.cols + 1):
                last = (i, j) == last_cell
                if i % 2 == 0 and j % 2 == 0:
                    cells.append("+")
                elif i % 2 == 0:
                    cells.append(("-*-" if last else "---") if lattice[i, j] else "   ")
                elif j % 2 == 0:
                    cells.append(("*" if last else "|") if lattice[i, j] else " ")
                else:
                    owner = int(lattice[i, j])
                    cells.append(f" {self.marks[owner]} " if owner else "   ")
            out.append((label + "".join(cells)).rstrip())
        first, second = game.boxes
        out.append(f"boxes: X {first}, O {second}")
        return "\n".join(out)

    def parse_move(self, text: str) -> int:
        rules = self._lattice
        last_letter = _LETTERS[rules.cols]
        m = re.fullmatch(
            r"([a-z])\s*([0-9]{1,2})\s*-?\s*([a-z])\s*([0-9]{1,2})", text.strip().lower()
        )
        if not m:
            raise MoveParseError(
                f"{text[:20]!r} is not an edge: name its two dots, like a1-b1 "
                f"(columns a-{last_letter}, rows 1-{rules.rows + 1})"
            )
        dots = []
        for letter, number in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
            c, r = _LETTERS.index(letter), int(number) - 1
            if not (0 <= c <= rules.cols and 0 <= r <= rules.rows):
                raise MoveParseError(
                    f"{letter}{number} is not a dot: columns a-{last_letter}, "
                    f"rows 1-{rules.rows + 1}"
                )
            dots.append((r, c))
        action = rules.edge_of_dots.get(frozenset(dots))
        if action is None:
            raise MoveParseError(
                f"{text.strip()[:20]!r}: an edge joins two neighbouring dots, like a1-b1 or a1-a2"
            )
        return action

    def format_move(self, action: int) -> str:
        return edge_name(action, self._lattice)
