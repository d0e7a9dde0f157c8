"""Play in the browser: ``python play.py --web`` serves a page on which a person plays any game
against a model with the mouse, and sees what the model thought drawn on the board.

The server is the standard library's ``ThreadingHTTPServer``: a few JSON endpoints and the
three files in ``static/``. Each browser tab has its own ``PlaySession``; a model's search runs
in a worker thread, so requests are answered while it thinks.

Endpoints (every answer is JSON, errors ``{"error": "what was wrong"}`` with a 4xx status)::

    GET  /api/options                     the games offered, the defaults from the command line
    POST /api/sessions                    a new session: {"game", "first", "sims"}, all optional
    GET  /api/sessions/ID[?since=V]       its state; with since, waits for a version above V
    POST /api/sessions/ID/move            {"action": 3} or {"move": "d4"}, optionally "ply"
    POST /api/sessions/ID/hint            search the position for the person
    POST /api/sessions/ID/undo            back to the person's previous turn
    POST /api/sessions/ID/new             a new game: {"game", "first", "sims"}, all optional
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import ipaddress
import json
import os
import random
import secrets
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import numpy as np

from ..checkpoints import CheckpointError, load_model
from ..games import make
from ..games.base import Game, GameError, MoveParseError
from ..players import ModelPlayer, Thought
from .models import default_model, how_to_train
from .options import (
    DEFAULT_CACHE,
    DEFAULT_GAME,
    DEFAULT_HOST,
    DEFAULT_PORT,
    DEFAULT_SIMULATIONS,
    parse_game,
)
from .prompt import reason

MAX_BODY = 16 * 1024
"""Larger request bodies are refused: everything the page sends is a few dozen bytes."""
MAX_DRAIN = 1024 * 1024
"""A refused body up to this size is read and dropped, so the client reads the refusal instead
of a reset connection; a larger one is left unread."""
MAX_SESSIONS = 64
"""Sessions kept at once; beyond it the one left alone the longest is dropped."""
MIN_SIMULATIONS = 2  # the first simulation only evaluates the root
MAX_SIMULATIONS = 50_000
WAIT_SECONDS = 20.0
"""How long ``GET /api/sessions/ID?since=V`` waits for a change before answering anyway."""
REQUEST_TIMEOUT = 30.0
"""Seconds a connection may stall mid-request before its thread gives up on it."""
MAX_QUERY = 200
"""Longer texts (a game spec, a move's name) are refused: real ones are a few words."""
PRESETS = ("connect4", "tictactoe", "gomoku6", "gomoku8", "boxes")
"""Games the page offers (each one that has a model), besides ``--game``'s own."""
FIRST_CHOICES = ("human", "ai", "random")
STATIC_DIR = "static"
STATIC_FILES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
CONTENT_SECURITY = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
"""The page loads nothing from elsewhere; the browser holds it to that."""
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


class RequestError(Exception):
    """A request that cannot be served: its HTTP status and a one-line reason for the page."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Network(Protocol):
    """What the search needs of a model: ``planes -> (logits, values)``; ``evaluate`` gives the
    win / draw / loss estimates (see ``ModelPlayer``)."""

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


NetworkLoader = Callable[[Path, Game], Network]


def load_network(path: Path, game: Game, engine: str = "tensorflow") -> Network:
    """The model at ``path`` (a run folder or a ``.keras`` file) for ``game``, ready to search
    one position at a time, run by ``engine``; ``CheckpointError`` with a one-line reason if
    it cannot be used."""
    from ..network import InferenceModel  # TensorFlow: only once a model is served

    model = load_model(path, game, compile=False)
    # Sessions search one position at a time: batches stay small (a few leaves, symmetric: 8
    # copies of each).
    return InferenceModel(model, max_batch=64, precision="auto", engine=engine)


class SharedNetwork:
    """One loaded model, shared by every session that plays with it.

    Calls are serialised: ``InferenceModel`` traces its functions and builds its bfloat16 copy
    on first use, which is not safe from two threads, and two searches on two cores gain
    little from running their network calls at the same moment.
    """

    def __init__(self, network: Network) -> None:
        self._network = network
        self._lock = threading.Lock()

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            return self._network(planes)

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            return self._network.evaluate(planes)


class Networks:
    """Models loaded once per (model, game) and shared across sessions."""

    def __init__(self, loader: NetworkLoader = load_network) -> None:
        self._loader = loader
        self._loaded: dict[tuple[str, str, tuple[tuple[str, int], ...]], SharedNetwork] = {}
        self._lock = threading.Lock()
        """Guards ``_loaded``, held only for a look-up: a session starting a game asks whether
        its model is loaded while another model loads."""
        self._load_lock = threading.Lock()
        """One load at a time: a second session asking for a model being loaded waits for it
        rather than loading a copy."""

    @staticmethod
    def _key(path: Path, game: Game) -> tuple[str, str, tuple[tuple[str, int], ...]]:
        return str(path.resolve()), game.name, tuple(sorted(game.params.items()))

    def is_loaded(self, path: Path, game: Game) -> bool:
        with self._lock:
            return self._key(path, game) in self._loaded

    def get(self, path: Path, game: Game) -> SharedNetwork:
        """The shared model, loaded on first use."""
        key = self._key(path, game)
        with self._lock:
            network = self._loaded.get(key)
        if network is not None:
            return network
        with self._load_lock:
            with self._lock:
                network = self._loaded.get(key)
            if network is None:
                network = SharedNetwork(self._loader(path, game))
                with self._lock:
                    self._loaded[key] = network
            return network


# ---------------------------------------------------------------------------- games
@dataclass(frozen=True)
class GameChoice:
    """A game the page can start, and the model that plays it."""

    spec: str
    """As ``--game`` takes it, and as the page sends it back."""
    name: str
    params: tuple[tuple[str, int], ...]
    """Every parameter, sorted: the same board always compares equal."""
    model: Path | None

    def new_game(self) -> Game:
        return make(self.name, **dict(self.params))

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "title": self.new_game().full_title,
            "model": None if self.model is None else shown_path(self.model),
        }


def full_params(name: str, params: dict[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(make(name, **params).params.items()))


def shown_path(path: Path) -> str:
    """``path`` relative to the working folder when it lies inside it, as a person typed it."""
    with contextlib.suppress(ValueError):
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    return str(path)


def board_json(game: Game) -> dict[str, Any]:
    """What the page draws a position from: the layout (``Game.board_view``), the board
    (absolute: +1 the first player's), whose move, the legal moves and every move's name."""
    return {
        "name": game.name,
        "board": game.state.tolist(),
        "player": game.player,
        "score": game.score,
        "legal": game.available_moves,
        "last_move": game.last_move,
        "labels": [game.format_move(a) for a in range(game.num_actions)],
        "key": ",".join(str(part) for part in game.key()),
        "winning_line": game.winning_line(),
        **game.board_view(),
    }


def thought_json(thought: Thought, game: Game, ply: int, kind: str) -> dict[str, Any]:
    """A search's findings for the page; values for the player to move in ``game``."""
    return {
        "kind": kind,
        "ply": ply,
        "player": game.player,
        "chosen": thought.action,
        "chosen_move": game.format_move(thought.action),
        "moves": [
            {
                "action": int(m.action),
                "move": m.move,
                "visits": int(m.visits),
                "share": float(m.share),
                "value": float(m.value),
            }
            for m in thought.top
        ],
        "wdl": None if thought.wdl is None else [float(p) for p in thought.wdl],
        "value": float(thought.value),
        "proven": None if thought.proven is None else float(thought.proven),
        "simulations": int(thought.simulations),
    }


# --------------------------------------------------------------------------- sessions
@dataclass(frozen=True)
class Settings:
    """What a new game is: the game and its model, who moves first, the search's strength."""

    choice: GameChoice
    first: str
    simulations: int


class PlaySession:
    """One browser tab's games: a person against the model of the game chosen.

    ``lock`` guards the state and is held only briefly; ``changed`` wakes the requests that
    wait for a new version. The model's searches run in worker threads, one at a time
    (``search_lock``); a new game bumps ``generation``, and a search of an older game throws
    its result away.
    """

    def __init__(self, app: WebApp, session_id: str, settings: Settings) -> None:
        self.app = app
        self.id = session_id
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.search_lock = threading.Lock()
        self.version = 0
        self.generation = 0
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
        self.busy = job
        worker = threading.Thread(
            target=self._work,
            args=(self.generation, job),
            name=f"search-{self.id[:6]}",
            daemon=True,
        )
        worker.start()

    def _work(self, generation: int, job: str) -> None:
        """A worker thread: load the model if need be, then the model's moves (while it is its
        turn) or a hint for the person."""
        try:
            with self.search_lock:
                player = self._model_player(generation, job)
                while player is not None:
                    with self.lock:
                        if generation != self.generation:
                            return
                        game, ply = self.game, len(self.history)
                        if job == "loading":
                            break
                        if job == "thinking" and (
                            game.score is not None or game.player == self.human
                        ):
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
        except Exception as error:  # whatever fails, the page says so in one line
            message = _one_line(error)
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
        player = ModelPlayer(
            model,
            start,
            simulations=settings.simulations,
            seed=self.app.seed or 0,
            top=start.num_actions,  # every move searched, for the overlay on the board
            inference=network,
            symmetric=self.app.symmetric,
            leaves=self.app.leaves,
            cache=DEFAULT_CACHE,
        )
        self._player = (wanted, player)
        return player

    # ------------------------------------------------------------------ requests
    def touch(self) -> None:
        self.touched = time.monotonic()

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
            self.thought = None
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
            return game.parse_move(text)
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
        moves = []
        for number, (position, action) in enumerate(self.history):
            after = self.history[number + 1][0] if number + 1 < len(self.history) else game
            moves.append(
                {
                    "player": position.player,
                    "action": action,
                    "move": position.format_move(action),
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
        if game.board_view()["layout"] == "dots" and last_turn:
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
            "title": game.full_title,
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


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_fields(body: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        names = ", ".join(repr(key)[:40] for key in unknown[:3])
        raise RequestError(
            HTTPStatus.BAD_REQUEST,
            f"unknown field {names}: this request takes {', '.join(allowed)}",
        )


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."


# ------------------------------------------------------------------------------- app
class WebApp:
    """The sessions, the games on offer and the shared models, without any HTTP."""

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        model: Path | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        first: str = "human",
        *,
        seed: int | None = None,
        symmetric: bool = False,
        show_thinking: bool = True,
        networks: Networks | None = None,
        leaves: int = 1,
        engine: str = "tensorflow",
    ) -> None:
        """``game`` (a ``--game`` spec), ``model``, ``simulations`` and ``first`` are the
        defaults of a new session; ``model`` (default: the one ``play.py`` finds) plays
        ``game`` only, every other game its own shipped model. ``leaves`` (per network call)
        and ``engine`` are every session's search and network (``ModelPlayer``)."""
        name, params = parse_game(game)
        if model is None:
            model = default_model(name, params)
        self.default = GameChoice(game.strip(), name, full_params(name, params), model)
        self.simulations = simulations
        self.first = first
        self.seed = seed
        self.symmetric = symmetric
        self.show_thinking = show_thinking
        self.leaves = leaves
        self.networks = networks or Networks(functools.partial(load_network, engine=engine))
        self.sessions: dict[str, PlaySession] = {}
        self._lock = threading.Lock()
        self._rng = random.Random(seed)

    def choose_first(self) -> str:
        with self._lock:
            return self._rng.choice(("human", "ai"))

    def choices(self) -> list[GameChoice]:
        """``--game`` first, then every preset game that has a model."""
        found = [self.default]
        for spec in PRESETS:
            name, params = parse_game(spec)
            full = full_params(name, params)
            if any((c.name, c.params) == (name, full) for c in found):
                continue
            model = default_model(name, params)
            if model is not None:
                found.append(GameChoice(spec, name, full, model))
        return found

    def choice(self, spec: str) -> GameChoice:
        """The game a spec names and its model; ``RequestError`` if it is not a game or there
        is no model for it."""
        try:
            name, params = parse_game(spec)
            full = full_params(name, params)
        except (ValueError, GameError) as error:
            raise RequestError(HTTPStatus.BAD_REQUEST, _one_line(error)) from None
        for known in self.choices():  # as the page lists it: c4 is connect4
            if (known.name, known.params) == (name, full):
                return known
        model = default_model(name, params)
        if model is None:
            raise RequestError(HTTPStatus.UNPROCESSABLE_ENTITY, how_to_train(name, params, spec))
        return GameChoice(spec.strip(), name, full, model)

    def settings(self, body: dict[str, Any], base: Settings | None = None) -> Settings:
        """A new game's settings from a request (``game``, ``first``, ``sims``), the rest from
        ``base`` (the session's last game) or the command line's defaults."""
        check_fields(body, ("game", "first", "sims"))
        if "game" in body:
            spec = body["game"]
            if not isinstance(spec, str) or len(spec) > MAX_QUERY:
                raise RequestError(
                    HTTPStatus.BAD_REQUEST, "game must be a game's name, like connect4"
                )
            choice = self.choice(spec)
        else:
            choice = base.choice if base else self.default
        if choice.model is None:
            raise RequestError(
                HTTPStatus.UNPROCESSABLE_ENTITY,
                how_to_train(choice.name, dict(choice.params), choice.spec),
            )
        first = body.get("first", base.first if base else self.first)
        if first not in FIRST_CHOICES:
            raise RequestError(
                HTTPStatus.BAD_REQUEST, f"first must be one of {', '.join(FIRST_CHOICES)}"
            )
        sims = body.get("sims", base.simulations if base else self.simulations)
        if not is_int(sims) or not MIN_SIMULATIONS <= sims <= MAX_SIMULATIONS:
            raise RequestError(
                HTTPStatus.BAD_REQUEST,
                f"sims must be a whole number from {MIN_SIMULATIONS} to {MAX_SIMULATIONS}",
            )
        return Settings(choice, first, sims)

    def options(self) -> dict[str, Any]:
        return {
            "games": [choice.to_json() for choice in self.choices()],
            "defaults": {
                "game": self.default.spec,
                "first": self.first,
                "sims": self.simulations,
                "show_thinking": self.show_thinking,
            },
            "sims_range": [MIN_SIMULATIONS, MAX_SIMULATIONS],
        }

    def create(self, body: dict[str, Any]) -> PlaySession:
        settings = self.settings(body)
        session = PlaySession(self, secrets.token_urlsafe(12), settings)
        with self._lock:
            if len(self.sessions) >= MAX_SESSIONS:
                oldest = min(self.sessions.values(), key=lambda s: s.touched)
                del self.sessions[oldest.id]
            self.sessions[session.id] = session
        return session

    def session(self, session_id: str) -> PlaySession:
        with self._lock:
            session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(
                HTTPStatus.NOT_FOUND,
                "no such session (the server may have restarted): start a new game",
            )
        session.touch()
        return session

    def preload(self) -> None:
        """Load the default game's model now: a model that cannot be used fails at start, in
        the terminal, not later on the page."""
        assert self.default.model is not None
        self.networks.get(self.default.model, self.default.new_game())


# ------------------------------------------------------------------------------ HTTP
class WebServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` with the app, and no traceback for a client that goes away."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], app: WebApp) -> None:
        self.app = app
        host = address[0]
        self.loopback = is_loopback(host)
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The handler answers every error it can; what is left is a connection that broke.
        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, (OSError, TimeoutError)):
            print(f"error: {_one_line(error)}", file=sys.stderr)


class Handler(BaseHTTPRequestHandler):
    """Routes requests to the app; every answer, errors included, is JSON or a static file."""

    server: WebServer
    server_version = "alphazero-play"
    sys_version = ""
    timeout = REQUEST_TIMEOUT

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the console shows the address, warnings and errors, not every request."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a malformed request line, overlong headers, an unknown
        method) as JSON, like every other error."""
        if getattr(self, "request_version", None) == "HTTP/0.9":
            # A request line it could not read leaves http.server at HTTP/0.9, which has no
            # status line: answer in HTTP/1.0, so the client reads the status.
            self.request_version = "HTTP/1.0"
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        with contextlib.suppress(OSError):
            self._send_json(code, {"error": message or phrase})

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        try:
            self._check_host()
            self._route()
        except RequestError as error:
            self._answer_error(error.status, error.message)
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client went away or stalled: nobody to answer
        except Exception as error:  # a bug: one line on the console, a 500
            print(f"error: {self.command} {self.path[:80]}: {_one_line(error)}", file=sys.stderr)
            self._answer_error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error: see the console")

    def _answer_error(self, status: HTTPStatus, message: str) -> None:
        with contextlib.suppress(OSError):
            self._send_json(status, {"error": message})

    def _check_host(self) -> None:
        """On a loopback address, only pages of this machine's own names may call: another
        site cannot reach the server by pointing one of its names at 127.0.0.1."""
        host = self.headers.get("Host")
        if not self.server.loopback or host is None:
            return
        try:
            name = urlsplit(f"//{host}").hostname or ""
        except ValueError:  # an unclosed [ of an IPv6 address
            raise RequestError(HTTPStatus.BAD_REQUEST, "the Host header is not a host") from None
        if name not in LOOPBACK_NAMES:
            raise RequestError(
                HTTPStatus.FORBIDDEN, f"this server answers to localhost, not {name}"
            )

    def _route(self) -> None:
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        method = self.command
        app = self.server.app
        if not parts or parts == ["index.html"]:
            self._expect(method, "GET")
            self._send_static("index.html")
        elif parts[0] == STATIC_DIR and len(parts) == 2:
            self._expect(method, "GET")
            self._send_static(parts[1])
        elif parts == ["api", "options"]:
            self._expect(method, "GET")
            self._send_json(HTTPStatus.OK, app.options())
        elif parts == ["api", "sessions"]:
            self._expect(method, "POST")
            session = app.create(self._body())
            with session.lock:
                self._send_json(HTTPStatus.CREATED, session.state())
        elif len(parts) == 3 and parts[:2] == ["api", "sessions"]:
            self._expect(method, "GET")
            session = app.session(parts[2])
            since = self._since(url.query)
            if since is not None:
                session.wait(since, WAIT_SECONDS)
            with session.lock:
                self._send_json(HTTPStatus.OK, session.state())
        elif len(parts) == 4 and parts[:2] == ["api", "sessions"]:
            self._expect(method, "POST")
            body = self._body()
            session = app.session(parts[2])
            action = parts[3]
            if action == "move":
                state = session.move(body)
            elif action == "hint":
                check_fields(body, ())
                state = session.ask_hint()
            elif action == "undo":
                check_fields(body, ())
                state = session.undo()
            elif action == "new":
                state = session.new_game(app.settings(body, session.settings))
            else:
                raise RequestError(HTTPStatus.NOT_FOUND, f"no such action {action[:40]!r}")
            self._send_json(HTTPStatus.OK, state)
        else:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no such page: {url.path[:80]}")

    @staticmethod
    def _expect(method: str, allowed: str) -> None:
        if method != allowed:
            raise RequestError(HTTPStatus.METHOD_NOT_ALLOWED, f"use {allowed} here, not {method}")

    @staticmethod
    def _since(query: str) -> int | None:
        values = parse_qs(query).get("since")
        if not values:
            return None
        text = values[0]
        if not text.isdigit() or len(text) > 12:
            raise RequestError(HTTPStatus.BAD_REQUEST, "since must be a version number")
        return int(text)

    def _body(self) -> dict[str, Any]:
        """The request's JSON object (``{}`` for no body)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            raise RequestError(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
        text = self.headers.get("Content-Length")
        if text is None:
            return {}
        if not text.strip().isdigit():
            self.close_connection = True
            raise RequestError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number")
        length = int(text)
        if length > MAX_BODY:
            self.close_connection = True
            if length <= MAX_DRAIN:
                self._drain(length)
            raise RequestError(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"the body is too large: {length} bytes, at most {MAX_BODY}",
            )
        raw = self.rfile.read(length)
        if len(raw) < length:
            self.close_connection = True
            raise RequestError(
                HTTPStatus.BAD_REQUEST, "the body is shorter than its Content-Length"
            )
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
        if not isinstance(data, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
        return data

    def _drain(self, length: int) -> None:
        left = length
        while left > 0:
            chunk = self.rfile.read(min(left, 65536))
            if not chunk:
                return
            left -= len(chunk)

    def _send_json(self, status: int, data: dict[str, Any]) -> None:
        payload = json.dumps(data, separators=(",", ":")).encode()
        self._send(status, payload, "application/json; charset=utf-8")

    def _send_static(self, name: str) -> None:
        if name not in STATIC_FILES:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no such file: {name[:80]}")
        payload = resources.files(__package__).joinpath(STATIC_DIR, name).read_bytes()
        self._send(HTTPStatus.OK, payload, STATIC_FILES[name])

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", CONTENT_SECURITY)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)


# ----------------------------------------------------------------------- play.py --web
def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_warning(host: str) -> str | None:
    """The warning for a ``--host`` other than this machine's loopback address."""
    if is_loopback(host):
        return None
    return (
        f"warning: --host {host} is not a loopback address: anyone who can reach this "
        f"machine can open the page and make it search (there is no password)"
    )


def page_url(host: str, port: int) -> str:
    """The address to open: a wildcard host is reached through the loopback address."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def open_browser(url: str) -> threading.Thread | None:
    """Open ``url`` in a browser, in a thread of its own (returned); say so when none can be.

    On Linux without a display only text browsers could start, in this very terminal, and
    ``webbrowser`` would wait for them: skip it unless ``BROWSER`` asks for one.
    """
    if sys.platform.startswith("linux") and not any(
        os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")
    ):
        print(f"open {url} in a browser", flush=True)
        return None

    def run() -> None:
        try:
            opened = webbrowser.open(url)
        except Exception:  # a broken browser setup must not stop the server
            opened = False
        if not opened:
            print(f"no browser could be opened: open {url} yourself", flush=True)

    thread = threading.Thread(target=run, name="browser", daemon=True)
    thread.start()
    return thread


def web_option_problem(args: argparse.Namespace) -> str | None:
    """Why these options cannot go with ``--web``, or ``None``."""
    for option, given in (
        ("--p1", args.p1 is not None),
        ("--p2", args.p2 is not None),
        ("--games", args.games != 1),
        ("--json", args.json is not None),
        ("--save", args.save is not None),
    ):
        if given:
            return f"{option} is for the terminal: --web plays you against the model"
    port = DEFAULT_PORT if args.port is None else args.port
    if not 0 <= port <= 65535:
        return f"--port must be 0-65535 (0: any free port), got {port}"
    return None


def serve(args: argparse.Namespace) -> int:
    """``play.py --web``: check the options, listen, load the model, print the address, open a
    browser and serve until Ctrl-C. The exit code: 0, or 2 for options that cannot be served."""

    def fail(message: str) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 2

    problem = web_option_problem(args)
    if problem is not None:
        return fail(problem)
    name, params = parse_game(args.game)
    model = args.model if args.model is not None else default_model(name, params)
    if model is None:
        shown = "" if args.game == DEFAULT_GAME else args.game.strip()
        print(how_to_train(name, params, shown), file=sys.stderr)
        return 2
    if not MIN_SIMULATIONS <= args.sims <= MAX_SIMULATIONS:
        return fail(f"--sims must be {MIN_SIMULATIONS}-{MAX_SIMULATIONS} on the page")
    app = WebApp(
        args.game,
        model,
        args.sims,
        args.first or "human",
        seed=args.seed,
        symmetric=args.symmetric,
        show_thinking=not args.quiet,
        leaves=args.leaves,
        engine=args.engine,
    )
    host = args.host or DEFAULT_HOST
    port = DEFAULT_PORT if args.port is None else args.port
    try:
        server = WebServer((host, port), app)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return fail(f"port {port} is in use: choose another with --port (0: any free port)")
        return fail(f"cannot listen on {host} port {port}: {error.strerror or error}")
    with server:
        warning = host_warning(host)
        if warning:
            print(warning, file=sys.stderr)
        print(f"loading the model {model} ...", flush=True)
        try:
            app.preload()
        except (CheckpointError, GameError, ValueError, OSError) as error:
            return fail(_one_line(error))
        url = page_url(host, server.server_address[1])
        print(
            f"{app.default.new_game().full_title} in the browser: {url}  (Ctrl-C stops)",
            flush=True,
        )
        if not args.no_browser:
            open_browser(url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("\nbye", flush=True)
    return 0
