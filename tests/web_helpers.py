"""Helpers for the browser-play tests: a ``play.py --web`` server in a thread of the test
process (on 127.0.0.1, a free port), plain JSON calls to it, and stand-in networks."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from alphazero.games.base import Game
from alphazero.play.web_app import WebApp
from alphazero.play.web_server import WebServer


@contextmanager
def running(app: WebApp) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port) while the block runs; its base URL."""
    server = WebServer(("127.0.0.1", 0), app)
    thread = threading.Thread(target=server.serve_forever, name="test-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def call(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    raw: bytes | None = None,
    headers: dict[str, str | None] | None = None,
) -> tuple[int, dict[str, Any]]:
    """``(status, JSON answer)`` of one request; 4xx and 5xx answers are returned too. Sent
    as the page sends it: JSON, and a change with the page's ``Origin``; a header given as
    ``None`` is left out."""
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    sent: dict[str, str | None] = {"Content-Type": "application/json"}
    if method not in ("GET", "HEAD"):
        sent["Origin"] = base
    sent.update(headers or {})
    request = urllib.request.Request(
        base + path,
        data=data,
        method=method,
        headers={name: value for name, value in sent.items() if value is not None},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


class FakeNetwork:
    """Uniform priors, every position even (win / draw / loss 30/40/30), for any game. With a
    ``gate`` every call waits for it to be set: a search that lasts until the test says so."""

    def __init__(self, game: Game, gate: threading.Event | None = None) -> None:
        self.num_actions = game.num_actions
        self.gate = gate

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, _ = self.evaluate(planes)
        return logits, np.zeros(len(planes), dtype=np.float32)

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.gate is not None:
            self.gate.wait(60)
        wdl = np.tile(np.array([0.3, 0.4, 0.3], dtype=np.float32), (len(planes), 1))
        return np.zeros((len(planes), self.num_actions), dtype=np.float32), wdl
