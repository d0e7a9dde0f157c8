"""The PUCT tree, in the shape of the well-known Connect Four AlphaZero write-up.

A ``Node`` holds one position. Its statistics describe the move that led to it:

* ``prob``: the network's prior for that move, as seen by the mother; ``logit`` its log
  (floored at ``log(PROB_FLOOR)``), made once here because Gumbel search reads it for every
  child of every node it walks through (``add_dirichlet_noise`` keeps the two together).
* ``N``: visits; ``W``: sum of the values backed up through it; ``V = W / N``.
* ``U``: the PUCT score the mother last computed for it: ``V + c_puct * prob * sqrt(N_mother)
  / (1 + N)``.
* ``outcome``: the proven game-theoretic value once known (``None`` until then).
* ``plies``: with a proven result, the moves to the end of the game along the proof found.
  A won node stops being searched once proven, so a quicker win found no further is not
  counted: ``plies`` can overstate the exact length, never understate it.

``V``, ``W``, ``U`` and ``outcome`` are from the point of view of the player who chose this
node, that is the player to move at ``mother``: the mother simply picks the child with the
largest ``U``. ``solved`` is the same proof from this node's own mover's point of view. The
only sign flip is ``value_to_parent``, applied where the player to move changes.

The search is three small steps, shared by ``Node.explore`` (one simulation of one tree) and
the batched driver in ``batched.py`` (many trees, one network call per step):
``select`` walks to a leaf, choosing each child by the search policy's root and interior
selection (PUCT's is ``puct_child``), ``expand`` attaches the children with their priors,
``backup`` carries the leaf's value to the root.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable, Mapping
from types import MappingProxyType

import numpy as np

from ..games.base import Game, value_to_parent
from .choice import (
    Choice,
    by_visits,
    candidates,
    detach,
    quickest_win,
    visit_distribution,
    winning_children,
)
from .params import C_PUCT, RootNoise
from .policy import Policy, process_policy

PROB_FLOOR = 1e-30
"""Priors below this count as this in ``Node.logit`` (a zero prior has no logarithm)."""
LOG_FLOOR = math.log(PROB_FLOOR)


_NO_CHILDREN: Mapping[int, Node] = MappingProxyType({})
"""The children of every node not yet expanded, one read-only mapping shared by all:
``expand`` gives a node a dict of its own. A dict for each of the ~200 children of a 15x15
Gomoku node cost an allocation and a garbage-collector entry each (most are never expanded);
read-only, so that nothing adds children another way by mistake."""


def log_prior(prob: float) -> float:
    """``Node.logit`` of a prior: its log, floored at ``LOG_FLOOR``."""
    return math.log(prob) if prob > PROB_FLOOR else LOG_FLOOR


class Node:
    __slots__ = (
        "N",
        "U",
        "V",
        "W",
        "action",
        "__weakref__",
        "_game",
        "_mother",
        "children",
        "logit",
        "outcome",
        "plies",
        "prob",
        "raw_value",
        "solved",
    )  # fmt: skip

    def __init__(
        self,
        game: Game | None,
        mother: Node | None = None,
        prob: float = 1.0,
        action: int | None = None,
    ) -> None:
        # ``expand`` makes most nodes without this method: an attribute set here is set
        # there too.
        self._game = game
        self._mother = None if mother is None else weakref.ref(mother)
        self.children: Mapping[int, Node] = _NO_CHILDREN
        self.action = action
        self.prob = prob
        self.logit = log_prior(prob)
        self.N = 0
        self.W = 0.0
        self.V = 0.0
        self.U = 0.0
        self.outcome: float | None = None
        self.solved: float | None = None
        self.plies: int | None = None
        self.raw_value: float | None = None
        """The network's value of this position for its own mover, once expanded."""
        if game is not None and game.score is not None:
            self.solved = game.value_for_mover()
            self.plies = 0
            if mother is not None:
                self.outcome = _to_chooser(self.solved, self)

    @property
    def mother(self) -> Node | None:
        """The node whose move led here; ``None`` at a root.

        Held by a weak reference, so that a tree holds no reference cycle: a tree the caller
        drops is freed at once, without the garbage collector (which the batched search
        calls on less often, ``batched.rare_full_collections``). A node outlives its mother
        only if held from outside its tree, and then its mother reads ``None``.
        """
        mother = self._mother
        return None if mother is None else mother()

    @mother.setter
    def mother(self, mother: Node | None) -> None:
        self._mother = None if mother is None else weakref.ref(mother)

    @property
    def game(self) -> Game:
        """The position. ``expand`` leaves a child's to be made from its mother's when first
        asked for (most children are never visited), unless its move ends the game."""
        game = self._game
        if game is None:
            mother = self.mother
            assert mother is not None and self.action is not None, "a root needs its position"
            game = mother.game.sim_legal_move(self.action)
            self._game = game
        return game

    # ------------------------------------------------------------- write-up API
    def explore(self, policy: Policy, c_puct: float = C_PUCT) -> None:
        """Run one simulation of PUCT from this node (its first one evaluates the node
        itself).

        ``search`` (``policies.py``) does the same for many trees at once, one network call
        per step.
        """
        if self.game.score is not None:
            return
        puct = functools.partial(puct_child, c_puct=c_puct)
        path = select(self, puct, puct)
        leaf = path[-1]
        value = leaf.solved
        if needs_evaluation(leaf):
            priors, estimate = process_policy(policy, leaf.game, leaf.game.player)
            expand(leaf, priors, estimate)
            value = leaf.solved if leaf.solved is not None else estimate  # a proof beats it
        assert value is not None
        backup(path, value)

    def next(self, tau: float = 1.0, rng: np.random.Generator | None = None) -> Choice:
        """Pick the move to play from the visit counts sharpened by temperature ``tau``.

        A proven win is always taken (the quickest proven) and a move proven lost never is
        while another is not; at a proven loss the moves that hold out longest along the proofs
        found are played (``plies``: the opponent may have a quicker win left unproven).
        ``tau`` near 0 takes the most visited move (ties broken at random); ``tau = 1``
        samples in proportion to visits. The chosen child is detached from this tree and
        becomes the new root, keeping its subtree.

        Returns the child, the search value of this position for the player to move here,
        and the visit distribution ``[num_actions]`` (the policy target).
        """
        rng = rng if rng is not None else np.random.default_rng()
        policy = visit_distribution(self)
        won = self.solved == 1.0
        chosen = quickest_win(self) if won else by_visits(candidates(self), tau, rng)
        return detach(self, chosen, policy)

    # ------------------------------------------------------------------ queries
    def search_value(self) -> float:
        """The value of this position for its player to move: proven, else visit-weighted."""
        if self.solved is not None:
            return self.solved
        visited = [c for c in self.children.values() if c.N > 0]
        n = sum(c.N for c in visited)
        if n == 0:
            return 0.0
        # A child's V is already for the player who chose it: this node's player to move.
        return sum(c.V * c.N for c in visited) / n

    def __repr__(self) -> str:
        move = "root" if self.action is None else f"action {self.action}"
        return (
            f"Node({move} N={self.N} V={self.V:+.3f} prob={self.prob:.3f} "
            f"outcome={self.outcome} children={len(self.children)})"
        )


# ------------------------------------------------------------------------ steps
def _to_chooser(value: float, node: Node) -> float:
    """``node``'s mover's value -> the value for the player who chose ``node`` (the games'
    one sign rule, ``value_to_parent``)."""
    mother = node.mother
    assert mother is not None
    return value_to_parent(value, node.game, mother.game)


ChildChoice = Callable[[Node], Node]
"""Which child of an expanded node a simulation walks into: a search policy's root or
interior selection (``puct_child``, or Gumbel's in ``gumbel.py``)."""


def select(
    root: Node,
    root_action: ChildChoice,
    interior_action: ChildChoice,
    virtual_loss: float = 0.0,
) -> list[Node]:
    """Walk from ``root`` to a leaf; return the path ``[root, ..., leaf]``.

    ``root_action`` picks the child at the root, ``interior_action`` at every node below it.
    A leaf is an unexpanded node, a finished game, or a node whose result is proven. Every
    node on the path counts the visit now and holds ``-virtual_loss`` until ``backup`` adds
    the real value, so further selections before the backup spread over other leaves.
    """
    root.N += 1
    path = [root]
    if not root.children:
        return path
    child = root_action(root)
    while True:
        child.N += 1
        child.W -= virtual_loss
        child.V = child.W / child.N
        path.append(child)
        if not child.children or child.solved is not None:
            return path
        child = interior_action(child)


def puct_child(node: Node, c_puct: float) -> Node:
    """The child with the largest ``U = V + c_puct * prob * sqrt(N) / (1 + N_child)``,
    each child's ``U`` kept; at a proven win only the winning children are weighed."""
    best = None
    children = node.children.values()
    if node.solved == 1.0:  # a proven win (only a root gets here): search its wins only
        children = winning_children(node)
        if children[0].game.score is not None:  # it wins at once: nothing to weigh
            return children[0]
    # At a proven loss or draw every move is equal: the priors lead.
    scale = c_puct * math.sqrt(node.N)
    best_u = -math.inf
    for child in children:
        u = child.V + scale * child.prob / (1 + child.N)
        child.U = u
        if u > best_u:
            best_u = u
            best = child
    assert best is not None
    return best


def needs_evaluation(leaf: Node) -> bool:
    """Whether the leaf at the end of a path must be evaluated by the network."""
    return leaf.solved is None and not leaf.children


def expand(node: Node, priors: np.ndarray, value: float | None = None) -> None:
    """Attach a child for every legal move with its prior ``priors[action]``.

    ``priors`` is ``[num_actions]``, already masked and normalised; ``value`` is the
    network's value of ``node`` for its mover, kept as ``raw_value`` (Gumbel's mixed value).
    The children whose move ends the game get their position now, so a win in one is proven
    on the spot, and so is a node whose every move loses; the others get theirs when first
    visited (``Node.game``), as most never are.
    """
    game = node.game
    node.raw_value = value
    ending = game.ending_moves()
    node.children = children = {}
    probs = priors.tolist()  # Python floats: indexing an array costs more than a list
    # A 15x15 Gomoku node has ~200 children, most never visited, and making them was most
    # of the search's Python there: the children that go on are made here without calling
    # ``Node.__init__``, the same attributes set to the same values (what ``__init__`` would
    # give them: ``tests/test_search.py`` checks), with one weak reference to their mother
    # shared by all and ``log_prior`` inlined. A third cheaper than ``Node(...)`` each.
    mother = weakref.ref(node)
    new, log = object.__new__, math.log
    for action in game.available_moves:
        prob = probs[action]
        if action in ending:  # its game is made now: a finished game proves the child
            children[action] = Node(game.sim_move(action), node, prob, action)
            continue
        child = new(Node)
        child._game = None
        child._mother = mother
        child.children = _NO_CHILDREN
        child.action = action
        child.prob = prob
        child.logit = log(prob) if prob > PROB_FLOOR else LOG_FLOOR
        child.N = 0
        child.W = 0.0
        child.V = 0.0
        child.U = 0.0
        child.outcome = None
        child.solved = None
        child.plies = None
        child.raw_value = None
        children[action] = child
    if ending:  # without a finished child nothing can be proven here yet
        update_proven(node)


def update_proven(node: Node | None) -> None:
    """Mark ``node`` (and its ancestors, while it changes them) as solved where possible.

    From the mover's point of view: a child proven won makes the node won; once every child
    is proven, the node is worth the best of them. ``plies`` follows the proof: the first
    winning child found, or the longest of the best once all are proven.
    """
    while node is not None and node.solved is None and node.children:
        children = node.children.values()
        outcomes = [c.outcome for c in children]
        if 1.0 in outcomes:
            node.solved = 1.0
            node.plies = 1 + min(c.plies for c in children if c.outcome == 1.0)  # type: ignore[type-var]
        elif None in outcomes:
            return
        else:
            node.solved = max(outcomes)  # type: ignore[type-var]
            node.plies = 1 + max(c.plies for c in children if c.outcome == node.solved)  # type: ignore[type-var]
        if node.mother is None:
            return
        node.outcome = _to_chooser(node.solved, node)
        node = node.mother


def backup(path: list[Node], value: float, virtual_loss: float = 0.0) -> None:
    """Add ``value`` (for the leaf's player to move) to every node on ``path``.

    Visits were counted by ``select``; here each node's ``W`` gets the value from its
    chooser's point of view, plus the virtual loss it was holding.
    """
    game = path[-1].game
    for i in range(len(path) - 1, 0, -1):
        node, mother_game = path[i], path[i - 1].game
        value = value_to_parent(value, game, mother_game)  # now for the mother's mover
        node.W += value + virtual_loss
        node.V = node.W / node.N
        game = mother_game


def revert(path: list[Node], virtual_loss: float = 0.0) -> None:
    """Undo a ``select`` whose leaf will not be evaluated (it was already picked this step)."""
    path[0].N -= 1
    for node in path[1:]:
        node.N -= 1
        node.W += virtual_loss
        node.V = node.W / node.N if node.N else 0.0


def add_dirichlet_noise(root: Node, noise: RootNoise, rng: np.random.Generator) -> None:
    """Mix Dirichlet(``noise.alpha``) noise into the root's priors: ``(1 - weight) p +
    weight n``."""
    children = list(root.children.values())
    if not children or noise.weight <= 0:
        return
    weight = noise.weight
    noise_shares = rng.dirichlet([noise.alpha] * len(children))
    for child, eta in zip(children, noise_shares, strict=True):
        child.prob = prob = (1 - weight) * child.prob + weight * float(eta)
        child.logit = log_prior(prob)
