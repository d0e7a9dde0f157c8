"""A run's ``.keras`` model files: loaded with one-line errors and checked against the game
and the run's network, saved atomically, with or without the optimizer's state.

A compiled model's ``.keras`` file holds its optimizer too: Adam's two moments per weight
make it about three times the weights alone (21.6 MB against 7.3 MB for the 128x6 Connect
Four network). Only a run's resume point needs them; every other model file is saved
without (``include_optimizer=False``). Keras 3 ignores ``model.save(...,
include_optimizer=False)`` for ``.keras`` files, and ``keras.models.clone_model`` compiles
the clone again, so ``weights_only`` builds an uncompiled twin from the model's config.

Keras writes its zip archive uncompressed; the files are rewritten deflated, which makes
them about a tenth smaller (a 128x6 resume point 19.5 MB instead of 21.6 MB) for well under
a second, and keeps a run folder's largest file under what a git host takes gladly.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import NetworkConfig
from ..training.atomic import discard, fsync_dir, fsync_file, temp_file
from ..training.replay_buffer import _one_line
from ..training.run_errors import CheckpointError
from .keras_archive import MAX_CONFIG, ArchiveError, check_keras_archive

if TYPE_CHECKING:
    import keras

    from ..games.base import Game


def weights_only(model: keras.Model) -> keras.Model:
    """An uncompiled copy of ``model`` (same layers, names and weights, no optimizer), whose
    ``.keras`` file holds the weights alone; ``model`` itself if it is not compiled."""
    if not getattr(model, "compiled", False):
        return model
    from .tf_setup import keras  # TensorFlow's start-up chatter silenced

    twin = keras.Model.from_config(model.get_config())
    twin.set_weights(model.get_weights())
    return twin


def save_model_atomic(model: keras.Model, dst: Path, *, include_optimizer: bool = True) -> None:
    """``model.save`` to a temp ``.keras`` name in the same folder, fsync, ``os.replace``;
    without the optimizer's state unless ``include_optimizer``."""
    saved = model if include_optimizer else weights_only(model)
    fd, tmp = temp_file(dst.parent, dst.stem, dst.suffix)  # Keras wants the .keras suffix
    os.close(fd)
    fd, packed = temp_file(dst.parent, dst.stem, dst.suffix)
    os.close(fd)
    try:
        saved.save(tmp)
        deflate_zip(Path(tmp), Path(packed))
        fsync_file(packed)
        os.replace(packed, dst)
    except BaseException:
        discard(packed)
        raise
    finally:
        discard(tmp)
    fsync_dir(dst.parent)


def deflate_zip(src: Path, dst: Path) -> None:
    """Copy the zip archive ``src`` to ``dst`` with every entry deflated, names, order and
    bytes unchanged."""
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            with old.open(info) as entry, new.open(_deflated(info), "w") as copy:
                while chunk := entry.read(1 << 20):
                    copy.write(chunk)


def _deflated(info: zipfile.ZipInfo) -> zipfile.ZipInfo:
    copy = zipfile.ZipInfo(info.filename, info.date_time)
    copy.compress_type = zipfile.ZIP_DEFLATED
    copy.external_attr = info.external_attr
    return copy


def holds_optimizer(file: Path) -> bool:
    """Whether the ``.keras`` file was saved from a compiled model, and so holds its optimizer
    and loads compiled (read from its small ``config.json``, without TensorFlow). A file that
    cannot be read says False: it is left for loading to report."""
    try:
        with zipfile.ZipFile(file) as archive:
            if archive.getinfo("config.json").file_size > MAX_CONFIG:
                return False
            config = json.loads(archive.read("config.json"))
    except (OSError, KeyError, ValueError, RecursionError, zipfile.BadZipFile):
        return False
    return isinstance(config, dict) and bool(config.get("compile_config"))


def drop_optimizer(file: Path) -> None:
    """Rewrite the ``.keras`` file without its optimizer's state, atomically: a kill leaves
    the file as it was or as it is meant to be, and both load alike for playing."""
    save_model_atomic(load_keras_file(file, str(file), compile=False), file)


def load_keras_file(file: Path, shown: str, *, compile: bool = True) -> keras.Model:
    """Load one ``.keras`` file; every problem becomes a one-line ``CheckpointError``."""
    check_keras_file(file, shown)
    # Registers the learning-rate schedules a saved optimizer may hold; imported here, not
    # at the top, so that reading a run folder's config and metadata needs no TensorFlow.
    from . import schedules  # noqa: F401
    from .tf_setup import keras  # TensorFlow's start-up chatter silenced

    try:
        model = keras.models.load_model(file, compile=compile)
    except Exception as error:  # BadZipFile, ValueError, OSError, KeyError, TypeError...
        raise CheckpointError(
            f"{shown}: truncated, corrupt or not a model of this project ({_one_line(error)})"
        ) from None
    if not isinstance(model, keras.Model):
        raise CheckpointError(f"{shown}: holds a {type(model).__name__}, not a Keras model")
    return model


def check_keras_file(file: Path, shown: str) -> None:
    """``CheckpointError`` unless ``file`` is there, readable, named ``.keras`` and a zip
    archive (what a ``.keras`` file is), checked without loading Keras."""
    if not file.exists():
        raise CheckpointError(f"{shown}: no such model file")
    if not file.is_file():
        raise CheckpointError(f"{shown}: not a file")
    if file.suffix != ".keras":
        raise CheckpointError(f"{shown}: not a .keras model file")
    # A .keras file is a zip archive; Keras answers any other bytes with "File not found",
    # which misleads about a file that is there.
    try:
        open(file, "rb").close()
    except OSError as error:
        raise CheckpointError(f"{shown}: cannot read it ({_one_line(error)})") from None
    if not zipfile.is_zipfile(file):
        raise CheckpointError(f"{shown}: not a Keras model file (corrupt or truncated)")
    try:  # what the archive declares, before Keras unpacks anything
        check_keras_archive(file)
    except ArchiveError as error:
        raise CheckpointError(f"{shown}: {error}") from None


def check_model_fits(model: keras.Model, game: Game, shown: str = "model") -> None:
    """Raise ``CheckpointError`` unless ``model`` reads ``game``'s planes and its actions."""
    try:
        input_shape = tuple(model.inputs[0].shape[1:])
        output_sizes = [tuple(t.shape)[-1] for t in model.outputs]
    except (AttributeError, IndexError, TypeError, ValueError):
        return  # a subclassed model without symbolic inputs: nothing to compare
    check_shapes_fit(input_shape, output_sizes, game, shown)


def check_shapes_fit(
    input_shape: tuple[int | None, ...], output_sizes: list[int | None], game: Game, shown: str
) -> None:
    """Raise ``CheckpointError`` unless a network reading planes of ``input_shape`` (batch
    left out) with outputs of these last sizes reads ``game``'s planes and its actions."""
    plane_shape = tuple(game.plane_shape)
    if tuple(input_shape) != plane_shape:
        raise CheckpointError(
            f"{shown}: the model reads planes {list(input_shape)}, but {game.name} "
            f"{game.params} encodes {list(plane_shape)} (a model of another game?)"
        )
    if game.num_actions not in output_sizes:
        raise CheckpointError(
            f"{shown}: the model has outputs of sizes {output_sizes}, none is the "
            f"{game.num_actions} actions of {game.name} (a model of another game?)"
        )


def check_network_matches(model: keras.Model, network: NetworkConfig, shown: str) -> None:
    """Raise ``CheckpointError`` if ``model``'s tower is not the one ``network`` describes.

    A resumed run keeps its model, so an edited ``filters``, ``blocks``, ``value_hidden`` or
    ``value_channels`` would otherwise be ignored without a word. (``l2`` is a training
    setting, not part of the shape: the training loop applies a changed one to the loaded
    model.) The policy head must have the ``POLICY_CHANNELS`` every run has.
    """
    from .model import POLICY_CHANNELS, network_shape  # TensorFlow: the model has loaded it

    saved = network_shape(model)
    if saved is None:
        return
    if saved["policy_channels"] != POLICY_CHANNELS:
        raise CheckpointError(
            f"{shown}: the checkpoint's model has {saved['policy_channels']} policy channels, "
            f"not the {POLICY_CHANNELS} of every run (a model of a finished study: it plays, "
            f"but does not train on)"
        )
    for key, value in saved.items():
        wanted = getattr(network, key, value)
        if wanted != value:
            raise CheckpointError(
                f"{shown}: network.{key} is {wanted}, but the checkpoint's model has {value} "
                f"(a run keeps its network: put {value} back, or train the new network in a "
                f"new run with another --run-dir)"
            )
