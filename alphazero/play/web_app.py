"""The page's app without any HTTP (``WebApp``): the sessions, the games on offer, a new
game's settings checked from a request, and the shared models.
"""

from __future__ import annotations

import functools
import random
import secrets
import threading
from http import HTTPStatus
from pathlib import Path
from typing import Any

from ..evaluation.model_search import PlaySearch
from ..games.base import GameError
from .defaults import DEFAULT_GAME, DEFAULT_SIMULATIONS
from .models import default_model, how_to_train
from .options import parse_game
from .web_errors import MAX_QUERY, RequestError, check_fields, is_int, one_line
from .web_json import GameChoice, full_params
from .web_networks import Networks, load_network
from .web_searches import SEARCH_WORKERS, SearchPool
from .web_session import PlaySession, Settings

MAX_SESSIONS = 64
"""Sessions kept at once; beyond it the one left alone the longest is dropped, its search
stopped."""
MIN_SIMULATIONS = 2  # the first simulation only evaluates the root
MAX_SIMULATIONS = 50_000
PRESETS = ("connect4", "tictactoe", "gomoku6", "gomoku8", "gomoku", "boxes")
"""Games the page offers (each one that has a model), besides ``--game``'s own."""
FIRST_CHOICES = ("human", "ai", "random")


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
        searches: int = SEARCH_WORKERS,
        search: str | None = None,
        c_puct: float | None = None,
    ) -> None:
        """``game`` (a ``--game`` spec), ``model``, ``simulations`` and ``first`` are the
        defaults of a new session; ``model`` (default: the one ``play.py`` finds) plays
        ``game`` only, every other game its own shipped model. ``leaves`` (per network call),
        ``search`` (the algorithm), ``c_puct`` and ``engine`` are every session's search and
        network (``ModelPlayer``; None: as the model's run says, ``PlaySearch``); at most
        ``searches`` of them search at once, the others' jobs wait (``SearchPool``)."""
        name, params = parse_game(game)
        if model is None:
            model = default_model(name, params)
        self.default = GameChoice(game.strip(), name, full_params(name, params), model)
        self.simulations = simulations
        self.first = first
        self.seed = seed
        self.symmetric = symmetric
        self.show_thinking = show_thinking
        self.play_search = PlaySearch(search, c_puct, leaves)
        self.networks = networks or Networks(functools.partial(load_network, engine=engine))
        self.searches = SearchPool(searches)
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
            raise RequestError(HTTPStatus.BAD_REQUEST, one_line(error)) from None
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
        evicted = None
        with self._lock:
            if len(self.sessions) >= MAX_SESSIONS:
                evicted = min(self.sessions.values(), key=lambda s: s.touched)
                del self.sessions[evicted.id]
            self.sessions[session.id] = session
        if evicted is not None:
            evicted.end()
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

    def close(self) -> None:
        """End every session and the search workers: the server is stopping (Ctrl-C)."""
        with self._lock:
            sessions = list(self.sessions.values())
            self.sessions.clear()
        for session in sessions:
            session.end()
        self.searches.close()

    def preload(self) -> None:
        """Load the default game's model now: a model that cannot be used fails at start, in
        the terminal, not later on the page."""
        assert self.default.model is not None
        self.networks.get(self.default.model, self.default.new_game())
