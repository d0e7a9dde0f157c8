"""The page's HTTP server (``WebServer``): the standard library's ``ThreadingHTTPServer``, a few
JSON endpoints routed to the app (``web_app.WebApp``) and the three files in ``static/``.

A request is taken only when it is addressed to a name the server answers to and, for a
change, sent as JSON from the page's own origin (``web_origin``); its body and query are read
within limits (``web_request``).

One request a connection: the handler keeps http.server's HTTP/1.0, and every answer says
``Connection: close``. The page long-polls (a request waits up to ``WAIT_SECONDS`` for a change)
and sends one request a click, so keep-alive would save little on a local connection, and would
make every refused body a question of whether the connection can still carry a request.

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

import contextlib
import json
import socket
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from .web_app import WebApp
from .web_errors import RequestError, check_fields, one_line
from .web_origin import address_names, check_host, check_same_origin, served_names
from .web_request import expect_method, read_body, since_version

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
            pass  # the client went away or stalled: nobody to answer
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
            expect_method(method, "GET")
            self._send_static("index.html")
        elif parts[0] == STATIC_DIR and len(parts) == 2:
            expect_method(method, "GET")
            self._send_static(parts[1])
        elif parts == ["api", "options"]:
            expect_method(method, "GET")
            self._send_json(HTTPStatus.OK, app.options())
        elif parts == ["api", "sessions"]:
            expect_method(method, "POST")
            session = app.create(read_body(self.headers, self.rfile))
            with session.lock:
                self._send_json(HTTPStatus.CREATED, session.state())
        elif len(parts) == 3 and parts[:2] == ["api", "sessions"]:
            expect_method(method, "GET")
            session = app.session(parts[2])
            since = since_version(url.query)
            if since is not None:
                session.wait(since, WAIT_SECONDS)
            with session.lock:
                self._send_json(HTTPStatus.OK, session.state())
        elif len(parts) == 4 and parts[:2] == ["api", "sessions"]:
            expect_method(method, "POST")
            body = read_body(self.headers, self.rfile)
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
        self.send_header("Connection", "close")  # HTTP/1.0 implies it; a client need not know
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
