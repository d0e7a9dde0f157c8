"""A threat-aware Gomoku player: alpha-beta search over the points near the stones, with a
pattern evaluation (``gomoku_patterns``), the yardstick for boards where random rollouts say
nothing.

Threats come before the search, at the root and at every node of it:

* a win in one is played at once;
* a four of the opponent (a cell where it would win) is blocked at once, the only move;
* an open or broken three of the opponent is answered: the moves are then only the cells that
  take away its open four, and the player's own fours (which gain the tempo back).

Otherwise the moves are the empty points within two steps of a stone, best ``width`` first by
``PatternBoard.gain`` (what a stone builds plus what it blocks). The search is negamax with
alpha-beta pruning and iterative deepening (the best move of each depth is tried first at the
next), to ``depth`` plies; at the horizon, forced blocks of a four are still played out, so a
chain of fours is not cut in the middle. The leaf value is the player to move's line scores
less the opponent's, plus a bonus for an open three it can turn into an open four.

Point of view: a value is for the player to move in the position searched. Who moves after a
move, and who won, come from the game (``sim_move``, ``player``, ``score``); a value changes
sign only where the player to move changes.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..games.base import Game
from .gomoku_patterns import OPEN_FOUR, PatternBoard

WIN = 1_000_000_000
"""A won position's value, less one per ply to the win (a quicker win scores more)."""
PROVEN = WIN - 10_000
"""Values beyond this are proven wins (or, negated, losses)."""
EXTENSION = 12
"""Forced blocks played past the horizon, at most."""
DEFAULT_WIDTH = 12
"""Moves searched at an inner node where nothing is forced, best first by ``gain``."""


class AlphaBetaSearch:
    """One move's search from ``game`` (Gomoku, the game not over) to ``depth`` plies."""

    def __init__(
        self, game: Game, depth: int, rng: np.random.Generator, width: int = DEFAULT_WIDTH
    ) -> None:
        if game.score is not None:
            raise ValueError("alpha-beta needs a position where the game goes on")
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        params = game.params
        self.game = game
        self.depth = depth
        self.rng = rng
        self.width = width
        self.board = PatternBoard(params["size"], params["n_in_row"], game.state)
        self.best: dict[tuple[int, ...], int] = {}
        """The best move found at each position searched, tried first at the next depth."""
        self.nodes = 0

    @staticmethod
    def side(player: int) -> int:
        """The board's index of ``player``: 0 for the first (+1), 1 for the second."""
        return 0 if player == 1 else 1

    def moves(self, game: Game, inner: bool) -> tuple[list[int], bool]:
        """(moves to search, whether they are forced). The first move of a forced list that
        wins for the player to move is a win in one."""
        board = self.board
        me = self.side(game.player)
        if wins := board.win_cells(me):
            return sorted(wins)[:1], True
        if threats := board.win_cells(1 - me):
            return sorted(threats), True
        answers = board.defences(me)
        if answers is not None:
            forced = answers | board.four_cells(me)
            if forced:
                return self._ordered(forced, me, None), True
        near = board.near_empty() or game.available_moves
        return self._ordered(near, me, self.width if inner else None), False

    def _ordered(self, cells: Iterable[int], me: int, keep: int | None) -> list[int]:
        cells = list(cells)
        self.rng.shuffle(cells)  # ties in gain broken by the seed, not by cell number
        gain = self.board.gain
        order = sorted(cells, key=lambda cell: -gain(cell, me))
        return order if keep is None else order[:keep]

    def evaluate(self, game: Game, ply: int) -> int:
        """The static value of ``game`` for its player to move, nothing forced left."""
        board = self.board
        me = self.side(game.player)
        other = 1 - me
        value = board.total[me] - board.total[other]
        if board.three_lines[me] and not board.win_lines[other]:
            value += OPEN_FOUR  # it makes an open four next, unless fours get in the way
        return value

    def search(self, game: Game, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Negamax with alpha-beta: the value of ``game`` for its player to move."""
        self.nodes += 1
        board = self.board
        me = self.side(game.player)
        if board.win_lines[me]:
            return WIN - ply - 1
        if depth <= 0:
            threats = board.win_cells(1 - me)
            if len(threats) >= 2:
                return -(WIN - ply - 2)
            if not threats or ply >= self.depth + EXTENSION:
                return self.evaluate(game, ply)
            moves = list(threats)
        else:
            moves, _ = self.moves(game, inner=True)
        key = game.key()
        known = self.best.get(key)
        if known in moves:
            moves.remove(known)
            moves.insert(0, known)
        best_value, best_move = -WIN - 1, moves[0]
        for move in moves:
            value = self.child_value(game, move, depth, alpha, beta, ply)
            if value > best_value:
                best_value, best_move = value, move
                alpha = max(alpha, value)
                if alpha >= beta:
                    break
        self.best[key] = best_move
        return best_value

    def child_value(
        self, game: Game, move: int, depth: int, alpha: int, beta: int, ply: int
    ) -> int:
        """The value for ``game``'s player to move of playing ``move`` there."""
        mover = game.player
        child = game.sim_move(move)
        if child.score is not None:
            if child.score == 0:
                return 0
            return WIN - ply - 1 if child.score == mover else -(WIN - ply - 1)
        who = self.side(mover)
        self.board.place(move, who)
        try:
            if child.player == mover:
                return self.search(child, depth - 1, alpha, beta, ply + 1)
            return -self.search(child, depth - 1, -beta, -alpha, ply + 1)
        finally:
            self.board.remove(move, who)

    def best_move(self) -> int:
        """The move to play: a threat's answer at once, else the deepest search's best."""
        game = self.game
        moves, _ = self.moves(game, inner=False)
        if len(moves) == 1:
            return moves[0]
        best = moves[0]
        for depth in range(1, self.depth + 1):
            if best in moves:
                moves.remove(best)
                moves.insert(0, best)
            alpha, best_value = -WIN - 1, -WIN - 1
            for move in moves:
                value = self.child_value(game, move, depth, alpha, WIN + 1, 0)
                if value > best_value:
                    best_value, best = value, move
                    alpha = value
            if abs(best_value) >= PROVEN:
                break  # a proven win (or every move loses): deeper says no more
        return best


class AlphaBetaPlayer:
    """Plays the move ``AlphaBetaSearch`` chooses to ``depth`` plies (``alphabeta:DEPTH``)."""

    def __init__(self, depth: int, seed: int | None = None, width: int = DEFAULT_WIDTH) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self.depth = depth
        self.width = width
        self.rng = np.random.default_rng(seed)
        self.name = f"alphabeta:{depth}"
        self.last_search: AlphaBetaSearch | None = None

    def __call__(self, game: Game) -> int:
        if game.score is not None:
            raise ValueError("the game is over: there is no move to play")
        search = AlphaBetaSearch(game, self.depth, self.rng, self.width)
        self.last_search = search
        return search.best_move()
