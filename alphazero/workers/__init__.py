"""Where self-play runs: in this process, in worker processes, or on a Ray cluster.

The training loop sees one interface, ``SelfPlayBackend``: ``play(num_games, rng)`` returns
the examples and statistics of that many finished games, played with the model's weights as
they are at the call (so workers are refreshed after every training iteration). Backends
are chosen by ``selfplay.backend`` and ``selfplay.workers`` in the config. Ctrl-C during
``play`` raises ``SelfPlayInterrupted``, holding the games finished until then.
"""

from __future__ import annotations

import numpy as np

from ..config import Config
from ..games import Game, make
from ..progress.eta import report_moves
from ..selfplay.loop import play_games
from ..selfplay.results import Examples, FinishedGames, SelfPlayStats
from .base import SelfPlayBackend, SelfPlayInterrupted, WorkerError, merge, split_games
from .processes import ProcessBackend
from .ray_backend import RayBackend


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
        config = self.config
        try:
            return play_games(
                self.new_game, self.inference, num_games, config.search, config.selfplay,
                rng, self.progress, on_game=finished.add, on_step=report_moves,
            )  # fmt: skip
        except KeyboardInterrupt:
            # The games in flight are lost: the kept games' iteration goes on without them.
            raise SelfPlayInterrupted(*finished.result(self.new_game())) from None

    def close(self) -> None:
        pass


def make_backend(config: Config, model, inference, progress: bool) -> SelfPlayBackend:
    """The backend the config asks for; ``model`` is the learner's (its weights are sent)."""
    backend = config.selfplay.backend
    if backend == "ray":
        return RayBackend(config, model, progress)
    if config.selfplay.workers > 1:
        return ProcessBackend(config, model, progress)
    return LocalBackend(config, inference, progress)


__all__ = [
    "LocalBackend",
    "SelfPlayBackend",
    "SelfPlayInterrupted",
    "WorkerError",
    "make_backend",
    "merge",
    "split_games",
]
