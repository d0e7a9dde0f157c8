"""Rollout policies of the UCT baselines: play a position out to the end, fast.

Two policies, picked by the ``knowledge`` flag of the players (off by default):

* uniform random (every game): the game's own ``playout`` loop, the fastest we have;
* light knowledge, where a game has some:

  - Gomoku: every move is a random empty point next to a stone (8-neighbourhood), any empty
    point only on an empty board. ``candidate_moves`` applies the same rule to the moves the
    tree expands (a win or a block is always next to a stone, so nothing tactical is lost).
  - Dots and Boxes: complete a box when one can be completed; otherwise draw a random edge
    that gives no box a third side while such a safe edge exists; otherwise a random edge.
  - other games: uniform random.

``rollout`` returns the absolute score (+1 first player won, -1 second, 0 draw).
``rollout_moves`` also returns who played what, ``[(player, action), ...]``, for the
all-moves-as-first statistics of UCT-RAVE. Both leave ``game`` untouched.

The loops read the games' private bitboards (documented in ``connect4.py``, ``gomoku.py``,
``dots_and_boxes.py``); a game without a special loop falls back to ``copy()`` /
``_apply()`` with ``available_moves``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

from ..games.base import Game
from ..games.connect4 import Connect4
from ..games.dots_and_boxes import DotsAndBoxes
from ..games.gomoku import Gomoku

Moves = list[tuple[int, int]]
"""``(player, action)`` in the order played."""

RolloutFn = Callable[[Game, random.Random], int]
RecordingRolloutFn = Callable[[Game, random.Random], tuple[int, Moves]]


def has_knowledge(game: Game) -> bool:
    """Whether ``knowledge=True`` changes anything for this game."""
    return game.name in ("gomoku", "dots_and_boxes")


# --------------------------------------------------------------------------- entry points
def rollout(game: Game, rng: random.Random, knowledge: bool = False) -> int:
    """Play ``game`` out to the end with the chosen policy; return the absolute score."""
    return rollout_function(game, knowledge)(game, rng)


def rollout_moves(game: Game, rng: random.Random, knowledge: bool = False) -> tuple[int, Moves]:
    """Like ``rollout``, also returning the moves played: ``(score, [(player, action), ...])``."""
    return recording_rollout_function(game, knowledge)(game, rng)


def rollout_function(game: Game, knowledge: bool = False) -> RolloutFn:
    """The rollout loop for positions of ``game``'s kind, chosen once per search."""
    if knowledge and game.name == "gomoku":
        return lambda g, rng: _gomoku_knowledge(g, rng, None)  # type: ignore[arg-type]
    if knowledge and game.name == "dots_and_boxes":
        return lambda g, rng: _boxes_knowledge(g, rng, None)  # type: ignore[arg-type]
    return _uniform


def recording_rollout_function(game: Game, knowledge: bool = False) -> RecordingRolloutFn:
    """The move-recording rollout loop for positions of ``game``'s kind."""
    if knowledge and game.name == "gomoku":
        return _recording(_gomoku_knowledge)
    if knowledge and game.name == "dots_and_boxes":
        return _recording(_boxes_knowledge)
    if isinstance(game, Connect4) and game._rules.n_in_row == 4:
        return _connect4_recorded
    if isinstance(game, Gomoku):
        return _gomoku_recorded
    if isinstance(game, DotsAndBoxes):
        return _boxes_recorded
    return _recording(_generic)


def candidate_moves(game: Game, knowledge: bool = False) -> list[int]:
    """The moves the tree may expand at ``game``: all legal ones, except Gomoku with
    knowledge, where only empty points next to a stone (all of them on an empty board)."""
    if knowledge and game.name == "gomoku" and game.score is None:
        rules = game._rules  # type: ignore[attr-defined]
        occupied = game._first | game._second  # type: ignore[attr-defined]
        near = _dilate(occupied, rules.lines.stride) & ~occupied
        bits = rules.action_bits
        moves = [a for a, bit in enumerate(bits) if near & bit]
        if moves:
            return moves
    return game.available_moves


def _uniform(game: Game, rng: random.Random) -> int:
    return game.playout(rng)[0]  # type: ignore[return-value]


def _recording(loop):
    def recorded(game: Game, rng: random.Random) -> tuple[int, Moves]:
        moves: Moves = []
        return loop(game, rng, moves), moves

    return recorded


def _generic(game: Game, rng: random.Random, moves: Moves | None) -> int:
    game = game.copy()
    while game.score is None:
        legal = game.available_moves
        action = legal[int(rng.random() * len(legal))]
        if moves is not None:
            moves.append((game.player, action))
        game._apply(action)
    return game.score


# ----------------------------------------------------------- uniform, recording the moves
def _connect4_recorded(game: Connect4, rng: random.Random) -> tuple[int, Moves]:
    """``Connect4.playout`` (four in a row) that also records the moves."""
    moves: Moves = []
    if game.score is not None:
        return game.score, moves
    rules = game._rules
    bottom, column = rules.bottom_or_phantom, rules.column_or_phantom
    table, full = rules.byte_to_column, rules.lines.full
    s2 = rules.lines.stride
    s3, s4 = s2 - 1, s2 + 1
    d2, d3, d4 = 2 * s2, 2 * s3, 2 * s4
    mask = game._mask
    quiet = max(0, 6 - mask.bit_count())  # nobody can have four before the 7th stone
    player = game.player
    mover = game._first if player == 1 else mask ^ game._first
    append = moves.append
    while True:
        for c in rng.randbytes(64).translate(table):
            bit = (mask + bottom[c]) & column[c]
            if not bit:
                if mask == full:
                    return 0, moves
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
                return player, moves
            mover ^= mask
            player = -player


def _gomoku_recorded(game: Gomoku, rng: random.Random) -> tuple[int, Moves]:
    """``Gomoku.playout`` (a random order of the empty points) that records the moves."""
    moves: Moves = []
    if game.score is not None:
        return game.score, moves
    rules = game._rules
    has_line = rules.has_line
    bits = rules.action_bits
    occupied = game._first | game._second
    empty = [a for a, bit in enumerate(bits) if not occupied & bit]
    rng.shuffle(empty)
    player = game.player
    mine, theirs = (game._first, game._second) if player == 1 else (game._second, game._first)
    append = moves.append
    for action in empty:
        mine |= bits[action]
        append((player, action))
        if has_line(mine):
            return player, moves
        mine, theirs = theirs, mine
        player = -player
    return 0, moves


def _boxes_recorded(game: DotsAndBoxes, rng: random.Random) -> tuple[int, Moves]:
    """``DotsAndBoxes.playout`` (a random order of the free edges) that records the moves."""
    moves: Moves = []
    if game.score is not None:
        return game.score, moves
    boxes_of_edge = game._rules.boxes_of_edge
    edges = game._edges
    player = game.player
    margin = game._boxes_first.bit_count() - game._boxes_second.bit_count()
    order = [a for a in range(game._rules.num_actions) if not edges >> a & 1]
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
    return (margin > 0) - (margin < 0), moves


# ------------------------------------------------------------------------------- Gomoku
def _dilate(stones: int, stride: int) -> int:
    """Every point next to (or on) a stone, spare bits and bits off the board included."""
    row = stones | stones << 1 | stones >> 1
    return row | row << stride | row >> stride


@cache
def _gomoku_tables(size: int, n_in_row: int) -> tuple[tuple[int, ...], ...]:
    """For each point, its neighbours (8-neighbourhood) on the board."""
    neighbours = []
    for a in range(size * size):
        r, c = divmod(a, size)
        neighbours.append(
            tuple(
                (r + dr) * size + c + dc
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size
            )
        )
    return tuple(neighbours)


def _gomoku_knowledge(game: Gomoku, rng: random.Random, moves: Moves | None) -> int:
    """Random moves next to a stone. The candidates are a list with lazy deletion: a point
    joins when a neighbour is played, and leaves when it is drawn and found taken."""
    if game.score is not None:
        return game.score
    rules = game._rules
    bits = rules.action_bits
    has_line, full = rules.has_line, rules.lines.full
    neighbours = _gomoku_tables(rules.size, rules.n_in_row)
    player = game.player
    mine, theirs = (game._first, game._second) if player == 1 else (game._second, game._first)
    occupied = mine | theirs
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
            return player
        if occupied == full:
            return 0
        for b in neighbours[action]:
            if not listed & bits[b]:
                listed |= bits[b]
                if not occupied & bits[b]:
                    candidates.append(b)
        mine, theirs = theirs, mine
        player = -player


# ----------------------------------------------------------------------- Dots and Boxes
@cache
def _boxes_tables(rows: int, cols: int):
    """For each edge, the indices of the boxes it borders; for each box, its four edges."""
    n_horizontal = (rows + 1) * cols
    num_actions = n_horizontal + rows * (cols + 1)
    box_edges = []
    for r in range(rows):
        for c in range(cols):
            box_edges.append(
                (
                    r * cols + c,
                    (r + 1) * cols + c,
                    n_horizontal + r * (cols + 1) + c,
                    n_horizontal + r * (cols + 1) + c + 1,
                )
            )
    edge_boxes: list[list[int]] = [[] for _ in range(num_actions)]
    for b, sides in enumerate(box_edges):
        for e in sides:
            edge_boxes[e].append(b)
    return tuple(tuple(b) for b in edge_boxes), tuple(box_edges)


def _boxes_knowledge(game: DotsAndBoxes, rng: random.Random, moves: Moves | None) -> int:
    """Take a box if one can be taken, else a safe edge (no box gets a third side) if one
    exists, else any edge.

    Kept incrementally: ``sides[b]`` counts the drawn sides of box ``b``; ``takeable`` holds
    boxes that had three sides when last touched; ``safe`` and ``free`` are edge lists with
    lazy deletion (an edge, once unsafe or drawn, stays so).
    """
    if game.score is not None:
        return game.score
    rules = game._rules
    edge_boxes, box_edges = _boxes_tables(rules.rows, rules.cols)
    edges = game._edges
    player = game.player
    margin = game._boxes_first.bit_count() - game._boxes_second.bit_count()
    sides = [sum(edges >> e & 1 for e in box) for box in box_edges]
    free = [a for a in range(rules.num_actions) if not edges >> a & 1]
    remaining = len(free)
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
    return (margin > 0) - (margin < 0)
