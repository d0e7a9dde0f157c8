"""A trained network guiding a search, as a player: ``ModelPlayer``, with where its network
comes from (``ModelSource``) and how it plays and reports its moves (``PlayerOptions``).

Besides playing, it can say what it thought: ``ModelPlayer.think(game) -> Thought`` (its move,
the most visited moves with their share of the visits and values, the network's win / draw /
loss estimate and the search value), which the terminal session (``alphazero.play.session``)
shows after each of its moves and for ``hint``. ``players.make_player`` builds one from a spec
(``model:PATH``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..games import view_for
from ..games.base import Game
from ..network.inference import load_inference
from ..search import (
    EvaluationCache,
    Node,
    Policy,
    SearchParams,
    search,
    search_until,
    symmetric_policy,
)
from .model_search import PlaySearch
from .player_specs import DEFAULT_MODEL_SIMULATIONS
from .time_budget import Clock, SearchLog, TimeBudget, game_time_refused

if TYPE_CHECKING:
    import keras


@dataclass(frozen=True)
class MoveStat:
    """One root move of a search: how much the search looked at it and what it found."""

    action: int
    move: str
    """The move in the game's notation."""
    visits: int
    share: float
    """Fraction of the root's visits that went to this move."""
    value: float
    """Mean value of the move in [-1, 1] for the player to move at the root."""


@dataclass(frozen=True)
class Thought:
    """What a model thought of a position before choosing ``action`` there.

    Everything is from the point of view of the player to move in that position.
    """

    action: int
    top: tuple[MoveStat, ...]
    """The move chosen (``action``), then the most visited of the others, most visited
    first."""
    wdl: tuple[float, float, float] | None
    """The network's win / draw / loss probabilities at the root (None for a network without
    a win / draw / loss head)."""
    value: float
    """The search value of the position in [-1, 1]: PUCT's visit-weighted mean, Gumbel's
    completed values weighted by its improved policy, or the proven result."""
    proven: float | None
    """The game-theoretic value when the search proved it (+1 win, 0 draw, -1 loss)."""
    simulations: int
    """Visits of the root's moves."""


@dataclass(frozen=True)
class ModelSource:
    """Where a ``ModelPlayer``'s network comes from, and how it runs."""

    path: str | Path
    """The model file or run folder. It is loaded unless ``model`` or ``inference`` is given;
    its run's ``config.yaml`` gives the search (``PlaySearch``), and its name the player's."""
    model: keras.Model | None = None
    """A Keras model in memory to search with instead (the evaluation ladder's)."""
    inference: Policy | None = None
    """Or any batched evaluator ``planes [B, H, W, C] -> (logits [B, A], values [B])``, such
    as a stand-in network in a test; an ``evaluate`` method returning win / draw / loss
    ``[B, 3]`` as the second item adds those estimates to each ``Thought``."""
    engine: str = "tensorflow"
    """What runs a network loaded from ``path`` or held in ``model``: ``tensorflow``,
    ``openvino`` or ``auto`` (``InferenceModel``; ``EngineError`` for OpenVINO when not
    installed)."""
    max_batch: int = 256
    """Positions per network call at most: larger batches are split."""
    symmetric: bool = False
    """The search sees the network averaged over every symmetric copy of each position
    (``symmetric_policy``): the copies cost more inference, and on the Connect Four solved
    positions it chose better moves (docs/research/learning_speed/connect4_2025.md). The win
    / draw / loss estimates are averaged over the same copies."""
    cache: int = 0
    """Keep the search's network answers for up to this many positions across the player's
    searches (``EvaluationCache``; 0: none). Without ``reuse_tree`` each move's search
    evaluates again most of the positions the last one did, so the cache answers most of
    them, with the same search results. The network's weights must not change while the
    player lives."""


@dataclass(frozen=True)
class PlayerOptions:
    """How a ``ModelPlayer`` plays and reports its moves, beside its network and search."""

    seed: int = 0
    """Of the search's random numbers (ties between equally visited moves)."""
    top: int = 3
    """Moves each ``Thought`` lists."""
    reuse_tree: bool = False
    """Keep the subtree of the position each game reaches from the last search (see
    ``ModelPlayer``)."""
    name: str | None = None
    """The player's label in matches and records; by default the spec that would build it,
    ``model:<file or folder name>:SIMS[:symmetric]``."""
    clock: Clock = time.perf_counter
    """What a time budget's seconds, and the seconds in ``ModelPlayer.log``, are counted by
    (``time_budget.CLOCKS``: wall or CPU time; a test's own)."""


class ModelPlayer:
    """A trained network guiding a search (``SearchParams``: PUCT or Gumbel); plays the
    search's best move, without noise.

    Its budget is simulations a move, or a ``TimeBudget``: seconds a move, or a game's shared
    out move by move, each move searched on its own until its seconds are spent (PUCT only).
    What each move cost is added up in ``log`` (``SearchLog``).

    With ``reuse_tree`` the subtree of the position each game reaches is kept from the last
    search, as in AlphaGo Zero, and every move adds ``simulations`` to the visits it already
    holds. It is off by default: on the shipped models it changed little
    (docs/research/learning_speed/connect4_2025.md).
    """

    def __init__(
        self,
        source: ModelSource | str | Path,
        game: Game,
        simulations: int | TimeBudget = DEFAULT_MODEL_SIMULATIONS,
        search: SearchParams | PlaySearch | None = None,
        options: PlayerOptions | None = None,
    ) -> None:
        """Search ``game``'s positions with the network ``source`` names (a path alone: the
        model file or run folder there, run by TensorFlow), ``simulations`` per move (or for
        the time a ``TimeBudget`` gives; ``ValueError`` with a search other than PUCT).

        ``search`` is how to search: ``SearchParams`` as they are, or a ``PlaySearch``
        (default: the empty one) resolved against the run that trained the model at the
        source's path (its ``config.yaml``; ``model_search.play_search``).
        """
        source = source if isinstance(source, ModelSource) else ModelSource(source)
        options = options or PlayerOptions()
        path = source.path
        self.path = str(path)
        self.simulations = simulations
        self.search = _search_params(search, path)
        if (
            isinstance(simulations, TimeBudget)
            and simulations.per_game
            and not game.turns_alternate
        ):
            raise ValueError(game_time_refused(game))
        if isinstance(simulations, TimeBudget) and self.search.algorithm != "puct":
            raise ValueError(
                f"a time budget ({simulations}) needs the puct search, not "
                f"{self.search.algorithm}: Gumbel plans its simulations before the first"
            )
        self.clock = options.clock
        self.log = SearchLog()
        """What each move cost: simulations and seconds (by ``clock``), by ply."""
        self.top = options.top
        self.reuse_tree = options.reuse_tree
        self._kept: dict[Game, Node] = {}
        """With ``reuse_tree``: the searched positions one or two moves past the last moves
        played, each with its subtree, waiting for the games to reach them."""
        flag = ":symmetric" if source.symmetric else ""
        default_name = f"model:{Path(path).name}:{simulations}{flag}"
        self.name = options.name if options.name is not None else default_name
        self.rng = np.random.default_rng(options.seed)
        inference = source.inference
        if inference is None:
            if source.model is None:
                # The run folder's config and metadata are checked before any network loads,
                # so a bad one is a one-line error in a fraction of a second; with OpenVINO
                # no TensorFlow loads at all.
                inference = load_inference(
                    path, game, max_batch=source.max_batch, engine=source.engine
                )
            else:
                from ..network.model import InferenceModel  # TensorFlow: the model holds it already

                inference = InferenceModel(
                    source.model, max_batch=source.max_batch, precision="auto", engine=source.engine
                )
        self.network = inference
        """The plain network, for the win / draw / loss estimates."""
        self.symmetric = source.symmetric
        self.inference = inference
        """What the search calls: the network, or its symmetric average."""
        if source.symmetric:
            self.inference = symmetric_policy(inference, game)
        if source.cache > 0:
            self.inference = EvaluationCache(self.inference, source.cache)
        if isinstance(simulations, TimeBudget):  # its start-up is no move's seconds
            inference(game.encode()[None])

    @property
    def leaves(self) -> int:
        """Leaves its search selects per tree and network call (``search.leaves_per_tree``)."""
        return self.search.leaves_per_tree

    def batch_think(self, games: Sequence[Game], wdl: bool = True) -> list[Thought]:
        """Search every position of ``games`` at once; a ``Thought`` for each.

        One batched search (one network call per simulation step for all the games), then,
        with ``wdl``, one more network call for the win / draw / loss estimates of the roots.
        """
        kept, self._kept = self._kept, {}
        found = [kept.pop(game, None) for game in games]  # twin positions: one keeps the tree
        found_ids = {id(node) for node in found if node is not None}
        roots = [
            Node(game) if node is None or _inside(node, found_ids) else _detached(node)
            for game, node in zip(games, found, strict=True)
        ]
        searched, chosen_nodes, values = self._search(roots, games)
        estimates = self._root_wdl(games) if wdl and games else [None] * len(games)
        thoughts = []
        for game, root, chosen, value, estimate in zip(
            games, searched, chosen_nodes, values, estimates, strict=True
        ):
            # The move played first: a proven result can make it other than the most
            # visited (a lost position's longest defence), and a list headed by another
            # move reads as if that one had been played.
            children = sorted(root.children.values(), key=lambda c: (c is not chosen, -c.N, -c.V))
            total = sum(c.N for c in children) or 1
            view = view_for(game)
            top = tuple(
                MoveStat(action, view.format_move(action), c.N, c.N / total, c.V)
                for c in children[: self.top]
                if (c.N > 0 or c is chosen) and (action := c.action) is not None
            )
            visits = sum(c.N for c in children)
            if self.reuse_tree:
                self._keep(chosen)
            thoughts.append(Thought(chosen.action, top, estimate, value, root.solved, visits))
        return thoughts

    def _search(
        self, roots: list[Node], games: Sequence[Game]
    ) -> tuple[Sequence[Node], Sequence[Node], list[float]]:
        """Search ``roots`` (the positions of ``games``): all at once for a number of
        simulations, one at a time for a time budget. The roots searched, the children
        chosen and the search values; each move's cost goes to ``log``."""
        budget = self.simulations
        if not isinstance(budget, TimeBudget):
            start = self.clock()
            found = search(roots, self.inference, self.search, budget, self.rng)
            share = (self.clock() - start) / max(len(roots), 1)
            for game in games:
                self.log.add(game.plies[0], budget, share)
            return found.roots, found.chosen, found.values.tolist()
        searched, chosen, values = [], [], []
        for root, game in zip(roots, games, strict=True):
            before, start = root.N, self.clock()
            seconds = budget.move_seconds(game)

            def spent(_: int, start: float = start, seconds: float = seconds) -> bool:
                return self.clock() - start >= seconds

            found = search_until(root, self.inference, self.search, spent, self.rng)
            self.log.add(game.plies[0], root.N - before, self.clock() - start)
            searched.append(found.roots[0])
            chosen.append(found.chosen[0])
            values.append(float(found.values[0]))
        return searched, chosen, values

    def _keep(self, chosen: Node) -> None:
        """Keep ``chosen`` (the same player may move again, as in Dots and Boxes) and every
        searched reply to it, for the next call to go on from."""
        for node in (chosen, *chosen.children.values()):
            if node.N > 0 and node.game.score is None:
                self._kept[node.game] = node

    def _root_wdl(self, games: Sequence[Game]) -> list[tuple[float, float, float] | None]:
        """The network's win / draw / loss for each position's player to move; with
        ``symmetric``, the mean over each position's symmetric copies."""
        evaluate = getattr(self.network, "evaluate", None)
        if evaluate is None:
            return [None] * len(games)
        if self.symmetric:
            no_policy = np.zeros(games[0].num_actions)
            planes = [c for g in games for c, _ in g.symmetries(g.encode(), no_policy)]
        else:
            planes = [game.encode() for game in games]
        _, wdl = evaluate(np.stack(planes))
        wdl = np.asarray(wdl, dtype=np.float64)
        if wdl.ndim != 2 or wdl.shape[1] != 3:
            return [None] * len(games)
        wdl = wdl.reshape(len(games), -1, 3).mean(axis=1)
        return [(float(row[0]), float(row[1]), float(row[2])) for row in wdl]

    def think(self, game: Game) -> Thought:
        """Search ``game`` and say what was found, the move to play included."""
        return self.batch_think([game])[0]

    def batch_moves(self, games: Sequence[Game]) -> list[int]:
        return [thought.action for thought in self.batch_think(games, wdl=False)]

    def __call__(self, game: Game) -> int:
        return self.batch_think([game], wdl=False)[0].action


def _search_params(search: SearchParams | PlaySearch | None, path: str | Path) -> SearchParams:
    """``ModelPlayer``'s search: ``search`` as given, or resolved against the model's run."""
    if isinstance(search, SearchParams):
        return search
    return (search or PlaySearch()).resolve(path)


def _inside(node: Node, root_ids: set[int]) -> bool:
    """Whether ``node`` lies in the tree of another root (``id`` in ``root_ids``): a position
    one game left behind can be the very position another game has reached, with the model
    on the other side."""
    mother = node.mother
    while mother is not None:
        if id(mother) in root_ids:
            return True
        mother = mother.mother
    return False


def _detached(node: Node) -> Node:
    """``node`` as a root of its own, its statistics and subtree kept."""
    node.mother = None
    return node
