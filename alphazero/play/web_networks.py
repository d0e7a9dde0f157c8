"""The models the page plays with: each loaded once per (model, game) and shared by every
session that plays it, its calls serialised (``Networks``, ``SharedNetwork``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np

from ..games.base import Game
from ..network.inference import load_inference


class Network(Protocol):
    """What the search needs of a model: ``planes -> (logits, values)``; ``evaluate`` gives the
    win / draw / loss estimates (see ``ModelPlayer``)."""

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


NetworkLoader = Callable[[Path, Game], Network]


def load_network(path: Path, game: Game, engine: str = "tensorflow") -> Network:
    """The model at ``path`` (a run folder or a ``.keras`` file) for ``game``, ready to search
    one position at a time, run by ``engine``; ``CheckpointError`` with a one-line reason if
    it cannot be used."""
    # Sessions search one position at a time: batches stay small (a few leaves, symmetric: 8
    # copies of each).
    return load_inference(path, game, max_batch=64, engine=engine)


class SharedNetwork:
    """One loaded model, shared by every session that plays with it.

    Calls are serialised: ``InferenceModel`` traces its functions and builds its bfloat16 copy
    on first use, which is not safe from two threads, and two searches on two cores gain
    little from running their network calls at the same moment.
    """

    def __init__(self, network: Network) -> None:
        self._network = network
        self._lock = threading.Lock()

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            return self._network(planes)

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            return self._network.evaluate(planes)


class Networks:
    """Models loaded once per (model, game) and shared across sessions."""

    def __init__(self, loader: NetworkLoader = load_network) -> None:
        self._loader = loader
        self._loaded: dict[tuple[str, str, tuple[tuple[str, int], ...]], SharedNetwork] = {}
        self._lock = threading.Lock()
        """Guards ``_loaded``, held only for a look-up: a session starting a game asks whether
        its model is loaded while another model loads."""
        self._load_lock = threading.Lock()
        """One load at a time: a second session asking for a model being loaded waits for it
        rather than loading a copy."""

    @staticmethod
    def _key(path: Path, game: Game) -> tuple[str, str, tuple[tuple[str, int], ...]]:
        return str(path.resolve()), game.name, tuple(sorted(game.params.items()))

    def is_loaded(self, path: Path, game: Game) -> bool:
        with self._lock:
            return self._key(path, game) in self._loaded

    def get(self, path: Path, game: Game) -> SharedNetwork:
        """The shared model, loaded on first use."""
        key = self._key(path, game)
        with self._lock:
            network = self._loaded.get(key)
        if network is not None:
            return network
        with self._load_lock:
            with self._lock:
                network = self._loaded.get(key)
            if network is None:
                network = SharedNetwork(self._loader(path, game))
                with self._lock:
                    self._loaded[key] = network
            return network
