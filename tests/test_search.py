"""Behaviour of the PUCT search, with network-free policies so every result is exact."""

from __future__ import annotations

import functools
import gc
import threading
import weakref

import numpy as np
import pytest
from game_helpers import config_params

from alphazero.games import Connect4, Game, make, value_to_parent, view_for
from alphazero.search import (
    Node,
    RootNoise,
    SearchParams,
    SearchPolicy,
    detach,
    expand,
    process_policy,
    puct_policy,
    run,
    symmetric_policy,
)
from alphazero.search import search as search_roots
from alphazero.search.collector import FULL_COLLECTION_EVERY


def uniform_policy(num_actions: int):
    """A 'network' with flat priors and a neutral value: the search alone decides."""

    def policy(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        batch = planes.shape[0]
        return np.zeros((batch, num_actions)), np.zeros(batch)

    return policy


def run_simulations(roots, policy, simulations, rng=None, **params) -> int:
    """PUCT's simulations on ``roots``, no move chosen (``rng``: root noise); network calls."""
    begin = puct_policy(SearchParams(**params)).begin
    return run([begin(root, simulations, rng, recorded=True) for root in roots], policy)


def search(game: Game, simulations: int, **kwargs) -> Node:
    root = Node(game)
    run_simulations([root], uniform_policy(game.num_actions), simulations, **kwargs)
    return root


@functools.cache
def _result_and_plies(game: Game) -> tuple[float, int]:
    """Exact value for the player to move, and the moves left when the winner wins as soon
    and the loser loses as late as it can (tiny positions only)."""
    if game.score is not None:
        return game.value_for_mover(), 0
    outcomes = []
    for action in game.available_moves:
        child = game.sim_move(action)
        value, plies = _result_and_plies(child)
        outcomes.append((value_to_parent(value, child, game), plies + 1))
    best = max(value for value, _ in outcomes)
    plies = [p for value, p in outcomes if value == best]
    return best, min(plies) if best == 1.0 else max(plies)


def _solve(game: Game) -> float:
    """Exact value of ``game`` for its player to move (tiny positions only)."""
    return _result_and_plies(game)[0]


def best_moves(game: Game) -> set[int]:
    values = {a: value_to_parent(_solve(game.sim_move(a)), game.sim_move(a), game)
              for a in game.available_moves}  # fmt: skip
    best = max(values.values())
    return {a for a, v in values.items() if v == best}


# (name, params, moves before the test position, the winning / saving move)
WIN_IN_ONE = [
    ("tictactoe", {}, [0, 3, 1, 4], 2),
    ("connect4", {}, [0, 1, 0, 1, 0, 1], 0),
    ("gomoku", {"size": 6, "n_in_row": 4}, [0, 30, 1, 31, 2, 32], 3),
    ("gomoku", {"size": 8, "n_in_row": 5}, [0, 56, 1, 57, 2, 58, 3, 59], 4),
    # 1x2 boxes: edge 5 closes the left box and (moving again) edge 6 the right one.
    ("dots_and_boxes", {"rows": 1, "cols": 2}, [0, 2, 4, 1, 3], 5),
]
BLOCK_LOSS_IN_ONE = [
    ("tictactoe", {}, [0, 3, 1], 2),
    ("connect4", {}, [0, 1, 0, 1, 0], 0),
    ("gomoku", {"size": 6, "n_in_row": 4}, [0, 30, 1, 31, 2], 3),
    ("gomoku", {"size": 8, "n_in_row": 5}, [0, 56, 1, 57, 2, 58, 3], 4),
]


@pytest.mark.parametrize(("name", "params", "moves", "winning"), WIN_IN_ONE)
def test_search_takes_a_win_in_one(name, params, moves, winning):
    game = make(name, **params)
    for move in moves:
        game = game.sim_move(move)
    root = search(game, simulations=64)
    choice = root.next(tau=0.0, rng=np.random.default_rng(0))
    assert choice.action == winning
    assert choice.value == 1.0  # proven, for the player to move
    assert root.solved == 1.0


@pytest.mark.parametrize(("name", "params", "moves", "saving"), BLOCK_LOSS_IN_ONE)
def test_search_blocks_a_loss_in_one(name, params, moves, saving):
    game = make(name, **params)
    for move in moves:
        game = game.sim_move(move)
    root = search(game, simulations=400)
    assert root.next(tau=0.0, rng=np.random.default_rng(0)).action == saving
    for action, child in root.children.items():
        if action != saving:
            assert child.outcome == -1.0, "every other move should be proven lost"


def _late_dots_and_boxes_position(free_edges: int) -> Game:
    """The first seeded random 2x2 position with ``free_edges`` left where some moves are
    worse than others (the rule is fixed, so the test cannot pick an easy case)."""
    rng = np.random.default_rng(0)
    while True:
        game = make("dots_and_boxes", rows=2, cols=2)
        while len(game.available_moves) > free_edges:
            game = game.sim_move(int(rng.choice(game.available_moves)))
        if game.score is None and best_moves(game) != set(game.available_moves):
            return game


def test_dots_and_boxes_search_proves_the_best_move():
    game = _late_dots_and_boxes_position(free_edges=6)
    root = search(game, simulations=3000)
    assert root.solved == _solve(game)
    assert root.next(tau=0.0, rng=np.random.default_rng(0)).action in best_moves(game)


def test_value_sign_is_kept_across_a_dots_and_boxes_extra_turn():
    game = make("dots_and_boxes", rows=1, cols=2)
    for move in [0, 2, 4, 1, 3]:
        game = game.sim_move(move)
    mover = game.player
    root = search(game, simulations=200)
    closing = root.children[5]
    assert closing.game.player == mover  # the box was completed: same player again
    # From the chooser's (root mover's) side closing wins; a sign flip here would say -1.
    assert closing.outcome == 1.0 and pytest.approx(1.0) == closing.V
    assert root.solved == 1.0
    # The other move hands both boxes to the opponent, who is then to move and wins.
    careless = search(game.sim_move(6), simulations=200)
    assert careless.game.player == -mover
    assert careless.solved == 1.0
    assert careless.children[5].game.player == -mover  # the opponent's extra turn


@pytest.mark.parametrize("leaves_per_tree", [1, 4])
def test_visit_counts_add_up_to_the_simulations(leaves_per_tree):
    root = search(make("connect4"), simulations=100, leaves_per_tree=leaves_per_tree)
    assert root.N == 100  # the first simulation evaluates the root itself
    assert sum(child.N for child in root.children.values()) == 99
    policy = root.next(tau=1.0, rng=np.random.default_rng(0)).policy
    assert policy.sum() == pytest.approx(1.0)
    assert policy.shape == (7,)


def test_explore_is_the_same_search_one_simulation_at_a_time():
    game = make("tictactoe").__class__.from_moves([4, 0])
    one_by_one = Node(game)
    for _ in range(50):
        one_by_one.explore(uniform_policy(9))
    batched = search(game, simulations=50)
    assert {a: c.N for a, c in one_by_one.children.items()} == {
        a: c.N for a, c in batched.children.items()
    }


def test_many_trees_searched_together_match_separate_searches():
    games = [make("connect4").__class__.from_moves(m) for m in ([3], [3, 3], [0, 6, 1])]
    together = [Node(g) for g in games]
    calls = run_simulations(together, uniform_policy(7), 40)
    assert calls == 40  # one network call per step for all three trees
    for game, root in zip(games, together, strict=True):
        alone = search(game, simulations=40)
        assert {a: c.N for a, c in root.children.items()} == {
            a: c.N for a, c in alone.children.items()
        }


def test_next_reuses_the_chosen_subtree():
    root = search(make("connect4"), simulations=200)
    choice = root.next(tau=0.0, rng=np.random.default_rng(0))
    assert choice.node.mother is None
    assert choice.node.N == root.children[choice.action].N > 0
    assert choice.node.children  # its subtree came along


def test_dirichlet_noise_changes_root_priors_only():
    game = make("connect4")
    root = Node(game)
    rng = np.random.default_rng(0)
    run_simulations([root], uniform_policy(7), 20, rng, noise=RootNoise(0.3, 0.25))
    priors = np.array([c.prob for c in root.children.values()])
    assert priors.sum() == pytest.approx(1.0)
    assert not np.allclose(priors, 1 / 7)
    grandchild_priors = [g.prob for c in root.children.values() for g in c.children.values()]
    assert np.allclose(grandchild_priors, 1 / 7)


def test_process_policy_masks_illegal_moves_and_renormalises():
    game = make("connect4").__class__.from_moves([0] * 6)  # column 1 is full

    def policy(planes):
        return np.array([[5.0, 1, 1, 1, 1, 1, 1]]), np.array([0.25])

    probs, value = process_policy(policy, game, game.player)
    assert probs[0] == 0.0
    assert probs.sum() == pytest.approx(1.0)
    assert np.allclose(probs[1:], 1 / 6)
    assert value == 0.25
    with pytest.raises(ValueError, match="player to move"):
        process_policy(policy, game, -game.player)


def test_temperature_zero_plays_the_most_visited_move_and_one_samples():
    root = search(make("connect4"), simulations=300)
    most = max(c.N for c in root.children.values())
    rng = np.random.default_rng(0)
    assert most == root.children[root.next(0.0, rng).action].N
    picks = set()
    for seed in range(40):
        fresh = search(make("connect4"), simulations=300)
        picks.add(fresh.next(1.0, np.random.default_rng(seed)).action)
    assert len(picks) > 1


def test_temperature_samples_evenly_among_unvisited_moves_whose_priors_underflowed():
    from alphazero.search.choice import by_visits
    from alphazero.search.node import Node

    pool = [Node(None, prob=0.0, action=a) for a in range(3)]
    picks = {by_visits(pool, 1.0, np.random.default_rng(seed)).action for seed in range(30)}
    assert picks == {0, 1, 2}


@pytest.mark.parametrize("name", ["tictactoe", "connect4"])
def test_search_value_is_for_the_player_to_move(name):
    """A network that rates every position +0.5 for the first player (the mover is the
    first player when the stone count is even): the value is the same at every depth, so
    the root's search value must be exactly +0.5 for the first player, -0.5 for the second."""

    def first_player_half(planes):
        stones = planes[..., :2].sum(axis=(1, 2, 3))
        mover_is_first = stones % 2 == 0
        return np.zeros((len(planes), make(name).num_actions)), np.where(mover_is_first, 0.5, -0.5)

    for moves, expected in (([], 0.5), ([0], -0.5)):
        root = Node(make(name).__class__.from_moves(moves))
        run_simulations([root], first_player_half, 30)
        # Proven lines near the end of tic-tac-toe pull it a little off 0.5; a sign error
        # would land at the opposite side.
        assert root.search_value() == pytest.approx(expected, abs=0.1)
        assert root.next(0.0, np.random.default_rng(0)).value == pytest.approx(expected, abs=0.1)


def test_a_proven_lost_root_keeps_searching_by_priors_not_its_first_move():
    """O to move can't stop both of X's threats: every move loses. The visits (the policy
    target) and the move must still follow the priors, not pile onto column 1."""
    game = make("connect4").__class__.from_moves([2, 2, 3, 3, 4])
    priors = np.array([[0.0, 3.0, 0.0, 0.0, 0.0, 3.0, 0.0]])  # the blocks are preferred

    def blocks_preferred(planes):
        return np.repeat(priors, len(planes), axis=0), np.zeros(len(planes))

    root = Node(game)
    run_simulations([root], blocks_preferred, 400)
    assert root.solved == -1.0
    choice = root.next(tau=0.0, rng=np.random.default_rng(0))
    assert choice.policy[0] < 0.2
    assert choice.action in (1, 5)


def lost_positions_with_slow_and_quick_losses(count: int) -> list[Game]:
    """Tic-tac-toe positions lost for the player to move where some moves lose later than
    others, found by walking the game tree in move order."""
    found: list[Game] = []

    def walk(game: Game) -> None:
        if len(found) == count or game.score is not None:
            return
        if _result_and_plies(game)[0] == -1.0:
            lengths = {_result_and_plies(game.sim_move(a))[1] for a in game.available_moves}
            if len(lengths) > 1:
                found.append(game)
                return
        for action in game.available_moves:
            walk(game.sim_move(action))

    walk(make("tictactoe"))
    return found


def test_a_proven_lost_root_plays_a_move_that_loses_last():
    """With priors that favour the quickest loss, the move played is still one that holds
    out longest, as exact minimax measures it."""
    for game in lost_positions_with_slow_and_quick_losses(5):
        plies = {a: _result_and_plies(game.sim_move(a))[1] for a in game.available_moves}
        logits = np.array([[-float(plies.get(a, 0)) * 3 for a in range(game.num_actions)]])

        def quick_loss_preferred(planes, logits=logits):
            return np.repeat(logits, len(planes), axis=0), np.zeros(len(planes))

        root = Node(game)
        run_simulations([root], quick_loss_preferred, 3000)
        assert root.solved == -1.0
        choice = root.next(tau=0.0, rng=np.random.default_rng(0))
        assert plies[choice.action] == max(plies.values()), view_for(game).render(game)


def test_sampling_with_temperature_never_plays_a_proven_loss():
    """X has three in column 1; O must block it. At temperature 1 the moves are sampled from
    the visits, but a move the search has proven lost is never one of them."""
    game = make("connect4").__class__.from_moves([0, 6, 0, 6, 0])
    root = search(game, simulations=100)
    assert root.solved is None  # the block is not proven either way
    lost = [a for a, c in root.children.items() if c.outcome == -1.0]
    assert sorted(lost) == [1, 2, 3, 4, 5, 6]  # every other move lets X win at once
    assert sum(root.children[a].N for a in lost) > 0  # visited, so sampling could pick them
    picks = {root.next(1.0, np.random.default_rng(seed)).action for seed in range(200)}
    assert picks == {0}


def test_a_proven_won_root_plays_an_immediate_win():
    game = make("connect4").__class__.from_moves([0, 6, 0, 6, 0, 6, 1])  # X can win at once
    game = game.sim_move(5)  # O blunders; X wins in one in column 1 (0)
    root = search(game, simulations=50)
    assert root.solved == 1.0
    choice = root.next(tau=1.0, rng=np.random.default_rng(0))
    assert choice.node.game.score == game.player


def lopsided_policy(game: Game):
    """A fixed random linear 'network' that ignores the board's symmetries."""
    rng = np.random.default_rng(1)
    size = int(np.prod(game.plane_shape))
    to_logits = rng.normal(size=(size, game.num_actions))
    to_value = rng.normal(size=size) / np.sqrt(size)

    def policy(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = planes.reshape(len(planes), -1)
        return flat @ to_logits, np.tanh(flat @ to_value)

    return policy


@pytest.mark.parametrize(
    "name, params",
    [
        ("connect4", {}),
        ("tictactoe", {}),
        ("gomoku", {"size": 6, "n_in_row": 4}),
        ("dots_and_boxes", {"rows": 2, "cols": 3}),
    ],
)
def test_symmetric_policy_treats_symmetric_positions_alike(name, params):
    game = make(name, **params)
    rng = np.random.default_rng(0)
    for _ in range(5):
        game = game.sim_move(int(rng.choice(game.available_moves)))
    raw = lopsided_policy(game)
    symmetric = symmetric_policy(raw, game)
    probe = np.arange(game.num_actions, dtype=np.float64)
    copies = game.symmetries(game.encode(), probe)
    assert len(copies) > 1
    planes = np.stack([copy for copy, _ in copies])
    _, raw_values = raw(planes)
    assert not np.allclose(raw_values, raw_values[0])  # the raw network tells copies apart

    logits, values = symmetric(planes)
    # The value is the mean over the copies, the same for each; copy k's move j is move
    # perm[j] of the original position, and gets the same logit.
    assert np.allclose(values, raw_values.mean())
    for k, (_, perm) in enumerate(copies):
        assert np.allclose(logits[k], logits[0][perm.astype(int)])


@pytest.mark.parametrize(("name", "params"), config_params())
def test_symmetric_policy_shows_the_network_each_copy_of_each_position(name, params):
    rng = np.random.default_rng(1)
    positions = []
    game = make(name, **params)
    for _ in range(3):
        game = game.sim_move(int(rng.choice(game.available_moves)))
        positions.append(game)
    seen = []

    def recording(planes):
        seen.append(planes.copy())
        return np.zeros((len(planes), game.num_actions)), np.zeros(len(planes))

    planes = np.stack([position.encode() for position in positions])
    symmetric_policy(recording, game)(planes)
    probe = np.zeros(game.num_actions)
    expected = [copy for p in positions for copy, _ in game.symmetries(p.encode(), probe)]
    np.testing.assert_array_equal(seen[0], np.stack(expected))


def test_symmetric_policy_refuses_symmetries_that_are_not_permutations():
    class Blanking(Connect4):
        """A "symmetry" that blanks the board: no index over a batch can apply it."""

        def symmetries(self, planes, policy):
            return [(planes, policy), (planes * 0, policy[::-1])]

    with pytest.raises(ValueError, match="not permutations"):
        symmetric_policy(lambda planes: (planes, planes), Blanking())


def test_a_dropped_search_tree_is_freed_by_reference_counting_alone():
    # A tree holds no reference cycle (mothers are weak references), so the search can keep
    # the garbage collector's full collections rare without keeping garbage.
    root = search(make("connect4"), simulations=100)
    deep = root
    while deep.children:
        deep = max(deep.children.values(), key=lambda c: c.N)
    leaf, child = weakref.ref(deep), weakref.ref(next(iter(root.children.values())))
    gc.disable()
    try:
        del root, deep
        assert leaf() is None and child() is None
    finally:
        gc.enable()


def test_full_collections_are_rare_during_searches_in_threads_and_restored_after():
    before = gc.get_threshold()
    seen = []

    def policy(planes):
        seen.append(gc.get_threshold())
        return np.zeros((len(planes), 7)), np.zeros(len(planes))

    def run():
        run_simulations([Node(make("connect4")) for _ in range(4)], policy, 30)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen and all(t[2] >= 1000 for t in seen)
    assert gc.get_threshold() == before


def test_a_search_holds_full_collections_back_from_its_first_beginning_to_its_last_choice():
    # A beginning makes objects for each root: at the default threshold they set off the
    # full collections that the search's steps held back.
    puct = puct_policy(SearchParams())
    seen = []

    def begin(node, simulations, rng, recorded, sampled):
        seen.append(gc.get_threshold()[2])
        begun = puct.begin(node, simulations, rng, recorded=recorded, sampled=sampled)
        choose = begun.choose

        def choose_and_look(tau, choice_rng):
            seen.append(gc.get_threshold()[2])
            return choose(tau, choice_rng)

        begun.choose = choose_and_look
        return begun

    before = gc.get_threshold()
    roots = [Node(make("connect4")) for _ in range(3)]
    looking = SearchPolicy(SearchParams(), begin)
    rng = np.random.default_rng(0)
    search_roots(roots, uniform_policy(7), SearchParams(), 8, rng, policy=looking)
    assert seen == [FULL_COLLECTION_EVERY] * 6  # three beginnings, three choices
    assert gc.get_threshold() == before


def test_a_chosen_child_never_visited_keeps_its_position_once_detached():
    root = Node(make("connect4"))
    run_simulations([root], uniform_policy(7), 3)  # the root and 2 of its 7 children
    unvisited = next(c for c in root.children.values() if c.N == 0)
    detached = detach(root, unvisited, np.zeros(7))
    assert detached.node.mother is None
    assert detached.node.game == make("connect4").sim_move(detached.action)


def test_search_restores_the_collector_threshold_even_after_a_stale_raise():
    """A raise left behind (a Ctrl-C between a step's end and its restore) is not taken for
    the threshold to restore."""
    import gc

    from alphazero.search.collector import FULL_COLLECTION_EVERY, rare_full_collections

    original = gc.get_threshold()
    try:
        with rare_full_collections:
            pass
        gc.set_threshold(original[0], original[1], FULL_COLLECTION_EVERY)  # the stale raise
        with rare_full_collections:
            assert gc.get_threshold()[2] == FULL_COLLECTION_EVERY
        assert gc.get_threshold() == original
    finally:
        gc.set_threshold(*original)


def test_expand_makes_each_child_as_node_would():
    # ``expand`` makes the children that go on without ``Node.__init__`` (it is cheaper on
    # wide nodes): each must be what the constructor would have made.
    game = make("gomoku", size=7, n_in_row=4)
    for action in (0, 10, 1, 11, 2, 20):  # +1 to move with three in a row: 3 wins
        game = game.sim_move(action)
    root = Node(game)
    priors = np.zeros(game.num_actions)
    priors[game.available_moves] = np.linspace(1.0, 0.0, len(game.available_moves))
    expand(root, priors / priors.sum(), 0.25)  # the last legal move's prior is 0
    assert root.raw_value == 0.25 and root.solved == 1.0
    assert len(root.children) == len(game.available_moves)
    assert {a for a, c in root.children.items() if c.outcome is not None} == {3}
    for action, child in root.children.items():
        ending = game.sim_move(action) if action in game.ending_moves() else None
        made = Node(ending, root, priors[action] / priors.sum(), action)
        assert child.mother is root and made.mother is root
        with pytest.raises(TypeError):  # one mapping shared by every node not expanded
            child.children[0] = child  # type: ignore[index]
        for name in Node.__slots__:
            if name not in ("__weakref__", "_mother"):
                assert getattr(child, name) == getattr(made, name), name
