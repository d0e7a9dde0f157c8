"""Games paused between two moves, to go on in the next iteration (``selfplay.carry_over``).

A ``PausedGame`` is what a self-play game in flight needs to go on exactly: every move played
from the start (so the position is rebuilt by replaying them), the training examples it has
recorded so far (they get their value targets when the game ends) and the per-game choices
drawn when it started. Its search is not kept: the next move is searched afresh, from a new
root, so a game goes on the same whether it stayed in memory or went through a file.

``to_arrays`` and ``from_arrays`` turn a list of paused games into flat arrays and back
(for ``.npz`` files: no pickle); ``check`` says whether they fit a game; ``paused_bytes``
and ``read_paused`` write and read the checkpoint's ``paused_NNNN.npz``.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..games.base import Game
from ..training.npz_archive import npy_members
from ..training.run_errors import CheckpointError

PAUSED_FORMAT = 1
"""Version of the paused games' file written by this module."""

ARRAY_NAMES = (
    "actions", "action_counts", "planes", "policies", "players", "search_values",
    "move_numbers", "record_counts", "weak_players", "would_resign",
)  # fmt: skip


@dataclass(frozen=True)
class PausedGame:
    """One game paused between two moves. Records are the training examples so far."""

    actions: np.ndarray
    """[M] int64: every move from the start, random openings included (M moves played)."""
    planes: np.ndarray
    """[R, H, W, C] float32: the recorded positions, the mover's point of view."""
    policies: np.ndarray
    """[R, num_actions] float64: their search policies (float64 holds float32 exactly)."""
    players: np.ndarray
    """[R] int8: the player to move in each recorded position (+1 first, -1 second)."""
    search_values: np.ndarray
    """[R] float64: the search's value of each, for the mover (``value_target_mix``)."""
    move_numbers: np.ndarray
    """[R] int64: the move number of each (0 for the first move of the game)."""
    weak_player: int = 0
    """The side that played weak under the removed ``weak_side_share``; always 0 now (the
    field stays so that the paused games' files keep one layout)."""
    would_resign: int = 0
    """The player who would have resigned (a resignation playthrough); 0: none."""

    @property
    def moves(self) -> int:
        return len(self.actions)

    def position(self, start: Game) -> Game:
        """The position reached: ``start`` (the initial position) after every move."""
        game = start
        for action in self.actions:
            game = game.sim_move(int(action))
        return game


def to_arrays(games: list[PausedGame]) -> dict[str, np.ndarray]:
    """``games`` as flat arrays (``ARRAY_NAMES``): each game's moves and records one after
    the other, with per-game counts. (No games: empty arrays, shaped for no game.)"""

    def joined(name: str, dtype: type, dims: int = 1) -> np.ndarray:
        parts = [np.asarray(getattr(g, name), dtype) for g in games]
        return np.concatenate(parts) if parts else np.zeros((0,) * dims, dtype)

    return {
        "actions": joined("actions", np.int64),
        "action_counts": np.array([len(g.actions) for g in games], np.int64),
        "planes": joined("planes", np.float32, dims=4),
        "policies": joined("policies", np.float64, dims=2),
        "players": joined("players", np.int8),
        "search_values": joined("search_values", np.float64),
        "move_numbers": joined("move_numbers", np.int64),
        "record_counts": np.array([len(g.players) for g in games], np.int64),
        "weak_players": np.array([g.weak_player for g in games], np.int8),
        "would_resign": np.array([g.would_resign for g in games], np.int8),
    }


def from_arrays(arrays: dict[str, np.ndarray]) -> list[PausedGame]:
    """The games ``to_arrays`` flattened; arrays whose lengths disagree are a one-line
    ``ValueError`` (``check`` compares them with a game)."""
    missing = [name for name in ARRAY_NAMES if name not in arrays]
    if missing:
        raise ValueError(f"no {missing[0]!r} array")
    counts = arrays["action_counts"], arrays["record_counts"]
    games = len(counts[0])
    flat = {
        name: arrays[name] for name in ARRAY_NAMES if name not in ("action_counts", "record_counts")
    }
    if any(a.ndim != 1 for a in (*counts, arrays["weak_players"], arrays["would_resign"])):
        raise ValueError("its per-game counts are not flat")
    if (
        len(counts[1]) != games
        or len(arrays["weak_players"]) != games
        or len(arrays["would_resign"]) != games
    ):
        raise ValueError("its per-game arrays disagree in length")
    if (counts[0] < 0).any() or (counts[1] < 0).any():
        raise ValueError("it has negative counts")
    if int(counts[0].sum()) != len(flat["actions"]) or flat["actions"].ndim != 1:
        raise ValueError("its moves disagree with their counts")
    records = int(counts[1].sum())
    per_record = ("planes", "policies", "players", "search_values", "move_numbers")
    if any(len(flat[name]) != records for name in per_record) or flat["policies"].ndim != 2:
        raise ValueError("its records disagree with their counts")
    action_ends = np.cumsum(counts[0])
    record_ends = np.cumsum(counts[1])
    paused = []
    for i in range(games):
        a = slice(int(action_ends[i] - counts[0][i]), int(action_ends[i]))
        r = slice(int(record_ends[i] - counts[1][i]), int(record_ends[i]))
        paused.append(
            PausedGame(
                actions=flat["actions"][a].astype(np.int64),
                planes=flat["planes"][r].astype(np.float32),
                policies=flat["policies"][r].astype(np.float64),
                players=flat["players"][r].astype(np.int8),
                search_values=flat["search_values"][r].astype(np.float64),
                move_numbers=flat["move_numbers"][r].astype(np.int64),
                weak_player=int(arrays["weak_players"][i]),
                would_resign=int(arrays["would_resign"][i]),
            )
        )
    return paused


def check(games: list[PausedGame], start: Game) -> None:
    """A one-line ``ValueError`` unless every game fits ``start``'s game: records shaped as
    its planes and actions, moves legal from ``start`` and the game not over."""
    for i, paused in enumerate(games):
        planes, policies = paused.planes.shape[1:], paused.policies.shape[1:]
        if planes != tuple(start.plane_shape) or policies != (start.num_actions,):
            raise ValueError(
                f"paused game {i} is not of this run's game (planes {list(planes)}, "
                f"{list(policies)} actions)"
            )
        if not all(p in (-1, 1) for p in paused.players) or paused.weak_player not in (-1, 0, 1):
            raise ValueError(f"paused game {i} names a player that is neither +1 nor -1")
        if len(paused.move_numbers) and not (
            0 <= paused.move_numbers.min() and paused.move_numbers.max() < paused.moves
        ):
            raise ValueError(f"paused game {i} records a move it has not played")
        try:
            position = paused.position(start)
        except ValueError as error:  # IllegalMoveError, GameOverError
            line = str(error).strip().splitlines()[0] if str(error).strip() else "illegal"
            raise ValueError(f"paused game {i} cannot be replayed ({line})") from None
        if position.score is not None:
            raise ValueError(f"paused game {i} is already over")


# ----------------------------------------------------------------- paused_NNNN.npz files
def paused_bytes(games: list[PausedGame], game: Any) -> bytes:
    """``games`` as an ``.npz`` file: a JSON header (format, ``game``: the run's game as the
    metadata names it, count) and ``to_arrays``; no pickle."""
    info = {"format": PAUSED_FORMAT, "game": game, "games": len(games)}
    data = io.BytesIO()
    np.savez_compressed(
        data,
        info=np.frombuffer(json.dumps(info).encode("utf-8"), dtype=np.uint8),
        **to_arrays(games),
    )
    return data.getvalue()


def read_paused(file: Path, start: Game, iteration: object) -> list[PausedGame]:
    """The paused games in ``file`` (of the checkpoint of ``iteration``), checked against
    ``start``, the game's initial position: any problem is a one-line ``CheckpointError``."""

    def fail(what: str) -> CheckpointError:
        return CheckpointError(
            f"{file}: {what} (the self-play games paused at iteration {iteration}; remove its "
            f'"paused" entry from metadata.json to go on without them)'
        )

    if not file.is_file():
        raise fail("missing")
    if not zipfile.is_zipfile(file):  # np.load would take other bytes for a pickle
        raise fail("not a paused games file (not an .npz archive)")
    try:
        with zipfile.ZipFile(file) as archive:  # every member an .npy, as its header says
            npy_members(archive)
        with np.load(file, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
        info = json.loads(arrays.pop("info").tobytes().decode("utf-8"))
        if not isinstance(info, dict) or info.get("format") != PAUSED_FORMAT:
            raise fail(f"not a paused games file of format {PAUSED_FORMAT}")
        games = from_arrays(arrays)
    except CheckpointError:
        raise
    except ValueError as error:
        if "pickle" in str(error):
            raise fail("not a paused games file (it holds Python objects)") from None
        raise fail(f"truncated or corrupt ({_first_line(error)})") from None
    except Exception as error:  # BadZipFile, KeyError, EOFError, OSError...
        raise fail(f"truncated or corrupt ({type(error).__name__}: {_first_line(error)})") from None
    saved = info.get("game")
    name, params = (
        (saved.get("name"), saved.get("params", start.params))
        if isinstance(saved, dict)
        else (saved, start.params)
    )
    if name != start.name or dict(params) != dict(start.params):
        raise fail(f"holds games of {name} {params}, not {start.name} {start.params}")
    try:
        check(games, start)
    except ValueError as error:
        raise fail(_first_line(error)) from None
    return games


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__
