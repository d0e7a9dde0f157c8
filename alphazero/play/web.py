"""Play in the browser: ``python play.py --web`` serves a page on which a person plays any game
against a model with the mouse, and sees what the model thought drawn on the board.

The server is the standard library's ``ThreadingHTTPServer``: a few JSON endpoints and the
three files in ``static/``. Each browser tab has its own ``PlaySession``; the model's searches
run on a few worker threads shared by every session, so requests are answered while it thinks.
A POST is taken only as JSON from the page's own origin (``web_origin``): another site's page
open in the same browser cannot start searches or end a person's game.

Endpoints (every answer is JSON, errors ``{"error": "what was wrong"}`` with a 4xx status)::

    GET  /api/options                     the games offered, the defaults from the command line
    POST /api/sessions                    a new session: {"game", "first", "sims"}, all optional
    GET  /api/sessions/ID[?since=V]       its state; with since, waits for a version above V
    POST /api/sessions/ID/move            {"action": 3} or {"move": "d4"}, optionally "ply"
    POST /api/sessions/ID/hint            search the position for the person
    POST /api/sessions/ID/undo            back to the person's previous turn
    POST /api/sessions/ID/new             a new game: {"game", "first", "sims"}, all optional

This module is the HTTP server and ``play.py --web``; the rest is one module each: ``web_app``
(``WebApp``: the sessions, the games offered, a new game's settings), ``web_session``
(``PlaySession``: one tab's games), ``web_json`` (what the page is sent), ``web_networks`` (the
models, loaded once and shared), ``web_searches`` (the worker threads, and how a search nobody
awaits stops), ``web_origin`` (the names served, the page's own origin) and ``web_errors``
(``RequestError``: how requests are refused).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import socket
import sys
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..games import view_for
from ..games.base import GameError
from ..training.run_errors import CheckpointError
from .defaults import DEFAULT_GAME, DEFAULT_HOST, DEFAULT_PORT
from .models import default_model, how_to_train
from .options import parse_game
from .web_app import MAX_SIMULATIONS, MIN_SIMULATIONS, WebApp
from .web_errors import RequestError, check_fields, one_line
from .web_origin import address_names, check_host, check_same_origin, is_loopback, served_names

MAX_BODY = 16 * 1024
"""Larger request bodies are refused: everything the page sends is a few dozen bytes."""
MAX_DRAIN = 1024 * 1024
"""A refused body up to this size is read and dropped, so the client reads the refusal instead
of a reset connection; a larger one is left unread."""
MAX_LENGTH_DIGITS = 18
"""A longer ``Content-Length`` is refused unread as too large."""
WAIT_SECONDS = 20.0
"""How long ``GET /api/sessions/ID?since=V`` waits for a change before answering anyway."""
REQUEST_TIMEOUT = 30.0
"""Seconds a connection may stall mid-request before its thread gives up on it."""
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
LISTEN_BACKLOG = 128
"""Connections the system holds for the server while it accepts others: a page opening at
once, or many tabs, would otherwise find connections refused or delayed by seconds."""


# ------------------------------------------------------------------------------ HTTP
class WebServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` with the app, the names it answers to (``web_origin``), and no
    traceback for a client that goes away."""

    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], app: WebApp) -> None:
        self.app = app
        host = address[0]
        self.names = served_names(host)
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The handler answers every error it can; what is left is a connection that broke.
        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, (OSError, TimeoutError)):
            print(f"error: {one_line(error)}", file=sys.stderr)


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
            local = str(self.connection.getsockname()[0])
            check_host(self.headers, self.server.names | address_names(local))
            check_same_origin(
                self.command, self.headers, self.server.names, self.server.server_address[1]
            )
            self._route()
        except RequestError as error:
            self._answer_error(error.status, error.message)
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client went away or stalled: nobody to answer
        except Exception as error:  # a bug: one line on the console, a 500
            print(f"error: {self.command} {self.path[:80]}: {one_line(error)}", file=sys.stderr)
            self._answer_error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error: see the console")

    def _answer_error(self, status: HTTPStatus, message: str) -> None:
        with contextlib.suppress(OSError):
            self._send_json(status, {"error": message})

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
        if not (text.isascii() and text.isdigit()) or len(text) > 12:
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
        text = text.strip()
        if not (text.isascii() and text.isdigit()):  # not "²"
            self.close_connection = True
            raise RequestError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number")
        if len(text) > MAX_LENGTH_DIGITS:  # thousands of digits do not even convert to an int
            self.close_connection = True
            raise RequestError(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"the body is too large: a Content-Length of {len(text)} digits, "
                f"at most {MAX_BODY} bytes",
            )
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
        except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: [[[[...
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
        ("--games", args.games is not None),
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
        search=args.search,
        c_puct=args.c_puct,
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
            return fail(one_line(error))
        url = page_url(host, server.server_address[1])
        print(
            f"{view_for(app.default.new_game()).full_title} in the browser: {url}  (Ctrl-C stops)",
            flush=True,
        )
        if not args.no_browser:
            open_browser(url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("\nbye", flush=True)
        finally:
            app.close()  # the searches stop, rather than die with the interpreter
    return 0
