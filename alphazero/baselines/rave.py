"""UCT-RAVE: UCT whose move values are mixed with all-moves-as-first (AMAF) statistics.

The tree is UCT's (``uct.py``): one expansion and one rollout per simulation, most visited
move played. Two things differ.

AMAF statistics. Every node keeps, for every action ``a``, ``amaf_n[a]`` and ``amaf_w[a]``:
how many simulations through the node saw ``a`` played later on (in the tree below it or in
the rollout) by the player to move at the node, and the sum of their results from that
player's point of view. Only moves by that same player count: in Dots and Boxes a player
who completes a box moves again, so "every other move" would be wrong; each move is tagged
with the player who made it. An action counts at most once per simulation (Connect Four
columns are played more than once).

Selection. A child reached by action ``a`` from node ``s`` scores

    (1 - beta) * Q(s, a) + beta * Q_amaf(s, a) + c * sqrt(ln N(s) / N(s, a)),
    beta = sqrt(k / (3 N(s) + k)),

with ``Q`` the child's mean result and ``Q_amaf = amaf_w[a] / amaf_n[a]``, both from the point
of view of the player to move at ``s``. ``beta`` is the hand-tuned schedule of Gelly and Silver
("Combining online and offline knowledge in UCT", 2007; "Monte-Carlo tree search and rapid
action value estimation", 2011): it depends on the visit count ``N(s)`` of the *parent* node,
so ``k`` is the number of visits at which the two estimates weigh the same
(``beta = 1/2`` at ``N(s) = k``). The untried move expanded next is the one whose AMAF mean is
largest (unseen moves count 0, ties at random): the first-play urgency of RAVE.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from ..games.base import Game, Moves
from .uct import MonteCarloTreeSearch, UCTNode, UCTPlayer

DEFAULT_C = 0.5
"""The exploration constant: smaller than UCT's sqrt(2), as the AMAF statistics do much of the
exploring. Against plain UCT (c = sqrt(2)) on Connect Four, c = 0.5 did best of the values
tried (0.35, 0.5, 0.7 at 1000 simulations; 0.3 to sqrt(2) at 300), and c = 1 or sqrt(2)
lost clearly. RAVE is at best a little stronger than UCT there: a column is not a point,
so "played later" says less than in Go."""


class RAVENode(UCTNode):
    """A node of the RAVE tree: UCT's statistics plus AMAF statistics per action.

    ``N``, ``W``, ``Q``, ``E`` as in ``UCTNode`` (point of view: ``chooser``, the player to
    move at ``mother``). ``player``: the player to move here. ``amaf_n`` / ``amaf_w``
    ``[num_actions]``: AMAF visits and result sums of each action, from ``player``'s point of
    view.
    """

    __slots__ = ("amaf_n", "amaf_w", "player")

    def __init__(
        self, game: Game, mother: RAVENode | None, action: int | None, untried: list[int]
    ) -> None:
        super().__init__(game, mother, action, untried)
        self.player = game.player
        size = game.num_actions if untried else 0
        self.amaf_n = [0] * size
        self.amaf_w = [0] * size

    def amaf_value(self, action: int) -> float | None:
        """``Q_amaf`` of ``action`` for ``player``; ``None`` before any AMAF visit."""
        n = self.amaf_n[action] if self.amaf_n else 0
        return self.amaf_w[action] / n if n else None

    def __repr__(self) -> str:
        move = "root" if self.action is None else f"action {self.action}"
        return f"RAVENode({move} N={self.N} Q={self.Q:+.3f} children={len(self.children)})"


def backup(leaf: RAVENode, score: int, rollout: Moves | tuple[()]) -> None:
    """Carry one simulation's result from ``leaf`` to the root.

    ``score`` is the absolute result, ``rollout`` the ``(player, action)`` moves played after
    the leaf. Each node counts the visit and adds ``score`` from its chooser's point of view
    (UCT's statistics), then the AMAF statistics of the actions played after it by the player
    to move there: the rollout's moves by that player, and the tree moves below it
    (``child.action``, played by ``child.chooser``).
    """
    # the actions played from here on by the first player (+1) and by the second (-1)
    later_first = {action for player, action in rollout if player == 1}
    later_second = {action for player, action in rollout if player != 1}
    node: RAVENode | None = leaf
    while node is not None:
        n = node.N + 1
        node.N = n
        w = node.W + score * node.chooser
        node.W = w
        node.Q = w / n
        node.E = n**-0.5
        amaf_n = node.amaf_n
        if amaf_n:
            amaf_w = node.amaf_w
            if node.player == 1:
                later, reward = later_first, score
            else:
                later, reward = later_second, -score
            for action in later:
                amaf_n[action] += 1
                amaf_w[action] += reward
        mother = node.mother
        if mother is not None:
            (later_first if node.chooser == 1 else later_second).add(node.action)  # type: ignore[arg-type]
        node = mother


class RAVESearch(MonteCarloTreeSearch):
    """UCT-RAVE from one position: ``RAVESearch(game, k=1000).best_action(1000)``.

    The budget, ``best_action`` and the queries are UCT's; the nodes carry AMAF statistics
    and ``_run`` mixes them in.
    """

    node_type = RAVENode
    label = "RAVE"

    def __init__(
        self,
        game: Game,
        c: float = DEFAULT_C,
        k: float = 1000.0,
        rng: random.Random | int | None = None,
        knowledge: bool = False,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        super().__init__(game, c=c, rng=rng, knowledge=knowledge, clock=clock)
        self.k = k

    def _run(self, limit: int, deadline: float | None) -> int:
        root, c, k, rng = self.root, self.c, self.k, self.rng
        log, sqrt, clock, random_ = math.log, math.sqrt, self.clock, rng.random
        knowledge = self.knowledge
        done = 0
        while done < limit:
            if deadline is not None and done and clock() >= deadline:
                break
            done += 1
            # select
            node = root
            while not node.untried and node.children:
                n_parent = node.N
                beta = sqrt(k / (3 * n_parent + k))
                keep = 1.0 - beta
                scale = c * sqrt(log(n_parent))
                amaf_n, amaf_w = node.amaf_n, node.amaf_w
                best, best_u = None, -2.0e9
                for child in node.children:
                    q = child.Q
                    m = amaf_n[child.action]
                    if m:
                        q = keep * q + beta * amaf_w[child.action] / m
                    u = q + scale * child.E
                    if u > best_u:
                        best_u, best = u, child
                node = best
            # expand the untried move with the best AMAF mean
            game = node.game
            untried = node.untried
            if untried:
                amaf_n, amaf_w = node.amaf_n, node.amaf_w
                pick, best_v, ties = 0, -math.inf, 0
                for i, a in enumerate(untried):
                    m = amaf_n[a]
                    v = amaf_w[a] / m if m else 0.0
                    if v > best_v:
                        best_v, pick, ties = v, i, 1
                    elif v == best_v:  # the k-th tie replaces the pick with chance 1/k
                        ties += 1
                        if random_() * ties < 1.0:
                            pick = i
                action = untried[pick]
                untried[pick] = untried[-1]
                untried.pop()
                game = game.sim_legal_move(action)
                child = RAVENode(game, node, action, game.candidate_moves(knowledge))
                node.children.append(child)
                node = child
            # rollout, recording who played what
            score = game.score
            moves: Moves | tuple[()] = ()
            if score is None:
                moves = []
                score = game.playout(rng, moves, knowledge)[0]
            backup(node, score, moves)
        return done


class RAVEPlayer(UCTPlayer):
    """Plays the move UCT-RAVE chooses, from a fresh tree each move."""

    kind = "rave"

    def __init__(
        self,
        simulations: int | None = 1000,
        seconds: float | None = None,
        c: float = DEFAULT_C,
        k: float = 1000.0,
        knowledge: bool = False,
        seed: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(simulations, seconds, c=c, knowledge=knowledge, seed=seed, clock=clock)
        self.k = k

    def make_search(self, game: Game) -> RAVESearch:  # type: ignore[override]
        return RAVESearch(
            game, c=self.c, k=self.k, rng=self.rng, knowledge=self.knowledge, clock=self.clock
        )
