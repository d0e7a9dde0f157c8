"""The classic baselines: plain UCT, UCT-RAVE and their rollout policies (``Game.playout``).

Every search is seeded, so each test plays the same games on every run.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from alphazero.baselines import (
    MonteCarloTreeSearch,
    PerfectPlayer,
    RAVENode,
    RAVEPlayer,
    RAVESearch,
    UCTPlayer,
)
from alphazero.baselines.rave import backup
from alphazero.games import Game, make
from alphazero.games.base import Moves

# (name, params, moves before the test position, the winning / saving move)
WIN_IN_ONE = [
    ("tictactoe", {}, [0, 3, 1, 4], 2),
    ("connect4", {}, [0, 1, 0, 1, 0, 1], 0),
    ("gomoku", {"size": 6, "n_in_row": 4}, [0, 30, 1, 31, 2, 32], 3),
    # 1x2 boxes: edge 5 closes the left box and (moving again) edge 6 the right one;
    # edge 6 would hand both boxes to the opponent.
    ("dots_and_boxes", {"rows": 1, "cols": 2}, [0, 2, 4, 1, 3], 5),
]
BLOCK_LOSS_IN_ONE = [
    ("tictactoe", {}, [0, 3, 1], 2),
    ("connect4", {}, [0, 1, 0, 1, 0], 0),
    ("gomoku", {"size": 6, "n_in_row": 4}, [0, 30, 1, 31, 2], 3),
]
SEARCHES = {
    "uct": lambda game, seed, knowledge=False: MonteCarloTreeSearch(
        game, rng=seed, knowledge=knowledge
    ),
    "rave": lambda game, seed, knowledge=False: RAVESearch(game, rng=seed, knowledge=knowledge),
}


def position(name: str, params: dict, moves: list[int]) -> Game:
    return type(make(name, **params)).from_moves(moves, **params)


def play(game: Game, first, second) -> int:
    """Play ``first`` (the first player) against ``second``; the absolute score."""
    players = {1: first, -1: second}
    while game.score is None:
        game = game.sim_move(players[game.player](game))
    return game.score


class RandomMover:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, game: Game) -> int:
        return self.rng.choice(game.available_moves)


def match_score(make_a, make_b, game_name: str, games: int, **params) -> list[int]:
    """Results of ``a`` against ``b``, from ``a``'s point of view, sides alternating."""
    results = []
    for i in range(games):
        a, b = make_a(i), make_b(10_000 + i)
        start = make(game_name, **params)
        results.append(play(start, a, b) if i % 2 == 0 else -play(start, b, a))
    return results


# ------------------------------------------------------------------------------ tactics
@pytest.mark.parametrize("kind", sorted(SEARCHES))
@pytest.mark.parametrize(("name", "params", "moves", "best"), WIN_IN_ONE)
def test_takes_a_win_in_one(kind, name, params, moves, best):
    game = position(name, params, moves)
    for seed in range(3):
        assert SEARCHES[kind](game, seed).best_action(1000) == best


@pytest.mark.parametrize(
    ("kind", "name", "params", "moves", "best"),
    # Not RAVE on Gomoku: there the AMAF value of the block is no better than the average
    # (random rollouts in which the second player ever takes that point are about as often
    # lost as any others), so 1000 simulations are not always enough.
    [
        (kind, *case)
        for kind in sorted(SEARCHES)
        for case in BLOCK_LOSS_IN_ONE
        if not (kind == "rave" and case[0] == "gomoku")
    ],
)
def test_blocks_a_loss_in_one(kind, name, params, moves, best):
    game = position(name, params, moves)
    for seed in range(3):
        assert SEARCHES[kind](game, seed).best_action(1000) == best


@pytest.mark.parametrize("kind", sorted(SEARCHES))
def test_gomoku_knowledge_keeps_the_tactics(kind):
    """Expansion with knowledge is restricted to points next to a stone: wins and blocks are
    among them."""
    for moves, best in (([0, 30, 1, 31, 2, 32], 3), ([0, 30, 1, 31, 2], 3)):
        game = position("gomoku", {"size": 6, "n_in_row": 4}, moves)
        assert SEARCHES[kind](game, 0, knowledge=True).best_action(1000) == best


@pytest.mark.parametrize("kind", sorted(SEARCHES))
def test_extra_turn_point_of_view(kind):
    """Dots and Boxes 1x2, second player to move with edges 5 and 6 left.

    Edge 5 closes a box and the same player moves again (6 closes the other): a sure win.
    Edge 6 closes nothing and the opponent takes both. Every result is exact, so the values
    show whether each node's statistics are from its chooser's point of view.
    """
    game = position("dots_and_boxes", {"rows": 1, "cols": 2}, [0, 2, 4, 1, 3])
    assert game.player == -1
    search = SEARCHES[kind](game, 0)
    assert search.best_action(200) == 5
    children = {child.action: child for child in search.root.children}
    five, six = children[5], children[6]
    assert five.chooser == six.chooser == -1
    assert five.Q == 1.0 and six.Q == -1.0
    assert five.N + six.N == search.root.N == 200
    (again,) = five.children  # the extra turn: the second player chooses again
    assert again.action == 6 and again.chooser == -1 and again.Q == 1.0
    (reply,) = six.children  # the first player takes both boxes
    assert reply.action == 5 and reply.chooser == 1 and reply.Q == 1.0


def test_statistics_add_up():
    """Every simulation passes once through the root; a node's visits are its own rollout
    plus its children's (a finished position is re-scored in place)."""
    search = MonteCarloTreeSearch(make("connect4"), rng=3)
    search.search(500)
    assert search.root.N == 500 == sum(ch.N for ch in search.root.children)
    stack = list(search.root.children)
    while stack:
        node = stack.pop()
        assert -1.0 <= node.Q <= 1.0
        assert node.chooser == node.mother.game.player
        if node.game.score is None:
            assert node.N == 1 + sum(ch.N for ch in node.children)
        stack.extend(node.children)


# ---------------------------------------------------------------------------------- RAVE
def test_amaf_ignores_the_other_players_moves():
    """The AMAF update of a node counts only later moves by the player to move there."""
    game = make("dots_and_boxes", rows=2, cols=2)
    root = RAVENode(game, None, None, game.available_moves)
    child_game = game.sim_legal_move(0)
    child = RAVENode(child_game, root, 0, child_game.available_moves)
    root.children.append(child)
    assert root.player == 1 and child.player == -1
    # After the tree move 0 (first player): the second player draws 1, the first 2, the second
    # 3 and, moving again, 4. The first player won.
    backup(child, 1, [(-1, 1), (1, 2), (-1, 3), (-1, 4)])
    assert [a for a, n in enumerate(root.amaf_n) if n] == [0, 2]
    assert root.amaf_w[0] == root.amaf_w[2] == 1  # the first player's point of view
    assert [a for a, n in enumerate(child.amaf_n) if n] == [1, 3, 4]
    assert child.amaf_w[1] == child.amaf_w[3] == child.amaf_w[4] == -1
    assert (root.N, child.N, child.W) == (1, 1, 1.0)
    # an action played twice by the same player (a Connect Four column) counts once
    c4 = make("connect4")
    node = RAVENode(c4, None, None, c4.available_moves)
    backup(node, -1, [(1, 3), (-1, 3), (1, 3), (-1, 2)])
    assert node.amaf_n[3] == 1 and node.amaf_w[3] == -1 and node.amaf_n[2] == 0


def test_rave_expands_among_the_best_amaf_moves_at_random():
    """Six unseen columns tie at AMAF 0 and the seventh has lost: each of the six is expanded
    first about as often, whatever its place in the list of untried moves."""
    firsts = []
    for seed in range(1_200):
        search = RAVESearch(make("connect4"), rng=seed)
        search.root.amaf_n[6], search.root.amaf_w[6] = 1, -1
        search._run(1, None)
        firsts.append(search.root.children[0].action)
    counts = np.bincount(firsts, minlength=7)
    assert counts[6] == 0
    assert counts[:6].min() > 140 and counts[:6].max() < 260  # 200 each expected


def test_amaf_follows_the_extra_turn():
    """In the 1x2 boxes position the second player, after edge 5, also draws 6: at the root
    AMAF credits 6 with those wins; after root move 6, edge 5 is the opponent's, not counted."""
    game = position("dots_and_boxes", {"rows": 1, "cols": 2}, [0, 2, 4, 1, 3])
    search = RAVESearch(game, rng=1)
    search.search(100)
    root = search.root
    n5, n6 = (next(ch.N for ch in root.children if ch.action == a) for a in (5, 6))
    assert (root.amaf_n[5], root.amaf_w[5]) == (n5, n5)
    assert (root.amaf_n[6], root.amaf_w[6]) == (n5 + n6, n5 - n6)


# ------------------------------------------------------------------------------ rollouts
ROLLOUT_GAMES = [
    ("tictactoe", {}),
    ("connect4", {}),
    ("connect4", {"rows": 4, "cols": 5, "n_in_row": 3}),
    ("gomoku", {"size": 7, "n_in_row": 4}),
    ("dots_and_boxes", {"rows": 2, "cols": 3}),
]


@pytest.mark.parametrize("knowledge", [False, True])
@pytest.mark.parametrize(("name", "params"), ROLLOUT_GAMES)
def test_recorded_rollouts_replay(name, params, knowledge):
    """The recorded moves are legal, tagged with the player to move, and give the score."""
    rng = random.Random(7)
    start = make(name, **params)
    for opening in range(20):
        game = start
        for _ in range(opening % 5):  # from the start and from a few random positions
            if game.score is None:
                game = game.sim_move(rng.choice(game.available_moves))
        if game.score is not None:
            continue
        score, moves = rollout_moves(game, rng, knowledge)
        for player, action in moves:
            assert game.player == player
            game = game.sim_move(action)
        assert game.score == score
        assert start.playout(rng, knowledge=knowledge)[0] in (-1, 0, 1)


def rollout_moves(game: Game, rng: random.Random, knowledge: bool) -> tuple[int, Moves]:
    """``game.playout`` recording its moves: ``(score, [(player, action), ...])``; the count
    it returns is the moves recorded."""
    moves: Moves = []
    score, played = game.playout(rng, moves, knowledge)
    assert played == len(moves)
    return score, moves


def _box_sides(game) -> list[int]:
    edges = game._edges
    sides = [0] * (game.rows * game.cols)
    for action in range(game.num_actions):
        if edges >> action & 1:
            for box_bit, _ in game._rules.boxes_of_edge[action]:
                sides[box_bit.bit_length() - 1] += 1
    return sides


def _effect(game, action) -> tuple[bool, bool]:
    """Whether ``action`` completes a box, and whether it gives some box a third side."""
    sides = _box_sides(game)
    touched = [sides[b.bit_length() - 1] for b, _ in game._rules.boxes_of_edge[action]]
    return 3 in touched, 2 in touched


def test_boxes_knowledge_takes_boxes_and_plays_safe():
    rng = random.Random(11)
    for rows, cols in ((2, 2), (3, 3), (2, 4)):
        start = make("dots_and_boxes", rows=rows, cols=cols)
        for _ in range(30):
            game = start
            _, moves = rollout_moves(game, rng, knowledge=True)
            for _, action in moves:
                legal = game.available_moves
                effects = {a: _effect(game, a) for a in legal}
                takes, unsafe = effects[action]
                if any(t for t, _ in effects.values()):
                    assert takes, "a completable box was left untaken"
                elif any(not u for _, u in effects.values()):
                    assert not unsafe, "a third side was drawn while a safe edge existed"
                game = game.sim_move(action)


def test_gomoku_knowledge_plays_next_to_stones():
    rng = random.Random(5)
    start = make("gomoku", size=9, n_in_row=5)
    assert len(start.candidate_moves(knowledge=True)) == 81
    for _ in range(20):
        game = start
        _, moves = rollout_moves(game, rng, knowledge=True)
        for _, action in moves[:40]:
            if game.state.any():
                near = np.zeros((11, 11), dtype=bool)
                stones = np.pad(game.state != 0, 1)
                for dr in (-1, 0, 1):
                    for dc in (-1, 0, 1):
                        near |= np.roll(np.roll(stones, dr, 0), dc, 1)
                r, c = divmod(action, 9)
                assert near[r + 1, c + 1]
                assert set(game.candidate_moves(knowledge=True)) == {
                    a for a in game.available_moves if near[a // 9 + 1, a % 9 + 1]
                }
            game = game.sim_move(action)


# ------------------------------------------------------------------------------- players
def test_player_names_and_budgets():
    assert UCTPlayer().name == "uct:1000"
    assert UCTPlayer(simulations=None, seconds=2).name == "uct:2s"
    assert RAVEPlayer(300).name == "rave:300"
    game = make("connect4")
    player = UCTPlayer(simulations=None, seconds=0.05, seed=1)
    assert player(game) in game.available_moves
    assert player.last_search is not None and player.last_search.simulations > 0
    assert RAVEPlayer(simulations=None, seconds=0.05, seed=1)(game) in game.available_moves
    with pytest.raises(ValueError):
        UCTPlayer(simulations=None, seconds=None)
    with pytest.raises(ValueError):
        MonteCarloTreeSearch(position("tictactoe", {}, [0, 3, 1, 4, 2]))


@pytest.mark.parametrize("kind", [UCTPlayer, RAVEPlayer])
def test_a_time_budget_counts_the_seconds_of_the_clock_it_is_given(kind):
    """A clock that moves a second each time it is read: the deadline is read once, then
    once after each simulation but the first, so 3 seconds are 3 simulations."""
    ticks = iter(range(1_000_000))
    player = kind(simulations=None, seconds=3, seed=1, clock=lambda: float(next(ticks)))
    game = make("connect4")
    assert player(game) in game.available_moves
    assert player.last_search is not None and player.last_search.simulations == 3


def test_players_are_reproducible():
    game = position("connect4", {}, [3, 3])
    assert [UCTPlayer(200, seed=4)(game) for _ in range(2)] == [UCTPlayer(200, seed=4)(game)] * 2


# --------------------------------------------------------------------------------- games
def test_uct_beats_random_at_connect4():
    results = match_score(lambda s: UCTPlayer(1000, seed=s), RandomMover, "connect4", 40)
    assert results.count(1) >= 0.95 * len(results)
    assert -1 not in results


def test_rave_beats_random_at_connect4():
    results = match_score(lambda s: RAVEPlayer(300, seed=s), RandomMover, "connect4", 20)
    assert results.count(1) >= 0.9 * len(results)


def test_perfect_player_never_loses_to_uct():
    """Nor does UCT lose to it, with 1000 simulations (40 draws in 40 games when tried)."""
    results = match_score(
        lambda s: PerfectPlayer(np.random.default_rng(s)),
        lambda s: UCTPlayer(1000, seed=s),
        "tictactoe",
        10,
    )
    assert results == [0] * 10


def test_boxes_knowledge_beats_plain_uct():
    results = match_score(
        lambda s: UCTPlayer(1000, knowledge=True, seed=s),
        lambda s: UCTPlayer(1000, seed=s),
        "dots_and_boxes",
        20,
        rows=3,
        cols=3,
    )
    assert results.count(1) > 2 * results.count(-1)


def test_gomoku_knowledge_beats_plain_uct():
    results = match_score(
        lambda s: UCTPlayer(1000, knowledge=True, seed=s),
        lambda s: UCTPlayer(1000, seed=s),
        "gomoku",
        6,
        size=9,
        n_in_row=5,
    )
    assert results.count(1) >= 5


@pytest.mark.slow
def test_rave_holds_its_own_against_uct_at_connect4():
    """On Connect Four AMAF helps little (a column is not a point), but it must not hurt."""
    results = match_score(
        lambda s: RAVEPlayer(1000, seed=s), lambda s: UCTPlayer(1000, seed=s), "connect4", 40
    )
    assert sum(results) >= -4
