"""Plain UCT: Monte Carlo tree search with UCB1 selection and random rollouts.

Each simulation takes four small steps:

* ``select``: from the root, while a node has no untried move left, go to the child with the
  largest UCB1 score ``Q + c * sqrt(ln N_mother / N)``;
* ``expand``: attach one child for a random untried move (its position is made once, with
  ``sim_legal_move``, the move being known legal);
* ``rollout``: play the new child's position out to the end, one random game (the game's own
  fast ``playout``, uniform or with the game's rollout knowledge);
* ``backup``: every node on the path counts the visit and adds the result.

Point of view: a node's ``W`` and ``Q = W / N`` are from the point of view of the player who
chose it, the player to move at its mother (``chooser``). Rollouts return the absolute score
(+1 first player won, -1 second, 0 draw), so the backup adds ``score * chooser`` at every
node: no assumption that the turn alternates (a Dots and Boxes player who completes a box
moves again, and is then the chooser of two nodes in a row).

Results are +1 / 0 / -1 (as in OpenSpiel's MCTS, whose ``uct_c = sqrt(2)`` is on the same
scale). The move played is the most visited child of the root (ties: the larger ``Q``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from ..games.base import Game


class UCTNode:
    """One position of the UCT tree.

    ``N``: visits. ``W``: sum of rollout results, from the point of view of ``chooser``, the
    player to move at ``mother`` (0 at the root). ``Q = W / N`` and ``E = N ** -0.5`` are kept
    up to date by the backup, so that selection does one multiply-add per child.
    ``untried``: legal moves not yet expanded (one is drawn at random for each expansion).
    """

    __slots__ = (
        "E",
        "N",
        "Q",
        "W",
        "action",
        "chooser",
        "children",
        "game",
        "mother",
        "untried",
    )  # fmt: skip

    def __init__(
        self, game: Game, mother: UCTNode | None, action: int | None, untried: list[int]
    ) -> None:
        self.game = game
        self.mother = mother
        self.action = action
        self.chooser = mother.game.player if mother is not None else 0
        self.children: list[UCTNode] = []
        self.untried = untried
        self.N = 0
        self.W = 0.0
        self.Q = 0.0
        self.E = 1.0

    def __repr__(self) -> str:
        move = "root" if self.action is None else f"action {self.action}"
        return f"UCTNode({move} N={self.N} Q={self.Q:+.3f} children={len(self.children)})"


class MonteCarloTreeSearch:
    """UCT from one position: ``MonteCarloTreeSearch(game).best_action(1000)``.

    ``rng`` is a ``random.Random`` or a seed. ``knowledge`` switches on the game's rollout
    (and, for Gomoku, expansion) knowledge: ``Game.playout`` and ``Game.candidate_moves``
    with ``knowledge``. ``clock`` counts a budget's seconds: the wall's (``time.perf_counter``)
    unless given, such as ``time.process_time`` for CPU seconds. Calls of ``best_action`` add
    to the same tree. Subclasses (RAVE) bring their own node type and hot loop ``_run``.
    """

    node_type: type = UCTNode
    label = "UCT"

    def __init__(
        self,
        game: Game,
        c: float = math.sqrt(2),
        rng: random.Random | int | None = None,
        knowledge: bool = False,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if game.score is not None:
            raise ValueError(f"{self.label} needs a position where the game goes on")
        self.c = c
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        self.knowledge = knowledge and game.rollout_knowledge
        self.root = self.node_type(game, None, None, game.candidate_moves(self.knowledge))
        self.simulations = 0
        self.clock = clock

    # -------------------------------------------------------------------------- search
    def best_action(
        self, simulations_number: int | None = None, seconds: float | None = None
    ) -> int:
        """Search, then return the most visited move of the root.

        The budget is ``simulations_number`` simulations, or ``seconds`` of search, or
        whichever ends first when both are given.
        """
        self.search(simulations_number, seconds)
        return self.most_visited().action  # type: ignore[return-value]

    def search(self, simulations: int | None = None, seconds: float | None = None) -> int:
        """Run simulations within the budget; return how many ran."""
        if simulations is None and seconds is None:
            raise ValueError("give a number of simulations or of seconds")
        if simulations is not None and simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be positive, got {seconds}")
        limit = simulations if simulations is not None else 1 << 62
        deadline = self.clock() + seconds if seconds is not None else None
        done = self._run(limit, deadline)
        self.simulations += done
        return done

    def _run(self, limit: int, deadline: float | None) -> int:
        """The hot loop: select, expand, rollout, backup, ``limit`` times or until
        ``deadline``. Written flat, with locals, because it is what the benchmark measures."""
        root, c, rng = self.root, self.c, self.rng
        log, sqrt, clock = math.log, math.sqrt, self.clock
        knowledge = self.knowledge
        fast = not knowledge  # uniform rollouts: the shortest calls, in the hot loop
        random_ = rng.random
        done = 0
        while done < limit:
            if deadline is not None and done and clock() >= deadline:
                break
            done += 1
            # select: descend while every move of the node has a child
            node = root
            while not node.untried and node.children:
                scale = c * sqrt(log(node.N))
                best, best_u = None, -2.0e9
                for child in node.children:
                    u = child.Q + scale * child.E
                    if u > best_u:
                        best_u, best = u, child
                node = best
            # expand one untried move
            game = node.game
            untried = node.untried
            if untried:
                i = int(random_() * len(untried))
                action = untried[i]
                untried[i] = untried[-1]
                untried.pop()
                game = game.sim_legal_move(action)
                moves = game.available_moves if fast else game.candidate_moves(True)
                child = UCTNode(game, node, action, moves)
                node.children.append(child)
                node = child
            # rollout
            score = game.score
            if score is None:
                score = game.playout(rng)[0] if fast else game.playout(rng, None, True)[0]
            # backup: each node gets the result from its chooser's point of view
            while node is not None:
                n = node.N + 1
                node.N = n
                w = node.W + score * node.chooser
                node.W = w
                node.Q = w / n
                node.E = n**-0.5
                node = node.mother
        return done

    # -------------------------------------------------------------------------- queries
    def most_visited(self) -> UCTNode:
        children = self.root.children
        if not children:
            raise ValueError("no simulation has run yet")
        return max(children, key=lambda ch: (ch.N, ch.Q))

    def visit_counts(self) -> dict[int, int]:
        """Visits of each expanded move of the root."""
        return {ch.action: ch.N for ch in self.root.children}  # type: ignore[misc]


UCT = MonteCarloTreeSearch


def _budget_name(kind: str, simulations: int | None, seconds: float | None) -> str:
    if simulations is not None:
        return f"{kind}:{simulations}"
    return f"{kind}:{seconds:g}s"


class UCTPlayer:
    """Plays the move plain UCT chooses, from a fresh tree each move.

    ``simulations`` per move, or ``seconds`` per move (``simulations=None``); with both, the
    first budget reached ends the search; ``clock`` counts the seconds (the wall's unless
    given). ``RAVEPlayer`` is this player with another search.
    """

    kind = "uct"

    def __init__(
        self,
        simulations: int | None = 1000,
        seconds: float | None = None,
        c: float = math.sqrt(2),
        knowledge: bool = False,
        seed: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if simulations is None and seconds is None:
            raise ValueError("give simulations or seconds per move")
        self.simulations = simulations
        self.seconds = seconds
        self.c = c
        self.knowledge = knowledge
        self.rng = random.Random(seed)
        self.clock = clock
        self.name = _budget_name(self.kind, simulations, seconds)
        self.last_search: MonteCarloTreeSearch | None = None

    def make_search(self, game: Game) -> MonteCarloTreeSearch:
        return MonteCarloTreeSearch(
            game, c=self.c, rng=self.rng, knowledge=self.knowledge, clock=self.clock
        )

    def __call__(self, game: Game) -> int:
        moves = game.available_moves
        if not moves:
            raise ValueError("the game is over: there is no move to play")
        if len(moves) == 1:
            return moves[0]
        search = self.make_search(game)
        self.last_search = search
        return search.best_action(self.simulations, self.seconds)
