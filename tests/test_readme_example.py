"""The README's "Add a game" example runs as written: its Nim plays through the registry,
self-play, the arena with the UCT baseline, and its view's notation. docs/architecture.md
shows the same example (tests/test_architecture_examples.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from alphazero.config import SearchConfig, SelfPlayConfig
from alphazero.evaluation.arena import play_match
from alphazero.evaluation.players import make_player
from alphazero.games import GAMES, VIEWS, make, view_for
from alphazero.games.base import MoveParseError
from alphazero.selfplay.loop import play_games

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture
def nim():
    section = README.read_text().split("## Add a game", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "the README's Add a game section has no python example"
    namespace: dict = {}
    exec(compile(code.group(1), str(README), "exec"), namespace)
    try:
        yield namespace["Nim"]
    finally:
        GAMES.pop("nim", None)
        VIEWS.pop("nim", None)


def test_the_readme_game_follows_its_rules(nim):
    game = make("nim", stones=4)
    view = view_for(game)
    assert game.available_moves == [0, 1] and game.player == 1
    game = game.sim_move(view.parse_move("2")).sim_move(view.parse_move("2"))
    assert game.score == -1 and game.available_moves == []  # the second player took the last
    assert view_for(nim()).from_moves(["1", "1", "1"]).left == 4
    assert view.format_move(1) == "2" and view.render(view.from_moves(["1"])) == "X X X ."
    with pytest.raises(MoveParseError):
        view.parse_move("3")


def test_the_readme_game_self_plays_and_beats_random_with_uct(nim):
    def uniform(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((len(planes), 2)), np.zeros(len(planes))

    search, selfplay = SearchConfig(simulations=8), SelfPlayConfig(games_per_iteration=4)
    rng = np.random.default_rng(0)
    examples, stats = play_games(nim, uniform, 4, search, selfplay, rng, progress=False)
    assert stats.games == 4 and len(examples) == stats.moves
    start = nim()
    uct = make_player("uct:300", start, seed=0)
    result = play_match(uct, make_player("random", start, seed=1), nim, 10, progress=False)
    assert result.wins > result.losses
