"""What the page is sent, as JSON: the games it can start (``GameChoice``), a position
(``board_json``) and a search's findings (``thought_json``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..evaluation.model_player import Thought
from ..games import make, view_for
from ..games.base import Game


@dataclass(frozen=True)
class GameChoice:
    """A game the page can start, and the model that plays it."""

    spec: str
    """As ``--game`` takes it, and as the page sends it back."""
    name: str
    params: tuple[tuple[str, int], ...]
    """Every parameter, sorted: the same board always compares equal."""
    model: Path | None

    def new_game(self) -> Game:
        return make(self.name, **dict(self.params))

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "title": view_for(self.new_game()).full_title,
            "model": None if self.model is None else shown_path(self.model),
        }


def full_params(name: str, params: dict[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(make(name, **params).params.items()))


def shown_path(path: Path) -> str:
    """``path`` relative to the working folder when it lies inside it, as a person typed it."""
    with contextlib.suppress(ValueError):
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    return str(path)


def board_json(game: Game) -> dict[str, Any]:
    """What the page draws a position from: the layout (``GameView.board_view``), the board
    (absolute: +1 the first player's), whose move, the legal moves and every move's name."""
    view = view_for(game)
    return {
        "name": game.name,
        "board": game.state.tolist(),
        "player": game.player,
        "score": game.score,
        "legal": game.available_moves,
        "last_move": game.last_move,
        "labels": [view.format_move(a) for a in range(game.num_actions)],
        "key": ",".join(str(part) for part in game.key()),
        "winning_line": view.winning_line(game),
        **view.board_view(game),
    }


def thought_json(thought: Thought, game: Game, ply: int, kind: str) -> dict[str, Any]:
    """A search's findings for the page; values for the player to move in ``game``."""
    return {
        "kind": kind,
        "ply": ply,
        "player": game.player,
        "chosen": thought.action,
        "chosen_move": view_for(game).format_move(thought.action),
        "moves": [
            {
                "action": int(m.action),
                "move": m.move,
                "visits": int(m.visits),
                "share": float(m.share),
                "value": float(m.value),
            }
            for m in thought.top
        ],
        "wdl": None if thought.wdl is None else [float(p) for p in thought.wdl],
        "value": float(thought.value),
        "proven": None if thought.proven is None else float(thought.proven),
        "simulations": int(thought.simulations),
    }
