"""Self-play on a Ray cluster: the learner stays in the driver, the workers are Ray actors.

Each actor (``SelfPlayWorker`` made remote, one CPU) builds the game's network once. Every
``play`` puts the learner's weights in the object store once (``ray.put``); each actor reads
them from there (one copy per node), plays its share of the games with the seed
``[seed, worker index]`` and returns its examples. An actor that dies (its process killed,
its node lost) is replaced by a new one that replays the same share with the same seed, so
the iteration loses nothing and stays reproducible; a warning line says so. Ctrl-C keeps
the shares that had come back (``SelfPlayInterrupted``); the others' games are lost. With
``selfplay.carry_over`` each actor is sent its share of the paused games (``split_paused``,
sent again with a replayed share) and returns those it paused, merged in worker order.

Ray is optional (``pip install -e ".[ray]"``) and imported only here. Without an address
(``selfplay.ray_address``, else ``RAY_ADDRESS``) a local Ray instance is started, and shut
down by ``close``; a cluster that was joined is left running.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import progress as progress_bars
from ..config import Config, ConfigError
from ..games import make
from ..interrupts import raise_if_interrupted
from ..paused import PausedGame
from ..selfplay_results import Examples, SelfPlayStats
from .base import (
    OneWayToPlay,
    SelfPlayInterrupted,
    WorkerError,
    merge,
    merge_paused,
    split_games,
    split_paused,
)
from .processes import START_TIMEOUT, SelfPlayWorker, available_cores

log = logging.getLogger(__name__)

ACTOR_CPUS = 1
"""CPUs Ray reserves for each self-play actor; its TensorFlow uses that many threads."""

MAX_REPLAYS = 3
"""Times one share of an iteration's games is replayed on a new actor before giving up."""


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(
            'selfplay.backend: ray needs Ray, which is not installed: pip install -e ".[ray]"'
        ) from None
    return ray


class RayBackend(OneWayToPlay):
    """Self-play in ``config.selfplay.workers`` Ray actors, with the learner's weights."""

    in_process = False

    after_submit: Callable[[int, Any], None] | None = None
    """For tests, set on the class: called with ``(worker index, actor)`` after each share
    is sent to its actor (a test kills the actor there)."""

    def __init__(self, config: Config, model: Any, progress: bool) -> None:
        ray = _import_ray()
        self._ray = ray
        self.config = config
        self.model = model
        self.progress = progress
        self.workers = config.selfplay.workers
        self._owns_ray = False
        self._closed = False
        if not ray.is_initialized():
            address = config.selfplay.ray_address or os.environ.get("RAY_ADDRESS") or None
            if address:
                import alphazero

                # Ship this package's code with the job, so the cluster runs the driver's
                # version (its nodes need the dependencies: TensorFlow, Keras, NumPy...).
                try:
                    ray.init(
                        address=address,
                        runtime_env={"py_modules": [alphazero]},
                        log_to_driver=False,
                    )
                except (ConnectionError, RuntimeError, ValueError) as error:
                    line = str(error).strip().splitlines()[0] if str(error).strip() else ""
                    raise ConfigError(
                        f"selfplay.ray_address: cannot join the Ray cluster at {address} ({line})"
                    ) from None
            else:
                ray.init(
                    num_cpus=max(self.workers * ACTOR_CPUS, available_cores()),
                    include_dashboard=False,
                    log_to_driver=False,
                    ignore_reinit_error=True,
                    logging_level=logging.ERROR,  # not its start-up notices on our console
                )
                self._owns_ray = True
        self._actor_class = ray.remote(num_cpus=ACTOR_CPUS, max_restarts=0)(SelfPlayWorker)
        self.actors = [self._new_actor() for _ in range(self.workers)]
        try:
            self._wait_ready()
        except BaseException:
            self.close()
            raise

    def _wait_ready(self) -> None:
        """Wait until every actor has built its network: a cluster that cannot place them
        (too few CPUs) or build them (missing dependencies) is an error now, not a hang."""
        ray = self._ray
        try:
            ray.get([actor.ready.remote() for actor in self.actors], timeout=START_TIMEOUT)
        except ray.exceptions.GetTimeoutError:
            raise WorkerError(
                f"the {self.workers} self-play actors did not start in {START_TIMEOUT:.0f} s: "
                f"does the cluster have {self.workers * ACTOR_CPUS} free CPUs?"
            ) from None
        except ray.exceptions.RayError as error:
            line = str(error).strip().splitlines()[0] if str(error).strip() else "died"
            raise WorkerError(f"a self-play actor could not start: {line}") from None

    def _new_actor(self) -> Any:
        return self._actor_class.remote(self.config, ACTOR_CPUS)

    def _submit(
        self, index: int, weights: Any, games: int, seed: int, paused: list[PausedGame] | None
    ) -> Any:
        actor = self.actors[index]
        if paused is None:
            ref = actor.play.remote(weights, games, seed, index)
        else:
            ref = actor.play_carrying.remote(weights, games, seed, index, paused)
        hook = type(self).after_submit
        if hook is not None:
            hook(index, actor)
        return ref

    def _replace(self, index: int) -> None:
        with contextlib.suppress(Exception):
            self._ray.kill(self.actors[index])
        self.actors[index] = self._new_actor()

    def _play(
        self, num_games: int, rng: np.random.Generator, paused: list[PausedGame] | None
    ) -> tuple[Examples, SelfPlayStats, list[PausedGame] | None]:
        if self._closed:
            raise WorkerError("the self-play actors are closed")
        ray = self._ray
        start = time.perf_counter()
        seed = int(rng.integers(2**63))
        shares = split_games(num_games, self.workers)
        carried: list[list[PausedGame] | None] = (
            list(split_paused(paused, len(shares))) if paused is not None else [None] * len(shares)
        )
        weights = ray.put([np.asarray(w) for w in self.model.get_weights()])
        pending = {self._submit(i, weights, n, seed, carried[i]): i for i, n in enumerate(shares)}
        replays = [0] * len(shares)
        results: dict[int, tuple] = {}
        bar = progress_bars.bar(
            num_games, f"self-play ({self.workers} Ray actors)", "game", enabled=self.progress
        )
        try:
            while pending:
                raise_if_interrupted()
                bar.refresh()  # the run's clock moves on while the shares are out
                done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                for ref in done:
                    index = pending.pop(ref)
                    try:
                        results[index] = ray.get(ref)
                    except ray.exceptions.RayActorError as error:
                        replays[index] += 1
                        reason = str(error).strip().splitlines()[0] if str(error) else "died"
                        if replays[index] > MAX_REPLAYS:
                            raise WorkerError(
                                f"self-play actor {index} died {replays[index]} times in one "
                                f"iteration; giving up ({reason})"
                            ) from None
                        log.warning(
                            "self-play actor %d died (%s); replaying its %d games on a new actor",
                            index,
                            reason,
                            shares[index],
                        )
                        self._replace(index)
                        ref = self._submit(index, weights, shares[index], seed, carried[index])
                        pending[ref] = index
                        continue
                    except ray.exceptions.RayTaskError as error:
                        cause = getattr(error, "cause", None) or error
                        line = f"{type(cause).__name__}: {cause}".strip().splitlines()[0]
                        raise WorkerError(f"self-play actor {index} failed: {line}") from None
                    bar.update(shares[index])
        except KeyboardInterrupt:
            kept = [results[i][:2] for i in sorted(results)]
            game = make(self.config.game.name, **self.config.game.params)
            examples, stats = merge(kept) if kept else (Examples.empty(game), SelfPlayStats())
            stats.seconds = time.perf_counter() - start
            raise SelfPlayInterrupted(examples, stats) from None
        finally:
            bar.close()
        examples, stats = merge([results[i][:2] for i in range(len(shares))])
        stats.seconds = time.perf_counter() - start  # wall time, sending weights included
        if paused is None:
            return examples, stats, None
        return examples, stats, merge_paused([results[i][2] for i in range(len(shares))])

    def close(self) -> None:
        """Kill the actors, and shut down the local Ray instance if this backend started it."""
        if self._closed:
            return
        self._closed = True
        for actor in self.actors:
            with contextlib.suppress(Exception):
                self._ray.kill(actor)
        self.actors = []
        if self._owns_ray:
            self._ray.shutdown()

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["RayBackend"]
