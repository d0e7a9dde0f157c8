"""Self-play in long-lived worker processes on this machine, one learner feeding them weights.

``ProcessBackend`` starts ``selfplay.workers`` processes (``spawn``: forking a process whose
TensorFlow is already running is unsafe). Each builds the game's network once; every
``play`` sends them the learner's current weights, their share of the games and a seed,
and merges what they send back in worker order, so a run is reproducible for a given
random state and worker count. Each game's examples are sent as it ends, so that Ctrl-C
keeps the games finished so far (``SelfPlayInterrupted``).

Each worker's TensorFlow is limited to ``cores // workers`` intra-op threads: left at its
default, every process's thread pool spans every core and the processes slow each other
down (measured in ``benchmarks/selfplay.py --workers``).

``SelfPlayWorker`` is the part both this backend and the Ray one run inside a worker.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np
from tqdm import tqdm

from ..config import Config
from ..games import make
from ..progress import bars as progress_bars
from ..progress.eta import report_moves
from ..selfplay.loop import play_games
from ..selfplay.results import Examples, FinishedGames, SelfPlayStats
from ..training.interrupts import raise_if_interrupted, sigint_ignored
from .base import SelfPlayInterrupted, WorkerError, merge, split_games

START_TIMEOUT = 300.0
"""Seconds a worker may take to import TensorFlow and build its network."""
MOVES_INTERVAL = 1.0
"""Seconds between a worker's reports of its moves played (for the driver's ETA)."""


def available_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def threads_per_worker(workers: int) -> int:
    """TensorFlow intra-op threads for each of ``workers`` processes sharing this machine."""
    return max(1, available_cores() // max(workers, 1))


def limit_tensorflow_threads(threads: int) -> None:
    """Cap TensorFlow's intra-op thread pool (and its inter-op pool, to 1-2 threads).

    Must run before TensorFlow executes its first op in this process; later it does nothing.
    """
    from ..network import tf_setup  # noqa: F401  (imports TensorFlow quietly)

    # isort: split

    import tensorflow as tf

    with contextlib.suppress(RuntimeError):  # the runtime already started: keep its pools
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(min(threads, 2))


class SelfPlayWorker:
    """What runs inside one worker: the game, its network (built once) and the inference.

    ``play(weights, num_games, seed, index)`` loads the learner's weights and plays the
    games with the random generator ``default_rng([seed, index])``.
    """

    def __init__(self, config: Config, threads: int | None = None, warmup: bool = True) -> None:
        if threads:
            limit_tensorflow_threads(threads)
        from ..network import tf_setup  # noqa: F401  (imports TensorFlow quietly, so it comes first)
        from ..network.model import InferenceModel, build_network

        self.config = config
        game = self.new_game()
        self.model = build_network(game.plane_shape, game.num_actions, config.network)
        self.inference = InferenceModel(
            self.model,
            max_batch=config.selfplay.parallel_games,
            precision=config.search.inference_precision,
        )
        if warmup:  # trace every batch size now, while the learner sets up, not mid-game
            self.inference.warmup()

    def ready(self) -> int:
        """The worker's process id, once it is built (Ray actors are built asynchronously)."""
        return os.getpid()

    def new_game(self):
        return make(self.config.game.name, **self.config.game.params)

    def set_weights(self, weights: list[np.ndarray]) -> None:
        self.model.set_weights(weights)
        self.inference.weights_changed()  # this model has no optimizer step to show it

    def play(
        self,
        weights: list[np.ndarray] | None,
        num_games: int,
        seed: int,
        index: int,
        on_game: Callable[[Examples, SelfPlayStats], None] | None = None,
        on_step: Callable[[int], None] | None = None,
    ) -> tuple[Examples, SelfPlayStats]:
        """Play ``num_games`` games (after loading ``weights``, unless None); ``on_game`` and
        ``on_step`` as in ``play_games``."""
        if weights is not None:
            self.set_weights(weights)
        rng = np.random.default_rng([seed, index])
        return play_games(
            self.new_game,
            self.inference,
            num_games,
            self.config.search,
            self.config.selfplay,
            rng,
            progress=False,
            on_game=on_game,
            on_step=on_step,
        )


# ----------------------------------------------------------------------- worker process
def _every(seconds: float, call: Callable[[int], None]) -> Callable[[int], None]:
    """``call``, skipped when it was made less than ``seconds`` ago (a search step can take
    a millisecond: a message each would flood the pipe)."""
    last = [-seconds]

    def throttled(value: int) -> None:
        now = time.monotonic()
        if now - last[0] >= seconds:
            last[0] = now
            call(value)

    return throttled


def _exit_with_parent(parent: int) -> None:
    """End this worker if the driver goes away without saying so (killed, crashed)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)


def _quiet_tensorflow() -> None:
    """No TensorFlow warnings (retracing notices) from workers on the driver's terminal."""
    from ..network import tf_setup  # noqa: F401  (imports TensorFlow quietly)

    # isort: split

    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")


def _worker_main(index: int, config: Config, threads: int, conn: Connection, parent: int) -> None:
    """A worker's life: build once, then play each job sent, until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    # tqdm's default lock holds a multiprocessing semaphore, which a worker terminated
    # mid-job cannot release: the driver's exit would warn of "leaked semaphore objects".
    # A worker's bars only count games, in one thread, so a thread lock serves.
    tqdm.set_lock(threading.RLock())
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    try:
        _quiet_tensorflow()
        worker = SelfPlayWorker(config, threads)
        conn.send(("ready", os.getpid()))

        # Each game's examples as it ends; the driver puts them together in this order,
        # which is the order of the examples play returns, so they are not sent again.
        def on_game(examples: Examples, so_far: SelfPlayStats) -> None:
            conn.send(("game", examples, so_far))

        while True:
            job = conn.recv()
            if job is None:
                break
            weights, num_games, seed = job
            on_step = _every(MOVES_INTERVAL, lambda moves: conn.send(("moves", moves)))
            _, stats = worker.play(weights, num_games, seed, index, on_game, on_step)
            conn.send(("result", stats))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        pass  # the driver is gone or closing
    except BaseException as error:
        with contextlib.suppress(Exception):
            line = f"{type(error).__name__}: {error}".splitlines()[0]
            conn.send(("error", line, traceback.format_exc()))
    finally:
        conn.close()


# ----------------------------------------------------------------------- the driver's side
class ProcessBackend:
    """Self-play in ``config.selfplay.workers`` processes, with the learner's weights."""

    in_process = False

    def __init__(
        self, config: Config, model: Any, progress: bool, threads: int | None = None
    ) -> None:
        self.config = config
        self.model = model
        self.progress = progress
        self.workers = config.selfplay.workers
        self.threads = threads or threads_per_worker(self.workers)
        context = multiprocessing.get_context("spawn")
        self._processes: list[Any] = []
        self._conns: list[Connection] = []
        self._closed = False
        self._busy = False
        self._finalizer = weakref.finalize(self, _stop, self._processes, self._conns, False)
        with sigint_ignored():  # children start (and stay) deaf to Ctrl-C
            for index in range(self.workers):
                ours, theirs = context.Pipe()
                process = context.Process(
                    target=_worker_main,
                    args=(index, config, self.threads, theirs, os.getpid()),
                    name=f"alphazero-selfplay-{index}",
                    daemon=True,
                )
                process.start()
                theirs.close()
                self._processes.append(process)
                self._conns.append(ours)
        try:
            self._wait_ready()
        except BaseException:
            self.close()
            raise

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids."""
        return [process.pid for process in self._processes]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        waiting = set(range(self.workers))
        while waiting:
            if time.monotonic() > deadline:
                raise WorkerError(
                    f"self-play workers {sorted(waiting)} did not start in {START_TIMEOUT:.0f} s"
                )
            for index, message in self._receive(waiting, timeout=1.0):
                if message[0] == "ready":
                    waiting.discard(index)

    def _receive(self, indices: set[int], timeout: float) -> list[tuple[int, tuple]]:
        """Messages from the workers ``indices``; a dead or failed worker raises WorkerError."""
        conns = {self._conns[i]: i for i in indices}
        sentinels = {self._processes[i].sentinel: i for i in indices}
        ready = wait([*conns, *sentinels], timeout)
        messages = []
        for item in ready:
            if item in conns:
                index = conns[item]
                try:
                    message = item.recv()
                except (EOFError, OSError):
                    raise self._died(index) from None
                if message[0] == "error":
                    error = WorkerError(f"self-play worker {index} failed: {message[1]}")
                    error.details = message[2]  # the worker's traceback
                    raise error
                messages.append((index, message))
        done = {index for index, message in messages if message[0] in ("ready", "result")}
        for item in ready:
            index = sentinels.get(item)
            if index is not None and index not in done and not self._conns[index].poll():
                raise self._died(index)  # exited with nothing left to say
        return messages

    def _died(self, index: int) -> WorkerError:
        process = self._processes[index]
        process.join(timeout=1.0)
        code = process.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return WorkerError(f"self-play worker {index} (pid {process.pid}) died ({how})")

    def play(self, num_games: int, rng: np.random.Generator) -> tuple[Examples, SelfPlayStats]:
        """Play ``num_games`` games in the workers with the learner's current weights."""
        if self._closed:
            raise WorkerError("the self-play workers are closed")
        start = time.perf_counter()
        seed = int(rng.integers(2**63))
        shares = split_games(num_games, self.workers)
        weights = [np.asarray(w) for w in self.model.get_weights()]
        self._busy = True
        bar = progress_bars.bar(
            num_games, f"self-play ({self.workers} workers)", "game", enabled=self.progress
        )
        finished = [FinishedGames() for _ in shares]
        moves = [0] * len(shares)
        try:
            for index, games in enumerate(shares):
                if not self._processes[index].is_alive():
                    raise self._died(index)
                try:
                    self._conns[index].send((weights, games, seed))
                except (BrokenPipeError, ConnectionResetError, EOFError):
                    raise self._died(index) from None
            results: dict[int, SelfPlayStats] = {}
            pending = set(range(len(shares)))
            while pending:
                raise_if_interrupted()
                for index, message in self._receive(pending, timeout=1.0):
                    if message[0] == "moves":
                        moves[index] = message[1]
                        report_moves(sum(moves))
                    elif message[0] == "game":
                        finished[index].add(message[1], message[2])
                        bar.update(1)
                    elif message[0] == "result":
                        results[index] = message[1]
                        pending.discard(index)
                bar.refresh()  # the run's clock moves on between games too
        except KeyboardInterrupt:
            self.close()
            examples, stats = self._finished(finished)
            stats.seconds = time.perf_counter() - start
            raise SelfPlayInterrupted(examples, stats) from None
        except BaseException:
            self.close()  # workers mid-job, or dead: none can be trusted with the next one
            raise
        finally:
            bar.close()
        self._busy = False
        game = make(self.config.game.name, **self.config.game.params)
        examples, stats = merge(
            [(finished[i].result(game)[0], results[i]) for i in range(len(shares))]
        )
        stats.seconds = time.perf_counter() - start  # wall time, sending weights included
        return examples, stats

    def _finished(self, finished: list[FinishedGames]) -> tuple[Examples, SelfPlayStats]:
        """The games the workers had finished, in worker order, and their statistics."""
        game = make(self.config.game.name, **self.config.game.params)
        return merge([part.result(game) for part in finished])

    def close(self) -> None:
        """Stop the workers (at once if they are mid-job); safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self._finalizer.detach()
        _stop(self._processes, self._conns, not self._busy)

    def __enter__(self) -> ProcessBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _stop(processes: list[Any], conns: list[Connection], politely: bool) -> None:
    """Ask idle workers to stop; terminate, then kill, whatever is still running."""
    if politely:
        for conn in conns:
            with contextlib.suppress(OSError, ValueError):
                conn.send(None)
        deadline = time.monotonic() + 5.0
        for process in processes:
            process.join(timeout=max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=2.0)
        if process.is_alive():
            process.kill()
            process.join(timeout=2.0)
    for conn in conns:
        conn.close()


__all__ = [
    "ProcessBackend",
    "SelfPlayWorker",
    "WorkerError",
    "limit_tensorflow_threads",
    "threads_per_worker",
]
