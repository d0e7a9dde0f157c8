"""A ``.keras`` file checked before Keras opens it: its members, the sizes they declare, the
classes its config names, and the weights its network needs.

A ``.keras`` file is a zip archive that Keras unpacks and rebuilds a network from. What it
declares is read first, without unpacking anything big: a model file of this project holds
``config.json`` (at most ``MAX_CONFIG`` bytes), ``metadata.json`` and ``model.weights.h5``
and nothing else (so no ``../`` name, no asset a layer would read); its config names only the
Keras classes this project's networks are made of (no ``Lambda``, no ``TFSMLayer``, no
lookup layer reading a file, no function of another module); and the network it declares
must have its weights in the HDF5 file, stored uncompressed. Building that network then
takes no more memory than the weights file holds, and the weights file no more than
``MAX_RATIO`` times its bytes on disk: a zip bomb is refused before it is unpacked.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MAX_CONFIG = 1 << 20
"""Bytes of ``config.json`` (a 15x15 Gomoku network's is about 60 KB)."""
MAX_METADATA = 64 << 10
MAX_WEIGHTS = 4 << 30
MAX_RATIO = 64
"""How much larger than its compressed bytes ``model.weights.h5`` may unpack (network weights
deflate by about a tenth)."""
MEMBERS = {"config.json": MAX_CONFIG, "metadata.json": MAX_METADATA, "model.weights.h5": None}

LAYERS = {
    "InputLayer",
    "Conv2D",
    "BatchNormalization",
    "ReLU",
    "Activation",
    "Add",
    "Flatten",
    "Dense",
    "Dropout",
}
"""The layers of this project's networks (``network.build_network``) and its tests'."""
OBJECTS = {
    "Functional",
    "__keras_tensor__",
    "DTypePolicy",
    "FloatDTypePolicy",
    *("Zeros", "Ones", "Constant", "HeNormal", "HeUniform", "GlorotUniform", "GlorotNormal"),
    *("RandomNormal", "RandomUniform", "TruncatedNormal", "L1", "L2", "L1L2"),
    *("Adam", "AdamW", "SGD", "CosineDecay", "ExponentialDecay", "PiecewiseConstantDecay"),
    *("CategoricalCrossentropy", "MeanSquaredError", "BinaryCrossentropy", "Huber"),
}
"""Everything else a saved network of this project names: initializers, regularizers,
optimizers, schedules and losses."""


class ArchiveError(ValueError):
    """An archive refused before unpacking; the message is one line, without the file name."""


def check_keras_archive(file: Path) -> None:
    """``ArchiveError`` unless ``file`` is a model file of this project by what it declares
    (see the module docstring); nothing large is unpacked."""
    try:
        with zipfile.ZipFile(file) as archive:
            infos = archive.infolist()
            _check_members(infos)
            config = _read_json(archive, "config.json")
            names = [info.filename for info in infos]
            weights = archive.getinfo("model.weights.h5") if "model.weights.h5" in names else None
            if not isinstance(config, dict):
                raise ArchiveError("config.json is not a JSON object")
            for item in _objects(config):
                _check_class(item)
            parameters = declared_parameters(config)
            if weights is None:
                raise ArchiveError("no model.weights.h5 (the network's weights)")
            if parameters * 4 > weights.file_size + (1 << 20):
                raise ArchiveError(
                    f"the network declares {parameters:,} weights, more than model.weights.h5 "
                    f"holds ({weights.file_size:,} bytes)"
                )
            _check_hdf5(archive.read(weights))
    except ArchiveError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, KeyError, ValueError) as error:
        raise ArchiveError(f"unreadable archive ({type(error).__name__}: {error})") from None


def _check_members(infos: list[zipfile.ZipInfo]) -> None:
    seen: set[str] = set()
    for info in infos:
        name = info.filename
        if name not in MEMBERS:
            raise ArchiveError(
                f"holds {name[:80]!r}: a model file holds only {', '.join(MEMBERS)} "
                f"(refused before unpacking)"
            )
        if name in seen:
            raise ArchiveError(f"holds {name!r} twice")
        seen.add(name)
        if info.flag_bits & 0x1:
            raise ArchiveError(f"{name} is encrypted")
        limit = MEMBERS[name]
        if limit is None:
            limit = min(MAX_WEIGHTS, max(MAX_CONFIG, MAX_RATIO * info.compress_size))
        if info.file_size > limit:
            raise ArchiveError(
                f"{name} would unpack to {info.file_size:,} bytes, over the {limit:,} a model "
                f"file of this size may hold (a zip bomb?); refused before unpacking"
            )
    if "config.json" not in seen:
        raise ArchiveError("no config.json (not a Keras model file)")


def _read_json(archive: zipfile.ZipFile, name: str) -> Any:
    try:
        return json.loads(archive.read(name).decode("utf-8"))
    except RecursionError:
        raise ArchiveError(f"{name} is nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise ArchiveError(f"{name} is not valid JSON ({error})") from None


def _objects(config: Any) -> Iterator[dict[str, Any]]:
    """Every serialized object (a dict with a ``class_name``) in ``config``, depth first."""
    stack = [config]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "class_name" in item:
                yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _check_class(item: dict[str, Any]) -> None:
    """``ArchiveError`` unless ``item`` names a class of Keras that this project saves, or
    one the project registered (``alphazero>...``)."""
    name, module = item.get("class_name"), item.get("module")
    registered = item.get("registered_name")
    ours = isinstance(registered, str) and registered.startswith("alphazero>")
    if ours and isinstance(module, str) and module.startswith("alphazero."):
        return
    keras_module = module is None or (
        isinstance(module, str) and (module == "keras" or module.startswith("keras."))
    )
    if name in LAYERS | OBJECTS and keras_module and registered in (None, name):
        return
    shown = name if isinstance(name, str) else repr(name)
    where = f" of {module}" if isinstance(module, str) and not keras_module else ""
    raise ArchiveError(
        f"names the class {shown[:60]!r}{where[:80]}, which no network of this project holds "
        f"(refused before loading: it could run code or read files)"
    )


# ---------------------------------------------------------------------- the network's size
def declared_parameters(config: dict[str, Any]) -> int:
    """The number of weights the network that ``config`` (a functional model's) declares,
    worked out from its layers' shapes without building it; ``ArchiveError`` for a graph
    this project never makes (another kind of model, a layer used twice, unknown shapes)."""
    if config.get("class_name") != "Functional" or not isinstance(config.get("config"), dict):
        raise ArchiveError("not a functional Keras network")
    layers = config["config"].get("layers")
    if not isinstance(layers, list):
        raise ArchiveError("config.json lists no layers")
    shapes: dict[str, tuple[int, ...]] = {}
    total = 0
    for layer in layers:
        if not isinstance(layer, dict) or not isinstance(layer.get("config"), dict):
            raise ArchiveError("config.json has a layer that is not an object")
        name = layer.get("name")
        if not isinstance(name, str) or name in shapes:
            raise ArchiveError(f"config.json has a layer without a name of its own ({name!r})")
        inputs = [shapes[source] for source in _sources(layer, shapes)]
        _check_build_config(name, layer.get("build_config"), inputs)
        shape, weights = _layer_shape(layer["class_name"], layer["config"], inputs)
        if math.prod(shape) > 1 << 28:
            raise ArchiveError(f"layer {name[:40]!r} declares an output of {list(shape)}")
        shapes[name] = shape
        total += weights
    return total


def _check_build_config(name: str, build: Any, inputs: list[tuple[int, ...]]) -> None:
    """``ArchiveError`` unless a layer's ``build_config`` declares the input shapes the graph
    gives it: Keras makes a layer's weights from it before it connects the graph, so a
    crafted one would allocate weights of any size."""
    if build is None:
        return
    batched = [[None, *shape] for shape in inputs]
    expected = batched[0] if len(batched) == 1 else batched
    if (
        not isinstance(build, dict)
        or set(build) != {"input_shape"}
        or (build["input_shape"] != expected)
    ):
        raise ArchiveError(
            f"layer {name[:40]!r} is built for {_cut_json(build)}, not the input its graph "
            f"gives it ({_cut_json(expected)})"
        )


def _cut_json(value: Any) -> str:
    """``value`` as JSON, cut to about 80 characters for a one-line message."""
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _sources(layer: dict[str, Any], known: dict[str, tuple[int, ...]]) -> list[str]:
    """The layers whose outputs ``layer`` takes (one call of it: the project's graphs)."""
    nodes = layer.get("inbound_nodes", [])
    if not isinstance(nodes, list) or len(nodes) > 1:
        raise ArchiveError(f"layer {str(layer.get('name'))[:40]!r} is called more than once")
    sources = []
    for item in _objects(nodes[0].get("args", []) if nodes and isinstance(nodes[0], dict) else []):
        tensor = item.get("config")
        history = tensor.get("keras_history") if isinstance(tensor, dict) else None
        if item.get("class_name") != "__keras_tensor__" or not isinstance(history, list):
            continue
        if not history or history[0] not in known or history[1:] not in ([0, 0], []):
            raise ArchiveError(f"layer {str(layer.get('name'))[:40]!r} takes an unknown input")
        sources.append(history[0])
    return sources[::-1]  # _objects walks lists from the end


def _ints(value: Any, count: int, what: str) -> tuple[int, ...]:
    values = tuple(value) if isinstance(value, list | tuple) else (value,) * count
    if len(values) != count or not all(type(v) is int and 0 < v <= 1 << 16 for v in values):
        raise ArchiveError(f"config.json: {what} must be {count} positive integers")
    return values


def _layer_shape(
    kind: str, config: dict[str, Any], inputs: list[tuple[int, ...]]
) -> tuple[tuple[int, ...], int]:
    """A layer's output shape (without the batch) and its number of weights."""
    if kind == "InputLayer":
        shape = config.get("batch_shape")
        if not isinstance(shape, list) or len(shape) < 2:
            raise ArchiveError("config.json: an input without a batch_shape")
        return _ints(shape[1:], len(shape) - 1, "an input's shape"), 0
    if len(inputs) < 2 if kind == "Add" else len(inputs) != 1:
        raise ArchiveError(f"config.json: a {kind} layer with {len(inputs)} inputs")
    shape = inputs[0]
    if kind in ("ReLU", "Activation", "Dropout", "Add"):
        return shape, 0
    if kind == "BatchNormalization":
        return shape, 4 * shape[-1]
    if kind == "Flatten":
        return (math.prod(shape),), 0
    bias = bool(config.get("use_bias", True))
    if kind == "Dense":
        (units,) = _ints(config.get("units"), 1, "units")
        return (*shape[:-1], units), shape[-1] * units + units * bias
    if kind == "Conv2D" and len(shape) == 3:
        (filters,) = _ints(config.get("filters"), 1, "filters")
        kernel = _ints(config.get("kernel_size"), 2, "kernel_size")
        strides = _ints(config.get("strides", 1), 2, "strides")
        if _ints(config.get("dilation_rate", 1), 2, "dilation_rate") != (1, 1):
            raise ArchiveError("config.json: a dilated Conv2D")
        if config.get("groups", 1) != 1 or config.get("data_format") == "channels_first":
            raise ArchiveError("config.json: a Conv2D of another layout")
        same = config.get("padding") == "same"
        size = [
            -(-n // s) if same else (n - k) // s + 1
            for n, k, s in zip(shape[:2], kernel, strides, strict=True)
        ]
        if min(size) < 1:
            raise ArchiveError("config.json: a Conv2D larger than its input")
        weights = kernel[0] * kernel[1] * shape[2] * filters + filters * bias
        return (size[0], size[1], filters), weights
    raise ArchiveError(f"config.json: a {kind} layer on an input of shape {list(shape)}")


def _check_hdf5(data: bytes) -> None:
    """``ArchiveError`` unless every array of the weights file is stored as it is (no
    compression filter to unpack, nothing outside the file): then their sizes are bounded
    by the file's, which ``_check_members`` bounds."""
    import h5py

    total = 0
    problems: list[str] = []

    def visit(name: str, item: Any) -> None:
        nonlocal total
        if isinstance(item, h5py.Dataset):
            filters = item.id.get_create_plist().get_nfilters()
            if filters or item.external or item.is_virtual:
                problems.append(name)
            total += item.size * item.dtype.itemsize
        elif not isinstance(item, h5py.Group):
            problems.append(name)

    try:
        with h5py.File(io.BytesIO(data), "r") as weights:
            weights.visititems(visit)
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise ArchiveError(f"model.weights.h5 is not a readable HDF5 file ({error})") from None
    if problems:
        raise ArchiveError(
            f"model.weights.h5 holds {problems[0][:60]!r} compressed or outside the file "
            f"(this project stores weights as they are)"
        )
    if total > len(data):
        raise ArchiveError(f"model.weights.h5 declares {total:,} bytes of weights in {len(data):,}")
