"""One browser tab's games (``PlaySession``): a person against the model of the game chosen,
the model's searches in worker threads, and the state the page shows.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol

import numpy as np

from ..evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions
from ..evaluation.model_search import PlaySearch
from ..games import view_for
from ..games.base import Game, GameError, MoveParseError
from .defaults import DEFAULT_CACHE
from .prompt import reason
from .web_errors import MAX_QUERY, RequestError, check_fields, is_int, one_line
from .web_json import GameChoice, board_json, shown_path, thought_json
from .web_networks import Networks
from .web_searches import SearchPool, SearchStopped, StoppableNetwork


class SessionHost(Protocol):
    """What a session uses of the app that made it (``web_app.WebApp`` is one): the shared
    networks and search workers, and the settings every session searches with. Written out
    here, not imported: the app imports this module to make its sessions."""

    networks: Networks
    searches: SearchPool
    seed: int | None
    symmetric: bool
    play_search: PlaySearch

    def choose_first(self) -> str: ...


@dataclass(frozen=True)
class Settings:
    """What a new game is: the game and its model, who moves first, the search's strength."""

    choice: GameChoice
    first: str
    simulations: int


class PlaySession:
    """One browser tab's games: a person against the model of the game chosen.

    ``lock`` guards the state and is held only briefly; ``changed`` wakes the requests that
    wait for a new version. The model's searches run on the app's ``SearchPool``, one job of a
    session at a time. A new game, or the session's end, bumps ``generation``: a search of an
    older generation stops at its next network call (``StoppableNetwork``).
    """

    def __init__(self, app: SessionHost, session_id: str, settings: Settings) -> None:
        self.app = app
        self.id = session_id
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.version = 0
        self.generation = 0
        self._job_generation = 0
        """The generation of the job running on the pool (one at a time): its search stops
        once ``generation`` moves past it."""
        self.ended = False
        self.touched = time.monotonic()
        self.settings = settings
        self.human = 1
        self.game: Game = settings.choice.new_game()
        self.history: list[tuple[Game, int]] = []
        self.thought: dict[str, Any] | None = None
        self.hint: dict[str, Any] | None = None
        self.busy: str | None = None
        """``loading`` (the model), ``thinking`` (its move) or ``hint``; else ``None``."""
        self.error: str | None = None
        self._player: tuple[tuple[Any, ...], ModelPlayer] | None = None
        with self.lock:
            self._new_game(settings)

    # ------------------------------------------------------------------ state changes
    def _bump(self) -> None:
        """Called with ``lock`` held after every change."""
        self.version += 1
        self.changed.notify_all()

    def _new_game(self, settings: Settings) -> None:
        self.settings = settings
        self.generation += 1
        first = settings.first
        if first == "random":
            first = self.app.choose_first()
        self.human = 1 if first == "human" else -1
        self.game = settings.choice.new_game()
        self.history = []
        self.thought = self.hint = self.error = None
        self.busy = None
        model = settings.choice.model
        assert model is not None  # a game without a model is refused before it gets here
        if self.game.player != self.human:
            self._start("thinking")
        elif not self.app.networks.is_loaded(model, self.game):
            self._start("loading")  # now, so that the model's first reply does not wait for it
        self._bump()

    def _play(self, action: int) -> None:
        self.history.append((self.game, action))
        self.game = self.game.sim_move(action)
        self.hint = None

    def _start(self, job: str) -> None:
        """Queue ``job`` on the app's workers; called with ``lock`` held."""
        if self.ended:  # a request that found the session just before it ended
            return
        self.busy = job
        generation = self.generation
        self.app.searches.submit(self.id, lambda: self._work(generation, job))

    def _stopped(self) -> bool:
        return self.generation != self._job_generation

    def _work(self, generation: int, job: str) -> None:
        """On a worker: load the model if need be, then the model's moves (while it is its
        turn) or a hint for the person."""
        self._job_generation = generation
        try:
            player = self._model_player(generation, job)
            while player is not None:
                with self.lock:
                    if generation != self.generation:
                        return
                    game, ply = self.game, len(self.history)
                    if job == "loading":
                        break
                    if job == "thinking" and (game.score is not None or game.player == self.human):
                        break
                thought = player.think(game)
                with self.lock:
                    if generation != self.generation:
                        return
                    if job == "hint":
                        self.hint = thought_json(thought, game, ply, "hint")
                        break
                    self.thought = thought_json(thought, game, ply, "model")
                    self._play(thought.action)
                    self._bump()  # each move shows, a chain of boxes one edge at a time
        except SearchStopped:  # a newer game, or the session's end: nobody wants the result
            return
        except Exception as error:  # whatever fails, the page says so in one line
            message = one_line(error)
            print(f"error: session {self.id[:6]}: {message}", file=sys.stderr)
            with self.lock:
                if generation == self.generation:
                    self.error = message
        finally:
            with self.lock:
                if generation == self.generation:
                    self.busy = None
                    self._bump()

    def _model_player(self, generation: int, job: str) -> ModelPlayer | None:
        """This game's model with this session's settings (the network shared, loaded on first
        use); ``None`` if a newer game started meanwhile."""
        with self.lock:
            if generation != self.generation:
                return None
            settings, start = self.settings, self.settings.choice.new_game()
        model = settings.choice.model
        assert model is not None
        wanted = (model, settings.choice.name, settings.choice.params, settings.simulations)
        if self._player is not None and self._player[0] == wanted:
            return self._player[1]
        if not self.app.networks.is_loaded(model, start):
            with self.lock:
                if generation == self.generation:
                    self.busy = "loading"
                    self._bump()
        network = self.app.networks.get(model, start)
        with self.lock:
            if generation == self.generation and job != "loading":
                self.busy = job
                self._bump()
        source = ModelSource(
            model,
            inference=StoppableNetwork(network, self._stopped),
            symmetric=self.app.symmetric,
            cache=DEFAULT_CACHE,
        )
        # Every move searched is listed, for the overlay on the board.
        options = PlayerOptions(seed=self.app.seed or 0, top=start.num_actions)
        player = ModelPlayer(source, start, settings.simulations, self.app.play_search, options)
        # What the search calls, the cache included: answers the cache holds skip the network.
        player.inference = StoppableNetwork(player.inference, self._stopped)
        self._player = (wanted, player)
        return player

    # ------------------------------------------------------------------ requests
    def touch(self) -> None:
        self.touched = time.monotonic()

    def end(self) -> None:
        """The session is gone (evicted, or the server stops): its search stops within a
        network call, its waiting job is dropped, and the requests waiting on it answer."""
        with self.lock:
            self.ended = True
            self.generation += 1
            self.busy = None
            self._bump()
        self.app.searches.drop(self.id)

    def wait(self, since: int, seconds: float) -> None:
        """Return once the version is above ``since``, or after ``seconds``."""
        with self.changed:
            self.changed.wait_for(lambda: self.version > since, timeout=seconds)

    def new_game(self, settings: Settings) -> dict[str, Any]:
        with self.lock:
            self._new_game(settings)
            return self.state()

    def move(self, body: dict[str, Any]) -> dict[str, Any]:
        check_fields(body, ("action", "move", "ply"))
        with self.lock:
            self._check_your_turn("move")
            if "ply" in body:
                ply = body["ply"]
                if not is_int(ply):
                    raise RequestError(HTTPStatus.BAD_REQUEST, "ply must be a whole number")
                if ply != len(self.history):
                    raise RequestError(
                        HTTPStatus.CONFLICT,
                        f"that move was for move {ply + 1}, but the game is at move "
                        f"{len(self.history) + 1}: the board has changed",
                    )
            action = self._action(body)
            try:
                self._play(action)
            except GameError as error:  # occupied, full, drawn already
                raise RequestError(
                    HTTPStatus.UNPROCESSABLE_ENTITY, reason(error, self.game)
                ) from None
            self.thought = self.error = None  # a failed hint's error is behind the game now
            if self.game.score is None and self.game.player != self.human:
                self._start("thinking")
            self._bump()
            return self.state()

    def _action(self, body: dict[str, Any]) -> int:
        """The action a move request names, as a number or in the game's notation."""
        game = self.game
        if ("action" in body) == ("move" in body):
            raise RequestError(
                HTTPStatus.BAD_REQUEST,
                'name the move as {"action": number} or {"move": "notation"}, one of them',
            )
        if "action" in body:
            action = body["action"]
            if not is_int(action):
                raise RequestError(HTTPStatus.BAD_REQUEST, "action must be a whole number")
            if not 0 <= action < game.num_actions:
                raise RequestError(
                    HTTPStatus.UNPROCESSABLE_ENTITY,
                    f"there is no move {action}: actions are 0-{game.num_actions - 1}",
                )
            return int(action)
        text = body["move"]
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_QUERY:
            raise RequestError(HTTPStatus.BAD_REQUEST, "move must be a move's name, like d4")
        try:
            return view_for(game).parse_move(text)
        except MoveParseError as error:
            raise RequestError(HTTPStatus.UNPROCESSABLE_ENTITY, reason(error, game)) from None

    def _check_your_turn(self, what: str) -> None:
        if self.busy == "loading":
            raise RequestError(HTTPStatus.CONFLICT, "the model is still loading: wait a moment")
        if self.busy is not None:
            doing = "searching for a hint" if self.busy == "hint" else "thinking"
            raise RequestError(HTTPStatus.CONFLICT, f"the model is {doing}: wait for it")
        if self.game.score is not None:
            raise RequestError(
                HTTPStatus.CONFLICT, f"the game is over: no {what} (start a new game, or undo)"
            )
        if self.game.player != self.human:
            raise RequestError(HTTPStatus.CONFLICT, f"it is not your turn: no {what} now")

    def ask_hint(self) -> dict[str, Any]:
        with self.lock:
            self._check_your_turn("hint")
            if self.error is not None:
                raise RequestError(HTTPStatus.CONFLICT, f"no hint: {self.error}")
            self._start("hint")
            self._bump()
            return self.state()

    def undo(self) -> dict[str, Any]:
        """Back to the person's previous turn: their last move and every reply to it are
        taken back (in Dots and Boxes a turn can be several moves, on either side)."""
        with self.lock:
            if self.busy is not None:
                raise RequestError(HTTPStatus.CONFLICT, "the model is busy: wait for it")
            index = next(
                (
                    i
                    for i in range(len(self.history) - 1, -1, -1)
                    if self.history[i][0].player == self.human
                ),
                None,
            )
            if index is None:
                raise RequestError(HTTPStatus.CONFLICT, "nothing to undo: you have not moved yet")
            self.game = self.history[index][0]
            del self.history[index:]
            self.thought = self.hint = self.error = None
            self._bump()
            return self.state()

    def state(self) -> dict[str, Any]:
        """Everything the page shows; called with ``lock`` held."""
        game = self.game
        view = view_for(game)
        moves = []
        for number, (position, action) in enumerate(self.history):
            after = self.history[number + 1][0] if number + 1 < len(self.history) else game
            moves.append(
                {
                    "player": position.player,
                    "action": action,
                    "move": view.format_move(action),
                    "again": after.score is None and after.player == position.player,
                }
            )
        # The last turn: the moves since the player to move last changed (one move, or a
        # chain of boxes), and the boxes they completed.
        turn = len(self.history)
        while turn > 0 and self.history[turn - 1][0].player == self.history[-1][0].player:
            turn -= 1
        last_turn = [action for _, action in self.history[turn:]]
        completed: list[tuple[int, int]] = []
        if view.board_view(game)["layout"] == "dots" and last_turn:
            before, now = self.history[turn][0].state, game.state
            completed = [
                (int(r), int(c))
                for r, c in zip(*np.nonzero((before == 0) & (now != 0)), strict=True)
                if r % 2 and c % 2
            ]
        settings = self.settings
        return {
            "session": self.id,
            "version": self.version,
            "title": view.full_title,
            "spec": settings.choice.spec,
            "first": settings.first,
            "sims": settings.simulations,
            "model": shown_path(settings.choice.model) if settings.choice.model else None,
            "human": self.human,
            "ply": len(self.history),
            "position": board_json(game),
            "moves": moves,
            "last_turn": last_turn,
            "completed": completed,
            "busy": self.busy,
            "error": self.error,
            "thought": self.thought,
            "hint": self.hint,
            "can_undo": self.busy is None
            and any(position.player == self.human for position, _ in self.history),
        }
