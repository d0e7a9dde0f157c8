"""Game records as ``play.py --save`` writes them: one JSON object per game, in JSON Lines."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..games.base import Game

RECORD_FORMAT = 1
SAVE_HELP = """\
--save FILE writes JSON Lines: one JSON object per game, e.g.
  {"format": 1, "game": "connect4",
   "params": {"rows": 6, "cols": 7, "n_in_row": 4},
   "players": {"X": "human", "O": "model:connect4:800"},
   "moves": ["4", "4", "3"], "actions": [3, 3, 2],
   "result": "X wins", "score": 1, "winner": "human"}
Moves are in notation, actions as numbers; X moves first; result is "X wins", "O wins", \
"draw" or "abandoned" (score null); the file is rewritten after every game."""


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
        marks = start.marks
        record = cls(
            game=start.name,
            params=dict(start.params),
            players={marks[1]: names[1], marks[-1]: names[-1]},
            actions=[int(a) for a in actions],
        )
        position = start
        for action in actions:
            record.moves.append(position.format_move(action))
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


def save_records(path: Path, records: Sequence[GameRecord]) -> None:
    """Write ``records`` to ``path`` as JSON Lines (the whole file, each time)."""
    text = "".join(json.dumps(r.to_dict()) + "\n" for r in records)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
