"""Play in the browser: ``python play.py --web`` serves a page on which a person plays any game
against a model with the mouse, and sees what the model thought drawn on the board.

This module is ``play.py --web``: the options checked, the model found, the server started and
the page's address printed and opened. The rest is one module each: ``web_server``
(``WebServer``: the HTTP server and its endpoints), ``web_request`` (a request's body and query,
read within limits), ``web_app`` (``WebApp``: the sessions, the games offered, a new game's
settings), ``web_session`` (``PlaySession``: one tab's games), ``web_json`` (what the page is
sent), ``web_networks`` (the models, loaded once and shared), ``web_searches`` (the worker
threads, and how a search nobody awaits stops), ``web_origin`` (the names served, the page's
own origin) and ``web_errors`` (``RequestError``: how requests are refused). Each browser tab
has its own ``PlaySession``; the model's searches run on a few worker threads shared by every
session, so requests are answered while it thinks.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import threading
import webbrowser

from ..games import view_for
from ..games.base import GameError
from ..training.run_errors import CheckpointError
from .defaults import DEFAULT_GAME, DEFAULT_HOST, DEFAULT_PORT
from .models import default_model, how_to_train
from .options import parse_game
from .web_app import MAX_SIMULATIONS, MIN_SIMULATIONS, WebApp
from .web_errors import one_line
from .web_origin import is_loopback
from .web_server import WebServer


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
