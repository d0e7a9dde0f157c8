"""``python play.py --web`` in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by Selenium, no browser download) plays a whole game of each of the
four games by clicking on the board, asks for a hint and sees its overlay, takes a move back
with undo, and saves a screenshot of each finished game in the test's temporary folder.

The models are real and small: the shipped Connect Four, Gomoku 6x6 and tic-tac-toe models,
and tiny untrained networks for Dots and Boxes 2x2 and for Gomoku 15x15 (laid out as the shipped
one, which ``--game gomoku`` finds), all searching a few simulations a move.
The tests skip, saying why, only where Chromium or its driver is not installed; ``.ci/run``
installs them.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from shipped_helpers import ship_tiny_model
from web_helpers import running

from alphazero.play.web_app import WebApp

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1100,800",
)
SIMULATIONS = 8
"""A few simulations a move: the games are over in seconds."""
TITLES = {
    "connect4": "Connect Four",
    "gomoku6": "Gomoku 6x6, 4 in a row",
    "tictactoe": "Tic-tac-toe",
    "dots_and_boxes:rows=2,cols=2": "Dots and Boxes, 2x2 boxes",
}
RESULTS = ("You win! Well played.", "The model wins.", "Draw.")


@pytest.fixture(scope="module")
def browser(tmp_path_factory) -> Iterator[Any]:
    """Headless Chromium, a fresh profile, driven through Debian's chromedriver."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not Path(path).is_file():
            pytest.skip(
                f"{path} is missing: the browser tests need Debian's {package} "
                f"(apt-get install chromium chromium-driver; .ci/run installs them)"
            )
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium is missing: pip install -e '.[test]'"
    )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="chromium-", dir=tmp_path_factory.getbasetemp())
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """The app on 127.0.0.1 with Dots and Boxes 2x2 (a tiny untrained model) as ``--game``;
    the page offers the shipped models of the other games besides."""
    import keras

    from alphazero.config import NetworkConfig
    from alphazero.games import make
    from alphazero.network.model import build_network

    game = make("dots_and_boxes", rows=2, cols=2)
    # Seeded: an untrained network's prior decides how many edges 60 simulations reach, and
    # a test below needs more than the page paints whole (HEAT_ALL in app.js).
    keras.utils.set_random_seed(0)
    network = build_network(
        game.plane_shape, game.num_actions, NetworkConfig(filters=8, blocks=1, value_hidden=8)
    )
    model = tmp_path_factory.mktemp("boxes") / "tiny.keras"
    network.save(model)
    app = WebApp("dots_and_boxes:rows=2,cols=2", model, SIMULATIONS, seed=0)
    with running(app) as base:
        yield base


class Page:
    """The page in the browser, read and clicked as a person would."""

    def __init__(self, driver: Any, url: str) -> None:
        from selenium.webdriver.common.by import By

        self.driver = driver
        self.url = url
        self.by = By

    def open(self) -> None:
        """The page in a fresh tab state: a new session."""
        self.driver.get(self.url)
        self.driver.execute_script("sessionStorage.clear()")
        self.driver.get(self.url)
        # Settled, not merely drawn: the session's first game loads its model, and a later
        # wait for "a newer version" must not mistake that loading's end for its own answer.
        self.wait(lambda: self.board("version") is not None and self.settled(), "the first game")

    def find(self, css: str) -> Any:
        return self.driver.find_element(self.by.CSS_SELECTOR, css)

    def all(self, css: str) -> list[Any]:
        return self.driver.find_elements(self.by.CSS_SELECTOR, css)

    def mode(self) -> str:
        return self.find("body").get_attribute("data-state")

    def board(self, name: str) -> str:
        return self.find("#board").get_attribute(f"data-{name}")

    def text(self, css: str) -> str:
        return self.find(css).text

    def wait(self, condition: Callable[[], Any], what: str, seconds: float = 90) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(
            lambda _: condition(), message=f"waited for: {what}"
        )

    def idle(self) -> bool:
        """No click of ours still waits for its answer (the page disables its controls)."""
        return self.find("body").get_attribute("data-request") == "idle"

    def settled(self) -> bool:
        return self.mode() in ("your-turn", "over") and self.idle()

    def new_game(self, spec: str, first: str, simulations: int = SIMULATIONS) -> None:
        from selenium.webdriver.support.ui import Select

        version = int(self.board("version"))
        Select(self.find("#game")).select_by_value(spec)
        Select(self.find("#first")).select_by_value(first)
        sims = self.find("#sims")
        sims.clear()
        sims.send_keys(str(simulations))
        self.find("#new").click()
        self.wait(
            lambda: int(self.board("version")) > version and self.settled(),
            f"a new game of {spec}",
        )

    def click_move(self, rng: random.Random) -> None:
        """Click a legal move and wait for the model's reply (or the end)."""
        ply = int(self.board("ply"))
        moves = self.all("#board .move.legal")
        assert moves, "no legal move to click"
        rng.choice(moves).click()
        self.wait(lambda: int(self.board("ply")) > ply and self.settled(), "the model's reply")

    def heat(self) -> list[Any]:
        return self.all("#board .heat")


@pytest.mark.parametrize(
    ("spec", "first"),
    [
        ("connect4", "human"),
        ("gomoku6", "human"),
        ("tictactoe", "ai"),
        ("dots_and_boxes:rows=2,cols=2", "human"),
    ],
)
def test_a_whole_game_by_clicking_with_a_hint_and_undo(browser, server, tmp_path, spec, first):
    page = Page(browser, server)
    page.open()
    page.new_game(spec, first)
    assert page.text("#title") == TITLES[spec]
    assert page.board("ply") == ("1" if first == "ai" else "0")

    # A hint: the visit shares on the board, the outlook bar and the search value.
    page.find("#hint").click()
    page.wait(
        lambda: page.mode() == "your-turn" and page.text("#thinking-title").startswith("Hint: "),
        "the hint",
    )
    shares = [float(h.get_attribute("data-share")) for h in page.heat()]
    assert 0.99 < sum(shares) <= 1.0001 and all(0 < s <= 1 for s in shares)
    assert "you win" in page.text("#wdl-legend") and "search value" in page.text("#value")

    # A move, the model's reply with its thinking drawn, then undo: the board as it was.
    rng = random.Random(spec)
    before = page.board("key")
    page.click_move(rng)
    assert page.board("key") != before
    if page.mode() == "your-turn":
        assert page.heat() and page.text("#thinking-title").startswith("The model played ")
        assert page.all("#board .last")
    page.find("#undo").click()
    page.wait(lambda: page.board("key") == before and page.settled(), "the undo")
    assert not page.all("#board .heat") or page.text("#thinking-title").startswith("Hint")

    while page.mode() != "over":
        page.click_move(rng)
    status = page.text("#status")
    assert status.startswith(RESULTS), status
    if spec.startswith("dots"):
        assert len(page.all("#board .box")) == 4 and "boxes: Red" in status
    elif not status.startswith("Draw"):
        assert page.all("#board .win-line") and len(page.all("#board .win")) >= 3
    assert page.all("#board .last")
    assert len(page.all("#moves li")) == int(page.board("ply"))
    browser.save_screenshot(str(tmp_path / f"{spec.split(':')[0]}.png"))
    problems = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not problems, problems


def test_a_late_answer_to_a_click_does_not_undo_what_the_page_already_shows(browser, server):
    # The model moves first, so the long poll draws its reply (your turn) while the answer to
    # "new game" (the model thinking) is held back: drawn late, it would leave the page
    # "thinking" with the controls off until the poll's next change.
    page = Page(browser, server)
    page.open()
    browser.execute_script(
        """
        const plain = window.fetch;
        window.fetch = async (path, init) => {
          const answer = await plain(path, init);
          if (init && init.method === "POST") await new Promise((r) => setTimeout(r, 1500));
          return answer;
        };
        """
    )
    version = int(page.board("version"))
    page.new_game("tictactoe", "ai")
    assert int(page.board("version")) > version and page.board("ply") == "1"
    assert page.mode() == "your-turn" and page.idle()
    assert not page.find("#hint").get_attribute("disabled")


def hue(rgb: str) -> float | None:
    """The hue in degrees of a computed CSS colour ``rgb(r, g, b)``; None for a grey."""
    import colorsys

    r, g, b = (int(v) / 255 for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    h, _, s = colorsys.rgb_to_hls(r, g, b)
    return None if s < 0.15 or max(r, g, b) - min(r, g, b) < 0.1 else h * 360


def test_the_thinking_is_painted_in_a_colour_no_player_has(browser, server):
    # An orange heat lay between Connect Four's red and yellow discs: a 7% cell read as a
    # pale red disc. In every game its hue is far from both players'.
    page = Page(browser, server)
    page.open()
    for spec in ("connect4", "tictactoe", "dots_and_boxes:rows=2,cols=2"):
        page.new_game(spec, "ai")
        style = "getComputedStyle(document.body).getPropertyValue"
        players = [browser.execute_script(f"return {style}('--{p}')") for p in ("p1", "p2")]
        heat = page.find("#board .heat .heat-cell, #board .heat .heat-edge")
        paint = heat.value_of_css_property("fill" if heat.tag_name != "line" else "stroke")
        paint_hue = hue(paint)
        assert paint_hue is not None
        for player in players:
            probe = browser.execute_script(
                "const e = document.createElement('i'); e.style.color = arguments[0];"
                "document.body.append(e); const c = getComputedStyle(e).color; e.remove();"
                "return c;",
                player.strip(),
            )
            player_hue = hue(probe)
            if player_hue is not None:
                apart = abs(paint_hue - player_hue) % 360
                assert min(apart, 360 - apart) >= 60, (spec, paint, probe)


def test_a_board_of_many_moves_paints_only_the_leading_ones(browser, server):
    # Dots and Boxes 2x2 with an untrained model: 60 simulations spread over its 12 edges,
    # which the page painted all alike. Now: the leading moves, each a fifth of the top
    # share or more, at most 6, and the move played.
    page = Page(browser, server)
    page.open()
    page.new_game("dots_and_boxes:rows=2,cols=2", "ai", simulations=60)
    heat = page.heat()
    shares = sorted((float(h.get_attribute("data-share")) for h in heat), reverse=True)
    listed = len(page.all("#top-moves li"))
    assert browser.execute_script("return current.thought.moves.length") > 9  # HEAT_ALL
    assert listed == 5 and 1 <= len(heat) <= 7, shares
    assert all(share >= shares[0] / 5 for share in shares[:6]), shares


def test_the_page_prints_values_that_round_to_zero_as_plus_zero(browser, server):
    page = Page(browser, server)
    page.open()
    shown = browser.execute_script("return [-0.004, -0.0, 0.004, -0.31, 1].map(signed)")
    assert shown == ["+0.00", "+0.00", "+0.00", "\u22120.31", "+1.00"]


def test_the_share_of_a_stone_just_played_sits_on_a_badge_clear_of_its_rim(browser, server):
    page = Page(browser, server)
    page.open()
    page.new_game("gomoku6", "ai")
    badge = page.find("#board .heat-badge")
    text = badge.find_element(page.by.CSS_SELECTOR, "text")
    back = badge.find_element(page.by.CSS_SELECTOR, "rect")
    inside = browser.execute_script(
        "const t = arguments[0].getBBox(), r = arguments[1].getBBox();"
        "return t.x >= r.x && t.y >= r.y && t.x + t.width <= r.x + r.width"
        " && t.y + t.height <= r.y + r.height;",
        text,
        back,
    )
    assert inside and text.text.endswith("%")
    assert back.value_of_css_property("fill") == "rgb(255, 255, 255)"  # opaque, over the rim


def test_gomoku_15x15_plays_the_shipped_model_and_draws_its_leading_moves(
    browser, tmp_path, monkeypatch
):
    # --game gomoku: the full board, five in a row, and the model shipped for it (here a tiny
    # untrained one), its search spread over 225 points of which only the leading few are
    # painted, each with its share, and the share of the stone it played on a badge.
    from alphazero.games import make

    ship_tiny_model(tmp_path, "gomoku_15x15", make("gomoku"))
    monkeypatch.chdir(tmp_path)
    with running(WebApp("gomoku", None, 60, seed=0)) as base:
        page = Page(browser, base)
        page.open()
        assert page.text("#title") == "Gomoku 15x15, 5 in a row"
        assert page.find("#game option:checked").text == "Gomoku 15x15, 5 in a row"
        assert page.text("#model").startswith("model: checkpoints/pretrained/gomoku_15x15,")
        assert len(page.all("#board .move.legal")) == 225

        page.find('#board .move[data-action="112"]').click()  # h8, the centre
        page.wait(lambda: page.board("ply") == "2" and page.settled(), "the model's reply")
        assert page.text("#thinking-title").startswith("The model played ")
        heat = page.heat()
        searched = browser.execute_script("return current.thought.moves.length")
        assert 1 <= len(heat) <= 7 < searched, (len(heat), searched)
        assert all(h.find_element(page.by.CSS_SELECTOR, ".heat-cell") for h in heat)
        assert len(page.all("#board .chosen")) == 1 and len(page.all("#top-moves li")) == 5
        badge = page.find("#board .heat-badge")
        assert badge.text.endswith("%")
        stones = [page.all(f"#board .stone.{p}:not(.ghost)") for p in ("p1", "p2")]
        assert [len(played) for played in stones] == [1, 1]

        page.find("#hint").click()
        page.wait(lambda: page.text("#thinking-title").startswith("Hint: "), "the hint")
        shares = [float(h.get_attribute("data-share")) for h in page.heat()]
        assert 1 <= len(shares) <= 7 and all(0 < share <= 1 for share in shares)
        browser.save_screenshot(str(tmp_path / "gomoku15.png"))
    problems = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not problems, problems
