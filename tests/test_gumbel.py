"""Gumbel AlphaZero's search, where the answer is known: network-free policies, tiny budgets."""

from __future__ import annotations

import numpy as np
import pytest

from alphazero.config import SearchConfig, SelfPlayConfig
from alphazero.games import make
from alphazero.games.tictactoe import TicTacToe
from alphazero.search import (
    GumbelParams,
    Node,
    RootSearch,
    SearchParams,
    gumbel_policy,
    improved_policy,
    run,
)
from alphazero.search.gumbel import completed_q, considered_visits, sigma
from alphazero.selfplay.loop import play_games


def biased_policy(num_actions: int, logits: dict[int, float], value: float = 0.0):
    """Priors from ``logits`` (others -5: rarely sampled), the same value everywhere."""
    row = np.full(num_actions, -5.0)
    for action, logit in logits.items():
        row[action] = logit

    def policy(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.tile(row, (len(planes), 1)), np.full(len(planes), value)

    return policy


def gumbel_search(nodes, policy, simulations, params, rng) -> list[RootSearch]:
    """Search ``nodes`` with ``simulations`` in all, the first evaluating a fresh root; with
    ``rng``, Gumbel noise at the root."""
    begin = gumbel_policy(SearchParams(algorithm="gumbel", gumbel=params)).begin
    searches = [
        begin(node, simulations - (0 if node.children else 1), rng, sampled=rng is not None)
        for node in nodes
    ]
    run(searches, policy)
    return searches


def gumbel_choice(root: RootSearch):
    return root.choose(0.0, np.random.default_rng(0))


def test_halving_visits_every_considered_move_then_the_better_half():
    # 4 moves, 8 simulations: each once, then the two survivors twice each.
    assert considered_visits(4, 8) == (0, 0, 0, 0, 1, 1, 2, 2)
    assert considered_visits(1, 3) == (0, 1, 2)
    # 7 legal moves, 16 simulations: 7 first visits, 3 kept, then 2 twice each.
    table = considered_visits(7, 16)
    assert table[:7] == (0,) * 7 and len(table) == 16


def test_search_spends_its_budget_on_the_considered_moves():
    game = make("connect4")
    (root,) = gumbel_search(
        [Node(game)], biased_policy(7, {}), 33, GumbelParams(considered=4), np.random.default_rng(0)
    )
    visits = sorted(c.N for c in root.node.children.values())
    assert sum(visits) == 32  # the first simulation evaluated the root
    assert visits[:3] == [0, 0, 0]  # three of seven moves never considered
    assert visits[-1] > visits[-3]  # the survivors of the halving got more


@pytest.mark.parametrize("seed", range(10))
def test_gumbel_takes_a_win_in_one_with_four_simulations(seed):
    # X (to move) has a-b-c... in Connect Four: three in column 1; the prior prefers column 4.
    game = make("connect4")
    for move in [0, 1, 0, 1, 0, 1]:
        game = game.sim_move(move)
    policy = biased_policy(7, {3: 3.0, 0: -2.0})
    (root,) = gumbel_search([Node(game)], policy, 4, GumbelParams(), np.random.default_rng(seed))
    choice = gumbel_choice(root)
    assert choice.action == 0
    assert choice.value == 1.0


@pytest.mark.parametrize("seed", range(10))
def test_gumbel_blocks_a_loss_in_one_with_four_simulations(seed):
    # O to move must take column 1 (X has three there); the prior prefers column 4 over it.
    game = make("connect4")
    for move in [0, 1, 0, 1, 0]:
        game = game.sim_move(move)
    policy = biased_policy(7, {3: 2.0, 0: 1.0})
    (root,) = gumbel_search([Node(game)], policy, 4, GumbelParams(), np.random.default_rng(seed))
    assert root.node.children[3].outcome == -1.0  # visited, and proven lost
    assert gumbel_choice(root).action == 0


def test_policy_target_moves_mass_to_the_move_q_prefers():
    game = make("connect4")
    for move in [0, 1, 0, 1, 0]:
        game = game.sim_move(move)
    policy = biased_policy(7, {3: 2.0, 0: 1.0})
    node = Node(game)
    (root,) = gumbel_search([node], policy, 8, GumbelParams(), np.random.default_rng(0))
    prior = np.zeros(7)
    for child in node.children.values():
        prior[child.action] = child.prob
    target = gumbel_choice(root).policy
    assert target[0] > prior[0]  # the saving move gains
    assert target[3] < prior[3]  # the prior's favourite, proven lost, loses
    assert target.sum() == pytest.approx(1.0)


def test_unvisited_moves_get_the_mixed_value():
    game = make("tictactoe")
    node = Node(game)
    gumbel_search([node], biased_policy(9, {4: 1.0}, value=0.5), 3, GumbelParams(), None)
    q = completed_q(node)
    visited = np.array([c.N > 0 for c in node.children.values()])
    assert visited.sum() == 2
    # Every visited child's V is the opponent's 0.5 turned to the mover: -0.5; the mixed value
    # blends the root's own 0.5 with them: (0.5 + 2 * -0.5) / 3.
    assert np.allclose(q[visited], -0.5)
    assert np.allclose(q[~visited], (0.5 + 2 * -0.5) / 3)
    assert improved_policy(node).sum() == pytest.approx(1.0)


def test_gumbel_self_play_makes_valid_examples():
    game = make("tictactoe")
    search = SearchConfig(algorithm="gumbel", simulations=8)
    selfplay = SelfPlayConfig(games_per_iteration=6, parallel_games=3, temperature_moves=2)
    examples, stats = play_games(
        lambda: make("tictactoe"),
        biased_policy(9, {}),
        6,
        search,
        selfplay,
        np.random.default_rng(0),
        progress=False,
    )
    assert stats.games == 6
    assert len(examples) == stats.moves * 8  # every move, in its 8 symmetric copies
    assert np.allclose(examples.policies.sum(axis=1), 1.0)
    # No mass on an occupied square: planes 0-1 hold the two players' stones.
    occupied = examples.planes[..., :2].sum(axis=-1).reshape(len(examples), -1) > 0
    assert not (examples.policies * occupied).any()
    assert game.num_actions == examples.policies.shape[1]


def test_proven_results_stand_in_for_q():
    game = make("connect4")
    for move in [0, 1, 0, 1, 0]:
        game = game.sim_move(move)
    node = Node(game)
    gumbel_search([node], biased_policy(7, {3: 2.0, 0: 1.0}), 4, GumbelParams(), None)
    q = completed_q(node)
    children = list(node.children.values())
    lost = [i for i, c in enumerate(children) if c.outcome == -1.0]
    assert lost and np.all(q[lost] == -1.0)


def test_the_mixed_value_takes_the_visited_moves_completed_q():
    """Danihelka et al. (2022), eq. 33: the unvisited moves' value blends the node's own with
    the prior-weighted completed Q of the visited, a proven result where there is one (not the
    mean value that the proof has overtaken)."""
    root = Node(TicTacToe.from_moves([0, 4, 8]))
    gumbel_search([root], biased_policy(9, {}, value=0.3), 32, GumbelParams(), None)
    node = root.children[2]  # below the root, where moves go unvisited and Q picks the path
    children = list(node.children.values())
    proven = [c for c in children if c.N and c.outcome is not None and c.outcome != c.V]
    assert proven  # the test needs a visited move whose proof its mean has not caught up with
    q = completed_q(node)
    visited = [i for i, c in enumerate(children) if c.N]
    prior = np.array([children[i].prob for i in visited])
    total = sum(children[i].N for i in visited)
    mixed = (node.raw_value + total * prior @ q[visited] / prior.sum()) / (1 + total)
    unvisited = [i for i, c in enumerate(children) if not c.N and c.outcome is None]
    assert unvisited and np.allclose(q[unvisited], mixed)


def test_the_improved_policy_is_softmax_of_logits_plus_sigma():
    game = make("tictactoe")
    node = Node(game)
    gumbel_search([node], biased_policy(9, {4: 1.0, 0: 0.5}, value=0.3), 6, GumbelParams(), None)
    logits = np.log([c.prob for c in node.children.values()])
    scores = logits + sigma(node)
    expected = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    assert np.allclose(improved_policy(node), expected)
    assert sigma(node).min() == 0.0  # the worst move gets no bonus


@pytest.mark.parametrize(
    ("section", "key", "value", "problem"),
    [
        ("selfplay", "fast_simulations", 1, "must be >= 2"),
    ],
)
def test_config_refuses_what_gumbel_cannot_do(section, key, value, problem):
    from alphazero.config import ConfigError, config_from_dict

    data: dict = {"search": {"algorithm": "gumbel"}}
    data.setdefault(section, {})[key] = value
    with pytest.raises(ConfigError, match=problem):
        config_from_dict(data)
