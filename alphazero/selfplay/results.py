"""What self-play hands back: training examples, the counters of the games that made them,
and the games finished so far (what an interrupt keeps).

Each example is ``(planes [H, W, C], visit distribution [num_actions], outcome)`` where the
outcome is the final result from the point of view of the player to move in that position.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..games.base import Game


@dataclass
class Examples:
    """A batch of training examples."""

    planes: np.ndarray  # [N, H, W, C] float32, mover's point of view
    policies: np.ndarray  # [N, num_actions] float32, visit distributions
    values: np.ndarray  # [N] float32, final result for the mover

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def empty(cls, game: Game) -> Examples:
        """No examples, shaped for ``game``."""
        return cls(
            planes=np.zeros((0, *game.encode().shape), np.float32),
            policies=np.zeros((0, game.num_actions), np.float32),
            values=np.zeros((0,), np.float32),
        )

    @classmethod
    def concatenate(cls, parts: list[Examples], game: Game) -> Examples:
        """``parts`` one after the other (``game`` shapes an empty result)."""
        if not parts:
            return cls.empty(game)
        return cls(
            planes=np.concatenate([part.planes for part in parts]),
            policies=np.concatenate([part.policies for part in parts]),
            values=np.concatenate([part.values for part in parts]),
        )


_COUNTERS = (
    "games", "moves", "first_wins", "second_wins", "draws", "network_calls", "simulations",
    "cache_hits", "cache_lookups",
)  # fmt: skip


@dataclass
class SelfPlayStats:
    games: int = 0
    moves: int = 0
    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0
    network_calls: int = 0
    simulations: int = 0
    cache_hits: int = 0
    """Positions answered by ``search.evaluation_cache`` instead of the network."""
    cache_lookups: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the process(es) that played, summed over workers."""
    lengths: list[int] = field(default_factory=list)

    def add(self, other: SelfPlayStats, after: bool = False) -> None:
        """Fold in the statistics of games played side by side (by another worker), or
        ``after`` these (the rest of an iteration an interrupt cut short): their time adds."""
        for name in _COUNTERS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.lengths.extend(other.lengths)
        self.seconds = self.seconds + other.seconds if after else max(self.seconds, other.seconds)
        self.cpu_seconds += other.cpu_seconds

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> SelfPlayStats:
        """Back from ``to_dict`` (keys of other versions are ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        stats = cls(**{k: v for k, v in data.items() if k in names})  # type: ignore[arg-type]
        stats.lengths = [int(x) for x in stats.lengths]
        return stats

    def summary(self) -> dict[str, float]:
        games = max(self.games, 1)
        return {
            "games": self.games,
            "moves": self.moves,
            "first_win_rate": self.first_wins / games,
            "second_win_rate": self.second_wins / games,
            "draw_rate": self.draws / games,
            "mean_length": float(np.mean(self.lengths)) if self.lengths else 0.0,
            "simulations_per_second": self.simulations / max(self.seconds, 1e-9),
            "mean_batch": self.simulations / max(self.network_calls, 1),
            "cache_hit_rate": self.cache_hits / max(self.cache_lookups, 1),
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
        }


class FinishedGames:
    """The games of a ``play_games`` call finished so far (its ``on_game``), so that an
    interrupt loses only the games in flight."""

    def __init__(self) -> None:
        self._games: list[tuple[Examples, SelfPlayStats]] = []

    def add(self, examples: Examples, stats: SelfPlayStats) -> None:
        # One append: an interrupt between two statements could part a game from its stats.
        self._games.append((examples, stats))

    @property
    def games(self) -> int:
        return len(self._games)

    def result(self, game: Game) -> tuple[Examples, SelfPlayStats]:
        """The finished games' examples, in the order they finished, and the statistics as
        of the last one (``game`` shapes the examples when there are none)."""
        games = list(self._games)
        examples = Examples.concatenate([e for e, _ in games], game)
        return examples, (games[-1][1] if games else SelfPlayStats())
