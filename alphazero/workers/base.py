"""What every self-play backend shares: its interface, its errors, splitting and merging games
(and the paused games of ``selfplay.carry_over``)."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..selfplay.paused import PausedGame
from ..selfplay.results import Examples, SelfPlayStats


class WorkerError(RuntimeError):
    """A self-play worker failed or died; the message is one line (``details``: the
    worker's traceback, where it sent one)."""

    details: str = ""


class SelfPlayInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``play``: ``examples`` and ``stats`` are those of the games that had
    finished (a ``KeyboardInterrupt``, so whoever does not keep them stops as before)."""

    def __init__(self, examples: Examples, stats: SelfPlayStats) -> None:
        super().__init__()
        self.examples = examples
        self.stats = stats


class SelfPlayBackend(Protocol):
    in_process: bool
    """Whether self-play runs in the training process (else its CPU time is added)."""

    def play(self, num_games: int, rng: np.random.Generator) -> tuple[Examples, SelfPlayStats]:
        """Play ``num_games`` games with the current weights; ``rng`` drives every choice."""
        ...

    def play_carrying(
        self, num_games: int, rng: np.random.Generator, paused: list[PausedGame]
    ) -> tuple[Examples, SelfPlayStats, list[PausedGame]]:
        """``play``, going on with the ``paused`` games and pausing those still in flight
        when ``num_games`` have ended (``selfplay.play_games_carrying``); each worker carries
        its share (``split_paused``)."""
        ...

    def close(self) -> None:
        """Release workers (idempotent)."""
        ...


class OneWayToPlay:
    """A backend's ``play`` and ``play_carrying``, both through its ``_play``, whose
    ``paused`` is None without carry-over (then it returns None for the games it paused)."""

    def _play(
        self, num_games: int, rng: np.random.Generator, paused: list[PausedGame] | None
    ) -> tuple[Examples, SelfPlayStats, list[PausedGame] | None]:
        raise NotImplementedError

    def play(self, num_games: int, rng: np.random.Generator) -> tuple[Examples, SelfPlayStats]:
        examples, stats, _ = self._play(num_games, rng, None)
        return examples, stats

    def play_carrying(
        self, num_games: int, rng: np.random.Generator, paused: list[PausedGame]
    ) -> tuple[Examples, SelfPlayStats, list[PausedGame]]:
        examples, stats, carried = self._play(num_games, rng, paused)
        assert carried is not None  # a list whenever paused is
        return examples, stats, carried


def split_games(num_games: int, workers: int) -> list[int]:
    """Games per worker, as even as possible, first workers taking the remainder."""
    base, extra = divmod(num_games, workers)
    return [base + (i < extra) for i in range(workers) if base + (i < extra) > 0]


def merge(results: list[tuple[Examples, SelfPlayStats]]) -> tuple[Examples, SelfPlayStats]:
    """One batch of examples and one set of statistics from several workers' results."""
    examples = Examples(
        planes=np.concatenate([e.planes for e, _ in results]),
        policies=np.concatenate([e.policies for e, _ in results]),
        values=np.concatenate([e.values for e, _ in results]),
    )
    stats = SelfPlayStats()
    for _, worker_stats in results:
        stats.add(worker_stats)
    return examples, stats


def split_paused(paused: list[PausedGame], workers: int) -> list[list[PausedGame]]:
    """``paused`` in ``workers`` consecutive shares, as even as possible, first workers taking
    the remainder (``merge_paused`` of the shares gives ``paused`` back). A function of the
    list and the worker count alone, so a resumed run hands out the same shares."""
    base, extra = divmod(len(paused), workers)
    shares, start = [], 0
    for i in range(workers):
        size = base + (i < extra)
        shares.append(paused[start : start + size])
        start += size
    return shares


def merge_paused(shares: list[list[PausedGame]]) -> list[PausedGame]:
    """The workers' paused games, in worker order (each worker's in its own order)."""
    return [paused for share in shares for paused in share]
