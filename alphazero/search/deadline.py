"""A PUCT search that runs until it is told to stop: play's time budgets (``--move-time``).

``search_until`` searches one root a chunk of simulations at a time and asks ``stop`` after
each chunk whether to go on. The search itself is the one ``search`` runs: the same
``puct_policy`` steps, the same tree, so that stopped after ``S`` simulations it has built
exactly the tree, and chooses exactly the move, of ``search(..., simulations=S)``. A clock
only decides ``S``; what ``S`` simulations find does not depend on it.

Gumbel's search cannot stop when told: its sequential halving plans how to share the
simulations among the root's moves before the first one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .batched import search_step
from .collector import rare_full_collections
from .node import Node
from .params import SearchParams
from .policies import SearchOutput, puct_policy
from .policy import Policy

CHUNK = 32
"""Simulations between two questions to ``stop``, and the fewest a search runs."""
MOST = 1_000_000
"""Simulations at most, whatever ``stop`` says: a tree grows with them, without bound
(``player_specs.MAX_SIMULATIONS``)."""


def search_until(
    root: Node,
    evaluator: Policy,
    params: SearchParams,
    stop: Callable[[int], bool],
    rng: np.random.Generator,
    *,
    chunk: int = CHUNK,
    most: int = MOST,
) -> SearchOutput:
    """Search ``root`` with PUCT until ``stop(simulations done)`` is true, asked once every
    ``chunk`` simulations (so at least ``chunk`` run), or the root's result is proven, or
    ``most`` are done; then choose the move as a search for play does (no noise, the most
    visited move, ``rng`` breaking ties).

    Stopped after ``S`` simulations, the tree and the move are those of ``search([root],
    evaluator, params, S, rng)`` from the same root and generator: a simulation's steps do
    not depend on how many are still to come, except at the last step, which here ends at a
    step's end too. ``SearchOutput`` as ``search`` returns it, for the one root.
    """
    if params.algorithm != "puct":
        raise ValueError(
            "a search with a time budget needs the puct search: Gumbel's sequential halving "
            "plans its simulations before the first"
        )
    if chunk < 1 or most < 1:
        raise ValueError(f"chunk and most must be at least 1, got {chunk} and {most}")
    with rare_full_collections:
        running = puct_policy(params).begin(root, most, rng)
        if root.game.score is not None:
            running.remaining = 0
        calls = 0
        asked_at = chunk
        while running.remaining:
            calls += search_step([running], evaluator)
            done = most - running.remaining
            if done < asked_at:
                continue
            if root.solved is not None or stop(done):
                break
            asked_at = done + chunk - (done - asked_at) % chunk  # the next whole chunk
        choice = running.choose(0.0, rng)
    return SearchOutput(
        actions=np.array([choice.action], dtype=np.int64),
        policies=np.asarray(choice.policy, dtype=np.float32).reshape(1, -1),
        values=np.array([choice.value], dtype=np.float64),
        roots=(running.node,),
        chosen=(choice.node,),
        network_calls=calls,
    )
