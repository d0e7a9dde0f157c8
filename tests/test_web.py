"""``python play.py --web`` at the HTTP level: the session API played through (moves, the
model's replies, hints, undo, Dots and Boxes' extra turns), every kind of bad request answered
with a 4xx JSON error while the server keeps serving, the page answered while a search runs,
sessions kept apart with their models loaded once, the static page, and the command line.

The server runs in the test process on 127.0.0.1 (a free port) with stand-in networks, so no
test here waits for TensorFlow; ``test_web_browser.py`` plays real models in Chromium.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
from shipped_helpers import ship_tiny_model
from web_helpers import FakeNetwork, call, running

from alphazero.evaluation.model_search import PlaySearch
from alphazero.games import make, view_for
from alphazero.play import web
from alphazero.play.cli import main
from alphazero.play.web import host_warning, page_url
from alphazero.play.web_app import WebApp
from alphazero.play.web_networks import Networks
from alphazero.play.web_request import MAX_BODY
from alphazero.play.web_server import STATIC_FILES

PLAY = Path(__file__).resolve().parents[1] / "play.py"


def make_app(
    game: str = "tictactoe",
    gate: threading.Event | None = None,
    model: Path | None = Path("stand-in.keras"),
    **options: Any,
) -> tuple[WebApp, list[tuple[str, str]]]:
    """An app whose models are stand-ins (``model`` None: the one ``play.py`` finds, standed
    in for); the list records every model it loads."""
    loads: list[tuple[str, str]] = []

    def loader(path: Path, start: Any) -> FakeNetwork:
        loads.append((str(path), start.name))
        return FakeNetwork(start, gate)

    app = WebApp(game, model, 8, seed=0, networks=Networks(loader), **options)
    return app, loads


def settle(base: str, state: dict[str, Any]) -> dict[str, Any]:
    """The session's state once the model is done (loading, its moves, a hint)."""
    deadline = time.monotonic() + 60
    while state["busy"] is not None:
        assert time.monotonic() < deadline, state
        path = f"/api/sessions/{state['session']}?since={state['version']}"
        status, state = call(base, "GET", path)
        assert status == 200, state
    return state


def post(base: str, state: dict[str, Any], action: str, body: Any = None) -> tuple[int, Any]:
    return call(base, "POST", f"/api/sessions/{state['session']}/{action}", body or {})


def raw_request(port: int, data: bytes) -> tuple[int, dict[str, Any]]:
    """Send bytes as they are; the status and the JSON body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(data)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


# ---------------------------------------------------------------------------- playing
def test_a_whole_game_over_http_with_the_models_thinking_a_hint_and_undo():
    app, _ = make_app("tictactoe")
    with running(app) as base:
        status, state = call(base, "POST", "/api/sessions", {"first": "human", "sims": 8})
        assert status == 201 and state["human"] == 1 and state["busy"] in ("loading", None)
        state = settle(base, state)
        start = state["position"]["key"]

        status, state = post(base, state, "move", {"move": "b2", "ply": 0})
        assert status == 200 and state["busy"] == "thinking"
        assert state["moves"] == [{"player": 1, "action": 4, "move": "b2", "again": False}]
        state = settle(base, state)
        assert state["ply"] == 2 and state["position"]["player"] == 1
        thought = state["thought"]
        assert (thought["kind"], thought["ply"], thought["player"]) == ("model", 1, -1)
        assert thought["chosen"] == state["moves"][1]["action"] == state["position"]["last_move"]
        assert sum(m["visits"] for m in thought["moves"]) == thought["simulations"] <= 8
        assert sum(m["share"] for m in thought["moves"]) == pytest.approx(1)
        assert thought["wdl"] == pytest.approx([0.3, 0.4, 0.3])

        status, state = post(base, state, "hint")
        assert status == 200 and state["busy"] == "hint"
        state = settle(base, state)
        hint = state["hint"]
        assert (hint["kind"], hint["ply"], hint["player"]) == ("hint", 2, 1)
        assert hint["chosen"] in state["position"]["legal"] and state["ply"] == 2

        status, state = post(base, state, "undo")
        assert status == 200 and state["ply"] == 0 and state["position"]["key"] == start
        assert state["thought"] is None and state["hint"] is None and not state["can_undo"]

        while state["position"]["score"] is None:
            body = {"action": state["position"]["legal"][0], "ply": state["ply"]}
            status, state = post(base, state, "move", body)
            assert status == 200, state
            state = settle(base, state)
    final = make("tictactoe").from_moves([m["action"] for m in state["moves"]])
    assert final.score == state["position"]["score"] and state["busy"] is None
    assert len(state["position"]["winning_line"]) == (3 if final.score else 0)


def test_dots_and_boxes_says_who_moves_again_and_which_boxes_the_last_turn_took():
    app, _ = make_app("dots_and_boxes:rows=2,cols=2")
    with running(app) as base:
        status, state = call(base, "POST", "/api/sessions", {"first": "ai"})
        assert status == 201 and state["human"] == -1
        state = settle(base, state)
        seen_again = 0
        while state["position"]["score"] is None:
            body = {"action": state["position"]["legal"][-1], "ply": state["ply"]}
            status, state = post(base, state, "move", body)
            assert status == 200, state
            state = settle(base, state)
            # Replayed here, every move's "again" and the last turn's boxes agree.
            position = make("dots_and_boxes", rows=2, cols=2)
            positions = [position]
            for move in state["moves"]:
                assert move["player"] == position.player
                after = position.sim_move(move["action"])
                assert move["again"] == (after.score is None and after.player == position.player)
                seen_again += move["again"]
                position = after
                positions.append(position)
            turn = len(state["last_turn"])
            assert state["last_turn"] == [m["action"] for m in state["moves"][-turn:]]
            before = positions[-turn - 1].state
            rows, cols = ((before == 0) & (position.state != 0)).nonzero()
            taken = [[int(r), int(c)] for r, c in zip(rows, cols, strict=True) if r % 2 and c % 2]
            assert state["completed"] == taken
            assert state["position"]["boxes"] == list(position.boxes)
    assert seen_again > 0  # every box but the last completed keeps the turn


def test_each_tab_has_its_own_session_and_a_model_loads_once_for_all():
    app, loads = make_app("tictactoe")
    with running(app) as base:
        _, first = call(base, "POST", "/api/sessions", {})
        _, second = call(base, "POST", "/api/sessions", {})
        assert first["session"] != second["session"]
        first, second = settle(base, first), settle(base, second)
        _, first = post(base, first, "move", {"move": "a1"})
        first = settle(base, first)
        _, second = call(base, "GET", f"/api/sessions/{second['session']}")
        assert first["ply"] == 2 and second["ply"] == 0
        assert loads == [("stand-in.keras", "tictactoe")]

        _, second = post(base, second, "new", {"game": "connect4", "first": "ai", "sims": 5})
        second = settle(base, second)
        assert second["spec"] == "connect4" and second["ply"] == 1 and second["sims"] == 5
        assert second["model"].endswith(str(Path("pretrained", "connect4")))
        _, again = call(base, "POST", "/api/sessions", {"game": "c4", "first": "ai"})
        assert settle(base, again)["spec"] == "connect4"  # as the page lists it
        assert [name for _, name in loads] == ["tictactoe", "connect4"]  # shared, not reloaded


def test_the_page_is_answered_while_the_model_thinks():
    gate = threading.Event()
    app, _ = make_app("connect4", gate)
    with running(app) as base:
        status, state = call(base, "POST", "/api/sessions", {"first": "ai"})
        assert status == 201 and state["busy"] in ("loading", "thinking")
        sid = state["session"]
        try:
            # The search waits on the gate; everything else is answered meanwhile.
            status, now = call(base, "GET", f"/api/sessions/{sid}")
            assert status == 200 and now["busy"] in ("loading", "thinking") and now["ply"] == 0
            for action, body in (("move", {"action": 3}), ("hint", {}), ("undo", {})):
                status, error = post(base, state, action, body)
                assert status == 409 and re.search("thinking|loading|busy", error["error"])
            status, options = call(base, "GET", "/api/options")
            assert status == 200 and options["games"][0]["spec"] == "connect4"
            status, other = call(base, "POST", "/api/sessions", {"first": "human"})
            assert status == 201 and other["ply"] == 0
        finally:
            gate.set()
        state = settle(base, state)
        assert state["ply"] == 1 and state["thought"]["kind"] == "model"


def test_the_options_offer_the_command_lines_game_first_then_every_shipped_model():
    app, _ = make_app("dots_and_boxes:rows=2,cols=2", first="random", show_thinking=False)
    options = app.options()
    specs = [game["spec"] for game in options["games"]]
    assert specs[0] == "dots_and_boxes:rows=2,cols=2"
    assert {"connect4", "tictactoe", "gomoku6", "boxes"} <= set(specs)
    assert all(game["model"] for game in options["games"])
    assert options["defaults"] == {
        "game": "dots_and_boxes:rows=2,cols=2",
        "first": "random",
        "sims": 8,
        "show_thinking": False,
    }
    assert {app.create({}).human for _ in range(20)} == {1, -1}  # random: either side


@pytest.fixture(scope="module")
def gomoku15_project(tmp_path_factory) -> Path:
    """A folder laid out as a project that ships a tiny untrained Gomoku 15x15 model."""
    root = tmp_path_factory.mktemp("project")
    ship_tiny_model(root, "gomoku_15x15", make("gomoku"))
    return root


def test_gomoku_is_offered_on_the_15x15_board_with_its_shipped_model(gomoku15_project, monkeypatch):
    monkeypatch.chdir(gomoku15_project)
    shipped = {
        "spec": "gomoku",
        "title": "Gomoku 15x15, 5 in a row",
        "model": "checkpoints/pretrained/gomoku_15x15",
    }
    app, loads = make_app("gomoku", model=None)
    assert app.options()["games"][0] == shipped
    # Another game first: the page's game picker offers it too.
    other, _ = make_app("tictactoe")
    assert shipped in other.options()["games"]
    assert {"gomoku6", "gomoku8"} <= {game["spec"] for game in other.options()["games"]}
    with running(app) as base:
        status, state = call(base, "POST", "/api/sessions", {"first": "ai"})
        assert status == 201 and state["model"] == shipped["model"]
        state = settle(base, state)
    assert state["title"] == shipped["title"] and len(state["position"]["legal"]) == 224
    assert state["thought"]["kind"] == "model" and 1 <= len(state["thought"]["moves"]) <= 8
    assert loads == [("checkpoints/pretrained/gomoku_15x15", "gomoku")]


# ----------------------------------------------------------------------- bad requests
def test_bad_requests_get_a_4xx_json_error_and_the_server_keeps_serving(capsys):
    app, _ = make_app("tictactoe")
    with running(app) as base:
        port = int(base.rsplit(":", 1)[1])
        _, state = call(base, "POST", "/api/sessions", {})
        state = settle(base, state)
        sid = state["session"]
        moves = f"/api/sessions/{sid}/move"
        _, state = call(base, "POST", moves, {"move": "b2"})
        state = settle(base, state)
        taken = state["moves"][1]["move"]
        cases: list[tuple[str, str, Any, dict[str, str] | None, int, str]] = [
            ("POST", moves, b"{not json", None, 400, "not JSON"),
            ("POST", moves, b"\xff\xfe", None, 400, "not JSON"),
            ("POST", moves, [1, 2], None, 400, "JSON object"),
            ("POST", moves, b"[" * 5000 + b"]" * 5000, None, 400, "not JSON"),  # too deep
            ("POST", moves, {}, None, 400, "name the move"),
            ("POST", moves, {"action": 1, "move": "a1"}, None, 400, "one of them"),
            ("POST", moves, {"action": "3"}, None, 400, "whole number"),
            ("POST", moves, {"action": True}, None, 400, "whole number"),
            ("POST", moves, {"action": 1.5}, None, 400, "whole number"),
            ("POST", moves, {"action": 9}, None, 422, "there is no move 9"),
            ("POST", moves, {"action": -1}, None, 422, "there is no move -1"),
            ("POST", moves, {"move": "hello"}, None, 422, "'hello' is not a point"),
            ("POST", moves, {"move": "d4"}, None, 422, "off the board"),
            ("POST", moves, {"move": "x" * 1000}, None, 400, "move's name"),
            ("POST", moves, {"move": "b2"}, None, 422, "b2 is already taken"),
            ("POST", moves, {"move": taken}, None, 422, f"{taken} is already taken"),
            ("POST", moves, {"action": 0, "ply": 0}, None, 409, "the board has changed"),
            ("POST", moves, {"action": 0, "ply": "2"}, None, 400, "ply"),
            ("POST", moves, {"action": 0, "colour": "red"}, None, 400, "unknown field 'colour'"),
            ("POST", moves, b"x" * (MAX_BODY + 1), None, 413, "too large"),
            ("POST", moves, b"x" * 100_000, None, 413, "too large"),
            ("POST", "/api/sessions/nope/move", {"action": 0}, None, 404, "no such session"),
            ("GET", "/api/sessions/nope", None, None, 404, "no such session"),
            ("POST", f"/api/sessions/{sid}/resign", {}, None, 404, "no such action"),
            ("GET", f"/api/sessions/{sid}?since=soon", None, None, 400, "since"),
            ("GET", f"/api/sessions/{sid}?since=%C2%B2", None, None, 400, "since"),  # "²"
            ("GET", moves, None, None, 405, "use POST"),
            ("DELETE", f"/api/sessions/{sid}", None, None, 405, "use GET"),
            ("PUT", "/api/options", {}, None, 405, "use GET"),
            ("GET", "/api/nothing", None, None, 404, "no such page"),
            ("GET", "/static/web.py", None, None, 404, "no such file"),
            ("GET", "/static/..%2fweb.py", None, None, 404, "no such file"),
            ("POST", "/api/sessions", {"game": "chess"}, None, 400, "unknown game 'chess'"),
            ("POST", "/api/sessions", {"game": 7}, None, 400, "game must be"),
            ("POST", "/api/sessions", {"game": "gomoku12"}, None, 422, "no model yet for Gomoku"),
            ("POST", "/api/sessions", {"sims": 1}, None, 400, "sims must be"),
            ("POST", "/api/sessions", {"sims": 10**9}, None, 400, "sims must be"),
            ("POST", "/api/sessions", {"first": "me"}, None, 400, "first must be"),
            ("POST", f"/api/sessions/{sid}/hint", {"now": 1}, None, 400, "unknown field"),
            ("GET", "/api/options", None, {"Host": "attacker.example"}, 403, "localhost"),
            ("GET", "/api/options", None, {"Host": "[::1"}, 400, "Host header"),
        ]
        for method, path, body, headers, expected, words in cases:
            if isinstance(body, bytes):
                status, answer = call(base, method, path, raw=body, headers=headers)
            else:
                status, answer = call(base, method, path, body, headers=headers)
            assert (status, set(answer)) == (expected, {"error"}), (method, path, body, answer)
            assert words in answer["error"], (words, answer)

        # Requests http.server itself refuses, and bodies that are not what they claim.
        post_head = (
            b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nSec-Fetch-Site: same-origin\r\n"
        )
        for data, expected, words in (
            (b"GARBAGE\r\n\r\n", 400, "Bad request syntax"),
            (b"BREW /pot HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501, "Unsupported method"),
            (post_head + b"Content-Length: 999999999\r\n\r\n", 413, "too large"),
            (post_head + b"Content-Length: -5\r\n\r\n", 400, "Content-Length"),
            (post_head + b"Content-Length: \xb2\r\n\r\n", 400, "Content-Length"),  # "²"
            (post_head + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411, "Content-Length"),
        ):
            status, answer = raw_request(port, data)
            assert status == expected and words in answer["error"], (data, answer)
        with socket.create_connection(("127.0.0.1", port)) as conn:  # half a body, then gone
            conn.sendall(post_head + b"Content-Length: 50\r\n\r\n{")

        # Game over: no move, no hint; the session and the server go on.
        while state["position"]["score"] is None:
            _, state = call(base, "POST", moves, {"action": state["position"]["legal"][0]})
            state = settle(base, state)
        for action in ("move", "hint"):
            status, answer = post(base, state, action, {"action": 0} if action == "move" else {})
            assert status == 409 and "the game is over" in answer["error"]
        status, state = post(base, state, "undo")
        assert status == 200 and state["position"]["score"] is None
        status, again = call(base, "POST", "/api/sessions", {"first": "ai"})
        assert status == 201
        status, answer = post(base, settle(base, again), "undo")
        assert status == 409 and "nothing to undo" in answer["error"]
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert captured.err == ""  # refusals are the client's business, not the console's


def test_a_connection_carries_one_request_and_is_closed_after_its_answer():
    """HTTP/1.0, as http.server answers by default: a client asking for keep-alive, or sending
    a second request behind the first, gets one answer saying ``Connection: close`` and then
    the end of the connection, after a good request as after a refused body."""
    app, _ = make_app()
    with running(app) as base:
        port = int(base.rsplit(":", 1)[1])
        options = b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"
        oversize = (
            b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n"
            b"Content-Type: application/json\r\nSec-Fetch-Site: same-origin\r\n"
            + f"Content-Length: {MAX_BODY + 1}\r\n\r\n".encode()
            + b"x" * (MAX_BODY + 1)
        )
        for first, status in ((options, b"200"), (oversize, b"413")):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
                conn.sendall(first + options)
                answer = b""
                while chunk := conn.recv(65536):  # kept open, this would time out
                    answer += chunk
            head = answer.partition(b"\r\n\r\n")[0].split(b"\r\n")
            assert head[0] == b"HTTP/1.0 " + status + b" " + HTTPStatus(int(status)).phrase.encode()
            assert b"Connection: close" in head and answer.count(b"HTTP/1.") == 1, answer[:300]


# ---------------------------------------------------------------------------- the page
def test_the_page_is_served_from_the_package_and_fetches_nothing_from_elsewhere():
    app, _ = make_app()
    with running(app) as base:
        for path, name in (("/", "index.html"), *((f"/static/{n}", n) for n in STATIC_FILES)):
            with urllib.request.urlopen(base + path, timeout=30) as response:
                text = response.read().decode()
                assert response.headers["Content-Type"] == STATIC_FILES[name]
                assert "default-src 'self'" in response.headers["Content-Security-Policy"]
            # The only absolute URL is SVG's namespace name, which nothing fetches.
            urls = set(re.findall(r"https?://[^\s\"'`)]+", text))
            assert urls <= {"http://www.w3.org/2000/svg"}, (name, urls)
    html = (Path(web.__file__).parent / "static" / "index.html").read_text()
    assert all(f"/static/{name}" in html for name in ("app.js", "style.css"))


# ------------------------------------------------------------------------------ units
def test_dots_and_boxes_edges_sit_where_the_game_draws_them():
    for rows, cols in ((1, 1), (2, 3), (3, 3)):
        start = make("dots_and_boxes", rows=rows, cols=cols)
        cells = view_for(start).board_view(start)["edges"]
        assert len(cells) == start.num_actions
        for action, cell in enumerate(cells):
            drawn = start.sim_move(action).state
            assert drawn[cell] == 1 and drawn.sum() == 1


def test_only_a_loopback_host_goes_without_a_warning():
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert host_warning(host) is None
    for host in ("0.0.0.0", "192.168.1.20", "::", "example.org"):
        warning = host_warning(host)
        assert warning and "not a loopback address" in warning and host in warning
    assert page_url("0.0.0.0", 8765) == "http://127.0.0.1:8765/"
    assert page_url("::1", 80) == "http://[::1]:80/"


def test_no_browser_is_tried_without_a_display_and_a_failed_one_is_said(monkeypatch, capsys):
    monkeypatch.setattr(web.sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)

    def refuse(url: str) -> bool:
        raise AssertionError("a text browser would take over the terminal")

    monkeypatch.setattr(web.webbrowser, "open", refuse)
    assert web.open_browser("http://127.0.0.1:1/") is None
    assert "open http://127.0.0.1:1/ in a browser" in capsys.readouterr().out

    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(web.webbrowser, "open", lambda url: False)
    thread = web.open_browser("http://127.0.0.1:1/")
    assert thread is not None
    thread.join(10)
    assert (
        "no browser could be opened: open http://127.0.0.1:1/ yourself" in capsys.readouterr().out
    )


# ----------------------------------------------------------------------- command line
def serve_play_py(args: list[str], cwd: Path) -> tuple[subprocess.Popen, str, list[str]]:
    """``play.py --web --port 0 ARGS`` started in ``cwd`` with no display: the process, the
    address it printed, and the lines it printed up to that one."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")
    }
    process = subprocess.Popen(
        [sys.executable, str(PLAY), "--web", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
        # A Ctrl-C as a terminal gives it: an ignored SIGINT is inherited, and in the full
        # suite something before this test leaves it ignored (to be found).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    seen = []
    url = ""
    deadline = time.monotonic() + 90
    while not url and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        if m := re.search(r"in the browser: (http://127\.0\.0\.1:[0-9]+/)", line):
            url = m.group(1)
    return process, url, seen


def test_play_py_web_prints_the_address_serves_the_page_and_stops_on_ctrl_c(tmp_path):
    process, url, seen = serve_play_py(["--game", "ttt", "--sims", "4"], tmp_path)
    try:
        assert process.stdout is not None
        assert url, seen
        assert seen[0].startswith("loading the model ") and "pretrained" in seen[0]
        assert process.stdout.readline().strip() == f"open {url} in a browser"  # no display
        with urllib.request.urlopen(url, timeout=30) as response:
            assert b"<title>AlphaZero: play</title>" in response.read()
        status, state = call(url.rstrip("/"), "POST", "/api/sessions", {"first": "ai"})
        assert status == 201 and state["title"] == "Tic-tac-toe" and state["sims"] == 4
        assert settle(url.rstrip("/"), state)["ply"] == 1
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out.strip().endswith("bye") and "Traceback" not in err and err == ""


def test_play_py_web_game_gomoku_serves_the_shipped_15x15_model(gomoku15_project):
    process, url, seen = serve_play_py(["--game", "gomoku", "--sims", "4"], gomoku15_project)
    try:
        assert url, seen
        assert seen == [
            "loading the model checkpoints/pretrained/gomoku_15x15 ...\n",
            f"Gomoku 15x15, 5 in a row in the browser: {url}  (Ctrl-C stops)\n",
        ]
        status, options = call(url.rstrip("/"), "GET", "/api/options")
        assert status == 200 and options["defaults"]["game"] == "gomoku"
        assert options["games"][0]["model"] == "checkpoints/pretrained/gomoku_15x15"
    finally:
        process.kill()
        process.communicate(timeout=60)


def test_web_options_that_cannot_be_served_are_one_line_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no run of train.py here to be found
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    taken = busy.getsockname()[1]
    try:
        for args, message in (
            (["--web", "--p2", "random"], "error: --p2 is for the terminal"),
            (["--web", "--games", "3"], "error: --games is for the terminal"),
            (["--port", "9000"], "error: --port goes with --web"),
            (["--no-browser"], "error: --no-browser goes with --web"),
            (["--web", "--port", "70000"], "error: --port must be 0-65535"),
            (["--web", "--sims", "1"], "error: --sims must be at least 2"),
            (["--web", "--clock", "cpu"], "error: --clock is for the terminal and matches"),
            (
                ["--web", "--move-time", "2", "--game-time", "60", "--clock", "wall"],
                "error: --move-time, --game-time and --clock are for the terminal and matches: "
                "the page searches --sims simulations",
            ),
            (["--web", "--sims", "50001"], "error: --sims must be 2-50000"),
            (["--web", "--game", "gomoku12"], "no model yet for Gomoku 12x12, 5 in a row"),
            (["--web", "--game", "ttt", "--port", str(taken)], f"port {taken} is in use"),
            (
                ["--web", "--game", "ttt", "--port", "0", "--model", "missing.keras"],
                "missing.keras: no such model file or run folder",
            ),
        ):
            assert main(args) == 2, args
            err = capsys.readouterr().err
            assert message in err and len(err.splitlines()) == 1, (args, err)
    finally:
        busy.close()


def searching_player(**options):
    """The model player of the first session a page made with ``options`` opens, once it has
    made the AI's first move."""
    app, _ = make_app("tictactoe", **options)
    with running(app) as base:
        status, state = call(base, "POST", "/api/sessions", {"first": "ai", "sims": 8})
        assert status == 201
        state = settle(base, state)
        assert state["ply"] == 1
    (session,) = app.sessions.values()
    assert session._player is not None
    return session._player[1]


def test_every_session_searches_with_the_leaves_given():
    assert searching_player(leaves=3).leaves == 3


def test_every_session_searches_with_the_algorithm_and_c_puct_given():
    player = searching_player(search="gumbel", c_puct=2.5)
    assert (player.search.algorithm, player.search.c_puct) == ("gumbel", 2.5)


def test_play_web_gives_the_page_its_search_and_c_puct(monkeypatch):
    made: list[WebApp] = []

    class Recorded(WebApp):
        def __init__(self, *args: Any, **options: Any) -> None:
            super().__init__(*args, **options)
            made.append(self)

    def busy(*_: Any) -> None:  # the page is never served: the app is what is asked
        raise OSError(errno.EADDRINUSE, "in use")

    monkeypatch.setattr(web, "WebApp", Recorded)
    monkeypatch.setattr(web, "WebServer", busy)
    options = ["--search", "gumbel", "--c-puct", "2.5", "--leaves", "2"]
    assert main(["--web", "--game", "ttt", "--port", "0", *options]) == 2
    (app,) = made
    assert app.play_search == PlaySearch("gumbel", 2.5, 2)


def test_the_served_model_runs_on_the_engine_given():
    model = Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained" / "tictactoe"
    app = WebApp("tictactoe", model, 8, engine="tensorflow")
    network = app.networks.get(model, make("tictactoe"))
    assert network._network.engine == "tensorflow"  # type: ignore[attr-defined]
