"""The run folder: checkpoint round trips, what is kept, crash safety and one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import zipfile

import keras
import numpy as np
import pytest
from run_helpers import GAME, make_config, old_layout_run, tiny_buffer, tiny_model

import alphazero.training.checkpoints as ckpt
from alphazero.games import make
from alphazero.network.model_files import save_model_atomic
from alphazero.slim_run import main as slim_main
from alphazero.slim_run import slim_run
from alphazero.training.atomic import atomic_write_text, is_temp_name
from alphazero.training.checkpoints import RunDir, load_model
from alphazero.training.metrics import append_metrics
from alphazero.training.replay_buffer import ReplayBuffer
from alphazero.training.run_errors import CheckpointError
from alphazero.training.run_guard import RunLock

# Keras' own get_weights/save trip this NumPy 2 deprecation; it is not ours to fix.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def weights_equal(a: keras.Model, b: keras.Model) -> bool:
    wa, wb = a.get_weights(), b.get_weights()
    return len(wa) == len(wb) and all(np.array_equal(x, y) for x, y in zip(wa, wb, strict=True))


def optimizer_state(model: keras.Model) -> list[np.ndarray]:
    return [keras.ops.convert_to_numpy(v) for v in model.optimizer.variables]


def same_optimizer(a: keras.Model, b: keras.Model) -> bool:
    """Whether ``a`` and ``b`` have the same optimizer state: step count and Adam's moments."""
    sa, sb = optimizer_state(a), optimizer_state(b)
    return len(sa) == len(sb) > 1 and all(np.array_equal(x, y) for x, y in zip(sa, sb, strict=True))


def with_optimizer(folder) -> list[str]:
    """The model files under ``folder`` that Keras loads with an optimizer, relative names."""
    found = []
    for file in sorted(folder.rglob("*.keras")):
        model = keras.models.load_model(file)
        if getattr(model, "optimizer", None) is not None:
            found.append(file.relative_to(folder).as_posix())
    return found


@pytest.fixture(scope="module")
def models() -> list[keras.Model]:
    """Distinct trained models, shared by the tests (building them is the slow part)."""
    return [tiny_model(seed) for seed in range(3)]


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert message and "\n" not in message, message
    return message


# ----------------------------------------------------------------------- round trip
def test_save_load_round_trip(tmp_path, models):
    config = make_config()
    run = RunDir.create(tmp_path / "run", config)
    assert run.load_config() == config
    model, buffer = models[0], tiny_buffer(30)
    extra = {
        "games": 12,
        "positions": 30,
        "timings": {"selfplay_s": 1.5},
        "metrics": {"loss": np.float32(0.25)},
        "rng": np.random.default_rng(7).bit_generator.state,
    }
    written = run.save(1, model, buffer, extra, keep=False, is_best=False)
    assert written["resume"] == "resume_0001.keras"
    assert written["model"] == "models/iter_0001.keras"
    assert written["buffer"] == "buffer_0001.npz"
    assert written["best"] == "models/iter_0001.keras"  # no previous best: this model
    assert written["iteration"] == 1 and written["format"] == ckpt.FORMAT
    assert written["game"] == "tictactoe"
    assert "metrics" not in extra or extra["metrics"]["loss"] == np.float32(0.25)  # not mutated
    assert "model" not in extra

    loaded_model, loaded_buffer, metadata = RunDir.open(tmp_path / "run").load()
    assert metadata == written
    assert metadata["metrics"]["loss"] == 0.25
    assert metadata["rng"] == np.random.default_rng(7).bit_generator.state
    assert weights_equal(loaded_model, model)
    saved_state, loaded_state = optimizer_state(model), optimizer_state(loaded_model)
    assert len(saved_state) == len(loaded_state) > 1
    assert all(np.array_equal(a, b) for a, b in zip(saved_state, loaded_state, strict=True))
    for a, b in zip(loaded_buffer.arrays(), buffer.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert loaded_buffer.total_added == 30 and loaded_buffer.capacity == 50

    # The user-facing copies, and load_model on the folder and on a file.
    for name in ("latest.keras", "best.keras"):
        assert (run.path / name).read_bytes() == (run.path / written["model"]).read_bytes()
    assert with_optimizer(run.path) == ["resume_0001.keras"]
    assert weights_equal(load_model(run.path, GAME), model)
    assert weights_equal(load_model(run.path / "latest.keras"), model)
    assert not [p for p in run.path.rglob(".*")]  # no temp files left


def test_keep_rules_leave_the_expected_files(tmp_path, models):
    run = RunDir.create(tmp_path / "run", make_config())
    plan = {  # iteration: (keep, is_best)
        1: (False, False),
        2: (True, False),
        3: (False, True),
        4: (False, False),
        5: (False, False),
        6: (True, True),
        7: (False, False),
    }
    for iteration, (keep, is_best) in plan.items():
        model = models[iteration % len(models)]
        metadata = run.save(iteration, model, tiny_buffer(5, iteration), {}, keep, is_best)
        models_held = sorted(p.name for p in (run.path / "models").iterdir())
        buffers = sorted(p.name for p in run.path.glob("buffer_*.npz"))
        assert buffers == [f"buffer_{iteration:04d}.npz"]
        best = {1: 1, 2: 1, 3: 3, 4: 3, 5: 3, 6: 6, 7: 6}[iteration]
        assert metadata["best"] == f"models/iter_{best:04d}.keras"
        expected = {iteration, best} | {i for i in (2, 6) if i <= iteration}
        assert models_held == [f"iter_{i:04d}.keras" for i in sorted(expected)], iteration
        best_bytes = (run.path / metadata["best"]).read_bytes()
        assert (run.path / "best.keras").read_bytes() == best_bytes
        latest_bytes = (run.path / metadata["model"]).read_bytes()
        assert (run.path / "latest.keras").read_bytes() == latest_bytes
        assert metadata["resume"] == f"resume_{iteration:04d}.keras"
        assert with_optimizer(run.path) == [metadata["resume"]]
    assert metadata["kept_models"] == ["models/iter_0002.keras", "models/iter_0006.keras"]
    assert weights_equal(load_model(run.path), models[6 % len(models)])


def test_keep_every_zero_keeps_only_latest_and_best(tmp_path, models):
    run = RunDir.create(tmp_path / "run", make_config())
    for iteration in range(1, 5):
        run.save(iteration, models[0], tiny_buffer(3), {}, keep=False, is_best=iteration == 2)
    held = sorted(p.name for p in (run.path / "models").iterdir())
    assert held == ["iter_0002.keras", "iter_0004.keras"]
    assert sorted(p.name for p in run.path.iterdir()) == [
        "best.keras",
        "buffer_0004.npz",
        "config.yaml",
        "latest.keras",
        "metadata.json",
        "models",
        "resume_0004.keras",
    ]


def test_iterations_must_increase(tmp_path, models):
    run = RunDir.create(tmp_path / "run", make_config())
    run.save(3, models[0], tiny_buffer(3), {}, keep=False, is_best=False)
    with pytest.raises(CheckpointError) as error:
        run.save(3, models[1], tiny_buffer(3), {}, keep=False, is_best=False)
    assert "iteration 3" in one_line(error)
    assert weights_equal(run.load()[0], models[0])


def test_atomic_write_text_replaces_whole_file(tmp_path):
    target = tmp_path / "f.txt"
    atomic_write_text(target, "old")
    atomic_write_text(target, "new text")
    assert target.read_text() == "new text"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


# --------------------------------------------------------------------- crash safety
class Crash(BaseException):
    """Stands for SIGKILL: nothing after it runs."""


def crash_at(monkeypatch, stage: int, partial_model: bool = False):
    """Make the ``stage``-th ``os.replace`` (0-based) of the next save "kill" the process.

    After the crash no cleanup happens (``os.unlink`` does nothing), as after a real kill, so
    temp files stay behind. With ``partial_model`` the crash happens inside ``model.save``,
    leaving a half-written temp model.
    """
    real_replace, real_unlink = os.replace, os.unlink
    state = {"calls": 0, "crashed": False}

    def replace(src, dst, *args, **kwargs):
        if state["calls"] == stage:
            state["crashed"] = True
            raise Crash(f"killed before replacing {dst}")
        state["calls"] += 1
        return real_replace(src, dst, *args, **kwargs)

    def unlink(path, *args, **kwargs):
        if not state["crashed"]:
            return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    if partial_model:

        def save(self, path, *args, **kwargs):
            with open(path, "wb") as handle:
                handle.write(b"PK\x03\x04 half a zip")
            state["crashed"] = True
            raise Crash("killed inside model.save")

        monkeypatch.setattr(keras.Model, "save", save)
    return state


# Replaces in one save: resume file, model, buffer, metadata, latest.keras, best.keras; then
# deletions.
STAGES = 6


def test_a_save_makes_one_replace_per_stage(tmp_path, models, monkeypatch):
    run = RunDir.create(tmp_path / "run", make_config())
    targets = []
    real_replace = os.replace

    def replace(src, dst, *args, **kwargs):
        targets.append(os.path.relpath(dst, run.path))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    run.save(1, models[0], tiny_buffer(3), {}, keep=False, is_best=False)
    expected = ["resume_0001.keras", "models/iter_0001.keras", "buffer_0001.npz"]
    assert targets == [*expected, "metadata.json", "latest.keras", "best.keras"]
    assert len(targets) == STAGES


@pytest.mark.parametrize("stage", [*range(STAGES + 1), "model.save"])
def test_crash_at_any_stage_leaves_a_loadable_checkpoint(tmp_path, models, monkeypatch, stage):
    run = RunDir.create(tmp_path / "run", make_config())
    run.save(1, models[0], tiny_buffer(10, 0), {"games": 1}, keep=False, is_best=False)
    run.save(2, models[1], tiny_buffer(10, 100), {"games": 2}, keep=False, is_best=False)

    with monkeypatch.context() as patch:
        if stage == "model.save":
            crash_at(patch, -1, partial_model=True)
        elif stage == STAGES:  # everything replaced: crash in the deletions
            real_unlink = os.unlink

            def unlink(path, *args, **kwargs):
                if "buffer_0002" in str(path):
                    raise Crash("killed while deleting")
                return real_unlink(path, *args, **kwargs)

            patch.setattr(os, "unlink", unlink)
        else:
            crash_at(patch, stage)
        with pytest.raises(Crash):
            run.save(3, models[2], tiny_buffer(10, 200), {"games": 3}, keep=False, is_best=True)

    if stage != STAGES:  # the "kill" left its temp file behind, as SIGKILL would
        assert list(run.path.rglob(".*"))
    # Replace number 3 is metadata.json, the commit point: a crash there keeps the old one.
    committed = stage not in ("model.save", 0, 1, 2, 3)
    model, buffer, metadata = RunDir.open(run.path).load()
    if committed:
        assert metadata["iteration"] == 3 and metadata["games"] == 3
        assert metadata["best"] == "models/iter_0003.keras"
        assert weights_equal(model, models[2]) and same_optimizer(model, models[2])
        assert buffer.arrays()[2][0] == 200
    else:
        assert metadata["iteration"] == 2 and metadata["games"] == 2
        assert weights_equal(model, models[1]) and same_optimizer(model, models[1])
        assert buffer.arrays()[2][0] == 100
    # best.keras is a convenience copy, refreshed last: it may lag the metadata after a crash.
    assert weights_equal(load_model(run.path), models[2] if stage == STAGES else models[0])

    # Resuming: the next save succeeds and clears whatever the crash left behind.
    next_iteration = metadata["iteration"] + 1
    run.save(next_iteration, models[0], tiny_buffer(4, 300), {}, keep=False, is_best=False)
    model, buffer, metadata = run.load()
    assert metadata["iteration"] == next_iteration and weights_equal(model, models[0])
    best = metadata["best"]
    assert best == ("models/iter_0003.keras" if committed else "models/iter_0001.keras")
    assert sorted(p.name for p in run.path.iterdir()) == [
        "best.keras",
        f"buffer_{next_iteration:04d}.npz",
        "config.yaml",
        "latest.keras",
        "metadata.json",
        "models",
        f"resume_{next_iteration:04d}.keras",
    ]
    assert sorted(f"models/{p.name}" for p in (run.path / "models").iterdir()) == sorted(
        {best, metadata["model"]}
    )
    assert (run.path / "best.keras").read_bytes() == (run.path / best).read_bytes()
    assert with_optimizer(run.path) == [metadata["resume"]]


# ------------------------------------------------------------------------ errors
@pytest.fixture
def saved_run(tmp_path, models) -> RunDir:
    run = RunDir.create(tmp_path / "run", make_config())
    run.save(1, models[0], tiny_buffer(5), {}, keep=False, is_best=True)
    return run


def test_create_over_an_existing_run_is_refused(saved_run):
    config_before = (saved_run.path / "config.yaml").read_text()
    with pytest.raises(CheckpointError) as error:
        RunDir.create(saved_run.path, make_config("connect4"))
    assert "--resume" in one_line(error) and "--run-dir" in one_line(error)
    assert (saved_run.path / "config.yaml").read_text() == config_before


def test_create_over_a_run_that_never_saved_is_fine(tmp_path):
    RunDir.create(tmp_path / "run", make_config("connect4"))
    run = RunDir.create(tmp_path / "run", make_config())
    assert run.load_config().game.name == "tictactoe"


def test_missing_checkpoint(tmp_path):
    with pytest.raises(CheckpointError) as error:
        RunDir.open(tmp_path / "nowhere")
    assert "--resume" in one_line(error)
    run = RunDir.create(tmp_path / "run", make_config())
    with pytest.raises(CheckpointError) as error:
        run.load()
    message = one_line(error)
    assert "no checkpoint here (metadata.json missing)" in message and "--resume" in message


@pytest.mark.parametrize(
    "damage",
    ["missing", "truncated", "garbage", "empty"],
)
def test_damaged_resume_file(saved_run, damage):
    file = saved_run.path / "resume_0001.keras"
    data = file.read_bytes()
    if damage == "missing":
        file.unlink()
    elif damage == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        file.write_bytes(b"this is not a keras file\n" * 20)
    else:
        file.write_bytes(b"")
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    assert str(file) in one_line(error)
    with pytest.raises(CheckpointError) as error:
        load_model(file)
    assert str(file) in one_line(error)
    if damage != "missing":  # a file that is there is not called missing
        assert "not a Keras model file (corrupt or truncated)" in one_line(error)
        assert "not found" not in one_line(error).lower()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"format": 99}', "format 99"),
        ('{"format": 1, "iteration": 1}', "missing key 'model'"),
        (
            '{"format": 1, "iteration": 1, "model": "/etc/passwd", "buffer": "b", "best": "b"}',
            "inside the run folder",
        ),
        ('{"format": 2, "iteration": 1, "model": "m", "buffer": "b", "best": "b"}', "'resume'"),
        (
            '{"format": 2, "iteration": 1, "resume": "../r.keras", "model": "m", "buffer": "b", '
            '"best": "b"}',
            "'resume' must be a path inside the run folder",
        ),
        (
            '{"format": 1, "iteration": 1, "model": "m", "buffer": "b", "best": "b", '
            '"top_score": {"iteration": 1, "wins": 40}}',
            "'top_score' must be null or an object of non-negative integers",
        ),
        (
            '{"format": 1, "iteration": 1, "model": "m", "buffer": "b", "best": "b", '
            '"top_score": {"iteration": 1, "wins": true, "draws": 0, "losses": 0}}',
            "'top_score' must be null or an object of non-negative integers",
        ),
    ],
)
def test_bad_metadata(saved_run, text, expected):
    (saved_run.path / "metadata.json").write_text(text)
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    message = one_line(error)
    assert expected in message and "metadata.json" in message


def test_a_loaded_runs_buffer_knows_its_games_symmetries(saved_run):
    """So that its next save stores each augmented position once (buffer format 2)."""
    _, buffer, _ = saved_run.load()
    assert len(buffer.symmetries) == 8  # tic-tac-toe's square board


def test_missing_or_truncated_buffer(saved_run):
    file = saved_run.path / "buffer_0001.npz"
    file.write_bytes(file.read_bytes()[:100])
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    assert "buffer_0001.npz" in one_line(error)
    file.unlink()
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    assert "buffer_0001.npz" in one_line(error)


def test_foreign_game(saved_run):
    metadata_file = saved_run.path / "metadata.json"
    metadata = json.loads(metadata_file.read_text())
    metadata_file.write_text(json.dumps({**metadata, "game": "connect4"}))
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    assert "connect4" in one_line(error) and "tictactoe" in one_line(error)
    # The training loop records the game as {"name", "params"}: params must match too.
    game = {"name": "tictactoe", "params": {"size": 4}}
    metadata_file.write_text(json.dumps({**metadata, "game": game}))
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    assert "'size': 4" in one_line(error)
    metadata_file.write_text(json.dumps({**metadata, "game": {**game, "params": {}}}))
    saved_run.load()

    # A config that now names another game than the one the model and buffer were made for.
    metadata_file.write_text(json.dumps(metadata))
    (saved_run.path / "config.yaml").write_text(make_config("connect4").to_yaml())
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    one_line(error)

    # load_model with a game the model does not fit.
    with pytest.raises(CheckpointError) as error:
        load_model(saved_run.path / "best.keras", make("connect4"))
    assert "another game" in one_line(error)
    with pytest.raises(CheckpointError) as error:
        load_model(saved_run.path, make("tictactoe"))  # config.yaml now says connect4
    assert "connect4" in one_line(error)


def test_bad_config_yaml(saved_run):
    (saved_run.path / "config.yaml").write_text("game: [unclosed\n")
    with pytest.raises(CheckpointError) as error:
        saved_run.load_config()
    assert "config.yaml" in one_line(error)
    (saved_run.path / "config.yaml").write_text("train: {batch_size: -3}\n")
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    assert "batch_size" in one_line(error)


def test_load_model_paths(tmp_path, saved_run, models):
    with pytest.raises(CheckpointError) as error:
        load_model(tmp_path / "nothing.keras")
    assert "no such" in one_line(error)
    not_keras = tmp_path / "model.h5"
    not_keras.write_bytes(b"x")
    with pytest.raises(CheckpointError) as error:
        load_model(not_keras)
    assert "not a .keras" in one_line(error)
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises(CheckpointError) as error:
        load_model(empty_dir)
    assert "no model" in one_line(error)
    # A run folder without the user copies falls back to the metadata's best model.
    (saved_run.path / "best.keras").unlink()
    assert weights_equal(load_model(saved_run.path), models[0])
    (saved_run.path / "latest.keras").unlink()
    assert weights_equal(load_model(saved_run.path), models[0])


def test_stray_temp_names_are_recognised(saved_run, models):
    for name in (
        ".iter_0009.77.abcdefgh.tmp.keras",
        ".metadata.json.77.abc.tmp",
        ".buffer_0002.npz.77.x.tmp",
    ):
        folder = saved_run.path / ("models" if name.endswith(".keras") else "")
        (folder / name).write_bytes(b"junk")
    saved_run.save(2, models[1], tiny_buffer(3), {}, keep=False, is_best=False)
    assert not list(saved_run.path.rglob(".*"))
    assert ckpt.FORMAT == 3


# ------------------------------------------------------------ an earlier run is never lost
def tree(folder) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes: what must not change."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("keep", "named"),
    [
        ({"metadata.json", "latest.keras", "best.keras", "models", "buffer_0001.npz"}, "metadata"),
        ({"models"}, "models/iter_0001.keras"),
        ({"latest.keras"}, "latest.keras"),
        ({"resume_0001.keras"}, "resume_0001.keras"),
        ({"buffer_0001.npz"}, "buffer_0001.npz"),
        ({"metrics.jsonl"}, "metrics.jsonl"),
    ],
    ids=["whole-run", "models", "latest", "resume", "buffer", "metrics"],
)
def test_new_run_refuses_folder_with_models_buffers_or_metrics(saved_run, keep, named):
    append_metrics(saved_run, {"iteration": 1})
    for path in saved_run.path.iterdir():  # leave only what this case is about
        if path.is_file() and path.name not in keep | {"config.yaml"}:
            path.unlink()
    if "models" not in keep:
        for path in (saved_run.path / "models").iterdir():
            path.unlink()
    before = tree(saved_run.path)
    with pytest.raises(CheckpointError) as error:
        RunDir.create(saved_run.path, make_config("connect4"))
    message = one_line(error)
    assert f"{saved_run.path}: holds an earlier run (" in message and named in message
    assert "--resume" in message and "--run-dir" in message and "--overwrite" in message
    if "metadata.json" not in keep:  # --resume alone would fail
        assert "it needs its metadata.json back to --resume" in message
    assert tree(saved_run.path) == before  # nothing written, nothing deleted


def test_many_models_are_named_by_their_count_first_and_last(saved_run, models):
    for iteration in range(2, 6):
        saved_run.save(iteration, models[0], tiny_buffer(3), {}, keep=True, is_best=False)
    with pytest.raises(CheckpointError) as error:
        RunDir.create(saved_run.path, make_config())
    assert "5 models (models/iter_0001.keras to iter_0005.keras)" in one_line(error)


def test_missing_metadata_beside_models_names_them_and_does_not_advise_starting_over(
    saved_run,
):
    (saved_run.path / "metadata.json").unlink()
    before = tree(saved_run.path)
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    message = one_line(error)
    assert "metadata.json is missing" in message and "nothing was changed" in message
    assert "models/iter_0001.keras" in message and "buffer_0001.npz" in message
    assert f"python play.py --model {saved_run.path / 'models' / 'iter_0001.keras'}" in message
    assert "start without --resume" not in message
    assert tree(saved_run.path) == before


# ------------------------------------------------------------------- temporary files
def test_temporary_names_hold_the_pid_and_differ_between_saves(saved_run, models, monkeypatch):
    sources = []
    real_replace = os.replace

    def replace(src, dst, *args, **kwargs):
        sources.append(os.path.basename(src))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    saved_run.save(2, models[0], tiny_buffer(3), {}, keep=False, is_best=True)
    assert len(sources) == STAGES and len(set(sources)) == STAGES
    assert all(f".{os.getpid()}." in name and is_temp_name(name) for name in sources)


def test_two_writers_of_one_model_do_not_share_a_temporary_file(tmp_path, models, monkeypatch):
    """As two trainers on one folder once did: the second one's replace found no file."""
    dst = tmp_path / "iter_0001.keras"
    real_save = keras.Model.save
    calls = []

    def save_while_another_saves(self, path, *args, **kwargs):
        real_save(self, path, *args, **kwargs)
        if not calls:  # the other writer starts and finishes inside this one's save
            calls.append(path)
            save_model_atomic(models[1], dst)

    monkeypatch.setattr(keras.Model, "save", save_while_another_saves)
    save_model_atomic(models[0], dst)  # a shared name raised FileNotFoundError here
    monkeypatch.undo()
    assert weights_equal(load_model(dst), models[0])  # the last replace wins, whole
    assert [p.name for p in tmp_path.iterdir()] == [dst.name]


def test_a_saved_model_is_deflated_and_loads_the_same(tmp_path, models):
    dst = tmp_path / "latest.keras"
    save_model_atomic(models[0], dst)
    with zipfile.ZipFile(dst) as archive:
        infos = archive.infolist()
    assert infos and all(info.compress_type == zipfile.ZIP_DEFLATED for info in infos)
    assert sum(info.compress_size for info in infos) < sum(info.file_size for info in infos)
    assert weights_equal(load_model(dst), models[0])
    assert [p.name for p in tmp_path.iterdir()] == [dst.name]  # no temporary file left


def test_temporary_files_a_kill_left_are_removed_and_nothing_else(saved_run):
    left = [
        "models/.iter_0002.4242.k3j4h5.tmp.keras",
        ".buffer_0002.npz.4242.abcdefgh.tmp",
        ".metadata.json.4242.abcdefgh.tmp",
        ".latest.4242.abcdefgh.tmp.keras",
    ]
    for name in left:
        (saved_run.path / name).write_bytes(b"half")
    # Without the writer's pid, or not for one of the run's files: not a save's.
    kept = ["notes.tmp", ".keep", "models/iter_0001.keras", "models/.iter_0002.tmp.keras"]
    (saved_run.path / "models/.iter_0002.tmp.keras").write_text("mine")
    (saved_run.path / "notes.tmp").write_text("mine")
    (saved_run.path / ".keep").write_text("mine")
    saved_run.remove_temp_files()
    assert not [name for name in left if (saved_run.path / name).exists()]
    assert all((saved_run.path / name).exists() for name in kept)
    saved_run.load()


def test_a_garbage_buffer_is_not_a_replay_buffer_and_no_unpickling_advice(saved_run):
    (saved_run.path / "buffer_0001.npz").write_bytes(b"\x80\x04garbage, or a pickle" * 10)
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    message = one_line(error)
    assert "buffer_0001.npz: not a replay buffer file" in message
    assert "pickle" not in message and "trust" not in message


def test_saved_run_files_are_readable_like_any_other_file(tmp_path):
    """The temporary files renamed into place are made by mkstemp, which makes them 0600:
    a run folder's files must get the permissions an ordinary write gives."""
    import os
    import stat

    from alphazero.training.atomic import temp_file

    old = os.umask(0o022)
    try:
        fd, path = temp_file(tmp_path, "x")
        os.close(fd)
        buffer = ReplayBuffer(4, (1, 1, 1), 2)
        buffer.save(tmp_path / "buffer.npz")
    finally:
        os.umask(old)
    for made in (path, tmp_path / "buffer.npz"):
        assert stat.S_IMODE(os.stat(made).st_mode) == 0o644


# ---------------------------------------- format 1: every model file with its optimizer
def test_a_format_1_folder_is_neither_resumed_nor_saved_into_but_plays(tmp_path, models):
    """Its one line names the command that migrates it (tests/test_migrate_run.py)."""
    run = old_layout_run(tmp_path / "run", models)
    before = tree(run.path)
    for attempt in (
        run.load,
        lambda: run.save(4, models[0], tiny_buffer(5), {}, keep=False, is_best=False),
        lambda: slim_run(run.path),
    ):
        with pytest.raises(CheckpointError) as error:
            attempt()
        assert "format 1" in one_line(error)
        assert one_line(error).endswith(f"python -m alphazero.migrate_run {run.path}")
    assert tree(run.path) == before
    assert weights_equal(load_model(run.path), models[1])  # best.keras


def test_a_resume_file_without_optimizer_state_is_a_one_line_error(saved_run):
    resume = saved_run.path / "resume_0001.keras"
    shutil.copyfile(saved_run.path / "models" / "iter_0001.keras", resume)  # weights only
    with pytest.raises(CheckpointError) as error:
        saved_run.load()
    message = one_line(error)
    assert str(resume) in message and "no optimizer state" in message
    saved_run.load(compile=False)  # reading the weights alone needs none


# ---------------------------------------------------------------------- slim_run
def three_iterations(path, models) -> RunDir:
    """A run after iteration 3: iteration 2 kept and the best, 3 the newest."""
    run = RunDir.create(path, make_config())
    run.save(2, models[1], tiny_buffer(10, 200), {"positions": 20}, keep=True, is_best=True)
    run.save(3, models[2], tiny_buffer(10, 300), {"positions": 30}, keep=False, is_best=False)
    return run


def test_slim_run_refuses_a_folder_being_trained_and_keeps_models_if_asked(
    tmp_path, models, capsys
):
    run = three_iterations(tmp_path / "run", models)
    with RunLock(run.path):
        with pytest.raises(CheckpointError) as error:
            slim_run(run.path)
        assert f"process {os.getpid()} is training this run" in one_line(error)
    before = tree(run.path)
    assert slim_main([str(run.path), "--keep-models"]) == 0
    assert f"{run.path}: already slim" in capsys.readouterr().out
    assert tree(run.path) == before
    assert slim_main([str(tmp_path / "nowhere")]) == 2
    assert "not a run folder" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def test_a_slimmed_folder_holds_only_what_play_and_resume_read(tmp_path, models, capsys):
    run = three_iterations(tmp_path / "run", models)
    assert slim_main([str(run.path)]) == 0
    assert "MB ->" in capsys.readouterr().out
    assert sorted(tree(run.path)) == [
        "best.keras",
        "buffer_0003.npz",
        "config.yaml",
        "metadata.json",
        "resume_0003.keras",
    ]
    metadata = run.read_metadata()
    assert metadata["best"] == "best.keras" and metadata["kept_models"] == []
    assert weights_equal(keras.models.load_model(run.path / "best.keras"), models[1])
    model, buffer, _ = run.load()
    assert weights_equal(model, models[2]) and same_optimizer(model, models[2])
    assert buffer.arrays()[2][0] == 300
    slim = tree(run.path)
    assert slim_run(run.path) == [] and tree(run.path) == slim  # a slim folder stays as it is


def test_a_slimmed_folder_trains_on_and_keeps_its_best_until_a_better_one(tmp_path, models):
    run = three_iterations(tmp_path / "run", models)
    slim_run(run.path)
    best = (run.path / "best.keras").read_bytes()
    run.save(4, models[0], tiny_buffer(10, 400), {}, keep=False, is_best=False)
    metadata = run.read_metadata()
    assert metadata["best"] == "best.keras" and (run.path / "best.keras").read_bytes() == best
    model, _, _ = run.load()
    assert weights_equal(model, models[0])
    run.save(5, models[2], tiny_buffer(10, 500), {}, keep=False, is_best=True)
    assert run.read_metadata()["best"] == "models/iter_0005.keras"
    assert weights_equal(keras.models.load_model(run.path / "best.keras"), models[2])
