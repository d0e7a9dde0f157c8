"""Choosing the move to play once a search is done: small functions, as in mctx.

``Node.next`` (PUCT) and the Gumbel search compose them: ``candidates`` applies the proven
results, ``by_visits`` the temperature, ``detach`` makes the chosen child the new root.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, NamedTuple, Protocol, Self, TypeVar

import numpy as np

from ..games.base import Game


class SearchedNode(Protocol):
    """What choosing a move reads of a node of a searched tree; ``node.Node`` is one. Written
    out here, not imported: ``Node.next`` is made of this module's functions."""

    action: int | None
    N: int
    V: float
    prob: float
    outcome: float | None
    solved: float | None
    plies: int | None
    mother: Self | None
    children: Mapping[int, Self]

    @property
    def game(self) -> Game: ...

    def search_value(self) -> float: ...


NodeT = TypeVar("NodeT", bound=SearchedNode)


class Choice(NamedTuple, Generic[NodeT]):
    """A move chosen by a search."""

    node: NodeT
    """The chosen child, now a root."""
    action: int
    value: float
    """Search value of the position before the move, for its player to move."""
    policy: np.ndarray
    """The policy target ``[num_actions]``: visit shares (PUCT) or the improved policy
    (Gumbel)."""


def visit_distribution(node: SearchedNode) -> np.ndarray:
    """The children's visit shares ``[num_actions]`` (0 for illegal moves)."""
    if not node.children:
        raise ValueError("next() needs an explored node with at least one child")
    visits = np.zeros(node.game.num_actions, dtype=np.float32)
    for child in node.children.values():
        visits[child.action] = child.N
    total = visits.sum()
    if total <= 0:
        raise ValueError("next() needs at least one visited child: run explore() first")
    return visits / total


def winning_children(node: NodeT) -> list[NodeT]:
    """The children proven won for ``node``'s mover, those that end the game first."""
    wins = [c for c in node.children.values() if c.outcome == 1.0]
    return sorted(wins, key=lambda c: c.game.score is None)


def quickest_win(node: NodeT) -> NodeT:
    """At a proven win: the child whose proof is shortest (the most searched among those)."""
    return min(winning_children(node), key=lambda c: (c.plies, -c.N))  # type: ignore[arg-type, return-value]


def candidates(node: NodeT) -> list[NodeT]:
    """The children a move may be chosen from, given what the search has proven.

    Never a move proven lost while another is not (temperature would otherwise sample
    blunders into the training games); at a proven draw only the moves that keep it; at a
    proven loss those that lose last along the proofs found, which leave a fallible opponent
    the most room to go wrong. (A proven win is ``quickest_win``'s.)
    """
    children = list(node.children.values())
    if node.solved is None:
        return [c for c in children if c.outcome != -1.0] or children
    pool = [c for c in children if c.outcome == node.solved] or children
    if node.solved == -1.0:
        longest = max(c.plies for c in pool)  # type: ignore[type-var]
        pool = [c for c in pool if c.plies == longest]
    return pool


def by_visits(
    pool: list[NodeT],
    tau: float,
    rng: np.random.Generator,
) -> NodeT:
    """A child of ``pool`` by visit counts sharpened by temperature ``tau``.

    ``tau`` near 0 takes the most visited (ties broken at random); ``tau = 1`` samples in
    proportion to visits.
    """
    counts = np.array([c.N for c in pool], dtype=np.float64)
    if counts.max() <= 0:
        counts = np.array([c.prob for c in pool], dtype=np.float64)
    if counts.max() <= 0:  # priors that underflowed to zero: no move is preferred
        counts = np.ones(len(pool))
    if tau < 1e-3:
        top = np.flatnonzero(counts == counts.max())
        return pool[int(rng.choice(top))]
    weights = (counts / counts.max()) ** (1.0 / tau)
    return pool[int(rng.choice(len(pool), p=weights / weights.sum()))]


def detach(
    root: SearchedNode, chosen: NodeT, policy: np.ndarray, value: float | None = None
) -> Choice[NodeT]:
    """Make ``chosen`` a root of its own (its subtree kept, the rest released); ``value``
    defaults to ``root.search_value()``."""
    value = root.search_value() if value is None else value
    chosen.game  # noqa: B018 (made now if it was not: it is made from the mother's position)
    chosen.mother = None
    return Choice(chosen, chosen.action, value, policy)  # type: ignore[arg-type]
