"""Gumbel AlphaZero (Danihelka et al. 2022, "Policy improvement by planning with Gumbel").

PUCT needs many simulations before its visit counts say more than the prior; Gumbel search
improves the policy with very few (8-32). It changes three things, all in this module:

* **At the root**, ``GumbelRoot.select_action``: Gumbel-top-k samples ``considered`` moves
  without replacement (by ``g + logits``), then sequential halving spreads the budget over
  them in rounds, keeping the better half by ``g + logits + sigma(completed Q)`` each round.
  The schedule is a fixed table of visit counts (``considered_visits``), so each simulation
  picks its move from the counts alone, one step at a time like PUCT's ``select``.
* **Below the root**, ``select_child``: deterministic, the child whose visit share is
  furthest below the improved policy ``softmax(logits + sigma(completed Q))``.
* **The policy target**, ``improved_policy``: that same improved policy at the root, with
  the mixed value standing in for unvisited moves (``completed_q``).

``sigma(q) = (C_VISIT + max_b N(b)) * C_SCALE * q`` on Q values min-max rescaled to
``[0, 1]`` among the node's moves, as in DeepMind's mctx. Values are, as everywhere in the
search, from the point of view of the player to move at the node whose moves they rate.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np

from .choice import Choice, candidates, detach, quickest_win, winning_children
from .node import PROB_FLOOR, Node, expand
from .params import GumbelParams

C_VISIT = 50.0
C_SCALE = 0.1
"""``sigma``'s constants, mctx's defaults (``qtransform_completed_by_mix_value``). The paper's
Go and chess runs used ``C_SCALE`` 1.0, a target that follows Q more and the prior less;
every run here used these, and no study varied them."""

_LOW_LOGIT = -1e9


def considered_visits(considered: int, simulations: int) -> tuple[int, ...]:
    """Sequential halving as a table: the visit count a move must have to get simulation k.

    ``considered`` moves are visited once each in turn, then the better half again, and so
    on, each round getting about ``simulations / log2(considered)`` simulations. Entry ``k``
    is the number of visits the move chosen by simulation ``k`` has before it.
    """
    if considered <= 1:
        return tuple(range(simulations))
    rounds = math.ceil(math.log2(considered))
    sequence: list[int] = []
    visits = [0] * considered
    alive = considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (rounds * alive)))
        for _ in range(extra):
            sequence.extend(visits[:alive])
            for i in range(alive):
                visits[i] += 1
        alive = max(2, alive // 2)
    return tuple(sequence[:simulations])


# A node has a handful of children (7 in Connect Four), and these run for every node of
# every simulation: plain Python floats beat NumPy's per-call overhead several times over,
# and a comparison beats a call to ``max`` (interior selection is most of the search's Python).
_QRange = tuple[int, int, float, float, float]
"""What ``sigma(completed Q)`` needs of a node's children (``_q_range``): the visits of all
of them, the most of one, the mixed value (the Q of the unvisited that are not proven), and
the lowest and highest completed Q. A plain tuple: it is made for every node walked, and a
``NamedTuple`` made ``select_child`` a tenth slower."""


def _q_range(children: Collection[Node], raw_value: float | None) -> _QRange:
    """One pass over ``children`` for ``_QRange`` (``raw_value``: the node's own)."""
    visited = most = 0
    weighted = prob_sum = 0.0
    low, high = math.inf, -math.inf  # so far without the mixed value, unknown until the end
    unsettled = False  # an unvisited child without a proven result: its Q is the mixed value
    for child in children:
        visits = child.N
        outcome = child.outcome
        if visits:
            visited += visits
            if visits > most:
                most = visits
            q = child.V if outcome is None else outcome  # a proof outweighs the mean it ends
            prob = child.prob if child.prob > PROB_FLOOR else PROB_FLOOR
            weighted += prob * q
            prob_sum += prob
        elif outcome is None:
            unsettled = True
            continue
        else:
            q = outcome
        if q < low:
            low = q
        if q > high:
            high = q
    raw = raw_value if raw_value is not None else 0.0
    mixed = (raw + visited * weighted / prob_sum) / (visited + 1) if visited else raw
    if unsettled:
        if mixed < low:
            low = mixed
        if mixed > high:
            high = mixed
    return visited, most, mixed, low, high


def _completed(children: Collection[Node], mixed: float) -> list[float]:
    """Completed Q of each child: its result if proven, else its mean value if visited, else
    ``mixed``. (``select_child`` and ``GumbelRoot._best`` inline the same expression: they
    run for every node of every simulation.)"""
    return [(c.V if c.N else mixed) if c.outcome is None else c.outcome for c in children]


def _completed_q(children: Collection[Node], raw_value: float | None) -> list[float]:
    return _completed(children, _q_range(children, raw_value)[2])


def _sigma_scale(stats: _QRange) -> float:
    """``scale`` in ``sigma(x) = scale * (x - low)``: Q rescaled to [0, 1], times
    ``(C_VISIT + max N) * C_SCALE``.

    The ``- low`` matters beyond the rescaling: where every Q is equal it makes sigma 0
    exactly, where ``scale * x`` would round the logits it is added to.
    """
    _, most, _, low, high = stats
    span = high - low
    if span < 1e-8:
        span = 1e-8
    return (C_VISIT + most) * C_SCALE / span


def _sigma(children: Collection[Node], raw_value: float | None) -> list[float]:
    stats = _q_range(children, raw_value)
    scale, low = _sigma_scale(stats), stats[3]
    return [scale * (q - low) for q in _completed(children, stats[2])]


def _improved(children: list[Node], raw_value: float | None) -> list[float]:
    bonus = _sigma(children, raw_value)
    scores = [c.logit + b for c, b in zip(children, bonus, strict=True)]
    top = max(scores)
    exp = math.exp
    weights = [exp(x - top) for x in scores]
    total = sum(weights)
    return [w / total for w in weights]


def completed_q(node: Node) -> np.ndarray:
    """Q of each child ``[len(children)]`` for ``node``'s mover: a proven result where there
    is one, else the visited children's mean value, and for the unvisited the mixed value
    (the node's network value blended with the prior-weighted Q of the visited)."""
    return np.array(_completed_q(list(node.children.values()), node.raw_value))


def sigma(node: Node) -> np.ndarray:
    """``sigma(completed Q)`` of each child ``[len(children)]``: a bonus in logit units that
    grows with the search's largest visit count."""
    return np.array(_sigma(list(node.children.values()), node.raw_value))


def improved_policy(node: Node) -> np.ndarray:
    """``softmax(logits + sigma(completed Q))`` over ``node``'s children, in their order."""
    return np.array(_improved(list(node.children.values()), node.raw_value))


def select_child(node: Node) -> Node:
    """Below the root: the child whose visits lag furthest behind the improved policy.

    ``_improved`` and the ranking in one function, the same arithmetic in the same order (so
    the same child to the last bit): this runs for every interior node of every simulation.
    Where no child is visited yet (a sixth of the calls in Connect Four), ``_likeliest``
    mostly answers without it.
    """
    children = node.children.values()
    visited, _, mixed, low, _ = stats = _q_range(children, node.raw_value)
    if not visited:
        likeliest = _likeliest(children)
        if likeliest is not None:
            return likeliest
    scale = _sigma_scale(stats)
    scores = [
        c.logit + scale * (((c.V if c.N else mixed) if c.outcome is None else c.outcome) - low)
        for c in children
    ]
    top = max(scores)
    exp = math.exp
    weights = [exp(x - top) for x in scores]
    total = sum(weights)
    share = 1.0 / (visited + 1)
    best, best_score = None, -math.inf
    for child, w in zip(children, weights, strict=True):
        score = w / total - child.N * share
        if score > best_score:
            best, best_score = child, score
    return best if best is not None else next(iter(children))


_CLOSE_LOGITS = 1e-9
"""Logits nearer than this might round to one softmax probability (``_likeliest``)."""


def _likeliest(children: Collection[Node]) -> Node | None:
    """``select_child``'s choice among unvisited ``children``, where none is proven: the
    likeliest, first on ties; None where it could differ from the full computation.

    Every completed Q is then the node's mixed value, so ``sigma`` is 0 (``q - low`` is 0
    exactly) and the improved policy is the prior's softmax, a rounded increasing function
    of the logits: rounding can tie two logits, never reorder them. So the likeliest child
    is the one chosen, unless a child before it has a logit close enough to round to the
    same probability, and then the first of those would be. Such near ties stay with the full
    computation (without that, 245 of 20,000 made-up nodes with two priors a few units in the
    last place apart got the other child), as do proven children (their Q is their result).
    """
    best, top = None, -math.inf
    for child in children:
        if child.outcome is not None:
            return None
        logit = child.logit
        if logit > top:
            if logit - top < _CLOSE_LOGITS:
                return None
            best, top = child, logit
    return best


@dataclass
class GumbelRoot:
    """One root's Gumbel search: its noise and its sequential-halving schedule."""

    node: Node
    gumbel: np.ndarray
    """Gumbel(0, 1) noise ``[num_actions]`` (zeros for a deterministic search)."""
    simulations: int
    """The visits the root's children hold when the search ends: those of a reused tree plus
    this search's simulations (the root's own evaluation not counted)."""
    table: tuple[int, ...] = ()
    """``considered_visits`` for this root: the schedule of its simulations."""
    _noisy_logits: list[float] | None = field(default=None, init=False, repr=False)
    """``max(_LOW_LOGIT, g + logits - max(logits))`` of the root's children, in their order."""

    @classmethod
    def start(
        cls,
        node: Node,
        simulations: int,
        params: GumbelParams,
        rng: np.random.Generator | None,
    ) -> GumbelRoot:
        """A search of ``simulations`` in all from ``node`` (the first evaluates a fresh
        root); ``rng`` None: no noise, the considered moves are simply the likeliest (for
        moves that are played, not sampled)."""
        num_actions = node.game.num_actions
        gumbel = rng.gumbel(size=num_actions) if rng is not None else np.zeros(num_actions)
        spent = sum(c.N for c in node.children.values())
        budget = max(simulations - (0 if node.N else 1) + spent, 1)
        legal = len(node.game.available_moves)
        table = considered_visits(min(params.considered, legal), budget)
        return cls(node, gumbel, budget, table)

    def _noisy(self, children: list[Node]) -> list[float]:
        """``g + logits`` of each child (shifted, floored at ``_LOW_LOGIT``): fixed once the
        root is expanded, so made once."""
        if self._noisy_logits is None:
            top = max(c.logit for c in children)
            gumbel = self.gumbel.tolist()
            self._noisy_logits = [
                max(_LOW_LOGIT, gumbel[c.action] + c.logit - top) for c in children
            ]
        return self._noisy_logits

    def _best(self, children: list[Node], eligible: list[bool]) -> Node:
        """The eligible child first by ``g + logits + sigma(completed Q)``, the halving's
        ranking."""
        stats = _q_range(children, self.node.raw_value)
        scale, mixed, low = _sigma_scale(stats), stats[2], stats[3]
        best, best_score = None, 0.0
        for child, ok, noisy in zip(children, eligible, self._noisy(children), strict=True):
            if ok:
                q = (child.V if child.N else mixed) if child.outcome is None else child.outcome
                score = noisy + scale * (q - low)
                if best is None or score > best_score:
                    best, best_score = child, score
        assert best is not None, "no eligible child"
        return best

    def select_action(self) -> Node:
        """The root child that the next simulation visits."""
        node = self.node
        if node.solved == 1.0:  # a proven win: nothing left to weigh
            return winning_children(node)[0]
        children = list(node.children.values())
        visits = [c.N for c in children]
        index = sum(visits)
        target = self.table[index] if index < len(self.table) else max(visits)
        if target not in visits:  # off the schedule (e.g. a reused tree): the fewest visits
            target = min(visits)
        if visits.count(target) == 1:  # one child is due (a third of the time): no ranking
            return children[visits.index(target)]
        return self._best(children, [n == target for n in visits])

    def survivor(self) -> Node:
        """The halving's survivor: the best-scored of the most visited children, leaving out
        those proven lost while another is not."""
        children = list(self.node.children.values())
        alive = [c.outcome != -1.0 for c in children]
        visits = [
            c.N if ok or not any(alive) else -1 for c, ok in zip(children, alive, strict=True)
        ]
        most = max(visits)
        return self._best(children, [n == most for n in visits])


def gumbel_choice(root: GumbelRoot) -> Choice:
    """The move to play after a Gumbel search, its policy target (the improved policy) and
    the position's value under that policy (for the player to move).

    The survivor of a search with Gumbel noise is a sample from the improved policy; without
    noise it is the search's best move. Proven results come first, as in ``Node.next``: a
    proven win takes its quickest line, and at a proven draw or loss the most visited of
    ``candidates`` is played.
    """
    node = root.node
    if not node.children or not any(c.N for c in node.children.values()):
        raise ValueError("gumbel_choice needs a searched root")
    improved = improved_policy(node)
    target = np.zeros(node.game.num_actions, dtype=np.float32)
    target[[c.action for c in node.children.values()]] = improved
    # Sequential halving visits poor moves on purpose, so the visit-weighted mean would
    # undervalue the position: weigh the moves as the improved policy does.
    value = float(improved @ completed_q(node)) if node.solved is None else node.solved
    if node.solved == 1.0:
        chosen = quickest_win(node)
    elif node.solved is not None:
        chosen = max(candidates(node), key=lambda c: c.N)
    else:
        chosen = root.survivor()
    return detach(node, chosen, target, value)


def reroot(node: Node) -> Node:
    """``node`` as a fresh root: its children and network evaluation kept, their search
    statistics dropped (sequential halving schedules a search from zero visits)."""
    fresh = Node(node.game)
    if node.children and node.raw_value is not None:
        priors = np.zeros(node.game.num_actions)
        for child in node.children.values():
            priors[child.action] = child.prob
        expand(fresh, priors, node.raw_value)
        fresh.N = 1
    return fresh
