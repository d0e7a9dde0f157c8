"""The one game interface that search, self-play, the baselines and the play package use:
the rules, and how a position is encoded for the network. How a person sees a game and types
its moves is its ``GameView`` (``view.py``), kept apart.

Point of view (the one rule the whole project follows):

* ``player`` is whose move it is: ``+1`` for the side that moves first, ``-1`` for the other.
  It is a property of the position, never derived from move parity: in Dots and Boxes a player
  who completes a box moves again.
* ``score`` is absolute: ``None`` while the game goes on, then ``+1`` if the first player won,
  ``-1`` if the second did and ``0`` for a draw.
* Every other value in the project (the network's value head, search statistics, training
  targets) is from the point of view of the player to move in the position it describes.
  ``Game.value_for_mover`` and ``value_to_parent`` are the two places that convert, so a sign
  flip happens exactly where the player to move changes.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Self

import numpy as np


class GameError(Exception):
    """Base class of every error raised by a game."""


class IllegalMoveError(GameError, ValueError):
    """A move that the rules do not allow in this position."""


class GameOverError(IllegalMoveError):
    """A move attempted after the game has ended."""


class MoveParseError(GameError, ValueError):
    """Text that does not name a move in the game's notation."""


Moves = list[tuple[int, int]]
"""``(player, action)`` in the order played: what a recording ``playout`` appends."""


class Game(ABC):
    """A position of a two-player, zero-sum, perfect-information game.

    Subclasses implement the rules; the checks shared by every game (is the game over, is the
    move legal) live here, once. A position is immutable through the public API:
    ``sim_move`` and ``sim_legal_move`` return a new position. ``_apply``, which subclasses
    implement, mutates in place and exists for the hot loops (random playouts) that own a
    private copy.
    """

    __slots__ = ("last_move", "player", "score")

    name: ClassVar[str]
    """Registry name, also used in configs and on the command line."""
    turns_alternate: ClassVar[bool] = True
    """Whether the players always take turns, so that a player's own moves are every other
    ply; false where a move can give the mover another (Dots and Boxes)."""
    rollout_knowledge: ClassVar[bool] = False
    """Whether ``playout`` and ``candidate_moves`` have some knowledge of the game to use
    when asked (the UCT baselines' ``:knowledge``), rather than playing uniformly."""

    player: int
    score: int | None
    last_move: int | None

    # ----------------------------------------------------------------- rules (subclasses)
    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size of the action space; actions are numbered as in OpenSpiel."""

    @property
    @abstractmethod
    def params(self) -> dict[str, int]:
        """The parameters that ``make(name, **params)`` takes to build this game."""

    @property
    @abstractmethod
    def available_moves(self) -> list[int]:
        """Legal actions in increasing order; empty once the game is over."""

    @property
    @abstractmethod
    def state(self) -> np.ndarray:
        """The board as an int8 array, stones marked with the absolute player (+1 / -1)."""

    @abstractmethod
    def copy(self) -> Self:
        """A shallow, independent copy of the position."""

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Play a legal ``action`` in place, updating ``player``, ``score`` and ``last_move``."""

    @abstractmethod
    def is_legal(self, action: int) -> bool:
        """Whether ``action`` may be played now (False once the game is over)."""

    @abstractmethod
    def encode(self) -> np.ndarray:
        """Network input: float32 planes ``[H, W, C]`` from the point of view of the mover."""

    @abstractmethod
    def key(self) -> tuple[int, ...]:
        """A hashable summary that identifies the position (rules excluded)."""

    def symmetries(
        self, planes: np.ndarray, policy: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Equivalent ``(planes [H, W, C], policy [num_actions])`` pairs, identity first."""
        return [(planes, policy)]

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is illegal, for error messages. Subclasses say more."""
        return f"{self.name}: move {action} is not legal here"

    # ------------------------------------------------------ for the baselines (defaults)
    @property
    def solvable(self) -> bool:
        """Whether memoised minimax (``baselines.perfect``) solves the game in moments, so
        that there is a ``perfect`` player for it."""
        return False

    @property
    def has_solved_positions(self) -> bool:
        """Whether ``alphazero.evaluation.solved_positions`` holds solved positions of this
        game, for training to measure its network on (``evaluation.solved_positions``)."""
        return False

    def candidate_moves(self, knowledge: bool = False) -> list[int]:
        """The moves a tree search expands here: the legal ones, or with ``knowledge`` those
        the game's rollout knowledge keeps (Gomoku: the points next to a stone)."""
        return self.available_moves

    # ------------------------------------------------------------------ shared behaviour
    @property
    def plane_shape(self) -> tuple[int, int, int]:
        """Shape ``[H, W, C]`` of ``encode()``."""
        return tuple(self.encode().shape)  # type: ignore[return-value]

    @property
    def plies(self) -> tuple[int, int]:
        """``(moves played to reach this position, the most a game can last)``. Here the
        stones and the cells of the board; a game whose moves are not stones says its own."""
        state = self.state
        return int(np.count_nonzero(state)), int(state.size)

    @property
    def is_over(self) -> bool:
        return self.score is not None

    def get_mask(self) -> np.ndarray:
        """Legal moves as a boolean vector ``[num_actions]``."""
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[self.available_moves] = True
        return mask

    # The search evaluates a batch of positions per step, and these ask the game for the whole
    # batch at once: games whose positions are bitboards answer with a few array operations
    # where one position at a time costs several NumPy calls each.
    @classmethod
    def encode_batch(cls, games: Sequence[Self]) -> np.ndarray:
        """``encode()`` of every position of ``games`` (all of one board), stacked:
        ``[B, H, W, C]`` float32, each from the point of view of its own mover."""
        return np.stack([game.encode() for game in games])

    @classmethod
    def mask_batch(cls, games: Sequence[Self]) -> np.ndarray:
        """``get_mask()`` of every position of ``games``, stacked: ``[B, num_actions]``."""
        mask = np.zeros((len(games), games[0].num_actions), dtype=bool)
        for row, game in zip(mask, games, strict=True):
            row[game.available_moves] = True
        return mask

    def ending_moves(self) -> list[int]:
        """The legal moves that end the game at once (a win, a loss or the last move of a
        draw), in increasing order: the search proves them as it expands the position.

        This plays every move to see; games override it with a test that plays none.
        """
        ending = []
        for action in self.available_moves:
            after = self.copy()
            after._apply(action)
            if after.score is not None:
                ending.append(action)
        return ending

    def sim_move(self, action: int) -> Self:
        """The position after ``action``; ``self`` is left untouched.

        Raises ``GameOverError`` after the end and ``IllegalMoveError`` for a move the rules
        forbid, each with a message that says what was wrong.
        """
        if self.score is not None:
            raise GameOverError(f"{self.name}: the game is over, no move can be played")
        if (
            not isinstance(action, (int, np.integer))
            or isinstance(action, bool)  # True is an int to Python, not a move
            or not 0 <= action < self.num_actions
        ):
            raise IllegalMoveError(
                f"{self.name}: action {action!r} is outside 0..{self.num_actions - 1}"
            )
        if not self.is_legal(int(action)):
            raise IllegalMoveError(self.illegal_reason(int(action)))
        return self.sim_legal_move(int(action))

    def sim_legal_move(self, action: int) -> Self:
        """The position after ``action``, which the caller knows to be legal; ``self`` is left
        untouched. ``sim_move`` without its checks, for the searches, which expand only legal
        moves and make a position for every one."""
        child = self.copy()
        child._apply(action)
        return child

    def value_for_mover(self) -> float:
        """The final score from the point of view of ``player`` (the side to move)."""
        if self.score is None:
            raise ValueError("value_for_mover() needs a finished game")
        return float(self.score * self.player)

    def random_playout(self, rng: random.Random) -> int:
        """Play uniformly random moves to the end; return the absolute score."""
        return self.playout(rng)[0]

    def playout(
        self, rng: random.Random, moves: Moves | None = None, knowledge: bool = False
    ) -> tuple[int, int]:
        """Play to the end from here, ``self`` untouched: ``(absolute score, moves played)``.

        Uniformly random moves; with ``knowledge``, the game's rollout policy where it has one
        (``rollout_knowledge``). With ``moves``, each move played is appended to it as
        ``(player, action)`` (UCT-RAVE's all-moves-as-first statistics). Games override this
        with faster loops whose results are distributed the same way.
        """
        game = self.copy()
        played = 0
        while game.score is None:
            legal = game.available_moves
            action = legal[int(rng.random() * len(legal))]
            if moves is not None:
                moves.append((game.player, action))
            game._apply(action)
            played += 1
        return game.score, played

    @classmethod
    def from_moves(cls, moves: Iterable[int], **params: Any) -> Self:
        """The position reached by playing the actions ``moves`` from the start (a game's
        ``GameView`` reads them in its notation)."""
        game = cls(**params)
        for action in moves:
            game = game.sim_move(action)
        return game

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and self.params == other.params  # type: ignore[attr-defined]
            and self.key() == other.key()  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((type(self), self.key()))

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.params.items())
        head = f"{type(self).__name__}({params}) player={self.player:+d} score={self.score}"
        return f"{head}\n{self.state}"


def check_param(game: str, key: str, value: object, low: int, high: int) -> int:
    """``value`` if it is an integer in ``low..high``; else a ``ValueError`` naming ``key``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{game}: {key} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{game}: {key} must be in {low}..{high}, got {value}")
    return value


def value_to_parent(value: float, child: Game, parent: Game) -> float:
    """Convert a value from ``child``'s mover's point of view to ``parent``'s mover's.

    The sign flips only where the player to move changes, so a Dots and Boxes extra turn keeps it.
    """
    return value if child.player == parent.player else -value


def bit_rows(boards: Sequence[int], count: int) -> np.ndarray:
    """Bits ``0..count - 1`` of each of the ints ``boards`` (bitboards): ``[B, count]`` uint8
    0 / 1, bit ``i`` of board ``b`` at ``[b, i]``; one NumPy call for the whole batch."""
    nbytes = (count + 7) // 8
    raw = np.frombuffer(b"".join(b.to_bytes(nbytes, "little") for b in boards), np.uint8)
    bits = np.unpackbits(raw.reshape(len(boards), nbytes), axis=1, bitorder="little")
    return bits[:, :count]


# ------------------------------------------------------------------- symmetry helpers
SymmetryOp = Callable[[np.ndarray], np.ndarray]


def _dihedral(quarter_turns: int, mirror: bool) -> SymmetryOp:
    def op(a: np.ndarray) -> np.ndarray:
        return np.rot90(np.flip(a, axis=1) if mirror else a, quarter_turns, axes=(0, 1))

    return op


DIHEDRAL_OPS: tuple[SymmetryOp, ...] = tuple(
    _dihedral(k, mirror) for mirror in (False, True) for k in range(4)
)
"""The 8 symmetries of a square board, identity first; each maps ``[H, W, ...]`` arrays."""

RECTANGLE_OPS: tuple[SymmetryOp, ...] = (
    _dihedral(0, False),
    _dihedral(2, False),
    _dihedral(0, True),
    _dihedral(2, True),
)
"""The 4 symmetries of a non-square rectangle: identity, half turn and the two mirrors."""


def grid_policy_permutations(
    action_grid: np.ndarray, ops: Sequence[SymmetryOp]
) -> list[np.ndarray]:
    """For each op, the index array ``perm`` with ``new_policy = policy[perm]``.

    ``action_grid`` is ``[H, W]`` holding the action drawn at each cell of the planes, -1 where
    no action lives (Dots and Boxes dots and boxes). Every op must map the set of action cells
    onto itself.
    """
    valid = action_grid >= 0
    order = np.argsort(action_grid[valid])
    perms = []
    for op in ops:
        moved = op(action_grid)
        if not np.array_equal(moved >= 0, valid):
            raise ValueError("symmetry does not preserve the action cells")
        # Cell (i, j) of the transformed planes shows what was at the cell holding moved[i, j]:
        # its new action action_grid[i, j] takes the probability of the old action moved[i, j].
        perms.append(moved[valid][order])
    return perms


def apply_symmetries(
    planes: np.ndarray,
    policy: np.ndarray,
    ops: Sequence[SymmetryOp],
    perms: Sequence[np.ndarray],
) -> list[tuple[np.ndarray, np.ndarray]]:
    return [
        (np.ascontiguousarray(op(planes)), policy[perm])
        for op, perm in zip(ops, perms, strict=True)
    ]
