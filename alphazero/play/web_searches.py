"""The page's searches: a few worker threads shared by every session, with at most one job
waiting per session (``SearchPool``), and a network that ends a search which nobody awaits
any more (``StoppableNetwork``).

However many tabs, or other sites' pages, start games, the searches running at once are at
most the pool's workers, and a session that ends (evicted, or a new game) stops its search
within one network call.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from ..search import Policy
from .web_errors import one_line
from .web_networks import Network

SEARCH_WORKERS = 4
"""Searches running at once. Python searches hold the interpreter lock: more threads than
this only share the same cores more thinly, and each one's tree takes memory."""
IDLE_SECONDS = 60.0
"""A worker with nothing to do for this long ends; the next job starts another."""
CLOSE_SECONDS = 10.0
"""How long ``SearchPool.close`` waits for each worker to finish the network call it is in."""

Job = Callable[[], None]


class SearchStopped(Exception):
    """The search's session no longer wants it: it ended, or started a new game."""


class StoppableNetwork:
    """A network (or the search's cached view of it) that asks ``stop`` before every call and
    raises ``SearchStopped`` once it says yes. A search asks it once per step that evaluates a
    position, so a stopped search ends within a step (or a run of steps that only reach
    finished games), and the check is one comparison."""

    def __init__(self, network: Network | Policy, stop: Callable[[], bool]) -> None:
        self._network = network
        self._stop = stop

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._stop():
            raise SearchStopped
        return self._network(planes)

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._stop():
            raise SearchStopped
        return self._network.evaluate(planes)  # type: ignore[union-attr]  # a Network


class SearchPool:
    """``workers`` threads running the sessions' jobs (a model's load, its moves, a hint).

    Each session (``key``) has at most one job waiting: a newer one replaces it, since the
    older one belonged to a game that is gone. A session's jobs never run two at a time, so a
    worker never sits waiting for another worker's search of the same session. Workers start
    as jobs come and end when idle; ``close`` ends them all.
    """

    def __init__(self, workers: int = SEARCH_WORKERS) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self._waiting: OrderedDict[str, Job] = OrderedDict()
        self._running: set[str] = set()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._started = 0
        self._changed = threading.Condition()
        self._closed = False

    def submit(self, key: str, job: Job) -> None:
        """Run ``job`` for session ``key`` once a worker is free (after the session's running
        job, if any); a job of ``key`` still waiting is dropped. Nothing runs once closed."""
        with self._changed:
            if self._closed:
                return
            self._waiting.pop(key, None)
            self._waiting[key] = job
            if len(self._threads) < self.workers and self._idle < len(self._waiting):
                self._started += 1
                thread = threading.Thread(
                    target=self._serve, name=f"search-{self._started}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            self._changed.notify_all()

    def drop(self, key: str) -> None:
        """Forget session ``key``'s waiting job (its running one is stopped by its network)."""
        with self._changed:
            self._waiting.pop(key, None)

    def waiting(self) -> int:
        with self._changed:
            return len(self._waiting)

    def running(self) -> int:
        with self._changed:
            return len(self._running)

    def close(self, seconds: float = CLOSE_SECONDS) -> None:
        """Drop the waiting jobs and end the workers, each once its job returns (the sessions
        stop their searches first, so that is within a network call)."""
        with self._changed:
            self._closed = True
            self._waiting.clear()
            self._changed.notify_all()
            threads = list(self._threads)
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(seconds)

    def _next(self) -> tuple[str, Job] | None:
        """The oldest waiting job of a session with none running; called with the lock held."""
        for key in self._waiting:
            if key not in self._running:
                return key, self._waiting.pop(key)
        return None

    def threads(self) -> int:
        with self._changed:
            return len(self._threads)

    def _serve(self) -> None:
        while True:
            with self._changed:
                found = self._next()
                while found is None and not self._closed:
                    self._idle += 1
                    woken = self._changed.wait(IDLE_SECONDS)
                    self._idle -= 1
                    found = self._next()
                    if found is None and not woken:
                        self._threads.remove(threading.current_thread())
                        return
                if self._closed:
                    return
                assert found is not None
                key, job = found
                self._running.add(key)
            try:
                job()
            except Exception as error:  # the jobs report their own errors: this is a bug
                print(f"error: search of session {key[:6]}: {one_line(error)}", file=sys.stderr)
            finally:
                with self._changed:
                    self._running.discard(key)
                    self._changed.notify_all()
