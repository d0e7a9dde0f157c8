"""Many trees searched at once: every step, one leaf (or a few) per tree, one network call.

This is where self-play and evaluation spend their time. A step walks each tree to a leaf
(each root's ``RootSearch.walk``: the search policy's selection), evaluates all the leaves
that need the network in one ``process_policies`` call, then ``expand``s them and
``backup``s every path. Finished and proven leaves skip the network. The driver knows
nothing of PUCT or Gumbel: a policy (``policies.py``) makes each root's ``RootSearch``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .choice import Choice
from .collector import rare_full_collections
from .node import Node, backup, expand, needs_evaluation, revert
from .policy import Policy, process_policies


@dataclass(eq=False)
class RootSearch:
    """One root's search in progress, as a search policy began it (``SearchPolicy.begin``)."""

    node: Node
    """The root searched (for Gumbel a fresh copy of the node it was given)."""
    remaining: int
    """Simulations still to run; ``search_step`` counts them down."""
    walk: Callable[[], list[Node]]
    """One simulation's selection: the path ``[root, ..., leaf]``, visits counted."""
    choose: Callable[[float, np.random.Generator], Choice]
    """Once the search is done, ``choose(tau, rng)``: the move to play,
    detached with its subtree as the new root. PUCT samples by visits sharpened by
    temperature ``tau`` (``Node.next``); Gumbel's root noise has already decided."""
    leaves: int = 1
    """Leaves selected per step (a virtual loss keeps them apart)."""
    virtual_loss: float = 0.0
    noise: Callable[[Node], None] | None = None
    """Root noise still to add, once the root has children (then set to None)."""

    def add_noise_if_due(self) -> None:
        """Give the root its noise if it is due and has children to take it."""
        if self.noise is not None and self.node.children:
            noise, self.noise = self.noise, None
            noise(self.node)


def run(searches: Sequence[RootSearch], policy: Policy) -> int:
    """Run every search to its end; return the network calls made."""
    calls = 0
    for search in searches:
        if search.node.game.score is not None:
            search.remaining = 0
    while any(search.remaining for search in searches):
        calls += search_step(searches, policy)
    return calls


def search_step(searches: Sequence[RootSearch], policy: Policy) -> int:
    """One step of the search over many trees; return the network calls made (0 or 1).

    Each search with simulations left gets up to ``leaves`` leaves selected (its
    ``remaining`` decreased); the leaves that need the network are evaluated in one call,
    expanded, and every path is backed up. Callers that move a game on as soon as its own
    search is done (self-play) call this directly, so the batch stays full.

    Root noise is added here and nowhere else: before a root's first selection if it has
    children already (a subtree kept from the last move), else as it is expanded.
    The garbage collector's full collections are rare meanwhile (``collector.py``).
    """
    with rare_full_collections:
        paths: list[tuple[list[Node], float]] = []
        pending: dict[int, Node] = {}  # leaves to evaluate this step, by identity
        for search in searches:
            search.add_noise_if_due()
            for _ in range(min(search.leaves, search.remaining)):
                path = search.walk()
                leaf = path[-1]
                if needs_evaluation(leaf):
                    if id(leaf) in pending:  # picked twice: give the simulation back
                        revert(path, search.virtual_loss)
                        break
                    pending[id(leaf)] = leaf
                paths.append((path, search.virtual_loss))
                search.remaining -= 1
        values: dict[int, float] = {}
        if pending:
            leaves = list(pending.values())
            priors, leaf_values = process_policies(policy, [leaf.game for leaf in leaves])
            for leaf, prior, value in zip(leaves, priors, leaf_values, strict=True):
                expand(leaf, prior, float(value))
                values[id(leaf)] = float(value)
            for search in searches:  # the roots expanded just now
                if id(search.node) in pending:
                    search.add_noise_if_due()
        for path, loss in paths:
            leaf = path[-1]
            # A proof found on expansion beats the network's estimate.
            value = leaf.solved if leaf.solved is not None else values[id(leaf)]
            backup(path, value, loss)
        return 1 if pending else 0
