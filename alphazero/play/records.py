"""Game records as ``play.py --save`` writes them: one JSON object per game, in JSON Lines."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..games import view_for
from ..games.base import Game
from ..training.atomic import atomic_write_text

RECORD_FORMAT = 1
SAVE_HELP = """\
--save FILE writes JSON Lines: one JSON object per game, e.g.
  {"format": 1, "game": "connect4",
   "params": {"rows": 6, "cols": 7, "n_in_row": 4},
   "players": {"X": "human", "O": "model:connect4:800"},
   "moves": ["4", "4", "3"], "actions": [3, 3, 2],
   "result": "X wins", "score": 1, "winner": "human"}
Moves are in notation, actions as numbers; X moves first; result is "X wins", "O wins", \
"draw" or "abandoned" (score null). Each game is added as it ends; the games of a records \
file that is there stay before them (any other file is refused, unless --force)."""


@dataclass
class GameRecord:
    """One game as ``--save`` writes it (one JSON object per line)."""

    game: str
    params: dict[str, int]
    players: dict[str, str]
    """``{"X": first player's name, "O": second's}``."""
    moves: list[str] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    result: str = "abandoned"
    score: int | None = None
    winner: str | None = None
    format: int = RECORD_FORMAT

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, ``format`` first."""
        data = asdict(self)
        return {"format": data.pop("format"), **data}

    @classmethod
    def of(
        cls, start: Game, names: Mapping[int, str], actions: Sequence[int], final: Game | None
    ) -> GameRecord:
        """The record of the game from ``start`` through ``actions``; ``final`` is the last
        position if the game was played to the end (else it was abandoned)."""
        view = view_for(start)
        marks = view.marks
        record = cls(
            game=start.name,
            params=dict(start.params),
            players={marks[1]: names[1], marks[-1]: names[-1]},
            actions=[int(a) for a in actions],
        )
        position = start
        for action in actions:
            record.moves.append(view.format_move(action))
            position = position.sim_move(action)
        if final is not None and final.score is not None:
            record.score = int(final.score)
            record.result = "draw" if final.score == 0 else f"{marks[final.score]} wins"
            record.winner = names[final.score] if final.score else None
        return record

    @classmethod
    def played(cls, start: Game, names: Mapping[int, str], actions: Sequence[int]) -> GameRecord:
        """The record of a game played from ``start`` through ``actions`` to its end."""
        final = start
        for action in actions:
            final = final.sim_move(action)
        return cls.of(start, names, actions, final)


def records_problem(path: Path) -> str | None:
    """Why the existing file ``path`` is not a file of game records (``--save`` adds to one
    and refuses any other), or None if it is one: every line a JSON object of a game."""
    try:
        with open(path, encoding="utf-8") as file:
            for number, line in enumerate(file, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except (ValueError, RecursionError):
                    return f"line {number} is not JSON"
                if not isinstance(record, dict) or not {"format", "game", "moves"} <= set(record):
                    return f"line {number} is not the record of a game"
    except UnicodeDecodeError:
        return "not text"
    return None


def records_before(path: Path | None) -> str:
    """The games already in the records file ``path``, which ``save_records`` keeps before
    its own: none if there is no such file (or it is not one, and --force replaces it)."""
    if path is None or not path.is_file() or records_problem(path) is not None:
        return ""
    text = path.read_text(encoding="utf-8")
    return text if not text or text.endswith("\n") else text + "\n"


def save_records(path: Path, records: Sequence[GameRecord], before: str = "") -> None:
    """Write ``before`` (the games the file held) and ``records`` to ``path`` as JSON Lines,
    atomically. A symlink stays a link: the file it points to gets the games."""
    text = before + "".join(json.dumps(r.to_dict()) + "\n" for r in records)
    atomic_write_text(Path(os.path.realpath(path)), text)
