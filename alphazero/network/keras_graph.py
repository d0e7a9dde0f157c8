"""A network's layers, their wiring and their weights, read from a ``.keras`` file without
TensorFlow, or taken from a live Keras model: what ``engines.openvino_model`` builds from.

A ``.keras`` file is a zip archive: ``config.json`` holds the functional model's layers, each
with the layers whose outputs it reads, and ``model.weights.h5`` holds every layer's variables
under a group whose ``name`` attribute is the layer's name. Reading those two takes a few
milliseconds with ``json`` and ``h5py``; ``keras.models.load_model`` first imports TensorFlow,
several seconds on a loaded machine, which is what ``play.py`` made a person wait for before
the model's first move.

Only the plain functional networks ``network.build_network`` makes are read: one input, two
outputs, each layer called once. Anything else raises ``GraphError``, and the caller loads the
file with Keras instead (or keeps the model on TensorFlow).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import keras


class GraphError(ValueError):
    """A network this module cannot describe: not one ``build_network`` makes, or a file it
    cannot read. One line."""


@dataclass(frozen=True)
class LayerSpec:
    """One layer: its Keras class name, its config (as Keras saves it), its variables in
    Keras's order, and the names of the layers whose outputs it reads."""

    kind: str
    name: str
    config: Mapping[str, Any]
    weights: tuple[np.ndarray, ...]
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class NetworkGraph:
    """A network from its input to its two outputs (policy logits, win / draw / loss logits).

    ``layers`` come in an order where every layer follows the layers it reads; the input
    itself is not among them, and layers read it under ``input_name``.
    """

    input_name: str
    plane_shape: tuple[int, int, int]
    layers: tuple[LayerSpec, ...]
    outputs: tuple[str, str]

    @property
    def output_sizes(self) -> list[int]:
        """The last dimension of each output, as ``check_model_fits`` compares them."""
        by_name = {layer.name: layer for layer in self.layers}
        sizes = []
        for name in self.outputs:
            layer = by_name.get(name)
            if layer is None or layer.kind != "Dense":
                raise GraphError(f"output {name!r} is not a Dense layer")
            sizes.append(int(layer.config["units"]))
        return sizes


# ------------------------------------------------------------------------ from a file
def read_keras_file(file: Path) -> NetworkGraph:
    """The network a ``.keras`` file holds, read without Keras; ``GraphError`` for a file this
    reader does not understand (the caller then lets Keras load it, which says what is wrong
    with a broken file)."""
    import h5py  # a dependency of Keras; it loads in milliseconds, unlike TensorFlow

    try:
        with zipfile.ZipFile(file) as archive:
            config = json.loads(archive.read("config.json"))
            weights_bytes = archive.read("model.weights.h5")
        with h5py.File(io.BytesIO(weights_bytes), "r") as h5:
            weights = _weights_by_layer(h5)
        return _graph_from_config(config, weights)
    except GraphError:
        raise
    except Exception as error:  # zipfile, JSON, HDF5 and shape errors alike
        raise GraphError(f"{file}: not read without Keras ({type(error).__name__})") from None


def _weights_by_layer(h5: Any) -> dict[str, tuple[np.ndarray, ...]]:
    """Each layer's variables, found by the ``name`` attribute Keras writes on its group."""
    found: dict[str, tuple[np.ndarray, ...]] = {}

    def visit(_path: str, item: Any) -> None:
        name = item.attrs.get("name") if hasattr(item, "attrs") else None
        if name is None or not _path.startswith("layers/") or not _path.endswith("/vars"):
            return
        keys = sorted(item.keys(), key=int)
        found[str(name)] = tuple(np.asarray(item[k], dtype=np.float32) for k in keys)

    h5.visititems(visit)
    return found


def _history_names(arg: Any) -> Iterator[str]:
    """The layer names of the Keras tensors in one saved call's arguments (nested lists)."""
    if isinstance(arg, list):
        for item in arg:
            yield from _history_names(item)
    elif isinstance(arg, dict) and arg.get("class_name") == "__keras_tensor__":
        name, node, index = arg["config"]["keras_history"]
        if node != 0 or index != 0:
            raise GraphError("only networks whose layers are each called once")
        yield str(name)


def _graph_from_config(
    config: Mapping[str, Any], weights: Mapping[str, tuple[np.ndarray, ...]]
) -> NetworkGraph:
    if config.get("class_name") != "Functional":
        raise GraphError(f"a {config.get('class_name')} model, not a functional network")
    model = config["config"]
    inputs, outputs = model["input_layers"], model["output_layers"]
    if isinstance(inputs[0], str):  # one input is saved as [name, 0, 0]
        inputs = [inputs]
    if len(inputs) != 1 or len(outputs) != 2:
        raise GraphError("only networks with one input and two outputs")
    input_name = str(inputs[0][0])
    plane_shape: tuple[int, int, int] | None = None
    layers: list[LayerSpec] = []
    seen = {input_name}
    for saved in model["layers"]:
        kind, name = saved["class_name"], saved["config"]["name"]
        if kind == "InputLayer":
            shape = saved["config"].get("batch_shape") or saved["config"].get("batch_input_shape")
            plane_shape = tuple(int(d) for d in shape[1:])  # type: ignore[assignment]
            continue
        nodes = saved.get("inbound_nodes") or []
        if len(nodes) != 1:
            raise GraphError(f"layer {name!r} is called {len(nodes)} times")
        reads = tuple(_history_names(nodes[0]["args"]))
        if not reads or not set(reads) <= seen:
            raise GraphError(f"layer {name!r} reads layers not saved before it")
        layers.append(LayerSpec(kind, name, saved["config"], weights.get(name, ()), reads))
        seen.add(name)
    if plane_shape is None or len(plane_shape) != 3:
        raise GraphError("no input of shape [H, W, C]")
    names = (str(outputs[0][0]), str(outputs[1][0]))
    return NetworkGraph(input_name, plane_shape, tuple(layers), names)


# ------------------------------------------------------------------- from a live model
def graph_of(model: keras.Model) -> NetworkGraph:
    """The same description of a Keras model in memory (its current weights)."""
    if len(model.inputs) != 1 or len(model.outputs) != 2:
        raise GraphError("only networks with one input and two outputs")
    input_layer = model.inputs[0]._keras_history.operation  # Keras has no public accessor
    made_by = {id(model.inputs[0]): input_layer.name}
    layers = []
    for layer in model.layers:
        if type(layer).__name__ == "InputLayer":
            continue
        nodes = layer._inbound_nodes  # Keras keeps no public list of a layer's calls
        if len(nodes) != 1:
            raise GraphError(f"layer {layer.name!r} is called {len(nodes)} times")
        reads = tuple(made_by[id(t)] for t in nodes[0].input_tensors)
        made_by[id(nodes[0].output_tensors[0])] = layer.name
        weights = tuple(np.asarray(w, dtype=np.float32) for w in layer.get_weights())
        layers.append(
            LayerSpec(type(layer).__name__, layer.name, layer.get_config(), weights, reads)
        )
    plane_shape = tuple(int(d) for d in model.inputs[0].shape[1:])
    outputs = (made_by[id(model.outputs[0])], made_by[id(model.outputs[1])])
    return NetworkGraph(input_layer.name, plane_shape, tuple(layers), outputs)  # type: ignore[arg-type]
