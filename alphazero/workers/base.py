"""What every self-play backend shares: its interface, its errors, splitting and merging
games."""

from __future__ import annotations

from typing import Protocol

import numpy as np

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

    def close(self) -> None:
        """Release workers (idempotent)."""
        ...


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
