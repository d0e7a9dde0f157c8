"""Helpers for the game tests: reference rules written the slow, obvious way, and searches
that build positions to order.

Boards here are in the engines' ``state`` coordinates: ``(row, col)`` with row 0 at the top.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pytest

from alphazero.games import Game, make, view_for

# (row step, col step) with row 0 at the top: "\" runs down-right, "/" runs down-left.
DIRECTIONS = {
    "horizontal": (0, 1),
    "vertical": (1, 0),
    "diagonal \\": (1, 1),
    "diagonal /": (1, -1),
}

Cell = tuple[int, int]


def from_notation(start: Game, moves: Iterable[int | str]) -> Game:
    """The position reached by ``moves`` (the game's notation, or actions) from the start of
    ``start``'s board."""
    return view_for(start).from_moves(moves)


def parse(game: Game, text: str) -> int:
    """The action that ``text`` names in ``game``'s notation."""
    return view_for(game).parse_move(text)


# Configurations the parametrised tests run over, as (game name, params).
GAME_CONFIGS: list[tuple[str, dict[str, int]]] = [
    ("tictactoe", {}),
    ("connect4", {}),
    ("connect4", {"rows": 5, "cols": 6, "n_in_row": 4}),
    ("connect4", {"rows": 4, "cols": 5, "n_in_row": 3}),
    ("gomoku", {}),
    ("gomoku", {"size": 8, "n_in_row": 5}),
    ("gomoku", {"size": 6, "n_in_row": 4}),
    ("dots_and_boxes", {}),
    ("dots_and_boxes", {"rows": 2, "cols": 2}),
    ("dots_and_boxes", {"rows": 2, "cols": 3}),
    ("dots_and_boxes", {"rows": 1, "cols": 1}),
]


def config_id(name: str, params: dict[str, int]) -> str:
    return "-".join([name, *(f"{k}={v}" for k, v in params.items())])


def config_params(configs: Sequence[tuple[str, dict[str, int]]] = GAME_CONFIGS) -> list:
    return [pytest.param(name, params, id=config_id(name, params)) for name, params in configs]


# ----------------------------------------------------------------------- n in a row
def lines_on_board(rows: int, cols: int, n: int) -> list[tuple[str, tuple[Cell, ...]]]:
    """Every run of ``n`` cells on the board, with the name of its direction."""
    found = []
    for direction, (dr, dc) in DIRECTIONS.items():
        for r in range(rows):
            for c in range(cols):
                cells = tuple((r + k * dr, c + k * dc) for k in range(n))
                if all(0 <= i < rows and 0 <= j < cols for i, j in cells):
                    found.append((direction, cells))
    return found


def line_through(board: np.ndarray, cell: Cell, n: int) -> bool:
    """Whether the stone on ``cell`` is part of ``n`` or more in a row of its colour."""
    rows, cols = board.shape
    r, c = cell
    colour = board[r, c]
    if colour == 0:
        return False
    for dr, dc in DIRECTIONS.values():
        count = 1
        for sign in (1, -1):
            i, j = r + sign * dr, c + sign * dc
            while 0 <= i < rows and 0 <= j < cols and board[i, j] == colour:
                count += 1
                i, j = i + sign * dr, j + sign * dc
        if count >= n:
            return True
    return False


def has_line(board: np.ndarray, colour: int, n: int) -> bool:
    rows, cols = board.shape
    return any(
        all(board[cell] == colour for cell in cells) for _, cells in lines_on_board(rows, cols, n)
    )


class ReferenceLines:
    """n-in-a-row (with or without gravity) on a plain array, to check the bitboards against."""

    def __init__(self, rows: int, cols: int, n: int, gravity: bool) -> None:
        self.board = np.zeros((rows, cols), dtype=np.int8)
        self.n = n
        self.gravity = gravity
        self.player = 1
        self.score: int | None = None

    @classmethod
    def like(cls, game: Game) -> ReferenceLines:
        p = game.params
        if game.name == "connect4":
            return cls(p["rows"], p["cols"], p["n_in_row"], gravity=True)
        size, n = (3, 3) if game.name == "tictactoe" else (p["size"], p["n_in_row"])
        return cls(size, size, n, gravity=False)

    def cell(self, action: int) -> Cell:
        if not self.gravity:
            return divmod(action, self.board.shape[1])
        empty = np.flatnonzero(self.board[:, action] == 0)
        return int(empty[-1]), action  # the lowest empty cell of the column

    def play(self, action: int) -> Cell:
        assert self.score is None
        cell = self.cell(action)
        assert self.board[cell] == 0
        self.board[cell] = self.player
        if line_through(self.board, cell, self.n):
            self.score = self.player
        elif self.board.all():
            self.score = 0
        self.player = -self.player
        return cell


def replay_checked(start: Game, moves: Sequence[int]) -> tuple[Game, list[Cell]]:
    """Play ``moves`` on ``start`` and on the reference, asserting they agree after each one.

    Returns the final position and the cell each move landed on.
    """
    reference = ReferenceLines.like(start)
    game = start
    cells = []
    for ply, action in enumerate(moves, start=1):
        game = game.sim_move(action)
        cells.append(reference.play(action))
        assert game.score == reference.score, (ply, moves, game)
        assert game.player == reference.player, (ply, moves, game)
    assert np.array_equal(game.state, reference.board), (moves, game)
    return game, cells


def gomoku_line_win(size: int, n: int, line: Sequence[Cell], winner: int, last: Cell) -> list[int]:
    """Moves after which ``winner`` completes ``line`` by a stone on ``last``.

    The loser's stones go as far from the line as possible, skipping any that would give the
    loser a line of its own.
    """
    order = [cell for cell in line if cell != last] + [last]
    fillers_needed = n - 1 if winner == 1 else n
    scratch = np.zeros((size, size), dtype=np.int8)
    for cell in line:
        scratch[cell] = 9  # not a colour: keeps the line free
    by_distance = sorted(
        ((r, c) for r in range(size) for c in range(size) if scratch[r, c] == 0),
        key=lambda cell: -min(max(abs(cell[0] - r), abs(cell[1] - c)) for r, c in line),
    )
    fillers = []
    for cell in by_distance:
        scratch[cell] = -winner
        if line_through(scratch, cell, n):
            scratch[cell] = 0
            continue
        fillers.append(cell)
        if len(fillers) == fillers_needed:
            break
    assert len(fillers) == fillers_needed, "no room for the loser's stones"
    cells = []
    for k in range(n):
        if winner == -1:
            cells.append(fillers[k])
        cells.append(order[k])
        if winner == 1 and k < n - 1:
            cells.append(fillers[k])
    return [r * size + c for r, c in cells]


def connect4_line_win(
    start: Game, line: Sequence[Cell], winner: int, last: Cell, rng: random.Random
) -> list[int] | None:
    """Columns after which ``winner`` completes ``line`` by dropping a stone on ``last``.

    A randomised depth-first search over real moves, restarted a few times: the winner drops
    on line cells when it can (``last`` only at the very end), the loser never does; the cells
    below the line are filled first. ``None`` if nothing was found.
    """
    line_set = set(line)
    rows = start.params["rows"]

    def search(game: Game, moves: list[int], seen: set, budget: list[int]) -> list[int] | None:
        if budget[0] <= 0 or game.key() in seen:
            return None
        budget[0] -= 1
        seen.add(game.key())
        board = game.state
        heights = np.count_nonzero(board, axis=0)
        unplaced = [cell for cell in line if board[cell] == 0]
        options = []
        for column in game.available_moves:
            cell = (rows - 1 - int(heights[column]), column)
            if cell in line_set:
                if game.player != winner or (cell == last and len(unplaced) > 1):
                    continue
                rank = 0
            elif any(c == column and r < cell[0] for r, c in unplaced):
                rank = 1  # fills the column below a line cell
            else:
                rank = 2
            options.append((rank + 1.5 * rng.random(), column, cell))
        for _, column, cell in sorted(options):
            child = game.sim_move(column)
            if cell == last:
                return [*moves, column]
            if child.is_over:
                continue
            found = search(child, [*moves, column], seen, budget)
            if found is not None:
                return found
        return None

    for _ in range(300):
        found = search(start, [], set(), [2 * start.state.size])
        if found is not None:
            return found
    return None


# ------------------------------------------------------------------------- orders
def drop_order(target: np.ndarray) -> list[int] | None:
    """Columns that build the full Connect Four board ``target`` (+1 / -1, row 0 at the top)
    with the players alternating, the first player (+1) first. ``None`` if no order exists."""
    rows, cols = target.shape
    total = rows * cols
    dead: set[tuple[int, ...]] = set()

    def search(heights: list[int], moves: list[int]) -> list[int] | None:
        if len(moves) == total:
            return moves
        key = tuple(heights)
        if key in dead:
            return None
        player = 1 if len(moves) % 2 == 0 else -1
        for c in range(cols):
            h = heights[c]
            if h < rows and target[rows - 1 - h, c] == player:
                heights[c] += 1
                found = search(heights, [*moves, c])
                heights[c] -= 1
                if found is not None:
                    return found
        dead.add(key)
        return None

    return search([0] * cols, [])


def no_line_pattern(rows: int, cols: int) -> np.ndarray:
    """A +1 / -1 colouring with no three alike in a row in any direction: the first column,
    then pairs of columns, alternate, and the pattern flips every row. At least as many +1 as
    -1, as a finished game has."""
    r, c = np.indices((rows, cols))
    pattern = np.where(((c + 1) // 2 + r) % 2 == 0, 1, -1).astype(np.int8)
    return pattern if pattern.sum() >= 0 else -pattern


# ------------------------------------------------------------------------ positions
def random_history(game: Game, rng: random.Random, plies: int) -> list[int]:
    """Up to ``plies`` random moves from ``game``, avoiding moves that would end it."""
    moves: list[int] = []
    position = game
    while len(moves) < plies:
        options = position.available_moves
        rng.shuffle(options)
        for action in options:
            child = position.sim_move(action)
            if not child.is_over:
                moves.append(action)
                position = child
                break
        else:
            break  # every move ends the game
    return moves


def capacity(game: Game) -> int:
    """How many moves fill the board: cells, or edges in Dots and Boxes."""
    return game.num_actions if game.name == "dots_and_boxes" else game.state.size


def remaining(game: Game) -> int:
    """Empty cells (edges in Dots and Boxes) left."""
    if game.name == "dots_and_boxes":
        return len(game.available_moves)
    return int((game.state == 0).sum())


def random_positions(name: str, params: dict, rng: random.Random, count: int) -> list[Game]:
    """``count`` positions still in play, from the start to late in the game."""
    start = make(name, **params)
    positions = []
    for k in range(count):
        plies = (k * capacity(start)) // max(1, count)
        positions.append(type(start).from_moves(random_history(start, rng, plies), **params))
    return positions


def play_random(game: Game, rng: random.Random) -> list[Game]:
    """A uniformly random game through ``sim_move``: every position, the start first."""
    positions = [game]
    while not positions[-1].is_over:
        positions.append(positions[-1].sim_move(rng.choice(positions[-1].available_moves)))
    return positions


def sampled_outcomes(
    game: Game, rng: random.Random, runs: int, player: Callable[[Game, random.Random], tuple]
) -> tuple[dict[int, int], float]:
    """How often each score came out of ``runs`` calls of ``player``, and the mean length."""
    counts = {1: 0, 0: 0, -1: 0}
    plies = 0
    for _ in range(runs):
        score, length = player(game, rng)
        counts[score] += 1
        plies += length
    return counts, plies / runs


def sim_move_playout(game: Game, rng: random.Random) -> tuple[int, int]:
    """A random playout through the public API, the reference for ``playout``."""
    played = 0
    while not game.is_over:
        game = game.sim_move(rng.choice(game.available_moves))
        played += 1
    return game.score, played
