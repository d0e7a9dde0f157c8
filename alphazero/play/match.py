"""A match with no person playing (``play.py --p1 SPEC --p2 SPEC``): the arena plays it, its
table is printed, and its result (``--json``) and games (``--save``) are written."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from ..evaluation.arena import MatchResult, play_match, save_results, search_costs
from ..evaluation.players import Player
from ..evaluation.time_budget import SearchLog
from ..games.base import Game
from .records import GameRecord, records_before, save_records


def run_match(
    p1: Player,
    p2: Player,
    new_game: Callable[[], Game],
    games: int,
    progress: bool = True,
    json_path: Path | None = None,
    save_path: Path | None = None,
) -> int:
    """Play the match, print its table and write the files asked for; the exit code (1 when
    a file could not be written)."""
    result = play_match(p1, p2, new_game, games, progress)
    print(result.table())
    for player in (p1, p2):  # a model's simulations a move: fixed, or what its time bought
        log = getattr(player, "log", None)
        if isinstance(log, SearchLog) and log.moves:
            print(f"{player.name}: {log.line()}")
    # The paths were checked up front; what can still fail (a full disk, a file that is not
    # writable) fails with one line, after the table, so the result is still on the screen.
    try:
        write_match(result, p1, p2, new_game, json_path, save_path)
    except OSError as error:
        print(f"error: cannot write the match: {error}", file=sys.stderr)
        return 1
    return 0


def write_match(
    result: MatchResult,
    p1: Player,
    p2: Player,
    new_game: Callable[[], Game],
    json_path: Path | None,
    save_path: Path | None,
) -> None:
    """``--json`` (the result) and ``--save`` (every game's record) of a match."""
    if json_path:
        save_results([result], json_path, [search_costs(p1, p2)])
        print(f"written to {json_path}")
    if save_path:
        records = []
        for number, actions in enumerate(result.moves):
            # p1 moves first in the even-numbered games, as play_match seats them.
            names = {1: p1.name, -1: p2.name} if number % 2 == 0 else {1: p2.name, -1: p1.name}
            records.append(GameRecord.played(new_game(), names, actions))
        save_records(save_path, records, records_before(save_path))
        print(f"games written to {save_path}")
