"""Self-play: many games searched at once, turned into training examples.

Each example is ``(planes [H, W, C], policy target [num_actions], value target)``. The policy
target is the search's (visit shares for PUCT, the improved policy for Gumbel). The value
target is the final result from the point of view of the player to move in that position
(``score * player``; never assumed to alternate), as ``selfplay_moves.value_targets`` shapes
it.

The loop here only batches: every step searches all the games in flight with one network
call (``search_step``), and a game whose search is done plays its move and begins the next
search at once. What varies between games and moves (random openings, playout caps,
temperature) is decided by the small pieces of
``selfplay_moves.py``; how a move is searched, by the run's search policy (``search.params()``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..config import SearchConfig, SelfPlayConfig
from ..games.base import Game
from ..progress import bars as progress_bars
from ..search import (
    EvaluationCache,
    Node,
    Policy,
    RootSearch,
    SearchPolicy,
    make_policy,
    search_step,
)
from ..search.collector import rare_full_collections
from ..training.interrupts import raise_if_interrupted
from . import moves
from .results import Examples, SelfPlayStats


@dataclass
class _Slot:
    """One game in flight."""

    root: Node
    records: list[tuple[np.ndarray, np.ndarray, int, float]] = field(default_factory=list)
    """(planes, policy target, player to move, search value) per example."""
    moves: int = 0
    full: bool = True
    """Whether this move gets the full search (and becomes a training example)."""
    search: RootSearch | None = None
    """This move's search."""


@dataclass
class _Collected:
    """The examples of the games finished so far, and how long they took."""

    planes: list[np.ndarray] = field(default_factory=list)
    policies: list[np.ndarray] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    start_time: float = field(default_factory=time.perf_counter)
    cpu_start: float = field(default_factory=time.process_time)


def play_games(
    new_game: Callable[[], Game],
    policy: Policy,
    num_games: int,
    search: SearchConfig,
    selfplay: SelfPlayConfig,
    rng: np.random.Generator,
    progress: bool = True,
    on_game: Callable[[Examples, SelfPlayStats], None] | None = None,
    on_step: Callable[[int], None] | None = None,
) -> tuple[Examples, SelfPlayStats]:
    """Play ``num_games`` games against itself, ``selfplay.parallel_games`` at a time.

    Every step searches all the games in flight with one network call, and a game moves on
    as soon as its own search is done, so games whose moves get different budgets (playout
    cap randomisation) keep the batch full. (As the last games end, the batch shrinks: the
    games' tail costs little on a CPU, where a call's cost follows its batch.)

    ``on_game(examples, stats)``, if given, is called as each game ends, with that game's
    examples and the statistics so far (a copy); the examples of every call, one after the
    other, are those returned. ``on_step(moves)``, if given, is called after every search
    step with the moves played so far (a measure of progress while games are in flight).
    """
    with rare_full_collections:  # between the search steps too (see _play)
        return _play(new_game, policy, num_games, search, selfplay, rng, progress, on_game, on_step)


def _play(
    new_game: Callable[[], Game],
    policy: Policy,
    num_games: int,
    search: SearchConfig,
    selfplay: SelfPlayConfig,
    rng: np.random.Generator,
    progress: bool,
    on_game: Callable[[Examples, SelfPlayStats], None] | None,
    on_step: Callable[[int], None] | None,
) -> tuple[Examples, SelfPlayStats]:
    """``play_games``'s loop. Its caller holds ``rare_full_collections`` for all of it, not
    only for the search steps: a full collection due between two steps (choosing moves,
    re-rooting) would walk TensorFlow's objects and the trees and find nothing
    (docs/research/benchmarks.md).
    """
    policy, cache = _evaluator(policy, search)
    searcher = make_policy(search.params())
    stats, out = SelfPlayStats(), _Collected()
    active: list[_Slot] = []
    started = 0
    bar = progress_bars.bar(num_games, "self-play", "game", enabled=progress)
    while active or started < num_games:
        raise_if_interrupted()
        while started < num_games and len(active) < selfplay.parallel_games:
            slot = _start(new_game, selfplay, rng)
            _begin_search(slot, searcher, search, selfplay, rng)
            active.append(slot)
            started += 1
        searches = [slot.search for slot in active if slot.search is not None]
        before = sum(s.node.N for s in searches)
        stats.network_calls += search_step(searches, policy)
        stats.simulations += sum(s.node.N for s in searches) - before
        still_active = []
        for slot in active:
            if slot.search is not None and slot.search.remaining:
                still_active.append(slot)
                continue
            score = _advance(slot, selfplay, rng, stats)
            if score is None:
                _begin_search(slot, searcher, search, selfplay, rng)
                still_active.append(slot)
                continue
            first = len(out.values)
            _finish(slot, score, selfplay, stats, out.planes, out.policies, out.values)
            if on_game is not None:
                game_examples = _stack(
                    out.planes[first:], out.policies[first:], out.values[first:], new_game
                )
                on_game(game_examples, _snapshot(stats, cache, out.start_time, out.cpu_start))
            bar.update(1)
        active = still_active
        bar.set_postfix(moves=stats.moves, positions=len(out.values))
        if on_step is not None:
            on_step(stats.moves)
    bar.close()
    stats = _snapshot(stats, cache, out.start_time, out.cpu_start)
    return _stack(out.planes, out.policies, out.values, new_game), stats


def _evaluator(policy: Policy, search: SearchConfig) -> tuple[Policy, EvaluationCache | None]:
    """What the search calls: the network, behind an evaluation cache with
    ``search.evaluation_cache`` (one a call: its answers are those of this call's weights)."""
    if not search.evaluation_cache:
        return policy, None
    cache = EvaluationCache(policy, search.evaluation_cache)
    return cache, cache


def _start(
    new_game: Callable[[], Game], selfplay: SelfPlayConfig, rng: np.random.Generator
) -> _Slot:
    """A new game, its opening played."""
    game, opening = moves.random_opening(new_game(), selfplay, rng)
    return _Slot(Node(game), moves=len(opening))


def _stack(
    planes: list[np.ndarray],
    policies: list[np.ndarray],
    values: list[float],
    new_game: Callable[[], Game],
) -> Examples:
    if not planes:  # possible with playout cap randomisation and very few games
        return Examples.empty(new_game())
    return Examples(
        planes=np.stack(planes).astype(np.float32),
        policies=np.stack(policies).astype(np.float32),
        values=np.asarray(values, dtype=np.float32),
    )


def _snapshot(
    stats: SelfPlayStats, cache: EvaluationCache | None, start_time: float, cpu_start: float
) -> SelfPlayStats:
    """A copy of ``stats`` as they would be returned now."""
    copy = dataclasses.replace(stats, lengths=list(stats.lengths))
    if cache is not None:
        copy.cache_hits, copy.cache_lookups = cache.hits, cache.lookups
    copy.seconds = time.perf_counter() - start_time
    copy.cpu_seconds = time.process_time() - cpu_start
    return copy


def _begin_search(
    slot: _Slot,
    searcher: SearchPolicy,
    search: SearchConfig,
    selfplay: SelfPlayConfig,
    rng: np.random.Generator,
) -> None:
    """Begin the search for the move at ``slot.root`` (``moves.move_budget``); its move is
    sampled in the opening."""
    budget = moves.move_budget(search, selfplay, rng)
    slot.full = budget.recorded
    sampled = moves.temperature(selfplay, slot.moves) > 0
    slot.search = searcher.begin(
        slot.root, budget.simulations, rng, recorded=budget.recorded, sampled=sampled
    )
    slot.root = slot.search.node


def _advance(
    slot: _Slot, selfplay: SelfPlayConfig, rng: np.random.Generator, stats: SelfPlayStats
) -> int | None:
    """Play one move in ``slot``; the absolute score if the game ended."""
    game, search = slot.root.game, slot.search
    assert search is not None
    slot.search = None
    tau = moves.temperature(selfplay, slot.moves)
    choice = search.choose(tau, rng)
    if slot.full:  # a fast search's visits are too few to be a policy target
        slot.records.append((game.encode(), choice.policy, game.player, choice.value))
    slot.moves += 1
    stats.moves += 1
    slot.root = choice.node
    return slot.root.game.score


def _finish(
    slot: _Slot,
    score: int,
    selfplay: SelfPlayConfig,
    stats: SelfPlayStats,
    planes: list[np.ndarray],
    policies: list[np.ndarray],
    values: list[float],
) -> None:
    """Count the finished game and add its examples (every symmetric copy with
    ``selfplay.augment``) to ``planes``, ``policies`` and ``values``."""
    stats.games += 1
    stats.lengths.append(slot.moves)
    if score > 0:
        stats.first_wins += 1
    elif score < 0:
        stats.second_wins += 1
    else:
        stats.draws += 1
    game = slot.root.game
    targets = moves.value_targets(
        selfplay, score, [r[2] for r in slot.records], [r[3] for r in slot.records]
    )
    for (board, policy, *_), outcome in zip(slot.records, targets, strict=True):
        pairs = game.symmetries(board, policy) if selfplay.augment else [(board, policy)]
        for sym_planes, sym_policy in pairs:
            planes.append(sym_planes)
            policies.append(sym_policy)
            values.append(outcome)
