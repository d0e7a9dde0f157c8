"""Time budgets for a model's search: a move's seconds, or a game's shared out move by move.

``play.py --move-time 2`` (a spec: ``model:PATH:2s``) has every move search for 2 seconds;
``--game-time 60`` (``model:PATH:60s/game``) gives a whole game 60 seconds, which
``move_seconds``, the time manager, shares out, the opening getting more. A move searches in
chunks of simulations until its seconds are spent (``search.search_until``): what a number of
simulations finds is what it finds with that count fixed, only the number depends on time.

The seconds are counted by a clock: ``wall`` (``time.perf_counter``: what a person waits) or
``cpu`` (``time.process_time``: this process's CPU in all its threads, steadier on a busy
machine, so for measurements). Tests give a clock of their own.

A game's budget is shared out from the position alone (its plies played, ``Game.plies``),
not from a clock running through the game: the same position gets the same seconds in a
game, after ``undo``, and in a benchmark's set of positions.

This module imports nothing heavy: the player-spec grammar reads ``TimeBudget`` from here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..games.base import Game

Clock = Callable[[], float]
CLOCKS: dict[str, Clock] = {"wall": time.perf_counter, "cpu": time.process_time}
"""The clocks a time budget can be counted by, by the name ``--clock`` takes."""
OPENING_WEIGHT = 3.0
"""How many times a middle-game move's seconds the first move of a game gets
(``move_seconds``). Not tuned: ``experiments/time_budget_match.py`` measures a plan against
equal seconds a move, at equal seconds spent (a game ending before a player's last move never
spends the shares of the moves not made, which leaves less of the plan unspent than of an even
share)."""
OPENING_MOVES = 8
"""A player's own moves over which the extra seconds of the opening fall to none."""
MIN_SECONDS = 0.001
"""The shortest budget, of a move or of a game: a millisecond (a move searches a chunk of
simulations all the same)."""
MAX_SECONDS = 86_400.0
"""The longest budget, of a move or of a game: a day."""


def move_seconds(
    game_seconds: float,
    move: int,
    moves: int,
    opening_weight: float = OPENING_WEIGHT,
    opening_moves: int = OPENING_MOVES,
) -> float:
    """The seconds a player's own move number ``move`` (0: its first) gets of a game's
    ``game_seconds``, in a game where it makes at most ``moves`` moves.

    Each move has a weight, ``opening_weight`` at the first move, falling in a straight line
    to 1 at move ``opening_moves`` and 1 from there on::

        weight(m)  = 1 + (opening_weight - 1) * max(0, 1 - m / opening_moves)
        seconds(m) = game_seconds * weight(m) / (weight(0) + ... + weight(moves - 1))

    That is the share ``weight(m) / (weight(m) + ... + weight(moves - 1))`` of the seconds the
    moves before ``m`` left, so a game that lasts all its ``moves`` spends ``game_seconds`` to
    the last, and a shorter game less. The weight 1 is the floor: no move gets less than
    ``game_seconds / (weight(0) + ... + weight(moves - 1))``. With ``opening_weight`` 1 every
    move gets ``game_seconds / moves``.
    """
    moves = max(moves, move + 1)  # a move past the plan gets a move's share, not nothing

    def weight(m: int) -> float:
        return 1.0 + (opening_weight - 1.0) * max(0.0, 1.0 - m / opening_moves)

    return game_seconds * weight(move) / sum(weight(k) for k in range(moves))


BUDGET_RANGE = f"from {MIN_SECONDS:g} to {MAX_SECONDS:.0f} seconds (a day)"


@dataclass(frozen=True)
class TimeBudget:
    """Seconds a move (``per_game`` False), or a game shared out by ``move_seconds``."""

    seconds: float
    per_game: bool = False
    opening_weight: float = OPENING_WEIGHT
    opening_moves: int = OPENING_MOVES

    def __post_init__(self) -> None:
        if not MIN_SECONDS <= self.seconds <= MAX_SECONDS:  # NaN too
            raise ValueError(f"a time budget is {BUDGET_RANGE}, got {self.seconds:g}")
        if not 1 <= self.opening_weight <= 100 or self.opening_moves < 1:
            raise ValueError(
                "the opening's weight must be from 1 to 100 and its moves at least 1, got "
                f"{self.opening_weight:g} and {self.opening_moves}"
            )

    def __str__(self) -> str:
        """As a spec writes it: ``2s`` a move, ``60s/game``."""
        return f"{self.seconds:.6g}s" + ("/game" if self.per_game else "")

    def move_seconds(self, game: Game) -> float:
        """The seconds a move in ``game``'s position gets: a game's share out by its plies
        played, a player's own move being every other ply (``ValueError`` for a game whose
        turns do not alternate, ``Game.turns_alternate``: there a player's moves so far cannot
        be read from the position)."""
        if not self.per_game:
            return self.seconds
        if not game.turns_alternate:
            raise ValueError(game_time_refused(game))
        played, most = game.plies
        return move_seconds(
            self.seconds, played // 2, math.ceil(most / 2), self.opening_weight, self.opening_moves
        )


def game_time_refused(game: Game) -> str:
    """Why a game's time budget cannot be shared out in ``game``."""
    return (
        f"a time budget a game needs players who take turns; in {game.name} a move can give "
        "the mover another, so give a time a move instead (--move-time, model:PATH:2s)"
    )


@dataclass
class SearchLog:
    """What a player's searches cost, by the plies played in the position searched:
    ``by_ply[ply] = [moves, simulations, seconds]`` summed."""

    by_ply: dict[int, list[float]] = field(default_factory=dict)

    def add(self, ply: int, simulations: int, seconds: float) -> None:
        entry = self.by_ply.setdefault(ply, [0, 0, 0.0])
        entry[0] += 1
        entry[1] += simulations
        entry[2] += seconds

    @property
    def moves(self) -> int:
        return int(sum(entry[0] for entry in self.by_ply.values()))

    @property
    def simulations(self) -> int:
        return int(sum(entry[1] for entry in self.by_ply.values()))

    @property
    def seconds(self) -> float:
        return sum(entry[2] for entry in self.by_ply.values())

    def summary(self) -> dict[str, Any]:
        """For a match's JSON: the totals, the means a move, and the means a move by ply."""
        moves = max(self.moves, 1)
        return {
            "moves": self.moves,
            "simulations_per_move": self.simulations / moves,
            "seconds_per_move": self.seconds / moves,
            "by_ply": {
                str(ply): {"moves": int(n), "simulations": sims / n, "seconds": secs / n}
                for ply, (n, sims, secs) in sorted(self.by_ply.items())
            },
        }

    def line(self) -> str:
        """One line for a person: ``812 simulations, 0.21 s a move (40 moves)``."""
        moves = max(self.moves, 1)
        return (
            f"{self.simulations / moves:,.0f} simulations, {self.seconds / moves:.2f} s a move "
            f"({self.moves} moves)"
        )
