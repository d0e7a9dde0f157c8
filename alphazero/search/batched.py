"""Many trees searched at once: every step, one leaf (or a few) per tree, one network call.

This is where self-play and evaluation spend their time. A step walks each tree to a leaf
(``select``), evaluates all the leaves that need the network in one ``process_policies`` call,
then ``expand``s them and ``backup``s every path. Finished and proven leaves skip the network.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from .collector import rare_full_collections
from .node import (
    Node,
    add_dirichlet_noise,
    backup,
    expand,
    needs_evaluation,
    revert,
    select,
)
from .policy import Policy, process_policies

Selector = Callable[[Node], list[Node]]
"""Walks one tree from its root to a leaf, counting the visits: ``[root, ..., leaf]``."""


def run_simulations(
    roots: Sequence[Node],
    policy: Policy,
    simulations: int | Sequence[int],
    c_puct: float,
    *,
    leaves_per_tree: int = 1,
    virtual_loss: float = 1.0,
    noise: tuple[Any, ...] | None = None,
    noise_roots: Collection[Node] | None = None,
    selector: Selector | None = None,
) -> int:
    """Run more simulations on each root; return the network calls made.

    ``simulations`` is one count for every root or one per root. The first simulation of a
    fresh root evaluates the root itself (as ``explore`` does), so a fresh root ends with
    ``N == simulations``. ``noise = (alpha, weight, rng[, alpha_is_total])`` mixes Dirichlet
    noise into the priors of each root (or only of ``noise_roots``) once they exist. With
    ``leaves_per_tree > 1`` a virtual loss of ``virtual_loss`` keeps the leaves of one step
    apart. ``selector`` replaces PUCT's ``select`` (Gumbel search: ``gumbel.py``).
    """
    counts = [simulations] * len(roots) if isinstance(simulations, int) else list(simulations)
    noise_due = (
        set() if noise is None else {id(r) for r in (roots if noise_roots is None else noise_roots)}
    )
    remaining = [n if root.game.score is None else 0 for n, root in zip(counts, roots, strict=True)]
    calls = 0
    while any(remaining):
        calls += search_step(
            roots,
            policy,
            remaining,
            c_puct,
            leaves_per_tree=leaves_per_tree,
            virtual_loss=virtual_loss,
            noise=noise,
            noise_due=noise_due,
            selector=selector,
        )
    return calls


def search_step(
    roots: Sequence[Node],
    policy: Policy,
    remaining: list[int],
    c_puct: float,
    *,
    leaves_per_tree: int = 1,
    virtual_loss: float = 1.0,
    noise: tuple[Any, ...] | None = None,
    noise_due: set[int] | None = None,
    selector: Selector | None = None,
) -> int:
    """One step of the search over many trees; return the network calls made (0 or 1).

    Each root with simulations left (``remaining [B]``, decreased in place) gets up to
    ``leaves_per_tree`` leaves selected; the leaves that need the network are evaluated in
    one call, expanded, and every path is backed up. Callers that move a game on as soon as
    its own search is done (self-play) call this directly, so the batch stays full.

    Root noise is added here and nowhere else: a root in ``noise_due`` (by ``id``) gets
    Dirichlet ``noise`` once it has children, before its first selection if it has them
    already (a subtree kept from the last move), else as it is expanded; its ``id`` then
    leaves the set.
    ``selector`` walks each tree instead of PUCT's ``select`` (which the virtual loss is for).
    The garbage collector's full collections are rare meanwhile (``collector.py``).
    """
    with rare_full_collections:
        loss = virtual_loss if leaves_per_tree > 1 else 0.0
        if selector is not None:
            loss = 0.0
        paths: list[list[Node]] = []
        pending: dict[int, Node] = {}  # leaves to evaluate this step, by identity
        for i, root in enumerate(roots):
            _add_noise_if_due(root, noise, noise_due)
            for _ in range(min(leaves_per_tree, remaining[i])):
                path = selector(root) if selector is not None else select(root, c_puct, loss)
                leaf = path[-1]
                if needs_evaluation(leaf):
                    if id(leaf) in pending:  # picked twice: give the simulation back
                        revert(path, loss)
                        break
                    pending[id(leaf)] = leaf
                paths.append(path)
                remaining[i] -= 1
        values: dict[int, float] = {}
        if pending:
            leaves = list(pending.values())
            priors, leaf_values = process_policies(policy, [leaf.game for leaf in leaves])
            for leaf, prior, value in zip(leaves, priors, leaf_values, strict=True):
                expand(leaf, prior, float(value))
                if leaf.mother is None:
                    _add_noise_if_due(leaf, noise, noise_due)
                values[id(leaf)] = float(value)
        for path in paths:
            leaf = path[-1]
            # A proof found on expansion beats the network's estimate.
            value = leaf.solved if leaf.solved is not None else values[id(leaf)]
            backup(path, value, loss)
        return 1 if pending else 0


def _add_noise_if_due(root: Node, noise: tuple[Any, ...] | None, due: set[int] | None) -> None:
    """Give ``root`` its Dirichlet noise if it is due one and has children to take it."""
    if noise is not None and due and root.children and id(root) in due:
        due.discard(id(root))
        add_dirichlet_noise(root, *noise)
