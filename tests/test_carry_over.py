"""selfplay.carry_over: games in flight pause at an iteration's end and go on in the next, so
the network batch never shrinks; a resumed run plays exactly as one that never stopped."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest
from test_training import TINY, _interrupt_after_games, assert_same_run

import alphazero.selfplay.loop as selfplay_module
from alphazero.config import SearchConfig, SelfPlayConfig, config_from_dict
from alphazero.games import make
from alphazero.selfplay import paused as paused_module
from alphazero.selfplay.loop import play_games, play_games_carrying
from alphazero.selfplay.paused import PausedGame
from alphazero.training.checkpoints import RunDir
from alphazero.training.loop import train
from alphazero.training.run_errors import CheckpointError
from alphazero.workers import LocalBackend, split_paused

CARRY = {**TINY, "selfplay": {**TINY["selfplay"], "carry_over": True}}


def carry_config(**overrides):
    data = {**CARRY, **overrides}
    data["selfplay"] = {**CARRY["selfplay"], **overrides.get("selfplay", {})}
    return config_from_dict(data)


def mixed(num_actions):
    """A network that prefers some moves to others, by position (unlike a uniform one)."""

    def policy(planes):
        flat = planes.reshape(len(planes), -1).astype(np.float64)
        weights = np.sin(np.arange(flat.shape[1] * num_actions)).reshape(-1, num_actions)
        logits = flat @ weights
        return logits, np.tanh(logits[:, 0])

    return policy


def in_flight_per_step(monkeypatch) -> list[int]:
    """The number of games each search step of ``play_games`` searches."""
    counts: list[int] = []
    real = selfplay_module.search_step

    def step(roots, *args, **kwargs):
        counts.append(len(roots))
        return real(roots, *args, **kwargs)

    monkeypatch.setattr(selfplay_module, "search_step", step)
    return counts


# ------------------------------------------------------------------- self-play itself
def test_carrying_keeps_every_step_at_parallel_games_where_plain_self_play_has_a_tail(
    monkeypatch,
):
    search = SearchConfig(simulations=8)
    config = SelfPlayConfig(games_per_iteration=12, parallel_games=6, temperature_moves=4)
    counts = in_flight_per_step(monkeypatch)
    rng = np.random.default_rng(0)
    for _ in range(3):
        play_games(lambda: make("connect4"), mixed(7), 12, search, config, rng, False)
    assert min(counts) < 6 and counts.count(6) < len(counts)  # each call ends in a tail

    counts.clear()
    paused: list[PausedGame] = []
    for _ in range(3):
        _, stats, paused = play_games_carrying(
            lambda: make("connect4"), mixed(7), 12, search, config, rng, paused, False
        )
        assert stats.games == 12  # exactly the quota: the rest pause
    assert set(counts) == {6}


def test_a_paused_game_goes_on_with_the_moves_and_examples_it_had():
    """Every move played belongs to a game that ended (its examples) or to one still paused."""
    search = SearchConfig(simulations=6)
    config = SelfPlayConfig(games_per_iteration=5, parallel_games=4, temperature_moves=9)
    rng = np.random.default_rng(1)
    paused: list[PausedGame] = []
    moves, lengths = 0, []
    for _ in range(4):
        examples, stats, paused = play_games_carrying(
            lambda: make("tictactoe"), mixed(9), 5, search, config, rng, paused, False
        )
        moves += stats.moves
        lengths += stats.lengths
        assert len(examples) == 8 * sum(stats.lengths)  # every move of every ended game
    # Were a paused game's moves dropped (or the game started again), fewer would be found.
    assert paused and moves == sum(lengths) + sum(game.moves for game in paused)
    for game in paused:
        position = game.position(make("tictactoe"))
        assert position.score is None and len(game.players) == game.moves


SETTINGS = {
    "puct": ({}, {}),
    "gumbel": ({"algorithm": "gumbel", "simulations": 8}, {}),
    "puct, every per-game choice": (
        {},
        {
            "fast_simulations": 4,
            "resign_threshold": -0.3,
            "resign_playthrough": 0.5,
            "random_opening_share": 0.5,
            "value_target_mix": 0.5,
        },
    ),
}


GAMES = {
    "connect4": (lambda: make("connect4"), 7),
    "dots and boxes (a box keeps the turn)": (lambda: make("dots_and_boxes", rows=2, cols=2), 12),
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("setting", SETTINGS)
def test_paused_games_go_on_the_same_from_memory_and_from_a_file(setting, game):
    search_overrides, selfplay_overrides = SETTINGS[setting]
    search = SearchConfig(**{"simulations": 12, **search_overrides})
    config = SelfPlayConfig(
        games_per_iteration=6, parallel_games=4, temperature_moves=3, **selfplay_overrides
    )
    new_game, actions = GAMES[game]

    def play(paused, rng):
        return play_games_carrying(new_game, mixed(actions), 6, search, config, rng, paused, False)

    rng = np.random.default_rng(2)
    _, _, paused = play([], rng)
    assert any(len(game.players) for game in paused)
    state = rng.bit_generator.state
    buffer = io.BytesIO()
    np.savez(buffer, **paused_module.to_arrays(paused))
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as npz:
        from_file = paused_module.from_arrays({name: npz[name] for name in npz.files})
    paused_module.check(from_file, new_game())

    results = []
    for carried in (paused, from_file):
        rng.bit_generator.state = state
        results.append(play(carried, rng))
    (a, stats_a, paused_a), (b, stats_b, paused_b) = results
    for part in ("planes", "policies", "values"):
        np.testing.assert_array_equal(getattr(a, part), getattr(b, part))
    assert stats_a.lengths == stats_b.lengths and stats_a.moves == stats_b.moves
    assert [g.actions.tolist() for g in paused_a] == [g.actions.tolist() for g in paused_b]


def test_paused_games_that_do_not_fit_the_game_are_one_line_errors():
    search = SearchConfig(simulations=4)
    config = SelfPlayConfig(games_per_iteration=3, parallel_games=3, temperature_moves=9)
    _, _, paused = play_games_carrying(
        lambda: make("tictactoe"), mixed(9), 1, search, config, np.random.default_rng(0), [], False
    )
    with pytest.raises(ValueError, match=r"^paused game 0 is not of this run's game"):
        paused_module.check(paused, make("connect4"))
    records = {k: v[:0] for k, v in vars(paused[0]).items() if isinstance(v, np.ndarray)}
    illegal = PausedGame(**{**records, "actions": np.array([4, 4])})
    with pytest.raises(ValueError, match=r"^paused game 0 cannot be replayed \(.*\)$"):
        paused_module.check([illegal], make("tictactoe"))
    over = PausedGame(**{**records, "actions": np.array([0, 3, 1, 4, 2])})
    with pytest.raises(ValueError, match=r"^paused game 0 is already over$"):
        paused_module.check([over], make("tictactoe"))
    unplayed = PausedGame(**{**vars(paused[0]), "actions": paused[0].actions[:0]})
    if len(paused[0].players):
        with pytest.raises(ValueError, match=r"^paused game 0 records a move it has not played$"):
            paused_module.check([unplayed], make("tictactoe"))
    arrays = paused_module.to_arrays(paused)
    arrays["action_counts"] = arrays["action_counts"] + 1
    with pytest.raises(ValueError, match="disagree"):
        paused_module.from_arrays(arrays)


def test_paused_games_are_split_between_workers_evenly_and_merge_back_in_order():
    games = list(range(7))
    shares = split_paused(games, 3)  # type: ignore[arg-type]
    assert shares == [[0, 1, 2], [3, 4], [5, 6]]
    assert split_paused([], 2) == [[], []]


# ------------------------------------------------------------------- the training loop
def records(run) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


SAME = ("games", "moves", "first_win_rate", "second_win_rate", "mean_length", "mean_batch")


def assert_same_metrics(run_a, run_b) -> None:
    for a, b in zip(records(run_a), records(run_b), strict=True):
        assert {k: a["selfplay"].get(k) for k in SAME} == {k: b["selfplay"].get(k) for k in SAME}
        assert a["selfplay"]["paused"] == b["selfplay"]["paused"]
        assert (a["positions"], a["train"]) == (b["positions"], b["train"])


def assert_same_paused(run_a, run_b) -> None:
    meta_a, meta_b = RunDir(run_a).read_metadata(), RunDir(run_b).read_metadata()
    game = make(CARRY["game"]["name"])
    paused_a = RunDir(run_a).load_paused(meta_a, game)
    paused_b = RunDir(run_b).load_paused(meta_b, game)
    arrays_a, arrays_b = paused_module.to_arrays(paused_a), paused_module.to_arrays(paused_b)
    for name in paused_module.ARRAY_NAMES:
        np.testing.assert_array_equal(arrays_a[name], arrays_b[name])


def test_a_resumed_carry_over_run_is_the_run_that_never_stopped(tmp_path):
    config = carry_config(iterations=4)
    train(config, tmp_path / "straight", progress=False)
    train(config, tmp_path / "stopped", progress=False, max_iterations=2)
    stopped = RunDir(tmp_path / "stopped")
    assert stopped.read_metadata()["paused"] == "paused_0002.npz"
    train(config, tmp_path / "stopped", resume=True, progress=False)

    assert_same_run(tmp_path / "straight", tmp_path / "stopped")
    assert_same_metrics(tmp_path / "straight", tmp_path / "stopped")
    assert_same_paused(tmp_path / "straight", tmp_path / "stopped")
    carried = [r["selfplay"]["paused"] for r in records(tmp_path / "straight")]
    assert (
        all(carried) and [r["selfplay"]["games"] for r in records(tmp_path / "stopped")] == [6] * 4
    )
    assert sorted(p.name for p in stopped.path.glob("paused_*")) == ["paused_0004.npz"]


def test_carry_over_changes_the_games_played(tmp_path):
    """The switch is not a no-op: off, the same seed plays other iterations."""
    train(carry_config(iterations=2), tmp_path / "on", progress=False)
    off = {**CARRY, "iterations": 2, "selfplay": {**CARRY["selfplay"], "carry_over": False}}
    train(config_from_dict(off), tmp_path / "off", progress=False)
    assert "paused" not in RunDir(tmp_path / "off").read_metadata()
    assert not list((tmp_path / "off").glob("paused_*"))
    a, b = records(tmp_path / "on"), records(tmp_path / "off")
    assert [(r["selfplay"]["moves"], r["positions"]) for r in a] != [
        (r["selfplay"]["moves"], r["positions"]) for r in b
    ]


def test_the_paused_file_is_written_before_the_metadata_and_the_old_one_removed_after(
    tmp_path, monkeypatch
):
    run = tmp_path / "run"
    train(carry_config(iterations=2), run, progress=False, max_iterations=1)
    order: list[str] = []
    real_replace, real_unlink = os.replace, os.unlink

    def replace(src, dst, *args, **kwargs):
        order.append(f"write {os.path.basename(dst)}")
        return real_replace(src, dst, *args, **kwargs)

    def unlink(path, *args, **kwargs):
        order.append(f"remove {os.path.basename(path)}")
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    train(carry_config(iterations=2), run, resume=True, progress=False)
    monkeypatch.undo()
    assert order.index("write paused_0002.npz") < order.index("write metadata.json")
    assert order.index("write metadata.json") < order.index("remove paused_0001.npz")
    assert RunDir(run).read_metadata()["paused"] == "paused_0002.npz"


def _corrupt(run, meta):
    (run / "paused_0001.npz").write_bytes(b"\x80\x04garbage")


def _escape(run, meta):
    meta["paused"] = "../paused_0001.npz"
    (run / "metadata.json").write_text(json.dumps(meta))


def _foreign(run, meta):
    """Paused games of Connect Four in a tic-tac-toe run."""
    search = SearchConfig(simulations=4)
    config = SelfPlayConfig(games_per_iteration=2, parallel_games=2)
    _, _, games = play_games_carrying(
        lambda: make("connect4"), mixed(7), 1, search, config, np.random.default_rng(0), [], False
    )
    (run / "paused_0001.npz").write_bytes(paused_module.paused_bytes(games, meta["game"]))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_corrupt, "paused_0001.npz: not a paused games file"),
        (_escape, "metadata.json: 'paused' must be a path inside the run folder"),
        (_foreign, "paused_0001.npz: paused game 0 is not of this run's game"),
    ],
)
def test_bad_paused_games_are_one_line_before_any_worker_starts(
    tmp_path, monkeypatch, damage, message
):
    run = tmp_path / "run"
    train(carry_config(iterations=2), run, progress=False, max_iterations=1)
    damage(run, RunDir(run).read_metadata())
    started = []
    monkeypatch.setattr(
        "alphazero.training.session.make_backend", lambda *a, **k: started.append(a)
    )
    with pytest.raises(CheckpointError) as error:
        train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    assert message in str(error.value) and "\n" not in str(error.value)
    assert started == []


# ------------------------------------------------------------------- Ctrl-C
@pytest.mark.parametrize("stopped_in", [1, 2])
def test_ctrl_c_in_training_keeps_the_paused_games_and_resumes_exactly(
    tmp_path, monkeypatch, stopped_in
):
    from alphazero.training.trainer import Trainer

    config = carry_config(iterations=3)
    train(config, tmp_path / "straight", progress=False)
    real = Trainer.train
    calls = [0]

    def interrupted(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == stopped_in:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Trainer, "train", interrupted)
        train(config, tmp_path / "stopped", progress=False)
    kept = RunDir(tmp_path / "stopped").load_pending()
    assert kept.complete and kept.paused  # the games its self-play paused, for the next
    train(config, tmp_path / "stopped", resume=True, progress=False)
    assert_same_run(tmp_path / "straight", tmp_path / "stopped")
    assert_same_metrics(tmp_path / "straight", tmp_path / "stopped")
    assert_same_paused(tmp_path / "straight", tmp_path / "stopped")


def test_ctrl_c_mid_self_play_keeps_its_ended_games_and_plays_only_the_missing_ones(
    tmp_path, monkeypatch
):
    """The checkpoint's paused games had gone on: each ended among the kept games or was lost
    in flight, so the resumed iteration carries none of them (it would play one twice)."""
    run = tmp_path / "run"
    train(carry_config(iterations=2), run, progress=False, max_iterations=1)
    assert RunDir(run).load_paused(RunDir(run).read_metadata(), make("tictactoe"))
    with monkeypatch.context() as patch:
        _interrupt_after_games(patch, 2)
        assert train(None, run, resume=True, progress=False).iteration == 1  # type: ignore[arg-type]
    kept = RunDir(run).load_pending()
    assert (kept.iteration, kept.games, kept.complete, kept.paused) == (2, 2, False, None)

    asked: list[tuple[int, int]] = []
    real = LocalBackend.play_carrying

    def play_carrying(self, num_games, rng, paused):
        asked.append((num_games, len(paused)))
        return real(self, num_games, rng, paused)

    monkeypatch.setattr(LocalBackend, "play_carrying", play_carrying)
    state = train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    assert asked == [(4, 0)] and state.games == 12
    last = records(run)[-1]["selfplay"]
    assert last["games"] == 6 and last["paused"] > 0
    assert RunDir(run).load_pending() is None
    _, buffer, meta = RunDir(run).load()
    assert meta["paused"] == "paused_0002.npz" and buffer.total_added == meta["positions"]


# ------------------------------------------------------------------- worker processes
def test_worker_processes_carry_their_shares_and_resume_exactly(tmp_path):
    config = carry_config(iterations=2, selfplay={"workers": 2, "parallel_games": 2})
    train(config, tmp_path / "straight", progress=False)
    train(config, tmp_path / "stopped", progress=False, max_iterations=1)
    train(config, tmp_path / "stopped", resume=True, progress=False)
    assert_same_run(tmp_path / "straight", tmp_path / "stopped")
    assert_same_metrics(tmp_path / "straight", tmp_path / "stopped")
    assert_same_paused(tmp_path / "straight", tmp_path / "stopped")
    assert all(r["selfplay"]["paused"] for r in records(tmp_path / "straight"))


def test_kept_paused_games_of_another_game_are_one_line_before_any_worker_starts(
    tmp_path, monkeypatch
):
    import dataclasses

    from alphazero.training.trainer import Trainer

    run = tmp_path / "run"

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(Trainer, "train", interrupted)
        train(carry_config(iterations=2), run, progress=False)
    kept = RunDir(run).load_pending()
    assert kept.complete and kept.paused
    _, _, foreign = play_games_carrying(
        lambda: make("connect4"), mixed(7), 1, SearchConfig(simulations=4),
        SelfPlayConfig(games_per_iteration=2, parallel_games=2), np.random.default_rng(0), [],
        False,
    )  # fmt: skip
    RunDir(run).save_pending(dataclasses.replace(kept, paused=foreign))
    started = []
    monkeypatch.setattr(
        "alphazero.training.session.make_backend", lambda *a, **k: started.append(a)
    )
    with pytest.raises(CheckpointError) as error:
        train(None, run, resume=True, progress=False)  # type: ignore[arg-type]
    message = str(error.value)
    assert "pending_selfplay.npz: paused game 0 is not of this run's game" in message
    assert "\n" not in message and started == []
