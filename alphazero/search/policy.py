"""``process_policy``: the one door from the search to the network.

A ``Policy`` is any callable taking planes ``[B, H, W, C]`` (float32, each from the point of
view of its position's player to move) and returning ``(logits [B, num_actions], values [B])``,
the values for those same players. ``alphazero.network.model.InferenceModel`` is one; tests use
small pure-numpy ones.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from ..games.base import Game

Policy = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def process_policies(policy: Policy, games: Sequence[Game]) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate unfinished ``games`` in one network call.

    Returns move probabilities ``[B, num_actions]`` (illegal moves 0, each row summing to 1)
    and values ``[B]``, each for its game's player to move.
    """
    planes = games[0].encode_batch(games)
    logits, values = policy(planes)
    logits = np.asarray(logits, dtype=np.float64)[: len(games)]
    mask = games[0].mask_batch(games)
    logits = np.where(mask, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    return probs, np.asarray(values, dtype=np.float64).reshape(-1)[: len(games)]


def process_policy(policy: Policy, game: Game, player: int) -> tuple[np.ndarray, float]:
    """Evaluate one position: ``(probabilities [num_actions], value)`` for ``player``.

    ``player`` must be the player to move: the network always sees the position from the
    mover's side (``game.encode()``), and its value is for that player.
    """
    if player != game.player:
        raise ValueError(
            f"process_policy evaluates positions for the player to move ({game.player:+d}), "
            f"got player {player:+d}"
        )
    if game.score is not None:
        raise ValueError("process_policy needs a position where the game goes on")
    probs, values = process_policies(policy, [game])
    return probs[0], float(values[0])


def symmetric_policy(policy: Policy, game: Game) -> Policy:
    """``policy`` averaged over the symmetric copies of each position (``game.symmetries``).

    Each batch of planes ``[B, H, W, C]`` is evaluated as ``[B * S, H, W, C]``, the ``S``
    copies of every position side by side; each copy's logits are mapped back to the
    original moves and averaged (a geometric mean of the move probabilities), and the values
    are averaged too. The network was trained on all the copies, so this costs ``S`` times
    the inference and removes the part of its error that differs between them. ``game`` is
    any position of the game: the symmetries depend only on the board's shape.
    """
    probe = np.arange(game.num_actions, dtype=np.float64)
    plane_shape = game.encode().shape
    # Every symmetry only moves plane entries and moves around, so passing numbered probes
    # through ``game.symmetries`` once gives each copy as index arrays for the whole batch.
    numbered = np.arange(np.prod(plane_shape), dtype=np.float64).reshape(plane_shape)
    copies = game.symmetries(numbered, probe)
    if len(copies) == 1:
        return policy
    # Copy k's plane entry i is the original entry cells[k, i]; its move j is moves[k, j].
    cells = np.stack([planes.reshape(-1).astype(np.int64) for planes, _ in copies])
    moves = np.stack([actions.astype(np.int64) for _, actions in copies])
    for index, size in ((cells, numbered.size), (moves, game.num_actions)):
        if not np.array_equal(
            np.sort(index, axis=1), np.broadcast_to(np.arange(size), index.shape)
        ):
            raise ValueError(f"{game.name}: symmetries that are not permutations")

    def evaluate(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        batch, count = len(planes), len(cells)
        stacked = np.asarray(planes).reshape(batch, -1)[:, cells].reshape(-1, *plane_shape)
        logits, values = policy(stacked)
        logits = np.asarray(logits, dtype=np.float64)[: batch * count]
        logits = logits.reshape(batch, count, -1)
        original = np.empty_like(logits)
        for k, perm in enumerate(moves):
            original[:, k, perm] = logits[:, k]
        values = np.asarray(values, dtype=np.float64).reshape(-1)[: batch * count]
        return original.mean(axis=1), values.reshape(batch, count).mean(axis=1)

    return evaluate


class EvaluationCache:
    """``policy`` with its answers remembered by position, for positions searched twice.

    A search meets a position again through transpositions, and in the next move's search
    of the same game (Gumbel search starts each move afresh). The key is the planes' bytes,
    so any game works unchanged; the oldest of ``capacity`` entries goes first. The answers
    are the network's: a cache must not outlive the weights it was filled with (self-play
    makes one per call of ``play_games``). ``hits`` and ``lookups`` count positions.
    """

    def __init__(self, policy: Policy, capacity: int) -> None:
        self.policy = policy
        self.capacity = capacity
        self.entries: OrderedDict[bytes, tuple[np.ndarray, float]] = OrderedDict()
        self.hits = 0
        self.lookups = 0

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        planes = np.asarray(planes)
        keys = [row.tobytes() for row in planes]
        missing: dict[bytes, int] = {}  # each new position once, by its first row
        for i, key in enumerate(keys):
            if key not in self.entries and key not in missing:
                missing[key] = i
        if missing:
            rows = list(missing.values())
            logits, values = self.policy(planes[rows])
            logits = np.asarray(logits, dtype=np.float64)[: len(rows)]
            values = np.asarray(values, dtype=np.float64).reshape(-1)[: len(rows)]
            for key, row_logits, value in zip(missing, logits, values, strict=True):
                self.entries[key] = (row_logits, float(value))
        self.lookups += len(keys)
        self.hits += len(keys) - len(missing)
        answers = [self.entries[key] for key in keys]
        while len(self.entries) > self.capacity:
            self.entries.popitem(last=False)
        return np.stack([a[0] for a in answers]), np.array([a[1] for a in answers])
