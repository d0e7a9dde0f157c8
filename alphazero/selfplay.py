"""Self-play: many games searched at once, turned into training examples.

Each example is ``(planes [H, W, C], policy target [num_actions], value target)``. The policy
target is the root's visit shares (PUCT) or the improved policy (Gumbel). The value target is
the final result from the point of view of the player to move in that position (``score *
player``; never assumed to alternate), discounted by ``selfplay.value_discount`` per move
still to come and blended with the search's value by ``selfplay.value_target_mix``.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import progress as progress_bars
from .config import SearchConfig, SelfPlayConfig
from .games.base import Game
from .interrupts import raise_if_interrupted
from .paused import PausedGame
from .search import (
    Choice,
    EvaluationCache,
    GumbelParams,
    GumbelRoot,
    Node,
    Policy,
    detach,
    gumbel_choice,
    gumbel_selector,
    reroot,
    search_step,
    symmetric_policy,
)
from .search.collector import rare_full_collections
from .selfplay_results import Examples, SelfPlayStats


@dataclass
class _Slot:
    """One game in flight."""

    root: Node
    records: list[tuple[np.ndarray, np.ndarray, int, float, int]] = field(default_factory=list)
    """(planes, policy target, player to move, search value, move number) per example."""
    actions: list[int] = field(default_factory=list)
    """Every move played from the start (what a paused game replays)."""
    moves: int = 0
    full: bool = True
    """Whether this move gets the full search (and becomes a training example)."""
    remaining: int = 0
    """Simulations left in this move's search."""
    would_resign: int | None = None  # the player who would have resigned (playthrough games)
    weak_player: int | None = None
    """The side that plays with a small fresh search and is not recorded (weak_side_share)."""
    gumbel: GumbelRoot | None = None
    """This move's Gumbel search (``search.algorithm: gumbel``)."""


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
    cap randomisation) keep the batch full. (As the last games end, the batch shrinks:
    ``play_games_carrying`` has no such tail.)

    ``on_game(examples, stats)``, if given, is called as each game ends, with that game's
    examples and the statistics so far (a copy); the examples of every call, one after the
    other, are those returned. ``on_step(moves)``, if given, is called after every search
    step with the moves played so far (a measure of progress while games are in flight).
    """
    with rare_full_collections:  # between the search steps too (see _play)
        examples, stats, _ = _play(
            new_game, policy, num_games, search, selfplay, rng, None, progress, on_game, on_step
        )
    return examples, stats


def play_games_carrying(
    new_game: Callable[[], Game],
    policy: Policy,
    num_games: int,
    search: SearchConfig,
    selfplay: SelfPlayConfig,
    rng: np.random.Generator,
    paused: list[PausedGame],
    progress: bool = True,
    on_game: Callable[[Examples, SelfPlayStats], None] | None = None,
    on_step: Callable[[int], None] | None = None,
) -> tuple[Examples, SelfPlayStats, list[PausedGame]]:
    """Play until ``num_games`` games have ended, always ``selfplay.parallel_games`` at a
    time (``selfplay.carry_over``): the ``paused`` games go on first, in order, as places
    free up, then new games start; when the ``num_games``-th game ends, every game still in
    flight pauses where it is (a move half searched is searched again, afresh) and is
    returned, with the paused games that had no place yet, to go on in the next call.

    So every network call but those of a run's very first games holds about
    ``parallel_games`` positions, where ``play_games`` ends each call with a tail of ever
    fewer games. A finished game's examples include those recorded before it paused (by
    an earlier network): the price, as in OpenSpiel's and KataGo's actors. ``on_game`` and
    ``on_step`` as in ``play_games``.
    """
    with rare_full_collections:  # between the search steps too (see _play)
        examples, stats, carried = _play(
            new_game, policy, num_games, search, selfplay, rng, paused, progress, on_game, on_step
        )
    assert carried is not None  # a list whenever paused games are given
    return examples, stats, carried


def _play(
    new_game: Callable[[], Game],
    policy: Policy,
    num_games: int,
    search: SearchConfig,
    selfplay: SelfPlayConfig,
    rng: np.random.Generator,
    paused: list[PausedGame] | None,
    progress: bool,
    on_game: Callable[[Examples, SelfPlayStats], None] | None,
    on_step: Callable[[int], None] | None,
) -> tuple[Examples, SelfPlayStats, list[PausedGame] | None]:
    """``play_games`` (``paused`` None) or ``play_games_carrying``; the paused games are
    None for ``play_games``. Without ``paused`` it draws exactly the random numbers it drew
    before carry-over existed, so runs from before replay the same.

    Its callers hold ``rare_full_collections`` for all of it, not only for the search steps:
    once the quarter rule allowed a full collection (``collector.py``), the first one due
    between two steps (choosing moves, re-rooting) came, and it found nothing while walking
    TensorFlow's objects and the trees. Connect Four, 64 games with the 64x5 network, in
    the configs' settings: 3-4 of them, 0.6-0.8 s in 13-14 CPU-s; held, the same games took
    about 7% less CPU.
    """
    if selfplay.symmetric_search:
        policy = symmetric_policy(policy, new_game())
    cache = EvaluationCache(policy, search.evaluation_cache) if search.evaluation_cache else None
    if cache is not None:  # one per call: its answers are those of the weights of this call
        policy = cache
    carrying = paused is not None
    waiting = deque(paused or [])  # paused games still to go on, in order
    stats = SelfPlayStats()
    planes: list[np.ndarray] = []
    policies: list[np.ndarray] = []
    values: list[float] = []
    active: list[_Slot] = []
    started = 0
    start_time = time.perf_counter()
    cpu_start = time.process_time()
    gumbel = search.algorithm == "gumbel"
    # Gumbel search explores by its own sampling at the root: no Dirichlet noise.
    noise = (
        None
        if gumbel
        else (search.dirichlet_alpha, search.dirichlet_weight, rng, search.dirichlet_alpha_scaled)
    )
    noise_due: set[int] = set()  # roots still to get their noise (search_step adds it)
    bar = progress_bars.bar(num_games, "self-play", "game", enabled=progress)
    # Carrying, games start until the quota has ended, so the batch never thins out.
    while (stats.games < num_games) if carrying else (active or started < num_games):
        raise_if_interrupted()
        while (carrying or started < num_games) and len(active) < selfplay.parallel_games:
            if waiting:
                slot = _resume(waiting.popleft(), new_game)
            else:
                slot = _Slot(Node(new_game()))
                # No draw when openings are off, so runs from before the switch replay the same.
                if selfplay.random_opening_share and rng.random() < selfplay.random_opening_share:
                    _play_random_opening(slot, selfplay.random_opening_moves, rng)
                if rng.random() < selfplay.weak_side_share:
                    slot.weak_player = int(rng.choice((1, -1)))
            _begin_search(slot, search, selfplay, rng, noise_due)
            active.append(slot)
            started += 1
        roots = [slot.root for slot in active]
        remaining = [slot.remaining for slot in active]
        before = sum(root.N for root in roots)
        stats.network_calls += search_step(
            roots,
            policy,
            remaining,
            search.c_puct,
            leaves_per_tree=search.leaves_per_tree,
            virtual_loss=search.virtual_loss,
            noise=noise,
            noise_due=noise_due,
            selector=gumbel_selector([s.gumbel for s in active if s.gumbel]) if gumbel else None,
        )
        stats.simulations += sum(root.N for root in roots) - before
        still_active = []
        for slot, left in zip(active, remaining, strict=True):
            slot.remaining = left
            # Once the quota has ended the rest pause as they are (a finished search whose
            # move is unplayed is redone): exactly num_games games end each call.
            if left or (carrying and stats.games == num_games):
                still_active.append(slot)
                continue
            score = _advance(slot, selfplay, rng, stats)
            if score is None:
                _begin_search(slot, search, selfplay, rng, noise_due)
                still_active.append(slot)
                continue
            first = len(values)
            _finish(slot, score, selfplay, stats, planes, policies, values)
            if on_game is not None:
                on_game(
                    _stack(planes[first:], policies[first:], values[first:], new_game),
                    _snapshot(stats, cache, start_time, cpu_start),
                )
            bar.update(1)
        active = still_active
        bar.set_postfix(moves=stats.moves, positions=len(values))
        if on_step is not None:
            on_step(stats.moves)
    bar.close()
    if cache is not None:
        stats.cache_hits, stats.cache_lookups = cache.hits, cache.lookups
    stats.seconds = time.perf_counter() - start_time
    stats.cpu_seconds = time.process_time() - cpu_start
    carried = [_pause(slot) for slot in active] + list(waiting) if carrying else None
    return _stack(planes, policies, values, new_game), stats, carried


def _pause(slot: _Slot) -> PausedGame:
    """``slot`` between two moves, its search dropped (see ``PausedGame``)."""
    records = slot.records
    game = slot.root.game
    return PausedGame(
        actions=np.array(slot.actions, np.int64),
        planes=(
            np.stack([r[0] for r in records]).astype(np.float32)
            if records
            else np.zeros((0, *game.plane_shape), np.float32)
        ),
        policies=(
            np.stack([r[1] for r in records]).astype(np.float64)
            if records
            else np.zeros((0, game.num_actions), np.float64)
        ),
        players=np.array([r[2] for r in records], np.int8),
        search_values=np.array([r[3] for r in records], np.float64),
        move_numbers=np.array([r[4] for r in records], np.int64),
        weak_player=slot.weak_player or 0,
        would_resign=slot.would_resign or 0,
    )


def _resume(paused: PausedGame, new_game: Callable[[], Game]) -> _Slot:
    """A slot for ``paused``, at its position with a fresh root (its search to be begun)."""
    records = [
        (paused.planes[i], paused.policies[i], int(paused.players[i]),
         float(paused.search_values[i]), int(paused.move_numbers[i]))
        for i in range(len(paused.players))
    ]  # fmt: skip
    return _Slot(
        Node(paused.position(new_game())),
        records=records,
        actions=[int(a) for a in paused.actions],
        moves=paused.moves,
        would_resign=paused.would_resign or None,
        weak_player=paused.weak_player or None,
    )


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


def _play_random_opening(slot: _Slot, max_moves: int, rng: np.random.Generator) -> None:
    """Start ``slot`` from 1 to ``max_moves`` uniformly random moves; none is recorded.

    A move that would end the game is never chosen, so every opening leaves a game to learn
    from; the opening stops early if every legal move would end it. The moves count toward
    ``temperature_moves`` as any other.
    """
    game = slot.root.game
    for _ in range(int(rng.integers(1, max_moves + 1))):
        going_on = [
            (after, move)
            for move in game.available_moves
            if not (after := game.sim_move(move)).is_over
        ]
        if not going_on:
            break
        game, move = going_on[int(rng.integers(len(going_on)))]
        slot.actions.append(move)
        slot.moves += 1
    slot.root = Node(game)


def _begin_search(
    slot: _Slot,
    search: SearchConfig,
    selfplay: SelfPlayConfig,
    rng: np.random.Generator,
    noise_due: set[int] | None = None,
) -> None:
    """Set up the search for the move at ``slot.root``: its budget and whether its root is
    due Dirichlet noise (``noise_due``, which ``search_step`` adds it from).

    With playout cap randomisation most moves get the cheap search, without noise (they only
    move the game on); the rest get the full one. The weak side of a ``weak_side_share`` game
    always gets the small search, from a fresh tree.
    """
    if slot.weak_player is not None and slot.root.game.player == slot.weak_player:
        # A fresh tree: the subtree kept from the other side's full search would make it strong.
        slot.root = Node(slot.root.game)
        slot.full, slot.remaining = False, selfplay.weak_side_simulations
    else:
        fast = selfplay.fast_simulations
        slot.full = fast is None or bool(rng.random() < selfplay.full_search_share)
        slot.remaining = search.simulations if slot.full else fast  # type: ignore[assignment]
    if search.algorithm == "gumbel":
        # Sequential halving schedules its simulations from zero visits: the subtree kept
        # from the last move gives only its network evaluation.
        slot.root = reroot(slot.root)
        params = GumbelParams(
            search.gumbel_considered, search.gumbel_c_visit, search.gumbel_c_scale
        )
        if not slot.root.children:  # a fresh root's first simulation is its own evaluation
            slot.remaining += 1
        # Noise makes the move a sample from the improved policy: for the moves sampled (the
        # weak side's, and those within temperature_moves); the others take the best.
        weak = slot.weak_player == slot.root.game.player
        sampled = weak or slot.moves < selfplay.temperature_moves or selfplay.final_temperature > 0
        slot.gumbel = GumbelRoot.start(slot.root, slot.remaining, params, rng if sampled else None)
        return
    if slot.full and noise_due is not None:  # the weak side's searches are never full
        noise_due.add(id(slot.root))


def _advance(
    slot: _Slot, selfplay: SelfPlayConfig, rng: np.random.Generator, stats: SelfPlayStats
) -> int | None:
    """Play one move in ``slot``; the absolute score if the game ended (or was resigned)."""
    root = slot.root
    game = root.game
    weak = slot.weak_player == game.player  # the weak side samples every move
    opening = slot.moves < selfplay.temperature_moves
    tau = 1.0 if weak or opening else selfplay.final_temperature
    # No draw when blunders are off, so weak-side runs from before the switch replay the same.
    if weak and selfplay.weak_side_random and rng.random() < selfplay.weak_side_random:
        choice = _random_move(root, rng)
    elif slot.gumbel is not None:
        choice = gumbel_choice(slot.gumbel)
        slot.gumbel = None
    else:
        # The weak side is meant to slip, so its samples are not cut.
        cutoff = None if weak else selfplay.temperature_value_cutoff
        choice = root.next(tau, rng, value_cutoff=cutoff)
    if slot.full:  # a fast search's visits are too few to be a policy target
        slot.records.append((game.encode(), choice.policy, game.player, choice.value, slot.moves))
    slot.actions.append(int(choice.action))
    slot.moves += 1
    stats.moves += 1
    slot.root = choice.node
    if slot.root.game.score is not None:
        return slot.root.game.score
    threshold = selfplay.resign_threshold
    if threshold is not None and slot.would_resign is None and choice.value < threshold:
        if rng.random() < selfplay.resign_playthrough:
            slot.would_resign = game.player  # play on, and check later whether it was right
            stats.playthroughs += 1
        else:
            stats.resigned += 1
            return -game.player
    return None


def _random_move(root: Node, rng: np.random.Generator) -> Choice:
    """A uniformly random legal move (a weak-side blunder), detached as ``Node.next`` does.

    Weak-side moves are never recorded, so the uniform policy in the ``Choice`` trains
    nothing.
    """
    children = list(root.children.values())
    chosen = children[int(rng.integers(len(children)))]
    policy = np.zeros(root.game.num_actions, dtype=np.float32)
    policy[[child.action for child in children]] = 1.0 / len(children)
    return detach(root, chosen, policy)


def _finish(
    slot: _Slot,
    score: int,
    selfplay: SelfPlayConfig,
    stats: SelfPlayStats,
    planes: list[np.ndarray],
    policies: list[np.ndarray],
    values: list[float],
) -> None:
    stats.games += 1
    stats.lengths.append(slot.moves)
    if score > 0:
        stats.first_wins += 1
    elif score < 0:
        stats.second_wins += 1
    else:
        stats.draws += 1
    if slot.would_resign is not None and score != -slot.would_resign:
        stats.false_resignations += 1
    game = slot.root.game
    mix, discount = selfplay.value_target_mix, selfplay.value_discount
    for board, policy, player, search_value, move in slot.records:
        # The result for the player to move there (discounted by the moves still to come),
        # optionally blended with the search's estimate (less noisy early in training, when
        # results are mostly luck).
        result = float(score * player) * discount ** (slot.moves - 1 - move)
        outcome = (1 - mix) * result + mix * search_value
        pairs = game.symmetries(board, policy) if selfplay.augment else [(board, policy)]
        for sym_planes, sym_policy in pairs:
            planes.append(sym_planes)
            policies.append(sym_policy)
            values.append(outcome)
