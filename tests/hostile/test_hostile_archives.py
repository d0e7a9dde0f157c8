"""Hostile archives: ``.keras`` models and ``.npz`` buffers built to run code, read files or
eat the memory (issue 57, items 4, 6 and 9).

The ``.keras`` files are small zip files with a crafted ``config.json`` (or members), made
here from a tiny network. Each payload is tried twice: against the installed Keras alone
(which must refuse it: the floor in pyproject.toml is 3.14), and through the project's
loader, which refuses it with one line before Keras opens the file. A payload that ran
would write a marker file; none may appear. The next probe adds its cases to the tables."""

from __future__ import annotations

import base64
import io
import json
import marshal
import tempfile
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import h5py
import keras
import numpy as np
import pytest
from run_helpers import ACTIONS, SHAPE, tiny_model

from alphazero.network.keras_archive import MAX_CONFIG
from alphazero.selfplay.pending import read_pending
from alphazero.training.checkpoints import load_model
from alphazero.training.replay_buffer import ReplayBuffer, ReplayBufferError
from alphazero.training.run_errors import CheckpointError

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning",
    "ignore:Skipping invalid path during archive extraction:UserWarning",
)


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A model file of the project's kind: a tiny compiled tic-tac-toe network."""
    path = tmp_path_factory.mktemp("base") / "base.keras"
    tiny_model().save(path)
    return path


def config_of(base: Path) -> dict:
    return json.loads(zipfile.ZipFile(base).read("config.json"))


def craft(
    base: Path,
    path: Path,
    config: dict | bytes | None = None,
    weights: bytes | None = None,
    extra: tuple[tuple[str, bytes], ...] = (),
    compression: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """``base`` with its config.json or weights replaced and members added."""
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(path, "w", compression) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "config.json" and config is not None:
                data = config if isinstance(config, bytes) else json.dumps(config).encode()
            if info.filename == "model.weights.h5" and weights is not None:
                data = weights
            dst.writestr(info.filename, data)
        for name, data in extra:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # zipfile warns of a duplicate name
                dst.writestr(name, data)
    return path


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert message and "\n" not in message, message
    return message


# ------------------------------------------------------------------- code on load
def _evil_layer(kind: str, config: dict, source: str) -> dict:
    return {
        "module": "keras.layers",
        "class_name": kind,
        "config": {"name": "evil", **config},
        "registered_name": None,
        "name": "evil",
        "inbound_nodes": [
            {
                "args": [
                    {
                        "class_name": "__keras_tensor__",
                        "config": {"shape": [None, 27], "keras_history": [source, 0, 0]},
                    }
                ],
                "kwargs": {},
            }
        ],
    }


def with_evil_layer(base: Path, kind: str, config: dict) -> dict:
    """The base network with a layer ``evil`` between its Flatten and its heads."""
    model = config_of(base)
    layers = model["config"]["layers"]
    flatten = layers[1]["name"]
    layers.insert(2, _evil_layer(kind, config, flatten))
    for layer in layers[3:]:
        for node in layer["inbound_nodes"]:
            for tensor in node["args"]:
                if tensor["config"]["keras_history"][0] == flatten:
                    tensor["config"]["keras_history"][0] = "evil"
    return model


def _function(module: str, name: str) -> dict:
    return {"module": module, "class_name": "function", "config": name, "registered_name": name}


def _lambda_writing(marker: Path) -> dict:
    source = f"lambda x: (open({str(marker)!r}, 'w').write('ran'), x)[1]"
    code = eval(compile(source, "<payload>", "eval")).__code__  # the bytecode it carries
    encoded = base64.b64encode(marshal.dumps(code)).decode()
    return {"class_name": "__lambda__", "config": {"code": encoded, "defaults": None}}


def payload(base: Path, case: str, tmp_path: Path) -> Path:
    """A ``.keras`` file carrying the payload ``case``; a marker in ``tmp_path`` if it ran."""
    marker = tmp_path / "MARKER"

    def dense(activation: dict) -> dict:
        return with_evil_layer(base, "Dense", {"units": 27, "activation": activation})

    configs = {
        "lambda_bytecode": lambda: with_evil_layer(
            base, "Lambda", {"function": _lambda_writing(marker), "arguments": {}}
        ),
        "enable_unsafe_deserialization": lambda: dense(
            _function("keras.config", "enable_unsafe_deserialization")
        ),
        "get_file": lambda: dense(_function("keras.utils", "get_file")),
        "tfsm_layer": lambda: with_evil_layer(
            base, "TFSMLayer", {"filepath": str(tmp_path / "saved"), "call_endpoint": "serve"}
        ),
        "module_outside_keras": lambda: dense(_function("os", "system")),
        "string_lookup_reading_a_file": lambda: with_evil_layer(
            base, "StringLookup", {"vocabulary": str(tmp_path / "vocab.txt")}
        ),
    }
    (tmp_path / "vocab.txt").write_text("secret\n")
    path = tmp_path / f"{case}.keras"
    if case == "zip_slip":
        slip = [("../../zip_slip_marker", b"x"), ("assets/../../zip_slip_marker2", b"x")]
        return craft(base, path, extra=tuple(slip))
    return craft(base, path, config=configs[case]())


PAYLOADS = [
    # case: what the installed Keras says when it refuses it
    ("lambda_bytecode", "deserialization of a `Lambda` layer"),
    ("enable_unsafe_deserialization", "Non-modeling APIs are disallowed"),
    ("get_file", "Non-modeling APIs are disallowed"),
    ("tfsm_layer", "deserialization of a `TFSMLayer`"),
    ("module_outside_keras", "Could not locate function 'system'"),
    ("string_lookup_reading_a_file", "vocabulary file outside of the model archive"),
    ("zip_slip", None),
]


@pytest.fixture(autouse=True)
def temporary_files_inside(tmp_path, monkeypatch):
    """Keras unpacks an archive into a temporary folder: put those folders three levels down
    in ``tmp_path``, so that members escaping them with ``../`` land where ``nothing_ran``
    looks."""
    deep = tmp_path / "one" / "two" / "temporary"
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))


def nothing_ran(tmp_path: Path) -> bool:
    written = {"MARKER", "zip_slip_marker", "zip_slip_marker2"}
    places = [tmp_path.parent, tmp_path.parent.parent]
    found = [p / name for p in places for name in written if (p / name).exists()]
    return not found and not [p for p in tmp_path.rglob("*") if p.name in written]


@pytest.mark.parametrize(("case", "refusal"), PAYLOADS, ids=[c for c, _ in PAYLOADS])
def test_the_installed_keras_refuses_the_payload(base, tmp_path, case, refusal):
    file = payload(base, case, tmp_path)
    if refusal is None:  # zip-slip: the archive loads, its ../ members are not unpacked
        keras.models.load_model(file)
    else:
        with pytest.raises(Exception) as error:
            keras.models.load_model(file)
        assert refusal in str(error.value)
    assert nothing_ran(tmp_path)


def test_the_keras_floor_is_the_first_version_without_the_known_load_time_flaws():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"keras>=3.14' in text
    major, minor = (int(part) for part in keras.__version__.split(".")[:2])
    assert (major, minor) >= (3, 14)


@pytest.mark.parametrize("case", [c for c, _ in PAYLOADS])
def test_the_project_refuses_the_payload_before_keras_opens_it(base, tmp_path, case):
    file = payload(base, case, tmp_path)
    with pytest.raises(CheckpointError) as error:
        load_model(file)
    message = one_line(error)
    assert str(file) in message and "refused before" in message
    assert nothing_ran(tmp_path)


# ---------------------------------------------------------------- .keras zip bombs
def _hdf5(build) -> bytes:
    data = io.BytesIO()
    with h5py.File(data, "w") as file:
        build(file)
    return data.getvalue()


def _huge_dense(base: Path) -> dict:
    model = config_of(base)
    for layer in model["config"]["layers"]:
        if layer["class_name"] == "Dense":
            layer["config"]["units"] = 60_000  # 27 x 60,000 weights and more after it
    return model


def _built_wide(base: Path) -> dict:
    """Keras makes a layer's weights from its build_config before it connects the graph."""
    model = config_of(base)
    for layer in model["config"]["layers"]:
        if layer["class_name"] == "Dense":
            layer["build_config"]["input_shape"][-1] = 25_000_000  # a kernel of gigabytes
            break
    return model


BOMBS = {
    # case: (what to craft, what the line says)
    "config_json_of_2_mb": (
        lambda base, path: craft(base, path, config=b" " * (2 * MAX_CONFIG) + b"{}"),
        "config.json would unpack to",
    ),
    "weights_of_64_mb_zeros": (
        lambda base, path: craft(base, path, weights=bytes(64 << 20)),
        "model.weights.h5 would unpack to",
    ),
    "config_nested_100000_deep": (
        lambda base, path: craft(base, path, config=b"[" * 100_000 + b"]" * 100_000),
        "nested too deeply",
    ),
    "layer_built_for_another_input": (
        lambda base, path: craft(base, path, config=_built_wide(base)),
        'is built for {"input_shape": [null, 25000000]}, not the input its graph gives it '
        "([null, 27])",
    ),
    "network_larger_than_its_weights": (
        lambda base, path: craft(base, path, config=_huge_dense(base)),
        "more than model.weights.h5 holds",
    ),
    "hdf5_array_compressed": (
        lambda base, path: craft(
            base,
            path,
            weights=_hdf5(lambda f: f.create_dataset("w", data=np.zeros(1 << 22), compression=9)),
        ),
        "compressed or outside the file",
    ),
    "hdf5_array_declared_not_stored": (
        lambda base, path: craft(
            base, path, weights=_hdf5(lambda f: f.create_dataset("w", (1 << 30,), chunks=(1024,)))
        ),
        "declares",
    ),
    "member_besides_the_model": (
        lambda base, path: craft(base, path, extra=(("assets/vocab.txt", b"x"),)),
        "holds 'assets/vocab.txt'",
    ),
    "config_json_twice": (
        lambda base, path: craft(base, path, extra=(("config.json", b"{}"),)),
        "holds 'config.json' twice",
    ),
    "no_weights": (
        lambda base, path: _without(base, path, "model.weights.h5"),
        "no model.weights.h5",
    ),
    "a_sequential_model": (
        lambda base, path: craft(
            base, path, config={**config_of(base), "class_name": "Sequential"}
        ),
        "names the class 'Sequential'",
    ),
}


def _without(base: Path, path: Path, member: str) -> Path:
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            if info.filename != member:
                dst.writestr(info, src.read(info))
    return path


@pytest.mark.parametrize("case", list(BOMBS))
def test_a_keras_archive_is_refused_by_what_it_declares(base, tmp_path, case):
    build, expected = BOMBS[case]
    file = build(base, tmp_path / f"{case}.keras")
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError) as error:
            load_model(file)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert expected in one_line(error) and str(file) in one_line(error)
    assert peak < 32 << 20  # nothing large was unpacked


def test_the_projects_own_networks_pass_the_checks(tmp_path):
    from alphazero.config import NetworkConfig
    from alphazero.network.model import build_network
    from alphazero.network.model_files import save_model_atomic
    from alphazero.training.trainer import Trainer

    network = build_network(SHAPE, ACTIONS, NetworkConfig(filters=8, blocks=2, value_hidden=8))
    Trainer(network, __import__("run_helpers").tiny_config().train)  # compiles it
    save_model_atomic(network, tmp_path / "resume.keras")
    save_model_atomic(network, tmp_path / "weights.keras", include_optimizer=False)
    for name in ("resume.keras", "weights.keras"):
        loaded = load_model(tmp_path / name)
        assert len(loaded.get_weights()) == len(network.get_weights())
    for shipped in sorted((ROOT / "checkpoints" / "pretrained").glob("*/best.keras")):
        load_model(shipped)


# ------------------------------------------------------------------ .npz archives
def _npy(array: np.ndarray) -> bytes:
    data = io.BytesIO()
    np.lib.format.write_array(data, array, allow_pickle=True)
    return data.getvalue()


def buffer_npz(path: Path, replace: dict[str, bytes] | None = None, n: int = 4) -> Path:
    """A replay buffer file of ``n`` examples, with members replaced (raw bytes)."""
    arrays = {
        "format": np.int64(1),
        "capacity": np.int64(max(n, 1)),
        "total_added": np.int64(n),
        "planes": np.zeros((n, *SHAPE), np.uint8),
        "policies": np.full((n, ACTIONS), 1 / ACTIONS, np.float32),
        "values": np.zeros(n, np.float32),
    }
    members = {f"{name}.npy": _npy(np.asarray(value)) for name, value in arrays.items()}
    members.update(replace or {})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _header_only(shape: tuple[int, ...], dtype: str = "|u1") -> bytes:
    data = io.BytesIO()
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(data, header)
    return data.getvalue()


NPZ_CASES = {
    # case: (members replaced, what the line says)
    "planes_declaring_2_gb_in_a_few_bytes": (
        {"planes.npy": _header_only((80_000_000, *SHAPE))},
        "declares",
    ),
    "a_member_that_is_not_npy": ({"notes.txt": b"hello"}, "'notes.txt', which is not an .npy"),
    "planes_not_npy": ({"planes": b"\x00" * 64}, "'planes', which is not an .npy"),
    "object_values": ({"values.npy": _npy(np.array([None] * 4, object))}, "Python objects"),
    "planes_of_another_game": (
        {"planes.npy": _npy(np.zeros((4, 6, 7, 2), np.uint8))},
        "planes are [6, 7, 2]",
    ),
    "float64_planes": ({"planes.npy": _npy(np.zeros((4, *SHAPE)))}, "unexpected dtype"),
    "more_examples_than_its_capacity": (
        {"capacity.npy": _npy(np.int64(2))},
        "inconsistent sizes",
    ),
    "capacity_beyond_any_config": (
        {"capacity.npy": _npy(np.int64(10**12))},
        "inconsistent sizes",
    ),
    "npy_version_3": (
        {"values.npy": b"\x93NUMPY\x03\x00" + b"\x00" * 60},
        "not supported",
    ),
    "garbage_header": ({"values.npy": b"\x93NUMPY\x01\x00\x10\x00{'descr': 5}    \n"}, "header"),
}


@pytest.mark.parametrize("case", list(NPZ_CASES))
def test_a_buffer_archive_is_refused_by_what_it_declares(tmp_path, case):
    replace, expected = NPZ_CASES[case]
    path = buffer_npz(tmp_path / "buffer_0001.npz", replace)
    with pytest.raises(ReplayBufferError) as error:
        ReplayBuffer.load(path, 50, plane_shape=SHAPE, num_actions=ACTIONS)
    assert expected in one_line(error) and str(path) in one_line(error)


def test_a_buffer_that_unpacks_to_gigabytes_takes_only_the_rows_the_run_keeps(tmp_path):
    """100 MB of planes in a file of about 100 KB: the run keeps its capacity's newest rows,
    and memory never holds more than them."""
    n = 100_000_000 // int(np.prod(SHAPE))
    planes = np.zeros((n, *SHAPE), np.uint8)
    planes[-1] = 1  # the newest example, told apart from the rest
    values = np.zeros(n, np.float32)
    values[-1] = 1.0
    path = tmp_path / "bomb.npz"
    np.savez_compressed(
        path,
        format=np.int64(1),
        capacity=np.int64(n),
        total_added=np.int64(n),
        planes=planes,
        policies=np.zeros((n, ACTIONS), np.float32),
        values=values,
    )
    del planes, values
    assert path.stat().st_size < 2 << 20
    tracemalloc.start()
    try:
        buffer = ReplayBuffer.load(path, 50, plane_shape=SHAPE, num_actions=ACTIONS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(buffer) == 50 and buffer.total_added == n
    planes, _, values = buffer.arrays()
    assert values[-1] == 1 and planes[-1].all() and not planes[0].any() and not values[0]
    assert peak < 40 << 20, peak


def buffer_npz_2(path: Path, replace: dict[str, bytes] | None = None, n: int = 4) -> Path:
    """A format 2 replay buffer file of ``n`` examples (each its own mirror's copy), with
    members replaced (raw bytes)."""
    width = int(np.prod(SHAPE))
    mirror = np.arange(width).reshape(SHAPE)[:, ::-1].reshape(-1)
    arrays = {
        "format": np.int64(2),
        "capacity": np.int64(max(n, 1)),
        "total_added": np.int64(n),
        "plane_shape": np.array(SHAPE, np.int64),
        "copy_offset": np.array([0, 1] * (n // 2), np.uint8),
        "copy_symmetry": np.array([0, 1] * (n // 2), np.uint8),
        "symmetry_planes": np.stack([np.arange(width), mirror]).astype(np.int32),
        "symmetry_policies": np.stack([np.arange(ACTIONS)] * 2).astype(np.int32),
        "packed_planes": np.zeros((n // 2, (width + 7) // 8), np.uint8),
        "policies": np.full((n // 2, ACTIONS), 1 / ACTIONS, np.float32),
        "values": np.zeros(n // 2, np.float32),
    }
    members = {f"{name}.npy": _npy(np.asarray(value)) for name, value in arrays.items()}
    members.update(replace or {})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


_WIDTH = int(np.prod(SHAPE))
NPZ_2_CASES = {
    # case: (members replaced, what the line says)
    "packed_planes_declaring_2_gb_in_a_few_bytes": (
        {"packed_planes.npy": _header_only((2_000_000_000, 1))},
        "declares",
    ),
    "more_examples_than_its_capacity": (
        {"capacity.npy": _npy(np.int64(2))},
        "inconsistent sizes",
    ),
    "more_symmetries_than_any_board": (
        {"symmetry_planes.npy": _npy(np.zeros((49, _WIDTH), np.int32))},
        "at most 48",
    ),
    "a_symmetry_pointing_outside_the_planes": (
        {"symmetry_planes.npy": _npy(np.full((2, _WIDTH), _WIDTH, np.int32))},
        "points outside",
    ),
    "a_copy_of_a_copy": (
        {"copy_offset.npy": _npy(np.array([0, 1, 1, 0], np.uint8))},
        "refers to an example",
    ),
    "a_copy_of_nothing_before_it": (
        {"copy_offset.npy": _npy(np.array([2, 1, 0, 1], np.uint8))},
        "refers to an example",
    ),
    "planes_of_another_game": (
        {"packed_planes.npy": _npy(np.zeros((2, 9), np.uint8))},
        "do not hold",
    ),
    "more_stored_rows_than_planes": (
        {"values.npy": _npy(np.zeros(3, np.float32))},
        "stored examples",
    ),
    "no_copy_table": ({"copy_symmetry.npy": _npy(np.zeros(4, np.int64))}, "uint8"),
    "format_3": ({"format.npy": _npy(np.int64(3))}, "format 3 is not supported"),
}


def test_a_well_formed_format_2_file_loads(tmp_path):
    buffer = ReplayBuffer.load(buffer_npz_2(tmp_path / "b.npz"), 50, plane_shape=SHAPE)
    assert len(buffer) == 4


@pytest.mark.parametrize("case", list(NPZ_2_CASES))
def test_a_format_2_buffer_is_refused_by_what_it_declares(tmp_path, case):
    replace, expected = NPZ_2_CASES[case]
    path = buffer_npz_2(tmp_path / "buffer_0001.npz", replace)
    with pytest.raises(ReplayBufferError) as error:
        ReplayBuffer.load(path, 50, plane_shape=SHAPE, num_actions=ACTIONS)
    assert expected in one_line(error) and str(path) in one_line(error)


def test_a_format_2_buffer_of_millions_of_examples_unpacks_only_the_rows_the_run_keeps(
    tmp_path,
):
    n = 4_000_000
    values = np.zeros(n, np.float32)
    values[-1] = 1.0
    path = tmp_path / "bomb.npz"
    np.savez_compressed(
        path,
        format=np.int64(2),
        capacity=np.int64(n),
        total_added=np.int64(n),
        plane_shape=np.array(SHAPE, np.int64),
        copy_offset=np.zeros(n, np.uint8),
        copy_symmetry=np.zeros(n, np.uint8),
        symmetry_planes=np.zeros((0, _WIDTH), np.int32),
        symmetry_policies=np.zeros((0, ACTIONS), np.int32),
        packed_planes=np.zeros((n, (_WIDTH + 7) // 8), np.uint8),
        policies=np.zeros((n, ACTIONS), np.float32),
        values=values,
    )
    del values
    tracemalloc.start()
    try:
        buffer = ReplayBuffer.load(path, 50, plane_shape=SHAPE, num_actions=ACTIONS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(buffer) == 50 and buffer.total_added == n and buffer.arrays()[2][-1] == 1
    assert peak < 20 << 20, peak


def test_pending_games_with_a_member_that_is_not_npy_is_one_line(tmp_path):
    path = tmp_path / "pending_selfplay.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("info", b'{"format": 1}')
        archive.writestr("planes.npy", _npy(np.zeros((1, *SHAPE), np.uint8)))
    with pytest.raises(CheckpointError) as error:
        read_pending(path)
    assert "'info', which is not an .npy" in one_line(error)


def _small_and_refused(load, expected: str) -> None:
    """``load()`` raises a one-line error holding ``expected`` without unpacking much."""
    tracemalloc.start()
    try:
        with pytest.raises((CheckpointError, ReplayBufferError)) as error:
            load()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert expected in one_line(error)
    assert peak < 20 << 20, peak


def test_a_buffer_whose_format_declares_300_mb_is_refused_before_it_is_unpacked(tmp_path):
    path = tmp_path / "bomb.npz"
    np.savez_compressed(  # 300 MB of zeros pack into about 300 KB
        path, format=np.zeros(300 << 20, np.uint8), capacity=np.int64(1), total_added=np.int64(1)
    )
    assert path.stat().st_size < 1 << 20
    _small_and_refused(
        lambda: ReplayBuffer.load(path, plane_shape=SHAPE, num_actions=ACTIONS),
        "'format' must be an integer scalar, got uint8 (314572800,)",
    )


def _pending_file(path: Path, rows: int, info: bytes = b'{"format": 1}', shape=SHAPE) -> Path:
    np.savez_compressed(
        path,
        info=np.frombuffer(info, np.uint8),
        planes=np.zeros((rows, *shape), np.uint8),
        policies=np.zeros((rows, ACTIONS), np.float32),
        values=np.zeros(rows, np.float32),
    )
    return path


@pytest.mark.parametrize(
    ("rows", "info", "shape", "expected"),
    [
        (200_000, b"{}", SHAPE, "declares 200,000 examples, more than an iteration of this run"),
        (10, b" " * (2 << 20), SHAPE, "its info is not a short text ([2097152] uint8)"),
        (10, b"{}", (9, 9, 2), "its games are not of this run's game (planes [9, 9, 2]"),
    ],
    ids=["too-many-examples", "info-bomb", "another-game"],
)
def test_pending_games_are_refused_by_their_headers_before_they_are_unpacked(
    tmp_path, rows, info, shape, expected
):
    path = _pending_file(tmp_path / "pending_selfplay.npz", rows, info, shape)
    assert path.stat().st_size < 2 << 20
    _small_and_refused(lambda: read_pending(path, SHAPE, ACTIONS, 1_000), expected)


def test_pending_games_within_the_bound_still_load(tmp_path):
    info = json.dumps(
        {"format": 1, "iteration": 3, "stats": {"games": 2}, "rng": {}, "complete": False}
    )
    path = _pending_file(tmp_path / "pending_selfplay.npz", 1_000, info.encode())
    pending = read_pending(path, SHAPE, ACTIONS, 1_000)
    assert pending.iteration == 3 and pending.games == 2 and len(pending.values) == 1_000


def test_pending_games_unpack_none_of_a_member_they_do_not_read(tmp_path):
    info = json.dumps(
        {"format": 1, "iteration": 3, "stats": {"games": 2}, "rng": {}, "complete": False}
    )
    path = _pending_file(tmp_path / "pending_selfplay.npz", 10, info.encode())
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("extra.npy", _npy(np.zeros(64 << 20, np.uint8)))
    tracemalloc.start()
    try:
        pending = read_pending(path, SHAPE, ACTIONS, 1_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(pending.values) == 10 and peak < 20 << 20, peak
