"""Pascal Pons' six Connect Four benchmark sets, and the mistake rule AlphaZero.jl scores them by.

Each set (``Test_L<stage>_R<difficulty>``, 1,000 positions) is a text file of lines
``moves score``: the moves from the empty board as 1-based columns, and the exact score of
the position for the side to move (0 a draw; positive a win, higher the sooner; negative a
loss). The score alone cannot tell whether a move is a mistake, so each set has beside it a
file of per-move results, ``Test_L<stage>_R<difficulty>.classes``, written by
``experiments/connect4_pons_solve.py``: lines ``moves<TAB>c1...c7``, the result of each column
for the mover (``W`` win, ``D`` draw, ``L`` loss, ``.`` a full column; ``N`` a draw or a loss
in a won position: only whether a move keeps the win matters there, and telling the two
apart can cost far more in the opening).

A move is a mistake when its result is worse than the best move's (a win let go to a draw or
a loss, a draw let go to a loss), as in AlphaZero.jl's ``games/connect-four/scripts/
pons_benchmark.jl``; in a lost position no move is one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..games import Connect4, make

SETS: tuple[tuple[str, str], ...] = (
    ("Test_L1_R1", "beginning easy"),
    ("Test_L1_R2", "beginning medium"),
    ("Test_L1_R3", "beginning hard"),
    ("Test_L2_R1", "middle easy"),
    ("Test_L2_R2", "middle medium"),
    ("Test_L3_R1", "end easy"),
)
"""Every set's file name and what it holds (Pons' names: L the stage, R the difficulty)."""

CLASS_RANK = {"L": -1, "D": 0, "N": 0, "W": 1}
"""How good each result is for the mover. ``N`` (not a win: a draw or a loss) is written only
where the position is won, so it ranks below the best move's ``W`` whatever it hides."""
CLASSES_SUFFIX = ".classes"


class PonsPositionsError(ValueError):
    """A set or a per-move results file that cannot be read, or that do not agree."""


@dataclass(frozen=True)
class PonsPosition:
    moves: tuple[int, ...]
    """Actions (0-based columns) from the empty board."""
    score: int
    """Pons' exact score for the side to move."""
    classes: str
    """Each column's result for the mover: ``W``, ``D``, ``L``, ``N`` (not a win), or ``.``
    where it is full."""

    @property
    def game(self) -> Connect4:
        game = make("connect4")
        for action in self.moves:
            game = game.sim_move(action)
        return game  # type: ignore[return-value]

    @property
    def best(self) -> int:
        """The best move's result: 1 a win, 0 a draw, -1 a loss."""
        return max(CLASS_RANK[c] for c in self.classes if c != ".")

    def is_mistake(self, action: int) -> bool:
        """Whether ``action`` gets a worse result than the best move (a full column is one)."""
        result = self.classes[action]
        return result == "." or CLASS_RANK[result] < self.best


def read_set(path: Path) -> list[tuple[str, int]]:
    """``[(moves, score), ...]`` of a set file, moves as its 1-based columns (``"4453"``)."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise PonsPositionsError(f"{path}: {error.strerror or error}") from None
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if len(parts) != 2 or not re.fullmatch(r"[1-7]+", parts[0]):
            raise PonsPositionsError(f"{path}, line {number}: expected 'moves score', got {line!r}")
        try:
            entries.append((parts[0], int(parts[1])))
        except ValueError:
            raise PonsPositionsError(
                f"{path}, line {number}: the score is not a whole number"
            ) from None
    return entries


def read_classes(path: Path) -> dict[str, str]:
    """``{moves: classes}`` of a per-move results file; an absent file has none yet."""
    if not Path(path).exists():
        return {}
    classes = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not re.fullmatch(r"[1-7]+\t[WDLN.]{7}", line) or set(line[-7:]) == {"."}:
            raise PonsPositionsError(f"{path}, line {number}: expected moves<TAB>c1...c7 of WDLN.")
        moves, results = line.split("\t")
        classes[moves] = results
    return classes


def load_set(folder: Path, name: str) -> tuple[list[PonsPosition], int]:
    """The positions of set ``name`` in ``folder`` that have been solved, in the set's order,
    and how many the set holds. ``PonsPositionsError`` if a position's best result is not
    the sign of Pons' score (the two solvers would disagree)."""
    entries = read_set(Path(folder) / name)
    solved = read_classes(Path(folder) / f"{name}{CLASSES_SUFFIX}")
    positions = []
    for moves, score in entries:
        if moves not in solved:
            continue
        position = PonsPosition(tuple(int(c) - 1 for c in moves), score, solved[moves])
        if position.best != (score > 0) - (score < 0):
            raise PonsPositionsError(
                f"{name}: {moves} scores {score} in the set but its best move is "
                f"{solved[moves]!r} in {name}{CLASSES_SUFFIX}"
            )
        positions.append(position)
    return positions, len(entries)


def wilson_interval(count: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of the share ``count / total`` (95% for z = 1.96)."""
    if total == 0:
        return 0.0, 1.0
    share = count / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total))
    return max(0.0, centre - half / (1 + z * z / total)), min(
        1.0, centre + half / (1 + z * z / total)
    )
