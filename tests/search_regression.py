"""Fixed-seed searches whose every visit count is recorded, to hold the search to its results.

``tests/test_search_regression.py`` replays these cases and compares them with
``tests/search_regression.json``, which was written by running this module on the search as
it was before its Python was made cheaper (``python tests/search_regression.py`` rewrites
it: only do that for a change meant to alter the search's results;
``python tests/search_regression.py "CASE" ...`` records only the cases named, for a new case,
and keeps the others as they were recorded).

The policy is a small fixed linear "network" whose weights are multiples of 1/8, so its
logits are exact sums of the 0/1 planes whatever the batch: the results depend on the search
alone, never on how positions were grouped into network calls.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from alphazero.games import Game, make
from alphazero.search import (
    GumbelParams,
    Node,
    Policy,
    RootNoise,
    SearchOutput,
    SearchParams,
    search,
)

FIXTURE = Path(__file__).with_name("search_regression.json")


def linear_policy(game: Game, seed: int = 0, scale: float = 1.0) -> Policy:
    """Logits ``planes @ W`` and values ``tanh(planes @ w / 4)``, with ``W`` and ``w`` in
    eighths times ``scale``: exact in float64 for 0/1 planes and a power of two ``scale``,
    so the same position gets the same answer in any batch.

    A board as large as 15x15 sums hundreds of weights (its constant plane alone has 225
    ones): logits some 10 apart and values near +-1, where a trained network's priors are
    flatter. ``scale`` of 1/8 brings them back to that, so that Gumbel's sampling and the
    improved policy's values have something to choose between.
    """
    size = int(np.prod(game.encode().shape))
    rng = np.random.default_rng(seed)
    weights = rng.integers(-8, 9, (size, game.num_actions)) / 8.0 * scale
    value_weights = rng.integers(-4, 5, size) / 8.0 * scale

    def policy(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = np.asarray(planes, dtype=np.float64).reshape(len(planes), -1)
        return flat @ weights, np.tanh(flat @ value_weights / 4.0)

    return policy


def _visits(node: Node) -> list[int]:
    visits = [0] * node.game.num_actions
    for action, child in node.children.items():
        visits[action] = child.N
    return visits


def _record(root: Node, action: int, value: float, policy: np.ndarray) -> dict[str, Any]:
    return {
        "visits": _visits(root),
        "solved": root.solved,
        "action": action,
        "value": value,
        "policy": [float(p) for p in policy],
    }


def puct_games(
    name: str, params: dict[str, int], games: int, simulations: int, leaves_per_tree: int
) -> list[list[dict[str, Any]]]:
    """``games`` whole games searched together with PUCT (root noise, subtrees kept, moves
    sampled in proportion to visits): per game, per move, what the search found."""
    rng = np.random.default_rng(1)
    policy = linear_policy(make(name, **params))
    roots = [Node(make(name, **params)) for _ in range(games)]
    for i, root in enumerate(roots):  # different openings
        roots[i] = Node(root.game.sim_move(root.game.available_moves[i % 3]))
    records: list[list[dict[str, Any]]] = [[] for _ in range(games)]
    alive = list(range(games))
    params = SearchParams(leaves_per_tree=leaves_per_tree, noise=RootNoise(1.0, 0.25))
    while roots:
        found = search(roots, policy, params, simulations, rng, tau=1.0, explore=True)
        roots, alive = _record_moves(found, alive, records)
    return records


def gumbel_games(
    name: str, params: dict[str, int], games: int, simulations: int
) -> list[list[dict[str, Any]]]:
    """``games`` whole games searched together with Gumbel search, as self-play does it
    (each move from a rerooted tree, sampled with Gumbel noise on even moves)."""
    rng = np.random.default_rng(2)
    policy = linear_policy(make(name, **params))
    search_params = SearchParams(algorithm="gumbel")
    nodes = [Node(make(name, **params)) for _ in range(games)]
    records: list[list[dict[str, Any]]] = [[] for _ in range(games)]
    alive = list(range(games))
    move = 0
    while alive:
        # The fixture was recorded with the root's own evaluation counted among a fresh
        # root's simulations; the policy counts only the visits of its moves.
        budgets = [simulations if node.children else simulations - 1 for node in nodes]
        found = search(nodes, policy, search_params, budgets, rng, explore=move % 2 == 0)
        nodes, alive = _record_moves(found, alive, records)
        move += 1
    return records


def _record_moves(
    found: SearchOutput, alive: list[int], records: list[list[dict[str, Any]]]
) -> tuple[list[Node], list[int]]:
    """Record each searched game's root, move, value and target under its index in ``alive``;
    return the chosen children of the games that go on, and their indices."""
    next_nodes, next_alive = [], []
    for i, root, action, value, target, chosen in zip(
        alive, found.roots, found.actions, found.values, found.policies, found.chosen,
        strict=True,
    ):  # fmt: skip
        records[i].append(_record(root, int(action), float(value), target))
        if chosen.game.score is None:
            next_nodes.append(chosen)
            next_alive.append(i)
    return next_nodes, next_alive


def gumbel_wide(
    name: str,
    params: dict[str, int],
    positions: int,
    moves: int,
    simulations: int,
    fast: int,
    considered: int,
) -> list[list[dict[str, Any]]]:
    """Gumbel search on a wide board, as ``configs/gomoku_15x15.yaml``'s self-play searches:
    ``positions`` games, each from 1-6 uniformly random opening moves, searched together for
    ``moves`` moves each from rerooted trees, ``considered`` moves sampled at the root, full
    searches of ``simulations`` and fast ones of ``fast`` (playout cap randomisation) taking
    turns between the games, moves sampled with Gumbel noise on even moves.

    Whole 15x15 games would take far too long for a test; a few moves from several openings
    still give every node of the tree some 220 children, which is where the search's
    Python was made cheaper (expand, the children's mapping, Gomoku's legal moves). Recorded
    after that work (4997b64), and found the same to the last bit by 85f68ac's search and
    ``gomoku.py``, from before it (e1d89ed, b5e8dda, 0f8abbd).
    """
    openings = np.random.default_rng(4)
    rng = np.random.default_rng(5)
    policy = linear_policy(make(name, **params), scale=1 / 8)
    search_params = SearchParams(algorithm="gumbel", gumbel=GumbelParams(considered=considered))
    nodes = []
    for _ in range(positions):
        game = make(name, **params)
        for _ in range(int(openings.integers(1, 7))):
            # Sorted, so that the openings hold still whatever order the legal moves come in
            # (that order is the search's to keep, and the search is what this case checks).
            game = game.sim_move(int(openings.choice(sorted(game.available_moves))))
        nodes.append(Node(game))
    records: list[list[dict[str, Any]]] = [[] for _ in range(positions)]
    alive = list(range(positions))
    for move in range(moves):
        if not alive:
            break
        budgets = [simulations if (i + move) % 2 == 0 else fast for i in alive]
        found = search(nodes, policy, search_params, budgets, rng, explore=move % 2 == 0)
        nodes, alive = _record_moves(found, alive, records)
    return records


def explore_game(name: str, params: dict[str, int], simulations: int) -> list[dict[str, Any]]:
    """One game searched with ``Node.explore``, one leaf at a time, moves taken greedily."""
    rng = np.random.default_rng(3)
    policy = linear_policy(make(name, **params))
    root = Node(make(name, **params))
    moves = []
    while root.game.score is None:
        for _ in range(simulations):
            root.explore(policy)
        choice = root.next(0.0, rng)
        moves.append(_record(root, choice.action, choice.value, choice.policy))
        root = choice.node
    return moves


CASES: dict[str, Callable[[], Any]] = {
    "connect4 puct": lambda: puct_games("connect4", {}, 4, 200, 1),
    "connect4 puct 4 leaves": lambda: puct_games("connect4", {}, 3, 100, 4),
    "connect4 gumbel": lambda: gumbel_games("connect4", {}, 4, 32),
    "connect4 explore": lambda: explore_game("connect4", {}, 50),
    "dots_and_boxes puct": lambda: puct_games("dots_and_boxes", {"rows": 2, "cols": 3}, 3, 150, 1),
    "dots_and_boxes puct 4 leaves": lambda: puct_games(
        "dots_and_boxes", {"rows": 2, "cols": 2}, 3, 100, 4
    ),
    "dots_and_boxes gumbel": lambda: gumbel_games("dots_and_boxes", {}, 3, 32),
    "tictactoe gumbel": lambda: gumbel_games("tictactoe", {}, 2, 16),
    "gomoku puct": lambda: puct_games("gomoku", {"size": 6, "n_in_row": 4}, 2, 60, 1),
    "gomoku 15x15 gumbel": lambda: gumbel_wide(
        "gomoku", {"size": 15, "n_in_row": 5}, 4, 4, 32, 8, 16
    ),
}


def run_case(name: str) -> Any:
    """The case's records as JSON would give them back (floats and lists)."""
    return json.loads(json.dumps(CASES[name]()))


if __name__ == "__main__":
    named = sys.argv[1:]
    if unknown := [name for name in named if name not in CASES]:
        sys.exit(f"no such case: {', '.join(unknown)} (the cases: {', '.join(CASES)})")
    recorded = json.loads(FIXTURE.read_text()) if named else {}
    fresh = {name: run_case(name) for name in named or CASES}
    # The file keeps CASES' order, the cases not named as they were recorded.
    cases = {name: fresh[name] if name in fresh else recorded[name] for name in CASES}
    FIXTURE.write_text(json.dumps(cases) + "\n")
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size:,} bytes)", file=sys.stderr)
