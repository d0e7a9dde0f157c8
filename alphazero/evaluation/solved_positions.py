"""Connect Four positions solved by a perfect solver: how often does a player move right?

``data/connect4_positions.tsv`` holds 1,002 positions (6x7, from semi-random games) with the
exact value of every move: ``moves<TAB>score<TAB>s1 ... s7``, moves as 1-based columns from
the empty board, values for the side to move (0 draw, > 0 win, < 0 loss; faster wins score
higher), ``x`` for a full column. Two measures, by stage of the game:

* correct move: over positions not already lost (``score >= 0``), the share where the chosen
  move keeps the result (a win stays a win, a draw a draw). A random player gets 43.6%.
* exact: over all positions, the share where the chosen move has the best value (fastest
  win, slowest loss). A random player gets 31.0%.

The positions are for measuring only; nothing trains on them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..games import Connect4, make
from ..search import Node, SearchParams, process_policies, search

STAGES: tuple[tuple[str, int, int], ...] = (("4-12", 4, 12), ("13-20", 13, 20), ("21-30", 21, 30))


class SolvedPositionsError(ValueError):
    """A positions file that cannot be read, or a line not in its format."""


@dataclass(frozen=True)
class SolvedPosition:
    moves: tuple[int, ...]
    """Actions (0-based columns) from the empty board."""
    score: int
    """Value for the side to move: exact in the committed file, its sign only in a file of
    ``experiments/connect4_fresh_positions.py``."""
    move_scores: tuple[int | None, ...]
    """Value after each column, None where the column is full (exact or sign, as ``score``)."""

    @property
    def game(self) -> Connect4:
        game = make("connect4")
        for action in self.moves:
            game = game.sim_move(action)
        return game  # type: ignore[return-value]

    @property
    def stage(self) -> str:
        played = len(self.moves)
        return next(name for name, low, high in STAGES if low <= played <= high)

    def is_correct(self, action: int) -> bool:
        """Whether ``action`` keeps a won position won and a drawn one drawn."""
        value = self.move_scores[action]
        return value is not None and np.sign(value) == np.sign(self.score)

    def is_exact(self, action: int) -> bool:
        return self.move_scores[action] == self.score


def load_positions(path: Path | None = None) -> list[SolvedPosition]:
    """The committed positions, or those of another file in the same format (``path``);
    ``SolvedPositionsError`` names the first line that is not."""
    if path is None:
        text = resources.files("alphazero").joinpath("data/connect4_positions.tsv").read_text()
    else:
        try:
            text = Path(path).read_text()
        except OSError as error:
            raise SolvedPositionsError(f"{path}: {error.strerror or error}") from None
    name = path or "connect4_positions.tsv"
    positions = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            moves, score, scores = line.split("\t")
            if not moves or not set(moves) <= set("1234567"):  # 1-based columns
                raise ValueError(moves)
            move_scores = tuple(None if s == "x" else int(s) for s in scores.split())
            position = SolvedPosition(
                moves=tuple(int(c) - 1 for c in moves), score=int(score), move_scores=move_scores
            )
            position.stage  # noqa: B018 (a length outside the stages is an error here)
        except (ValueError, StopIteration):
            raise SolvedPositionsError(
                f"{name}, line {number}: expected moves<TAB>score<TAB>s1 ... s7 with 4-30 "
                f"moves, got {line[:60]!r}"
            ) from None
        playable = [s for s in move_scores if s is not None]
        if len(move_scores) != 7 or not playable or position.score != max(playable):
            raise SolvedPositionsError(
                f"{name}, line {number}: the score must be the best of 7 move scores"
            )
        positions.append(position)
    return positions


def _stage_groups(positions: Sequence[SolvedPosition]) -> list[tuple[str, list[int]]]:
    """``[("all", indices), (stage, indices), ...]``."""
    return [("all", list(range(len(positions))))] + [
        (stage, [i for i, p in enumerate(positions) if p.stage == stage]) for stage, _, _ in STAGES
    ]


def measure(
    positions: Sequence[SolvedPosition], actions: Sequence[int]
) -> dict[str, dict[str, float]]:
    """``{stage or "all": {"correct": share, "exact": share, "positions": n}}``."""
    report: dict[str, dict[str, float]] = {}
    for name, members in _stage_groups(positions):
        scorable = [i for i in members if positions[i].score >= 0]
        report[name] = {
            "correct": float(np.mean([positions[i].is_correct(actions[i]) for i in scorable])),
            "exact": float(np.mean([positions[i].is_exact(actions[i]) for i in members])),
            "positions": len(members),
        }
    return report


RESULTS: tuple[tuple[str, int, int], ...] = (
    ("draw", 0, 0),
    ("win at the end", 1, 3),
    ("earlier win", 4, 18),
)
"""Positions not already lost, by exact score: drawn; won only with one of the mover's last
three stones (a win that rests on who must fill which square at the end); won sooner (18 is
the highest score, a win with the mover's fourth stone)."""


def measure_by_result(
    positions: Sequence[SolvedPosition], actions: Sequence[int]
) -> dict[str, dict[str, float]]:
    """``{kind: {"correct": share, "positions": n}}`` for each kind of ``RESULTS``."""
    report: dict[str, dict[str, float]] = {}
    for name, low, high in RESULTS:
        members = [i for i, p in enumerate(positions) if low <= p.score <= high]
        report[name] = {
            "correct": float(np.mean([positions[i].is_correct(actions[i]) for i in members])),
            "positions": len(members),
        }
    return report


DRAW_BAND = 1 / 3
"""A value within this distance of 0 reads as a draw, above it as a win, below as a loss."""


def measure_values(
    positions: Sequence[SolvedPosition], values: Sequence[float]
) -> dict[str, dict[str, float]]:
    """How well ``values`` ``[N]`` (each in [-1, 1], for the side to move) judge the results.

    ``{stage or "all": {"result": share, "mse": error, "positions": n}}``: ``result`` is the
    share of values that read as the exact result (win, draw or loss, see ``DRAW_BAND``) and
    ``mse`` the mean squared error against it (+1, 0 or -1). A value head that always says
    "draw" gets ``result`` 0.10 and ``mse`` 0.90 here: most of these positions are decided.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (len(positions),):
        raise ValueError(f"{values.size} values for {len(positions)} positions")
    results = np.sign([p.score for p in positions])
    read = np.where(values > DRAW_BAND, 1, np.where(values < -DRAW_BAND, -1, 0))
    return {
        name: {
            "result": float(np.mean(read[members] == results[members])),
            "mse": float(np.mean((values[members] - results[members]) ** 2)),
            "positions": len(members),
        }
        for name, members in _stage_groups(positions)
    }


Chooser = Callable[[list[Connect4]], list[int]]


def search_chooser(
    policy: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    simulations: int,
    params: SearchParams | None = None,
) -> Chooser:
    """The search's move after ``simulations`` (``params``: by default PUCT's defaults), all
    positions searched at once, without noise, as a model plays."""
    params = params if params is not None else SearchParams()

    def choose(games: list[Connect4]) -> list[int]:
        roots = [Node(game) for game in games]
        found = search(roots, policy, params, simulations, np.random.default_rng(0))
        return [int(action) for action in found.actions]

    return choose


def evaluate_network(
    policy: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    positions: Sequence[SolvedPosition] | None = None,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """The raw network in one batched call: ``(measure of its top moves, measure_values of
    its values)``."""
    positions = load_positions() if positions is None else positions
    probs, values = process_policies(policy, [p.game for p in positions])
    top_moves = [int(a) for a in probs.argmax(axis=1)]
    return measure(positions, top_moves), measure_values(positions, values)
