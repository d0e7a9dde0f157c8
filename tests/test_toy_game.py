"""A game is one file: a toy game defined here alone, and nowhere in the package, plays through
self-play, the arena with the UCT and random players, and the terminal session; with its own
view, or with none."""

from __future__ import annotations

import io
from typing import Self

import numpy as np
import pytest

from alphazero.config import SearchConfig, SelfPlayConfig
from alphazero.evaluation.arena import play_match
from alphazero.evaluation.players import make_player
from alphazero.games import GAMES, VIEWS, view_for
from alphazero.games.base import Game, MoveParseError
from alphazero.games.view import GameView
from alphazero.play.board import Style
from alphazero.play.human import HumanPlayer
from alphazero.play.option_help import epilog
from alphazero.play.options import parse_game
from alphazero.play.prompt import LineReader
from alphazero.play.session import HintModel, Session
from alphazero.selfplay.loop import play_games


class Nim(Game):
    """Take one or two stones from a pile; who takes the last stone wins. Action ``a`` takes
    ``a + 1`` stones; a pile of a multiple of three stones is lost for the player to move."""

    __slots__ = ("_left", "_stones")
    name = "nim"

    def __init__(self, stones: int = 7) -> None:
        self._stones = stones
        self._left = stones
        self.player = 1
        self.score = None
        self.last_move = None

    @property
    def num_actions(self) -> int:
        return 2

    @property
    def params(self) -> dict[str, int]:
        return {"stones": self._stones}

    @property
    def available_moves(self) -> list[int]:
        if self.score is not None:
            return []
        return [a for a in range(2) if a < self._left]

    @property
    def state(self) -> np.ndarray:
        return (np.arange(self._stones) < self._left).astype(np.int8)[None, :]

    def copy(self) -> Self:
        new = object.__new__(type(self))
        new._stones, new._left = self._stones, self._left
        new.player, new.score, new.last_move = self.player, self.score, self.last_move
        return new

    def _apply(self, action: int) -> None:
        self._left -= action + 1
        if self._left == 0:
            self.score = self.player
        self.player = -self.player
        self.last_move = action

    def is_legal(self, action: int) -> bool:
        return self.score is None and action < self._left

    def encode(self) -> np.ndarray:
        planes = np.ones((1, self._stones, 2), dtype=np.float32)
        planes[0, :, 0] = self.state[0]
        return planes

    def key(self) -> tuple[int, ...]:
        return (self._left, self.player)

    @property
    def left(self) -> int:
        return self._left


class NimView(GameView[Nim]):
    """A move is typed as the number of stones taken."""

    def render(self, game: Nim) -> str:
        return f"stones: {'o ' * game.left}({game.left} left)"

    def parse_move(self, text: str) -> int:
        if text.strip() not in ("1", "2"):
            raise MoveParseError(f"{text.strip()[:20]!r} is not a number of stones: take 1 or 2")
        return int(text) - 1

    def format_move(self, action: int) -> str:
        return str(action + 1)


def knowing_policy(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A tiny numpy network for Nim: it favours leaving a multiple of three, and values a
    pile that is one as lost for the player to move."""
    left = planes[:, 0, :, 0].sum(axis=1).astype(int)
    logits = np.zeros((len(planes), 2))
    winning = left % 3 != 0
    logits[winning, (left[winning] % 3) - 1] = 2.0
    return logits, np.where(winning, 0.8, -0.8)


def test_self_play_records_a_toy_game():
    search = SearchConfig(simulations=8)
    selfplay = SelfPlayConfig(games_per_iteration=6, parallel_games=3)
    rng = np.random.default_rng(0)
    examples, stats = play_games(Nim, knowing_policy, 6, search, selfplay, rng, progress=False)
    assert stats.games == 6 and stats.first_wins + stats.second_wins == 6  # Nim has no draws
    assert examples.planes.shape[1:] == (1, 7, 2) and examples.policies.shape[1] == 2
    assert len(examples) == stats.moves and set(np.unique(examples.values)) <= {-1.0, 1.0}
    assert np.allclose(examples.policies.sum(axis=1), 1.0)


def test_the_arena_plays_a_toy_game_with_the_baselines():
    start = Nim()
    uct = make_player("uct:200", start, seed=0)
    result = play_match(uct, make_player("random", start, seed=1), Nim, 10, progress=False)
    assert result.games == 10 and result.draws == 0 and result.wins > result.losses
    assert len(result.moves) == 10
    # No rollout knowledge and no perfect player unless the game says it has them.
    knowing = make_player("uct:20:knowledge", start, seed=0)
    assert knowing(start) in start.available_moves
    assert not knowing.last_search.knowledge  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="perfect player"):
        make_player("perfect", start)


class Scripted:
    """Plays the moves it is given, in order (notation)."""

    def __init__(self, moves: list[str]) -> None:
        self.name = "script"
        self.moves = list(moves)

    def __call__(self, game: Game) -> int:
        return view_for(game).parse_move(self.moves.pop(0))


def test_a_person_plays_a_toy_game_at_the_terminal(monkeypatch):
    monkeypatch.setitem(VIEWS, "nim", NimView)
    typed = ["3", "help", "1", "undo", "1", "1", "2"]
    out = io.StringIO()
    human = HumanPlayer()
    session = Session(
        Nim,
        reader=LineReader(out, io.StringIO("".join(t + "\n" for t in typed)), echo=True),
        out=out,
        style=Style(False),
        hint=HintModel(),
        names={id(human): "you"},
    )
    assert session.play(human, Scripted(["2", "2", "1"])) == 0
    text = out.getvalue()
    assert "nim: X (you) against O (script); X moves first." in text
    assert "Type a move (a move like 1), or help, hint, undo, quit." in text
    assert "'3' is not a number of stones: take 1 or 2; or type help" in text
    assert "Type a move like 1." in text and "Commands: help" in text  # help
    assert "took back 2 moves: X 1, O 2" in text
    assert "result: X (you) wins" in text and "moves: X 1, O 2, X 1, O 1, X 2" in text
    record = session.records[0].to_dict()
    assert record["game"] == "nim" and record["params"] == {"stones": 7}
    assert record["moves"] == ["1", "2", "1", "1", "2"] and record["winner"] == "human"


def test_one_line_in_games_makes_it_a_game_of_the_command_line(monkeypatch):
    monkeypatch.setitem(GAMES, "nim", Nim)
    assert parse_game("nim:stones=5") == ("nim", {"stones": 5})
    assert "nim:stones=7" in epilog(100)


def test_a_game_without_a_view_is_shown_plainly_and_its_moves_typed_as_actions():
    view = view_for(Nim(stones=4))
    assert type(view) is GameView and view.title == "nim" and view.notation == "a move like 0"
    assert view.format_move(1) == "1" and view.parse_move(" 1 ") == 1
    with pytest.raises(MoveParseError, match="type a number 0-1"):
        view.parse_move("2")
    game = view.from_moves(["1", 0])  # two stones taken, then one
    assert game.left == 1 and view.render(game) == "X . . ."
    typed = ["0"]
    out = io.StringIO()
    human = HumanPlayer()
    session = Session(
        lambda: Nim(stones=2),
        reader=LineReader(out, io.StringIO("".join(t + "\n" for t in typed)), echo=True),
        out=out,
        style=Style(False),
        hint=HintModel(),
        names={id(human): "you"},
    )
    assert session.play(Scripted(["0"]), human, games=1) == 0  # each takes one stone
    assert "moves: X 0, O 0" in out.getvalue() and "result: O (you) wins" in out.getvalue()
