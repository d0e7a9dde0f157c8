"""Self-play on a Ray cluster: the learner stays in the driver, the workers are Ray actors.

Each actor (``RayWorker``: ``SelfPlayWorker`` made remote, one CPU) builds the game's
network once. Every ``play`` puts the learner's weights in the object store once
(``ray.put``); each actor reads them from there (one copy per node), plays its share of the
games with the seed ``[seed, share index]`` and returns its examples. Actors are spread over
the nodes. An
actor that dies (its process killed, its node lost) is replaced by a new one, or, when the
cluster has no room left for it, its share goes to an actor still alive (and the run goes
on with fewer); either way the share is replayed with the same seed, so the iteration loses
nothing, counts nothing twice and stays reproducible; a warning line says so. Ctrl-C keeps
the shares that had come back (``SelfPlayInterrupted``); the others' games are lost.

Ray is optional (``pip install -e ".[ray]"``) and imported only here. Without an address
(``selfplay.ray_address``, else ``RAY_ADDRESS``) a local Ray instance is started, and shut
down by ``close``; a cluster that was joined (``ray_cluster.join``: the job ships this
package) is left running.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..config import Config, ConfigError
from ..games import make
from ..progress import bars as progress_bars
from ..selfplay.results import Examples, SelfPlayStats
from ..training.interrupts import raise_if_interrupted
from .base import SelfPlayInterrupted, WorkerError, merge, split_games
from .processes import START_TIMEOUT, SelfPlayWorker, available_cores
from .ray_cluster import HeadWatch, describe, join, room_problem

log = logging.getLogger(__name__)

ACTOR_CPUS = 1
"""CPUs Ray reserves for each self-play actor; its TensorFlow uses that many threads."""

MAX_REPLAYS = 3
"""Times one share of an iteration's games is replayed on a new actor before giving up."""

NODE_SETTLE = 60.0
"""Seconds to wait, once an actor stops answering, for Ray to say whether its node is lost
(it takes a few missed health checks), so that no new actor is placed on a dying node."""


class RayWorker(SelfPlayWorker):
    """``SelfPlayWorker`` as a Ray actor, which also says on which node it runs."""

    def placed(self) -> tuple[int, str]:
        """Its process id and node, once it is built."""
        import ray

        return self.ready(), ray.get_runtime_context().get_node_id()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(
            'selfplay.backend: ray needs Ray, which is not installed: pip install -e ".[ray]"'
        ) from None
    return ray


class RayBackend:
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
        self._watch: HeadWatch | None = None
        if not ray.is_initialized():
            address = config.selfplay.ray_address or os.environ.get("RAY_ADDRESS") or None
            if address:
                import alphazero

                # The nodes need the dependencies (TensorFlow, Keras, NumPy...), not this code.
                join(ray, address, alphazero)
                self._watch = HeadWatch(address)
            else:
                ray.init(
                    num_cpus=max(self.workers * ACTOR_CPUS, available_cores()),
                    include_dashboard=False,
                    log_to_driver=False,
                    ignore_reinit_error=True,
                    logging_level=logging.ERROR,  # not its start-up notices on our console
                )
                self._owns_ray = True
        self._actor_class = ray.remote(
            num_cpus=ACTOR_CPUS, max_restarts=0, scheduling_strategy="SPREAD"
        )(RayWorker)
        self.actors: list[Any] = []
        self._nodes: dict[Any, str] = {}  # actor -> the node it runs on
        try:
            problem = room_problem(ray, self.workers, ACTOR_CPUS)
            if problem is not None:
                raise WorkerError(problem)
            self.actors = [self._new_actor() for _ in range(self.workers)]
            self._wait_ready()
        except BaseException:
            self.close()
            raise

    def _wait_ready(self) -> None:
        """Wait until every actor has built its network: a cluster that cannot place them
        (too few CPUs) or build them (missing dependencies) is an error now, not a hang."""
        ray = self._ray
        try:
            placed = ray.get([a.placed.remote() for a in self.actors], timeout=START_TIMEOUT)
        except ray.exceptions.GetTimeoutError:
            raise WorkerError(
                f"the {self.workers} self-play actors did not start in {START_TIMEOUT:.0f} s: "
                f"they ask for {self.workers * ACTOR_CPUS} CPUs; the cluster has "
                f"{describe(ray)}"
            ) from None
        except ray.exceptions.RayError as error:
            line = str(error).strip().splitlines()[0] if str(error).strip() else "died"
            raise WorkerError(f"a self-play actor could not start: {line}") from None
        self._nodes = {actor: node for actor, (_, node) in zip(self.actors, placed, strict=True)}

    def _await_fate(self, actor: Any) -> None:
        """An actor that stops answering may be on a node being lost: wait until Ray says
        whether that node is gone (or ``NODE_SETTLE`` seconds pass)."""
        node = self._nodes.get(actor)
        deadline = time.monotonic() + NODE_SETTLE
        while node is not None and time.monotonic() < deadline:
            alive = {n["NodeID"] for n in self._ray.nodes() if n.get("Alive")}
            if node not in alive:
                return
            raise_if_interrupted()
            time.sleep(0.5)

    def _new_actor(self) -> Any:
        return self._actor_class.remote(self.config, ACTOR_CPUS)

    def _submit(self, index: int, weights: Any, games: int, seed: int) -> tuple[Any, Any]:
        """Send share ``index`` to its actor; the task's reference and that actor."""
        # A share whose actor was lost goes to one still alive (Ray queues it behind that
        # actor's own share); the seed goes with the share, so its games stay the same.
        actor = self.actors[index % len(self.actors)]
        ref = actor.play.remote(weights, games, seed, index)
        hook = type(self).after_submit
        if hook is not None:
            hook(index, actor)
        return ref, actor

    def _replace(self, dead: Any) -> str:
        """Put a new actor in place of ``dead``, or drop it when the cluster has no room for
        another; say which (for the warning line)."""
        ray = self._ray
        with contextlib.suppress(Exception):
            ray.kill(dead)
        self._nodes.pop(dead, None)
        slots = [i for i, actor in enumerate(self.actors) if actor is dead]
        if not slots:
            return "on an actor still alive"  # dropped already, for another share it had
        slot, survivors = slots[0], len(self.actors) - 1
        if survivors and room_problem(ray, survivors + 1, ACTOR_CPUS) is not None:
            del self.actors[slot]
            return f"on an actor still alive: no room for a new one ({describe(ray)})"
        self.actors[slot] = actor = self._new_actor()
        try:
            _, self._nodes[actor] = ray.get(actor.placed.remote(), timeout=START_TIMEOUT)
        except ray.exceptions.GetTimeoutError:
            if not survivors:
                raise WorkerError(
                    f"every self-play actor was lost and a new one did not start in "
                    f"{START_TIMEOUT:.0f} s; the cluster has {describe(ray)}"
                ) from None
            with contextlib.suppress(Exception):
                ray.kill(actor)
            del self.actors[slot]
            return "on an actor still alive: a new one did not start"
        except ray.exceptions.RayError:
            pass  # it died at once: the replayed share finds that out and tries again
        return "on a new actor"

    def _collect(
        self,
        pending: dict[Any, tuple[int, Any]],
        resend: Callable[[int], None],
        shares: list[int],
        results: dict[int, tuple],
        bar: Any,
    ) -> None:
        """Wait for every share into ``results``; one whose actor died is sent again."""
        ray = self._ray
        replays = [0] * len(shares)
        while pending:
            raise_if_interrupted()
            bar.refresh()  # the run's clock moves on while the shares are out
            done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for ref in done:
                index, actor = pending.pop(ref)
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
                    if isinstance(error, ray.exceptions.ActorUnavailableError):
                        self._await_fate(actor)
                    where = self._replace(actor)
                    log.warning(
                        "self-play actor %d died (%s); replaying its %d games %s",
                        index, reason, shares[index], where,
                    )  # fmt: skip
                    resend(index)
                    continue
                except ray.exceptions.RayTaskError as error:
                    cause = getattr(error, "cause", None) or error
                    line = f"{type(cause).__name__}: {cause}".strip().splitlines()[0]
                    raise WorkerError(f"self-play actor {index} failed: {line}") from None
                bar.update(shares[index])

    def play(self, num_games: int, rng: np.random.Generator) -> tuple[Examples, SelfPlayStats]:
        """Play ``num_games`` games on the actors with the learner's current weights."""
        if self._closed:
            raise WorkerError("the self-play actors are closed")
        ray = self._ray
        start = time.perf_counter()
        seed = int(rng.integers(2**63))
        shares = split_games(num_games, self.workers)
        weights = ray.put([np.asarray(w) for w in self.model.get_weights()])
        pending: dict[Any, tuple[int, Any]] = {}

        def send(index: int) -> None:
            ref, actor = self._submit(index, weights, shares[index], seed)
            pending[ref] = (index, actor)

        for index in range(len(shares)):
            send(index)
        results: dict[int, tuple] = {}
        bar = progress_bars.bar(
            num_games, f"self-play ({self.workers} Ray actors)", "game", enabled=self.progress
        )
        try:
            self._collect(pending, send, shares, results, bar)
        except KeyboardInterrupt:
            kept = [results[i] for i in sorted(results)]
            game = make(self.config.game.name, **self.config.game.params)
            examples, stats = merge(kept) if kept else (Examples.empty(game), SelfPlayStats())
            stats.seconds = time.perf_counter() - start
            raise SelfPlayInterrupted(examples, stats) from None
        finally:
            bar.close()
        examples, stats = merge([results[i] for i in range(len(shares))])
        stats.seconds = time.perf_counter() - start  # wall time, sending weights included
        return examples, stats

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
        if self._watch is not None:
            self._watch.close()

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["RayBackend"]
