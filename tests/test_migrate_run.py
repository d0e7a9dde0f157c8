"""Migrating run folders of older formats in place (``python -m alphazero.migrate_run``): the
migrated folder resumes exactly, a kill at any step leaves it as it was or migrated, and a
folder of the current format is left alone."""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import pytest
from run_helpers import make_config, old_layout_run, tiny_buffer, tiny_model

from alphazero.migrate_run import main, migrate_run
from alphazero.training.checkpoints import FORMAT, RunDir
from alphazero.training.run_errors import CheckpointError
from alphazero.training.run_guard import RunLock

# Keras' own get_weights/save trip this NumPy 2 deprecation; it is not ours to fix.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

OLD_MODELS = ["best.keras", "latest.keras", "models/iter_0002.keras", "models/iter_0003.keras"]


@pytest.fixture(scope="module")
def models() -> list[keras.Model]:
    return [tiny_model(seed) for seed in range(3)]


def with_optimizer(folder) -> list[str]:
    """The model files under ``folder`` that Keras loads with an optimizer, relative names."""
    found = []
    for file in sorted(folder.rglob("*.keras")):
        if getattr(keras.models.load_model(file), "optimizer", None) is not None:
            found.append(file.relative_to(folder).as_posix())
    return found


def resumes_as(run: RunDir, model: keras.Model) -> bool:
    """Whether ``run`` resumes with ``model``'s weights and optimizer state."""
    loaded, _, _ = run.load()
    weights = zip(loaded.get_weights(), model.get_weights(), strict=True)
    states = zip(loaded.optimizer.variables, model.optimizer.variables, strict=True)
    return all(np.array_equal(a, b) for a, b in weights) and all(
        np.array_equal(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b))
        for a, b in states
    )


def tree(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def buffer_format(file) -> int:
    with np.load(file) as archive:
        return int(archive["format"])


def test_a_format_1_folder_migrates_in_place_and_resumes_exactly(tmp_path, models):
    run = old_layout_run(tmp_path / "run", models)
    before = tree(run.path)
    rewritten = migrate_run(run.path)
    assert sorted(rewritten) == sorted(["metadata.json", *OLD_MODELS, "buffer_0003.npz"])
    metadata = run.read_metadata()
    assert metadata["format"] == FORMAT and metadata["resume"] == "resume_0003.keras"
    # The resume point is the very file the folder resumed from, byte for byte.
    assert (run.path / "resume_0003.keras").read_bytes() == before["models/iter_0003.keras"]
    assert with_optimizer(run.path) == ["resume_0003.keras"]
    sizes = {name: len(data) for name, data in tree(run.path).items()}
    assert all(sizes[name] < len(before[name]) for name in OLD_MODELS)
    for copy, source in (("latest.keras", "iter_0003"), ("best.keras", "iter_0002")):
        assert (run.path / copy).read_bytes() == (run.path / f"models/{source}.keras").read_bytes()
    assert buffer_format(run.path / "buffer_0003.npz") == 2
    assert resumes_as(run, models[2])
    assert run.load()[1].arrays()[2].tolist() == list(range(300, 310))
    # Migrated, it trains on; a migrated folder is left as it is.
    run.save(4, models[0], tiny_buffer(5, 400), {}, keep=False, is_best=False)
    assert with_optimizer(run.path) == ["resume_0004.keras"]
    assert resumes_as(run, models[0])
    migrated = tree(run.path)
    assert migrate_run(run.path) == [] and tree(run.path) == migrated


@pytest.mark.parametrize("stage", range(7))
def test_a_kill_while_migrating_leaves_the_folder_as_it_was_or_migrated(
    tmp_path, models, monkeypatch, stage
):
    """Replaces: the resume copy, metadata.json, the two models, latest.keras, best.keras and
    the buffer. Killed before metadata.json, the folder is still of format 1."""
    run = old_layout_run(tmp_path / "run", models)
    real_replace, calls = os.replace, []

    def replace(src, dst, *args, **kwargs):
        if len(calls) == stage:
            raise KeyboardInterrupt("killed")  # not caught on the way out, as a kill
        calls.append(dst)
        return real_replace(src, dst, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", replace)
        with pytest.raises(KeyboardInterrupt):
            migrate_run(run.path)
    if stage < 2:
        with pytest.raises(CheckpointError, match="migrate_run"):
            run.load()
    else:
        assert resumes_as(run, models[2])
    migrate_run(run.path)  # again: it finishes the work
    assert with_optimizer(run.path) == ["resume_0003.keras"]
    assert buffer_format(run.path / "buffer_0003.npz") == 2
    assert resumes_as(run, models[2])


def test_a_format_2_folder_resumes_as_it_is_and_migrating_changes_only_its_number(tmp_path, models):
    """A run folder of format 2 loads, plays and resumes without being migrated."""
    run = RunDir.create(tmp_path / "run", make_config())
    run.save(1, models[0], tiny_buffer(5), {}, keep=False, is_best=True)
    metadata_file = run.path / "metadata.json"
    metadata_file.write_text(json.dumps({**run.read_metadata(), "format": 2}))
    assert resumes_as(run, models[0])
    before = tree(run.path)
    assert migrate_run(run.path) == ["metadata.json"]
    assert run.read_metadata()["format"] == FORMAT
    assert {name for name, data in tree(run.path).items() if before[name] != data} == {
        "metadata.json"
    }


def test_the_command_migrates_each_folder_and_refuses_one_being_trained(tmp_path, models, capsys):
    old, other = old_layout_run(tmp_path / "old", models), old_layout_run(tmp_path / "b", models)
    with RunLock(other.path):
        assert main([str(old.path), str(other.path)]) == 2
    out, err = capsys.readouterr()
    assert f"{old.path}: 6 files rewritten" in out
    assert f"process {os.getpid()} is training this run" in err
    assert main([str(other.path), str(old.path)]) == 0
    assert f"{old.path}: already current" in capsys.readouterr().out
    assert main([str(tmp_path / "nowhere")]) == 2
    assert "not a run folder" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()
