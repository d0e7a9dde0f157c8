"""Search policies and the one entry point, ``search``, in the manner of mctx's policies.

A policy is how a search begins at a root: which child each simulation walks into at the
root and below it (handed to the generic ``select`` of ``node.py``), what root noise it
takes, and how the move is chosen once the search is done. The driver (``batched.py``) is
the same for both:

* ``puct_policy``: AlphaZero's. PUCT's ``U`` at the root and below, Dirichlet noise at
  roots that explore, the most visited move (or a sample by visits), the visit shares as
  the policy target.
* ``gumbel_policy``: Gumbel AlphaZero's (``gumbel.py``). Sequential halving among
  Gumbel-top-k sampled moves at the root, the improved policy's deterministic choice below,
  the halving's survivor as the move and the improved policy as the target.

``make_policy(params)`` picks the one ``params.algorithm`` names; another policy is passed to
``search`` as ``policy``. ``search`` runs many roots at once and returns a ``SearchOutput``;
self-play begins each root's search itself, as its games move on one by one
(``SearchPolicy.begin``, ``batched.search_step``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .batched import RootSearch, run
from .choice import Choice
from .collector import rare_full_collections
from .gumbel import GumbelRoot, gumbel_choice, reroot, select_child
from .node import Node, add_dirichlet_noise, puct_child, select
from .params import SearchParams
from .policy import Policy

Begin = Callable[[Node, int, "np.random.Generator | None", bool, bool], RootSearch]

VIRTUAL_LOSS = 1.0
"""The loss a selected path holds until its value is backed up, when PUCT selects several
leaves of one tree per network call (``leaves_per_tree``): a whole loss, so that the next
selection of the step looks elsewhere. Self-play selects one; play may select several
(``play.py --leaves``). No study varied it."""


@dataclass(frozen=True)
class SearchPolicy:
    """A search policy: ``begin`` starts one root's search (see ``puct_policy``)."""

    params: SearchParams
    begin_search: Begin

    def begin(
        self,
        node: Node,
        simulations: int,
        rng: np.random.Generator | None = None,
        *,
        recorded: bool = False,
        sampled: bool = False,
    ) -> RootSearch:
        """Begin a search of ``simulations`` at ``node``.

        ``recorded``: the search's result becomes a training example (PUCT adds its root
        noise, drawn from ``rng``). ``sampled``: its move is a sample, not the best one
        (Gumbel draws its root noise from ``rng``, which makes the survivor a sample from
        the improved policy). Neither: a deterministic search, for play and evaluation.
        """
        return self.begin_search(node, simulations, rng, recorded, sampled)


def puct_policy(params: SearchParams) -> SearchPolicy:
    """AlphaZero's PUCT search with ``params.c_puct``.

    ``simulations`` count the root's own evaluation: a fresh root ends with ``N ==
    simulations``, a root with a kept subtree gets ``simulations`` more visits.
    """
    return SearchPolicy(params, functools.partial(_begin_puct, params))


def _begin_puct(
    params: SearchParams,
    node: Node,
    simulations: int,
    rng: np.random.Generator | None,
    recorded: bool,
    sampled: bool,
) -> RootSearch:
    puct = functools.partial(puct_child, c_puct=params.c_puct)
    leaves = params.leaves_per_tree
    loss = VIRTUAL_LOSS if leaves > 1 else 0.0
    noise = None
    if recorded and rng is not None:
        noise = functools.partial(add_dirichlet_noise, noise=params.noise, rng=rng)

    def choose(tau: float, choice_rng: np.random.Generator) -> Choice:
        return node.next(tau, choice_rng)

    walk = functools.partial(select, node, puct, puct, loss)
    return RootSearch(node, simulations, walk, choose, leaves, loss, noise)


def gumbel_policy(params: SearchParams) -> SearchPolicy:
    """Gumbel AlphaZero's search with ``params.gumbel``, one leaf per tree and step.

    Each search starts from a fresh root (``reroot``: the children and network evaluation
    of a kept subtree, not its visits: sequential halving schedules from zero visits), and
    ``simulations`` are the visits its moves get, as in mctx; a fresh root's own evaluation
    comes before them.
    """
    return SearchPolicy(params, functools.partial(_begin_gumbel, params))


def _begin_gumbel(
    params: SearchParams,
    node: Node,
    simulations: int,
    rng: np.random.Generator | None,
    recorded: bool,
    sampled: bool,
) -> RootSearch:
    if node.children:
        node = reroot(node)
    else:  # a fresh root: its first simulation is its own evaluation
        simulations += 1
    root = GumbelRoot.start(node, simulations, params.gumbel, rng if sampled else None)
    walk = functools.partial(select, node, lambda _: root.select_action(), select_child)
    return RootSearch(node, simulations, walk, lambda tau, rng: gumbel_choice(root))


def make_policy(params: SearchParams) -> SearchPolicy:
    """The policy ``params.algorithm`` names."""
    return gumbel_policy(params) if params.algorithm == "gumbel" else puct_policy(params)


@dataclass(frozen=True)
class SearchOutput:
    """What a search of ``B`` roots found (mctx's ``PolicyOutput``)."""

    actions: np.ndarray
    """``[B]`` int64: the move chosen at each root."""
    policies: np.ndarray
    """``[B, num_actions]`` float32: the policy target (visit shares, or Gumbel's improved
    policy), 0 for illegal moves."""
    values: np.ndarray
    """``[B]`` float64: each root's search value, for the player to move at that root."""
    roots: tuple[Node, ...]
    """The roots searched, with their trees (for Gumbel, fresh copies of those given)."""
    chosen: tuple[Node, ...]
    """The chosen children, detached from their roots: roots for the next move."""
    network_calls: int


def search(
    roots: Sequence[Node],
    evaluator: Policy,
    params: SearchParams,
    simulations: int | Sequence[int],
    rng: np.random.Generator,
    *,
    tau: float = 0.0,
    explore: bool = False,
    policy: SearchPolicy | None = None,
) -> SearchOutput:
    """Search every root (one network call per step for all of them) and choose its move.

    ``evaluator`` maps planes ``[B, H, W, C]`` to ``(logits [B, num_actions], values
    [B])``, each for the player to move (``policy.py``). ``simulations`` is one count for
    every root or one per root (see ``puct_policy`` and ``gumbel_policy`` for what they
    count). ``rng`` breaks ties and, with ``tau`` above 0, samples the moves by visits;
    ``explore`` adds the policy's root noise (PUCT's Dirichlet noise, Gumbel's sampling at
    the root). The default, no noise and ``tau`` 0, is how a model plays. ``policy`` is the
    search policy; by default the one ``params.algorithm`` names.
    """
    counts = [simulations] * len(roots) if isinstance(simulations, int) else list(simulations)
    policy = policy if policy is not None else make_policy(params)
    # Held from the first root's beginning to the last choice, not only during the steps:
    # the objects each beginning makes would otherwise set off the full collections the
    # steps held back, every search of many roots.
    with rare_full_collections:
        searches = [
            policy.begin(root, n, rng, recorded=explore, sampled=explore)
            for root, n in zip(roots, counts, strict=True)
        ]
        calls = run(searches, evaluator)
        choices = [s.choose(tau, rng) for s in searches]
    num_actions = roots[0].game.num_actions if roots else 0
    return SearchOutput(
        actions=np.array([c.action for c in choices], dtype=np.int64),
        policies=np.array([c.policy for c in choices], dtype=np.float32).reshape(
            len(choices), num_actions
        ),
        values=np.array([c.value for c in choices], dtype=np.float64),
        roots=tuple(s.node for s in searches),
        chosen=tuple(c.node for c in choices),
        network_calls=calls,
    )
