"""Where self-play runs: in this process, in worker processes, or on a Ray cluster.

The training loop sees one interface, ``SelfPlayBackend``: ``play(num_games, rng)`` returns
the examples and statistics of that many finished games, played with the model's weights as
they are at the call (so workers are refreshed after every training iteration). Backends
are chosen by ``selfplay.backend`` and ``selfplay.workers`` in the config. Ctrl-C during
``play`` raises ``SelfPlayInterrupted``, holding the games finished until then.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .. import progress as progress_bars
from ..config import Config
from ..games import Game, make
from ..selfplay import Examples, FinishedGames, SelfPlayStats, play_games


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


class LocalBackend:
    """Self-play in this process, through the training loop's own inference model."""

    in_process = True
    """Its CPU time is already the training process's own."""

    def __init__(self, config: Config, inference, progress: bool) -> None:
        self.config = config
        self.inference = inference
        self.progress = progress

    def new_game(self) -> Game:
        return make(self.config.game.name, **self.config.game.params)

    def play(self, num_games: int, rng: np.random.Generator) -> tuple[Examples, SelfPlayStats]:
        finished = FinishedGames()
        try:
            return play_games(
                self.new_game,
                self.inference,
                num_games,
                self.config.search,
                self.config.selfplay,
                rng,
                self.progress,
                on_game=finished.add,
                on_step=progress_bars.report_moves,
            )
        except KeyboardInterrupt:
            raise SelfPlayInterrupted(*finished.result(self.new_game())) from None

    def close(self) -> None:
        pass


def make_backend(config: Config, model, inference, progress: bool) -> SelfPlayBackend:
    """The backend the config asks for; ``model`` is the learner's (its weights are sent)."""
    backend = config.selfplay.backend
    if backend == "ray":
        from .ray_backend import RayBackend

        return RayBackend(config, model, progress)
    if config.selfplay.workers > 1:
        from .processes import ProcessBackend

        return ProcessBackend(config, model, progress)
    return LocalBackend(config, inference, progress)


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


__all__ = [
    "LocalBackend",
    "SelfPlayBackend",
    "SelfPlayInterrupted",
    "WorkerError",
    "make_backend",
    "merge",
    "split_games",
]
