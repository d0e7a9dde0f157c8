"""The hostile probe of ``play.py --web`` (issue 57): another site's page in the same browser
must not drive the server, a search nobody awaits must stop, the searches running at once are
capped, a burst of connections is queued, and an absurd ``Content-Length`` is a 4xx.

The server runs in the test process with stand-in networks (``web_helpers``), so nothing
here waits for TensorFlow. Where a test must show that a search stopped rather than ran to its
end, the search is one of 50,000 simulations on a network that sleeps a little per call: run
to its end it would take minutes, and the bounds here are tens of seconds.
"""

from __future__ import annotations

import errno
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from web_helpers import FakeNetwork, call, running

from alphazero.games.base import Game
from alphazero.play import web_app, web_searches
from alphazero.play.web_app import WebApp
from alphazero.play.web_networks import Networks
from alphazero.play.web_searches import SEARCH_WORKERS
from alphazero.play.web_server import LISTEN_BACKLOG, WebServer

PLAY = Path(__file__).resolve().parents[2] / "play.py"
LONG = 50_000
"""A search's simulations that would last minutes on ``CountingNetwork(delay=...)``."""
BOUND = 20.0
"""Seconds within which a stopped search must be seen to have stopped."""


class CountingNetwork(FakeNetwork):
    """``FakeNetwork`` that counts its calls and those in progress, optionally sleeping
    ``delay`` seconds in each."""

    def __init__(self, game: Game, gate: threading.Event | None = None, delay: float = 0.0):
        super().__init__(game, gate)
        self.delay = delay
        self.calls = 0
        self.inside = 0
        self._lock = threading.Lock()

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            self.calls += 1
            self.inside += 1
        try:
            if self.delay:
                time.sleep(self.delay)
            return super().evaluate(planes)
        finally:
            with self._lock:
                self.inside -= 1


def counting_app(
    gate: threading.Event | None = None, delay: float = 0.0, game: str = "connect4"
) -> tuple[WebApp, list[CountingNetwork]]:
    """An app on stand-in networks; the list holds the networks it loaded."""
    loaded: list[CountingNetwork] = []

    def loader(path: Path, start: Game) -> CountingNetwork:
        network = CountingNetwork(start, gate, delay)
        loaded.append(network)
        return network

    app = WebApp(game, Path("stand-in.keras"), 8, seed=0, networks=Networks(loader))
    return app, loaded


def wait_for(condition: Callable[[], bool], seconds: float = BOUND) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def quiet(network: CountingNetwork, seconds: float = BOUND) -> bool:
    """Whether the network's calls stop (none for half a second) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        before = network.calls
        time.sleep(0.5)
        if network.calls == before and network.inside == 0:
            return True
    return False


def search_threads() -> set[threading.Thread]:
    """The searching threads, by name: the pools' workers (formerly one thread per search)."""
    return {t for t in threading.enumerate() if t.name.startswith("search")}


@pytest.fixture
def closing() -> Iterator[list[WebApp]]:
    """Apps to close after the test, so that no test leaves searches running."""
    apps: list[WebApp] = []
    yield apps
    for app in apps:
        close = getattr(app, "close", None)
        if close is not None:
            close()


# ----------------------------------------------------------------- other sites' requests
def test_seventy_cross_origin_no_cors_posts_are_refused_and_the_persons_game_survives(closing):
    app, _ = counting_app()
    closing.append(app)
    with running(app) as base:
        status, mine = call(base, "POST", "/api/sessions", {"first": "human"})
        assert status == 201
        threads = threading.active_count()
        no_cors = {
            "Content-Type": "text/plain;charset=UTF-8",
            "Origin": "http://attacker.example",
            "Sec-Fetch-Site": "cross-site",
            "Sec-Fetch-Mode": "no-cors",
        }
        body = {"first": "ai", "sims": LONG}
        answers = [call(base, "POST", "/api/sessions", body, headers=no_cors) for _ in range(70)]
        assert [status for status, _ in answers] == [403] * 70
        assert all("refused" in answer["error"] for _, answer in answers)
        assert list(app.sessions) == [mine["session"]]
        status, state = call(base, "GET", f"/api/sessions/{mine['session']}")
        assert status == 200 and state["ply"] == 0
        assert threading.active_count() < threads + 10  # not one more thread per request


def test_a_change_is_taken_only_as_json_from_the_pages_own_origin(closing):
    app, _ = counting_app(game="tictactoe")
    closing.append(app)
    with running(app) as base:
        port = base.rsplit(":", 1)[1]
        _, state = call(base, "POST", "/api/sessions", {"first": "human"})
        sid = state["session"]
        refused: list[tuple[dict[str, str | None], str]] = [
            ({"Content-Type": "text/plain"}, "Content-Type: application/json"),
            ({"Content-Type": "application/x-www-form-urlencoded"}, "Content-Type"),
            ({"Content-Type": None}, "Content-Type"),
            ({"Origin": "http://attacker.example"}, "another site"),
            ({"Origin": "null"}, "another site"),
            ({"Origin": f"https://127.0.0.1:{port}"}, "another site"),
            ({"Origin": "http://127.0.0.1:1"}, "another site"),
            ({"Origin": f"http://localhost:{port}"}, "another site"),  # not as addressed
            ({"Origin": f"http://127.0.0.1:{port}/x"}, "another site"),
            ({"Origin": None}, "Origin"),
            ({"Origin": None, "Sec-Fetch-Site": "cross-site"}, "Sec-Fetch-Site: cross-site"),
            ({"Origin": None, "Sec-Fetch-Site": "same-site"}, "Sec-Fetch-Site: same-site"),
            ({"Sec-Fetch-Site": "cross-site"}, "another site"),
        ]
        paths = ["/api/sessions", *(f"/api/sessions/{sid}/{a}" for a in ("move", "new", "hint"))]
        for path in paths:
            for headers, words in refused:
                status, answer = call(base, "POST", path, {}, headers=headers)
                assert status == 403 and words in answer["error"], (path, headers, answer)
        _, state = call(base, "GET", f"/api/sessions/{sid}")
        assert state["ply"] == 0 and state["busy"] is None and list(app.sessions) == [sid]

        move = f"/api/sessions/{sid}/move"
        for headers, action in (
            ({}, 0),
            ({"Origin": None, "Sec-Fetch-Site": "same-origin"}, 1),
            ({"Content-Type": "Application/JSON; charset=utf-8"}, 2),
        ):
            assert wait_for(lambda: call(base, "GET", f"/api/sessions/{sid}")[1]["busy"] is None)
            status, answer = call(base, "POST", move, {"action": action}, headers=headers)
            assert status in (200, 422), (headers, answer)  # played, or the model's square


def test_no_origin_and_a_cross_site_fetch_site_is_refused(closing):
    app, _ = counting_app()
    closing.append(app)
    with running(app) as base:
        headers = {"Origin": None, "Sec-Fetch-Site": "cross-site"}
        status, answer = call(base, "POST", "/api/sessions", {}, headers=headers)
        assert status == 403 and "Sec-Fetch-Site: cross-site" in answer["error"]
        assert app.sessions == {}


def test_a_wildcard_host_answers_only_to_this_machines_names(closing):
    app, _ = counting_app()
    closing.append(app)
    server = WebServer(("0.0.0.0", 0), app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        base = f"http://127.0.0.1:{port}"
        for host in ("attacker.example", "rebind.attacker.example", "10.11.12.13"):
            status, answer = call(base, "GET", "/api/options", headers={"Host": f"{host}:{port}"})
            assert status == 403 and f"not {host}" in answer["error"], (host, answer)
        for host in ("127.0.0.1", "localhost", socket.gethostname()):
            status, _ = call(base, "GET", "/api/options", headers={"Host": f"{host}:{port}"})
            assert status == 200, host
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


# ------------------------------------------------------------------- searches nobody awaits
def test_an_evicted_sessions_search_stops(closing, monkeypatch):
    monkeypatch.setattr(web_app, "MAX_SESSIONS", 2)
    app, networks = counting_app(delay=0.002)
    closing.append(app)
    before = search_threads()
    with running(app) as base:
        status, first = call(base, "POST", "/api/sessions", {"first": "ai", "sims": LONG})
        assert status == 201
        assert wait_for(lambda: bool(networks) and networks[0].calls > 20)
        for _ in range(2):  # the first session is the one left alone longest
            status, _ = call(base, "POST", "/api/sessions", {"first": "human"})
            assert status == 201
        status, _ = call(base, "GET", f"/api/sessions/{first['session']}")
        assert status == 404
        assert quiet(networks[0]), networks[0].calls
        assert networks[0].calls < LONG // 10
        assert len(search_threads() - before) <= SEARCH_WORKERS


def test_a_new_game_during_a_long_search_is_answered_at_once(closing):
    app, networks = counting_app(delay=0.002)
    closing.append(app)
    with running(app) as base:
        _, state = call(base, "POST", "/api/sessions", {"first": "ai", "sims": LONG})
        assert wait_for(lambda: bool(networks) and networks[0].calls > 20)
        sid = state["session"]
        status, state = call(base, "POST", f"/api/sessions/{sid}/new", {"sims": 2})
        assert status == 200 and state["busy"] == "thinking" and state["sims"] == 2

        def replied() -> bool:
            return call(base, "GET", f"/api/sessions/{sid}")[1]["busy"] is None

        assert wait_for(replied), networks[0].calls
        _, state = call(base, "GET", f"/api/sessions/{sid}")
        assert state["ply"] == 1 and state["thought"]["simulations"] <= 2
        assert networks[0].calls < LONG // 10


def test_the_searches_running_at_once_are_capped_and_the_rest_wait_their_turn(closing):
    gate = threading.Event()
    app, networks = counting_app(gate)
    closing.append(app)
    sessions = 3 * SEARCH_WORKERS
    before = search_threads()
    try:
        with running(app) as base:
            threads = threading.active_count()
            started = [
                call(base, "POST", "/api/sessions", {"first": "ai"}) for _ in range(sessions)
            ]
            assert [status for status, _ in started] == [201] * sessions
            # The network serialises its calls: one search waits at the gate, the others for
            # the network, each on a thread of its own.
            assert wait_for(lambda: bool(networks) and networks[0].inside == 1)
            time.sleep(0.5)  # room for searches beyond the cap to show themselves
            assert len(search_threads() - before) == SEARCH_WORKERS
            assert threading.active_count() - threads <= SEARCH_WORKERS
            assert app.searches.running() == SEARCH_WORKERS
            assert app.searches.waiting() == sessions - SEARCH_WORKERS
            gate.set()
            for _, state in started:
                path = f"/api/sessions/{state['session']}"
                assert wait_for(lambda path=path: call(base, "GET", path)[1]["ply"] == 1)
    finally:
        gate.set()


def test_closing_the_app_stops_every_search(closing):
    app, networks = counting_app(delay=0.002)
    closing.append(app)
    before = search_threads()
    with running(app) as base:
        for _ in range(SEARCH_WORKERS + 2):
            call(base, "POST", "/api/sessions", {"first": "ai", "sims": LONG})
        assert wait_for(lambda: bool(networks) and networks[0].calls > 20)
        app.close()  # what Ctrl-C does once the server stops
        assert search_threads() - before == set()
        assert quiet(networks[0], 2.0) and networks[0].calls < LONG // 10


def test_idle_search_workers_end_and_the_next_search_starts_one(closing, monkeypatch):
    monkeypatch.setattr(web_searches, "IDLE_SECONDS", 0.2)
    app, _ = counting_app(game="tictactoe")
    closing.append(app)
    with running(app) as base:
        _, state = call(base, "POST", "/api/sessions", {"first": "ai"})
        path = f"/api/sessions/{state['session']}"
        assert wait_for(lambda: app.searches.threads() == 0)
        _, state = call(base, "GET", path)
        assert state["ply"] == 1 and state["busy"] is None
        status, state = call(
            base, "POST", f"{path}/move", {"action": state["position"]["legal"][0]}
        )
        assert status == 200
        assert wait_for(lambda: call(base, "GET", path)[1]["ply"] == 3)  # the model replied


@pytest.mark.slow  # a model loads in a process of its own; in-process: test_closing_the_app...
def test_ctrl_c_during_long_searches_stops_them_and_exits_cleanly(tmp_path):
    """The searches' threads once died with the interpreter, in the middle of a network call:
    'terminate called without an active exception' and exit code -6 (SIGABRT)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    args = ["--web", "--port", "0", "--game", "connect4", "--sims", "4", "--no-browser"]
    process = subprocess.Popen(
        [sys.executable, str(PLAY), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's
    )
    try:
        assert process.stdout is not None
        base = None
        while base is None and (line := process.stdout.readline()):
            if found := re.search(r"in the browser: (http://127\.0\.0\.1:[0-9]+)/", line):
                base = found.group(1)
        assert base, process.stderr.read() if process.stderr else ""
        for _ in range(SEARCH_WORKERS + 2):
            status, state = call(base, "POST", "/api/sessions", {"first": "ai", "sims": LONG})
            assert status == 201, state
        assert wait_for(lambda: call(base, "GET", f"/api/sessions/{state['session']}")[0] == 200)
        time.sleep(1)  # the searches under way
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert (process.returncode, err) == (0, ""), err
    assert out.strip().endswith("bye")


# ---------------------------------------------------------------------------- connections
def test_a_burst_of_connections_is_queued_while_the_server_is_busy_and_all_answered(closing):
    app, _ = counting_app()
    closing.append(app)
    server = WebServer(("127.0.0.1", 0), app)
    port = server.server_address[1]
    burst = LISTEN_BACKLOG - 8
    clients = []
    thread = None
    try:
        # The server accepts nothing yet: the system's queue alone holds the connections.
        for _ in range(burst):
            client = socket.socket()
            client.setblocking(False)
            assert client.connect_ex(("127.0.0.1", port)) in (0, errno.EINPROGRESS)
            clients.append(client)
        pending = set(clients)
        deadline = time.monotonic() + 5
        while pending and time.monotonic() < deadline:
            _, ready, _ = select.select([], list(pending), [], 0.2)
            pending.difference_update(ready)
        connected = [c for c in clients if c not in pending]
        assert len(connected) == burst, f"{len(connected)} of {burst} connected"

        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        request = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        for client in connected:
            client.setblocking(True)
            client.settimeout(60)
            client.sendall((request + "Connection: close\r\n\r\n").encode())
        answered = sum(read_all(client).startswith(b"HTTP/1.0 200") for client in connected)
        assert answered == burst
    finally:
        for client in clients:
            client.close()
        if thread is not None:
            server.shutdown()
        server.server_close()


def read_all(client: socket.socket) -> bytes:
    data = b""
    while chunk := client.recv(65536):
        data += chunk
    return data


@pytest.mark.parametrize("digits", [4301, 5000])
def test_a_content_length_of_thousands_of_digits_is_refused_as_too_large(digits, closing):
    app, _ = counting_app()
    closing.append(app)
    with running(app) as base:
        port = int(base.rsplit(":", 1)[1])
        head = (
            f"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Origin: http://127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {'9' * digits}\r\n\r\n"
        )
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(head.encode())
            answer = read_all(conn)
        status_line, _, rest = answer.partition(b"\r\n")
        assert status_line.split()[1] == b"413", answer[:200]
        assert b"too large" in rest
        assert call(base, "GET", "/api/options")[0] == 200  # and it goes on serving
