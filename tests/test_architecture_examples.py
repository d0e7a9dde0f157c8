"""docs/architecture.md's examples run as written: the game it adds (the README's Nim) plays
to the end and the search finds its wins, the search policy it adds is the one ``search``
runs, and the network it adds trains and answers the search with the right shapes."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from alphazero.games import GAMES, VIEWS, make, view_for
from alphazero.search import Node, SearchParams, search

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
README = ROOT / "README.md"


def python_blocks(path: Path, heading: str) -> list[str]:
    """The ```python blocks of the section ``## heading`` of ``path``."""
    text = path.read_text()
    assert f"\n## {heading}\n" in text, f"{path.name} has no section {heading!r}"
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def run_example(heading: str) -> dict[str, Any]:
    """Run the one python example of the page's section ``heading``; its names."""
    (code,) = python_blocks(PAGE, heading)
    namespace: dict[str, Any] = {"__name__": "architecture_example"}
    exec(compile(code, f"{PAGE} ({heading})", "exec"), namespace)
    return namespace


def uniform(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A network that knows nothing: equal logits, value 0."""
    return np.zeros((len(planes), 2)), np.zeros(len(planes))


# ----------------------------------------------------------------------------- a game
def test_the_page_adds_the_same_game_as_the_readme():
    assert python_blocks(PAGE, "Add a game") == python_blocks(README, "Add a game")


@pytest.fixture
def nim():
    try:
        yield run_example("Add a game")["Nim"]
    finally:
        GAMES.pop("nim", None)
        VIEWS.pop("nim", None)


def test_the_added_game_plays_random_games_to_the_end(nim):
    rng = random.Random(0)
    view = view_for(make("nim"))
    for _ in range(50):
        game, taken = make("nim"), 0
        while game.score is None:
            text = rng.choice([view.format_move(a) for a in game.available_moves])
            before, game = game, game.sim_move(view.parse_move(text))
            taken += int(text)
        assert taken == 7 and game.available_moves == []
        assert game.score == before.player  # who took the last stone won


@pytest.mark.parametrize(("stones", "move", "value"), [(4, 0, 1.0), (5, 1, 1.0), (6, None, -1.0)])
def test_the_search_finds_the_added_games_wins(nim, stones, move, value):
    """A pile of a multiple of three is lost for the player to move; from any other, taking
    the rest of the division by three wins."""
    found = search([Node(nim(stones))], uniform, SearchParams(), 100, np.random.default_rng(0))
    assert found.values[0] == value  # proven
    if move is not None:
        assert found.actions[0] == move


# --------------------------------------------------------------------- a search policy
def centre_looks_bad(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Connect Four priors that favour column 4, and values that punish playing it: a
    position whose opponent holds column 4's bottom cell is worth 0.5 to its mover."""
    logits = np.tile([0.0, 0.0, 1.0, 3.0, 1.0, 0.0, 0.0], (len(planes), 1))
    return logits, np.where(planes[:, 5, 3, 1] == 1, 0.5, 0.0)


def test_the_added_policy_is_the_one_search_runs():
    example = run_example("Add a search policy")
    found, params = example["found"], example["params"]
    assert found.actions[0] == 3 and found.values[0] == 1.0  # the win in one, proven
    assert np.isclose(found.policies.sum(), 1.0) and (found.policies >= 0).all()

    def searched(policy: Any = None) -> np.ndarray:
        """The policy target of a search from the start with ``policy`` (PUCT's if None)."""
        start = [Node(make("connect4"))]
        rng = np.random.default_rng(0)
        out = search(start, centre_looks_bad, params, 200, rng, policy=policy)
        assert out.actions[0] in start[0].game.available_moves
        return out.policies[0]

    wide_root_policy = example["wide_root_policy"]
    # Its root constant decides how far the root follows the priors over the values.
    assert searched(wide_root_policy(params, 30.0))[3] > 0.5
    assert searched(wide_root_policy(params, 0.3))[3] < 0.1
    # With PUCT's own constant at the root it is PUCT, on the same select / expand / backup.
    np.testing.assert_array_equal(searched(wide_root_policy(params, params.c_puct)), searched())


# -------------------------------------------------------------------------- a network
def test_the_added_network_trains_and_answers_the_search():
    from alphazero.config import TrainConfig
    from alphazero.training.trainer import Trainer

    example = run_example("Add a network")
    game, found = example["game"], example["found"]
    assert example["logits"].shape == (2, game.num_actions) and example["values"].shape == (2,)
    assert found.actions[0] in game.available_moves and found.policies.shape == (1, 9)
    assert np.isclose(found.policies.sum(), 1.0)
    assert np.isfinite(example["losses"]["total_loss"])
    trainer = Trainer(example["model"], TrainConfig())
    batch = (example["planes"], example["targets"], np.zeros(2))
    first = trainer.train_step(*batch)["policy_loss"]
    for _ in range(30):
        last = trainer.train_step(*batch)["policy_loss"]
    assert last < first
