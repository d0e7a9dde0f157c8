"""The models shipped in ``checkpoints/pretrained/``: each is a complete, resumable run folder
that records its training cost, loads for its game, plays legal moves, and is the model
``play.py`` picks for that game."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from alphazero.evaluation.model_player import ModelPlayer
from alphazero.games import make, view_for
from alphazero.play import models
from alphazero.play.models import config_game, default_model
from alphazero.play.options import parse_game
from alphazero.training.checkpoints import RunDir
from alphazero.training.run_errors import CheckpointError

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p for p in (ROOT / "checkpoints" / "pretrained").iterdir() if p.is_dir())
IN_PROGRESS = sorted(p for p in (ROOT / "checkpoints" / "in_progress").glob("*") if p.is_dir())


def test_every_game_in_the_issue_has_a_shipped_folder():
    names = {p.name for p in SHIPPED}
    assert {"tictactoe", "connect4", "dots_and_boxes"} <= names


@pytest.mark.parametrize("folder", SHIPPED, ids=lambda p: p.name)
def test_shipped_run_is_complete_and_records_its_cost(folder):
    run = RunDir.open(folder)
    config = run.load_config()
    metadata = run.read_metadata()
    assert metadata["games"] > 0 and metadata["timings"]["cpu_seconds"] > 0
    assert metadata["game"] == {"name": config.game.name, "params": dict(config.game.params)}
    # Everything --resume needs is there; the replay buffer may have been left out, which
    # --resume --fresh-buffer is for (tested below).
    named = [metadata["model"], metadata["best"], *metadata["kept_models"]]
    named += [metadata["resume"]] if "resume" in metadata else []  # format 2: the resume point
    for name in named:
        assert (folder / name).is_file(), name


@pytest.mark.parametrize(
    "folder", SHIPPED + IN_PROGRESS, ids=lambda p: p.parent.name + "/" + p.name
)
def test_a_committed_run_loads_with_this_code_what_its_resume_needs(folder):
    """The checkpoint ``--resume`` reads: the resume point with its optimizer's state, for the
    run's game and network, and the replay buffer (or, for a folder kept without it, what
    ``--resume --fresh-buffer`` reads), with the run's config read strictly."""
    run = RunDir.open(folder)
    config = run.load_config()
    kept = (folder / run.read_metadata()["buffer"]).is_file()
    if not kept:
        with pytest.raises(CheckpointError, match="--fresh-buffer"):
            run.require_buffer()
    model, buffer, metadata = run.load(fresh_buffer=not kept)
    game = make(config.game.name, **config.game.params)
    assert int(model.optimizer.iterations.numpy()) == metadata["train_steps"] > 0
    assert buffer.plane_shape == game.plane_shape
    if kept:
        assert len(buffer) > 0 and buffer.total_added == metadata["positions"]


@pytest.mark.parametrize("folder", SHIPPED, ids=lambda p: p.name)
def test_shipped_model_plays_legal_moves_and_is_the_default(folder, monkeypatch):
    config = RunDir.open(folder).load_config()
    game = make(config.game.name, **config.game.params)
    player = ModelPlayer(folder, game, simulations=8)
    rng = np.random.default_rng(0)
    for _ in range(6):  # a few moves into the game, alternating model and random moves
        if game.score is not None:
            break
        move = player(game)
        assert move in game.available_moves
        game = game.sim_move(move)
        if game.score is None:
            game = game.sim_move(int(rng.choice(game.available_moves)))
    monkeypatch.chdir(ROOT)
    found = default_model(config.game.name, dict(config.game.params))
    assert found is not None and found.resolve() == folder.resolve()


def test_shipped_gomoku_six_answers_a_centre_opening_with_the_only_reply_that_holds_out():
    """6x6 four in a row is a first-player win; after X d4 every reply but c3 loses by X's 5th
    stone, c3 by its 6th (tests/test_forced_win.py checks the search; here, the model)."""
    from forced_win import ForcedWinSearch, shortest_forced_win  # experiments/forced_win.py

    game = make("gomoku", size=6, n_in_row=4).sim_move(15)  # X d4, a centre point
    search = ForcedWinSearch(6, 4)
    holds = [
        a for a in game.available_moves if shortest_forced_win(game.sim_move(a), 4, search) is None
    ]
    assert [view_for(game).format_move(a) for a in holds] == ["c3"]
    player = ModelPlayer(ROOT / "checkpoints" / "pretrained" / "gomoku_6x6", game, simulations=200)
    assert player(game) in holds


@pytest.mark.parametrize(
    ("moves", "holds"),
    [
        # O to move with four stones on the a-file and X with an open three: five wins.
        (["h8", "a1", "i8", "a2", "j8", "a3", "o15", "a4", "o14"], {"a5"}),
        (["h8", "f8", "i8", "a1", "j8", "a3", "g8"], {"k8"}),  # a four, its far end taken
        (["h8", "a1", "j8", "a3", "k8", "a5", "g8"], {"i8"}),  # a four with a gap
        (["h8", "a1", "i8", "a3", "j8"], {"g8", "k8"}),  # an open three: only its ends hold
        (["h8", "a1", "j8", "a3", "k8"], {"g8", "i8", "l8"}),  # a broken three
    ],
    ids=["takes-five", "blocks-four", "blocks-broken-four", "open-three", "broken-three"],
)
def test_shipped_gomoku_15x15_takes_five_and_answers_fours_and_threes(moves, holds):
    """The threats every Gomoku player must see, at a small search: a five to make, a four
    to block, and the replies to an open or broken three after which the three cannot become
    an open four (``baselines/alphabeta.py`` is tested on the same kinds of position)."""
    game = make("gomoku")
    view = view_for(game)
    position = view.from_moves(moves)
    player = ModelPlayer(ROOT / "checkpoints" / "pretrained" / "gomoku_15x15", game, simulations=64)
    assert view.format_move(player(position)) in holds


def test_gomoku_plays_a_shipped_15x15_folder_not_the_6x6_one_named_gomoku(tmp_path, monkeypatch):
    """``--game gomoku`` is 15x15 five in a row (issue 59 item 5). A folder named ``gomoku``
    is tried first for it, and may hold another board (the shipped 6x6 model was there until
    it became ``gomoku_6x6``): a folder whose config trains 15x15 is found beside it, in the
    working folder's pretrained dir or in the checkout's."""

    def ship(base: Path, folder: str, size: int, n_in_row: int) -> Path:
        (base / folder).mkdir(parents=True)
        params = f"{{size: {size}, n_in_row: {n_in_row}}}"
        (base / folder / "config.yaml").write_text(f"game:\n  name: gomoku\n  params: {params}\n")
        return base / folder

    here = Path("checkpoints", "pretrained")
    checkout = tmp_path / "checkout" / "checkpoints" / "pretrained"
    monkeypatch.setattr(models, "PROJECT_PRETRAINED_DIR", checkout)  # not this checkout's
    monkeypatch.chdir(tmp_path)
    six = ship(here, "gomoku", 6, 4)
    name, params = parse_game("gomoku")
    assert name == "gomoku" and make(name, **params).params == {"size": 15, "n_in_row": 5}
    assert default_model(name, params) is None  # the 6x6 model is not the 15x15 one

    fifteen = ship(checkout, "gomoku_15x15", 15, 5)  # play.py run from another folder
    for spec in ("gomoku", "gomoku15", "gomoku:size=15,n_in_row=5"):
        assert default_model(*parse_game(spec)) == fifteen, spec
    assert default_model(*parse_game("gomoku6")) == six
    mine = ship(here, "gomoku_15x15", 15, 5)
    assert default_model(name, params) == mine  # the working folder's first, as for any game


def test_the_committed_15x15_run_trains_the_board_gomoku_plays():
    """The 15x15 run, committed in ``checkpoints/in_progress`` while it trains and shipped in
    ``checkpoints/pretrained`` once done, is the board ``--game gomoku`` plays: shipped, it is
    the default (the test above; ``test_shipped_model_plays_legal_moves_and_is_the_default``)."""
    runs = [p for p in SHIPPED + IN_PROGRESS if p.name == "gomoku_15x15"]
    assert runs, "checkpoints/in_progress/gomoku_15x15 or checkpoints/pretrained/gomoku_15x15"
    name, params = parse_game("gomoku")
    for run in runs:
        assert config_game(run / "config.yaml") == (name, make(name, **params).params), run


def test_no_config_in_configs_meets_a_committed_run_in_its_run_folder():
    """The quick start's ``python train.py`` (and ``--config configs/X.yaml``) starts a run in
    ``checkpoints/<run_name>``, which refuses a folder holding an earlier run: a run committed
    there would stop a fresh clone's main command at once. Runs in progress live elsewhere."""
    from alphazero.config import load_config

    if shutil.which("git") is None:
        pytest.skip("no git to list the committed files")
    listed = subprocess.run(
        ["git", "ls-files", "checkpoints"], cwd=ROOT, capture_output=True, text=True
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    tracked = {Path(name).parts[1] for name in listed.stdout.splitlines() if name.count("/") > 1}
    configs = sorted((ROOT / "configs").glob("*.yaml"))
    assert configs
    for path in configs:
        run_dir = load_config(path).default_run_dir()
        assert run_dir.name not in tracked, f"{path.name}: {run_dir} is committed"
