"""Exact forced wins in Gomoku (n in a row) on small boards: the search behind
``gomoku_solve.py`` and ``gomoku_defence.py``.

``shortest_forced_win(game, max_moves)`` answers: can the player to move get ``n_in_row``
in a line within ``k`` of its own moves, whatever the opponent plays, and for the least such
``k``? It is an AND/OR search, exact for the question it asks, with three sound shortcuts:

* a player with a point that completes a line takes it and wins;
* a player whose opponent has exactly one such point must take it (or lose at once);
* a player whose opponent has two or more such points cannot stop them all.

The attacker's moves are tried threat-making first, and every position keeps what was proven
about it (a number of moves not enough, a number enough), so deepening one move at a time
is cheap. On 6x6 four in a row it proves from the empty board that the first player wins
with its 6th stone at the latest (``experiments/gomoku_solve.py``). A position with no forced
win can only be shown so by searching it out, which grows quickly with ``max_moves``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from alphazero.games.gomoku import Gomoku

_NOT_PROVEN = 1 << 30


class _Board:
    """The lines of one board size and line length, as bitmasks over ``row * size + col``."""

    def __init__(self, size: int, n_in_row: int) -> None:
        self.size = size
        self.n_in_row = n_in_row
        self.full = (1 << (size * size)) - 1
        self.bits = tuple(1 << i for i in range(size * size))
        windows = []
        for row in range(size):
            for col in range(size):
                for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(row + i * d_row, col + i * d_col) for i in range(n_in_row)]
                    if all(0 <= r < size and 0 <= c < size for r, c in cells):
                        windows.append(sum(1 << (r * size + c) for r, c in cells))
        self.windows = tuple(windows)
        self.windows_through = tuple(
            tuple(w for w in windows if w >> i & 1) for i in range(size * size)
        )

    def winning_points(self, mine: int, theirs: int) -> int:
        """Empty points where ``mine`` would complete a line, as a bitmask."""
        points = 0
        for window in self.windows:
            if window & theirs:
                continue
            missing = window & ~mine
            if missing and not missing & (missing - 1):  # exactly one point left
                points |= missing
        return points


@cache
def _board(size: int, n_in_row: int) -> _Board:
    return _Board(size, n_in_row)


class ForcedWinSearch:
    """The search for one board size and line length; it remembers what it proved about each
    position it searched, a win within some number of moves or the lack of one."""

    def __init__(self, size: int, n_in_row: int) -> None:
        self.board = _board(size, n_in_row)
        self.known: dict[tuple[int, int], tuple[int, int]] = {}
        """(attacker's stones, defender's stones), attacker to move -> (most moves proven
        not enough, fewest proven enough)."""
        self.nodes = 0

    def wins_within(self, game: Gomoku, moves: int) -> bool:
        """Does the player to move in ``game`` force a line within ``moves`` of its moves?"""
        if game.score is not None:
            raise ValueError("the game is over")
        if (self.board.size, self.board.n_in_row) != (game.params["size"], game.params["n_in_row"]):
            raise ValueError("the search is for another board size or line length")
        return self.attacker_wins(*_stones(game), moves)

    def attacker_wins(self, attacker: int, defender: int, moves: int) -> bool:
        """Attacker to move: does it force a line within ``moves`` (>= 1) of its own moves?"""
        if moves < 1:
            return False
        board = self.board
        self.nodes += 1
        empty = board.full & ~(attacker | defender)
        if board.winning_points(attacker, defender):
            return True
        if moves <= 1 or not empty:
            return False
        key = (attacker, defender)
        not_enough, enough = self.known.get(key, (0, _NOT_PROVEN))
        if moves <= not_enough:
            return False
        if moves >= enough:
            return True
        won = self._some_move_wins(attacker, defender, moves, empty)
        not_enough, enough = self.known.get(key, (0, _NOT_PROVEN))
        self.known[key] = (
            (not_enough, min(enough, moves)) if won else (max(not_enough, moves), enough)
        )
        return won

    def _some_move_wins(self, attacker: int, defender: int, moves: int, empty: int) -> bool:
        board = self.board
        blocks = board.winning_points(defender, attacker)
        if blocks & (blocks - 1):  # the defender has two winning points: one can't block both
            return False
        candidates = (
            [blocks.bit_length() - 1]
            if blocks
            else [i for i in range(len(board.bits)) if empty >> i & 1]
        )
        ordered = []
        for point in candidates:
            after = attacker | board.bits[point]
            threats = board.winning_points(after, defender)
            open_lines = sum(1 for w in board.windows_through[point] if not w & defender)
            double = threats & (threats - 1)
            ordered.append(
                (-(2 if double else 1 if threats else 0), -open_lines, point, after, threats)
            )
        ordered.sort()
        for *_, point, after, threats in ordered:
            if self._defender_loses(
                after, defender, moves - 1, threats, empty & ~board.bits[point]
            ):
                return True
        return False

    def _defender_loses(
        self, attacker: int, defender: int, moves: int, threats: int, empty: int
    ) -> bool:
        """Defender to move: does every defence lose within ``moves`` (>= 1) more attacker
        moves? ``threats`` are the attacker's winning points and ``empty`` the empty points.
        The defender has no winning point of its own here: the attacker, on the move before,
        had to block any it had, and a stone of the attacker's cannot make one."""
        board = self.board
        if threats & (threats - 1):
            return True
        if not empty:
            return False
        if threats:  # the one block is forced
            return self.attacker_wins(attacker, defender | threats, moves)
        if moves <= 1:
            return False
        for point in range(len(board.bits)):
            if empty >> point & 1 and not self.attacker_wins(
                attacker, defender | board.bits[point], moves
            ):
                return False
        return True


def _stones(game: Gomoku) -> tuple[int, int]:
    """(player to move's stones, opponent's) as bitmasks over actions."""
    state = game.state.reshape(-1)
    mine = sum(1 << i for i, v in enumerate(state) if v == game.player)
    theirs = sum(1 << i for i, v in enumerate(state) if v == -game.player)
    return mine, theirs


def shortest_forced_win(
    game: Gomoku,
    max_moves: int,
    search: ForcedWinSearch | None = None,
    report: Callable[[int, bool], None] | None = None,
) -> int | None:
    """The fewest moves of its own in which the player to move forces a line in ``game``
    (1: it completes one now), or ``None`` if it cannot within ``max_moves``.

    Pass one ``search`` to several calls on the same board to share their proofs;
    ``report(moves, won)`` is called after each number of moves is decided.
    """
    if search is None:
        search = ForcedWinSearch(game.params["size"], game.params["n_in_row"])
    for moves in range(1, max_moves + 1):
        won = search.wins_within(game, moves)
        if report is not None:
            report(moves, won)
        if won:
            return moves
    return None
