"""Matches between two players: results, confidence intervals and Elo differences.

All games of a match are in flight at once. Each round, every game waiting for a player that
can search in batches (a model) gets its move from one ``batch_moves`` call, so a model's
games share one network call per search step; other players move game by game.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..games.base import Game
from ..progress import bars as progress_bars
from ..training.interrupts import raise_if_interrupted
from .players import BatchPlayer, Player
from .time_budget import SearchLog

Z95 = 1.959963984540054
Z95_ONE_SIDED = 1.6448536269514722
PSEUDO_GAMES = 2  # won and lost each, about Z95**2 / 2: see MatchResult.score_interval


@dataclass
class MatchResult:
    """Results from the first-named player's (``player``'s) point of view."""

    player: str
    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    wins_first: int = 0
    """Wins when ``player`` moved first."""
    games_first: int = 0
    moves: list[list[int]] = field(default_factory=list)
    """The move list of every game, in order."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game: 1 a win, 0.5 a draw."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def score_interval(self) -> tuple[float, float]:
        """95% confidence interval of the score: a normal approximation on per-game points,
        after adding two won and two lost games (the Agresti-Coull adjustment, here with
        draws). Without them a clean sweep, or a match drawn throughout, would have a zero
        width interval, as if 100 wins in 100 proved the opponent never wins."""
        if self.games == 0:
            return 0.0, 1.0
        mean, variance, n = self._adjusted()
        half = Z95 * math.sqrt(variance / n)
        return max(0.0, mean - half), min(1.0, mean + half)

    def _adjusted(self) -> tuple[float, float, int]:
        """Mean and variance of per-game points, and the number of games, after adding
        ``PSEUDO_GAMES`` won and lost games."""
        wins, losses = self.wins + PSEUDO_GAMES, self.losses + PSEUDO_GAMES
        n = wins + self.draws + losses
        mean = (wins + 0.5 * self.draws) / n
        return mean, (wins + 0.25 * self.draws) / n - mean * mean, n

    @property
    def elo(self) -> float:
        """Elo difference implied by the score (+inf / -inf for a clean sweep)."""
        return elo_difference(self.score)

    def elo_interval(self) -> tuple[float, float]:
        low, high = self.score_interval()
        return elo_difference(low), elo_difference(high)

    def to_dict(self) -> dict:
        data = asdict(self)
        data.pop("moves")
        low, high = self.score_interval()
        elo_low, elo_high = self.elo_interval()
        data.update(
            games=self.games,
            score=self.score,
            score_low=low,
            score_high=high,
            elo=_finite(self.elo),
            elo_low=_finite(elo_low),
            elo_high=_finite(elo_high),
        )
        return data

    def table(self) -> str:
        low, high = self.score_interval()
        elo_low, elo_high = self.elo_interval()
        rows = [
            ("player", self.player),
            ("opponent", self.opponent),
            ("games", str(self.games)),
            ("wins / draws / losses", f"{self.wins} / {self.draws} / {self.losses}"),
            ("wins moving first", f"{self.wins_first} of {self.games_first}"),
            ("score", f"{self.score:.1%}  (95% CI {low:.1%} - {high:.1%})"),
            ("Elo difference", f"{format_elo(self.elo)}  (95% CI {format_elo(elo_low)} - "
                               f"{format_elo(elo_high)})"),
        ]  # fmt: skip
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def score_below(result: MatchResult, reference: MatchResult) -> bool:
    """Whether ``result``'s score is significantly below ``reference``'s: a one-sided test
    at 5% on the difference of the two mean points per game, each match's variance taken
    after the pseudo-games of ``score_interval`` (so that two sweeps, or a sweep against one
    lost game in 40, are not told apart as certainties)."""
    if result.games == 0 or reference.games == 0:
        return False
    _, result_variance, result_n = result._adjusted()
    _, reference_variance, reference_n = reference._adjusted()
    spread = math.sqrt(result_variance / result_n + reference_variance / reference_n)
    return reference.score - result.score > Z95_ONE_SIDED * spread


def elo_difference(score: float) -> float:
    """The Elo difference for an expected score: ``-400 log10(1 / score - 1)``."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def format_elo(x: float) -> str:
    """An Elo difference as ``+147``, ``-0`` never, and ``+inf`` / ``-inf`` for a sweep."""
    # round() first: an even match is "+0", not the "-0" that formatting -0.0 or -0.3 gives
    return f"{round(x):+d}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def play_match(
    player: Player,
    opponent: Player,
    new_game: Callable[[], Game],
    games: int,
    progress: bool = True,
) -> MatchResult:
    """Play ``games`` games, ``player`` moving first in the even-numbered ones."""
    result = MatchResult(player=player.name, opponent=opponent.name)
    positions = [new_game() for _ in range(games)]
    histories: list[list[int]] = [[] for _ in range(games)]
    # seats[i][+1] is who moves first in game i
    seats = [{1: player, -1: opponent} if i % 2 == 0 else {1: opponent, -1: player}
             for i in range(games)]  # fmt: skip
    bar = progress_bars.bar(games, f"{player.name} vs {opponent.name}", "game", enabled=progress)
    # The games move in lockstep (so a batch player's moves share network calls) and so end
    # together, near the match's end: the moves played are what shows the match under way.
    moves = 0
    unfinished = set(range(games))
    while unfinished:
        raise_if_interrupted()
        for mover in (player, opponent):
            waiting = sorted(i for i in unfinished if seats[i][positions[i].player] is mover)
            if not waiting:
                continue
            if isinstance(mover, BatchPlayer):
                actions = mover.batch_moves([positions[i] for i in waiting])
            else:
                actions = [mover(positions[i]) for i in waiting]
            for i, action in zip(waiting, actions, strict=True):
                positions[i] = positions[i].sim_move(action)
                histories[i].append(action)
                if positions[i].score is not None:
                    unfinished.discard(i)
                    _record(result, positions[i].score, seats[i][1] is player)
                    bar.update(1)
            moves += len(waiting)
            bar.set_postfix(moves=moves)
    bar.close()
    result.moves = histories
    return result


@dataclass(frozen=True)
class Opening:
    """A position a pair of games starts from, and the moves from the game's start to it."""

    game: Game
    moves: tuple[int, ...]


def random_openings(start: Game, count: int, moves: int, rng: np.random.Generator) -> list[Opening]:
    """``count`` different positions reached from ``start`` by ``moves`` uniformly random
    moves (none finished). Different, because two players without noise replay the same
    game from the same position: a repeated opening would count one result twice.
    ``ValueError`` if 1,000 tries an opening do not find that many."""
    found: dict[Game, tuple[int, ...]] = {}
    for _ in range(1000 * count):
        if len(found) == count:
            break
        game, played = start, []
        for _ in range(moves):
            if game.score is not None:
                break
            played.append(int(rng.choice(game.available_moves)))
            game = game.sim_move(played[-1])
        if game.score is None:
            found.setdefault(game, tuple(played))
    if len(found) < count:
        raise ValueError(f"fewer than {count} different positions {moves} random moves in")
    return [Opening(game, played) for game, played in found.items()]


def count_positions(start: Game, moves: int, enough: int) -> int:
    """How many different unfinished positions ``moves`` moves from ``start`` there are,
    counting no further than ``enough``: the exact answer to whether ``random_openings`` can
    find that many, without its luck. A big board reaches ``enough`` along its first moves."""
    found: set[Game] = set()
    seen: set[tuple[Game, int]] = set()  # transpositions: one walk below a position a depth

    def walk(game: Game, left: int) -> None:
        if len(found) >= enough or game.score is not None or (game, left) in seen:
            return
        seen.add((game, left))
        if left == 0:
            found.add(game)
            return
        for move in game.available_moves:
            walk(game.sim_move(move), left - 1)

    walk(start, moves)
    return min(len(found), enough)


def play_openings(
    player: Player, opponent: Player, openings: Sequence[Opening], progress: bool = True
) -> MatchResult:
    """Every opening played twice, the sides swapped (``player`` is the first player, +1, in
    the even-numbered games): whatever edge an opening gives one side, both sides get it.
    ``result.moves`` holds each game's moves from its opening on."""
    starts = iter([opening.game for opening in openings for _ in range(2)])
    return play_match(player, opponent, lambda: next(starts), 2 * len(openings), progress)


def _record(result: MatchResult, score: int, player_first: bool) -> None:
    points = score if player_first else -score  # +1: player won
    if player_first:
        result.games_first += 1
    if points > 0:
        result.wins += 1
        result.wins_first += player_first
    elif points < 0:
        result.losses += 1
    else:
        result.draws += 1


def save_results(
    results: list[MatchResult], path: str | Path, searches: list[dict] | None = None
) -> None:
    """Write match results as JSON (with every game's moves); ``searches``, one for each
    result, adds what the players' searches cost (``search_costs``)."""
    data = [{**r.to_dict(), "moves": r.moves} for r in results]
    for entry, costs in zip(data, searches or [], strict=False):
        entry["searches"] = costs
    Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def search_costs(player: Player, opponent: Player) -> dict[str, dict]:
    """``{"player": ..., "opponent": ...}``: the simulations and seconds a move (``SearchLog``
    summary, by ply too) of each side that logs its searches (a model); others are left out."""
    logs = {"player": getattr(player, "log", None), "opponent": getattr(opponent, "log", None)}
    return {side: log.summary() for side, log in logs.items() if isinstance(log, SearchLog)}
