"""Self-play: many games searched at once, turned into training examples.

Each example is ``(planes [H, W, C], visit distribution [num_actions], outcome)`` where the
outcome is the final result from the point of view of the player to move in that position
(``score * player``; never assumed to alternate).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import progress as progress_bars
from .config import SearchConfig, SelfPlayConfig
from .games.base import Game
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


@dataclass
class Examples:
    """A batch of training examples."""

    planes: np.ndarray  # [N, H, W, C] float32, mover's point of view
    policies: np.ndarray  # [N, num_actions] float32, visit distributions
    values: np.ndarray  # [N] float32, final result for the mover

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def empty(cls, game: Game) -> Examples:
        """No examples, shaped for ``game``."""
        return cls(
            planes=np.zeros((0, *game.encode().shape), np.float32),
            policies=np.zeros((0, game.num_actions), np.float32),
            values=np.zeros((0,), np.float32),
        )

    @classmethod
    def concatenate(cls, parts: list[Examples], game: Game) -> Examples:
        """``parts`` one after the other (``game`` shapes an empty result)."""
        if not parts:
            return cls.empty(game)
        return cls(
            planes=np.concatenate([part.planes for part in parts]),
            policies=np.concatenate([part.policies for part in parts]),
            values=np.concatenate([part.values for part in parts]),
        )


_COUNTERS = (
    "games", "moves", "first_wins", "second_wins", "draws", "resigned", "playthroughs",
    "false_resignations", "network_calls", "simulations", "cache_hits", "cache_lookups",
)  # fmt: skip


@dataclass
class SelfPlayStats:
    games: int = 0
    moves: int = 0
    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0
    resigned: int = 0
    """Games ended by resignation."""
    playthroughs: int = 0
    """Games that would have resigned but were played to the end to check."""
    false_resignations: int = 0
    """Of the playthroughs, those the would-be resigner did not lose."""
    network_calls: int = 0
    simulations: int = 0
    cache_hits: int = 0
    """Positions answered by ``search.evaluation_cache`` instead of the network."""
    cache_lookups: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the process(es) that played, summed over workers."""
    lengths: list[int] = field(default_factory=list)

    def add(self, other: SelfPlayStats, after: bool = False) -> None:
        """Fold in the statistics of games played side by side (by another worker), or
        ``after`` these (the rest of an iteration an interrupt cut short): their time adds."""
        for name in _COUNTERS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.lengths.extend(other.lengths)
        self.seconds = self.seconds + other.seconds if after else max(self.seconds, other.seconds)
        self.cpu_seconds += other.cpu_seconds

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> SelfPlayStats:
        """Back from ``to_dict`` (keys of other versions are ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        stats = cls(**{k: v for k, v in data.items() if k in names})  # type: ignore[arg-type]
        stats.lengths = [int(x) for x in stats.lengths]
        return stats

    def summary(self) -> dict[str, float]:
        games = max(self.games, 1)
        return {
            "games": self.games,
            "moves": self.moves,
            "first_win_rate": self.first_wins / games,
            "second_win_rate": self.second_wins / games,
            "draw_rate": self.draws / games,
            "mean_length": float(np.mean(self.lengths)) if self.lengths else 0.0,
            "resigned": self.resigned,
            "resign_playthroughs": self.playthroughs,
            "false_resignations": self.false_resignations,
            "false_resignation_rate": self.false_resignations / max(self.playthroughs, 1),
            "simulations_per_second": self.simulations / max(self.seconds, 1e-9),
            "mean_batch": self.simulations / max(self.network_calls, 1),
            "cache_hit_rate": self.cache_hits / max(self.cache_lookups, 1),
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
        }


@dataclass
class _Slot:
    """One game in flight."""

    root: Node
    records: list[tuple[np.ndarray, np.ndarray, int, float, int]] = field(default_factory=list)
    """(planes, visit distribution, player to move, search value, move number) per example."""
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


class FinishedGames:
    """The games of a ``play_games`` call finished so far (its ``on_game``), so that an
    interrupt loses only the games in flight."""

    def __init__(self) -> None:
        self._games: list[tuple[Examples, SelfPlayStats]] = []

    def add(self, examples: Examples, stats: SelfPlayStats) -> None:
        # One append: an interrupt between two statements could part a game from its stats.
        self._games.append((examples, stats))

    @property
    def games(self) -> int:
        return len(self._games)

    def result(self, game: Game) -> tuple[Examples, SelfPlayStats]:
        """The finished games' examples, in the order they finished, and the statistics as
        of the last one (``game`` shapes the examples when there are none)."""
        games = list(self._games)
        examples = Examples.concatenate([e for e, _ in games], game)
        return examples, (games[-1][1] if games else SelfPlayStats())


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
    cap randomisation) keep the batch full.

    ``on_game(examples, stats)``, if given, is called as each game ends, with that game's
    examples and the statistics so far (a copy); the examples of every call, one after the
    other, are those returned. ``on_step(moves)``, if given, is called after every search
    step with the moves played so far (a measure of progress while games are in flight).
    """
    if selfplay.symmetric_search:
        policy = symmetric_policy(policy, new_game())
    cache = EvaluationCache(policy, search.evaluation_cache) if search.evaluation_cache else None
    if cache is not None:  # one per call: its answers are those of the weights of this call
        policy = cache
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
    while active or started < num_games:
        while started < num_games and len(active) < selfplay.parallel_games:
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
            if left:
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
    return _stack(planes, policies, values, new_game), stats


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
            after for move in game.available_moves if not (after := game.sim_move(move)).is_over
        ]
        if not going_on:
            break
        game = going_on[int(rng.integers(len(going_on)))]
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
