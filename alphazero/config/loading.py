"""Reading a config: the YAML file, its ``base:`` chain, the removed switches, then the typed
sections and the checks across them. Every problem is one ``ConfigError`` line that names
the file and the key."""

from __future__ import annotations

import dataclasses
import difflib
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import yaml

from ..games import make
from .checks import check_combinations
from .errors import ConfigError, cut, from_elsewhere, shown
from .removed import without_removed
from .sections import Config
from .strict_yaml import MAX_BYTES, YamlRefused
from .strict_yaml import load as load_strict
from .typed import build


class RecordedConfig(NamedTuple):
    """A config read for the record (``read_recorded_config``), not to be run."""

    config: Config
    ignored: list[str]
    """The removed switches it set to anything but their off value (``section.key``), which
    the config therefore does not show."""


def config_from_dict(data: dict[str, Any]) -> Config:
    """Build and validate a ``Config``; the game and its parameters are checked too. A removed
    switch set to anything but its off value is an error (``removed.py``)."""
    return _from_dict(data, ignore_removed=False).config


def _from_dict(data: Any, *, ignore_removed: bool) -> RecordedConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"a config must be a mapping of sections, got {type(data).__name__}")
    data, ignored = without_removed(data, ignore=ignore_removed)
    config = build(Config, data)
    try:  # the game registry validates the name and parameters
        make(config.game.name, **config.game.params)
    except (ValueError, TypeError) as error:
        raise ConfigError(f"game: {from_elsewhere(error)}") from None
    check_combinations(config)
    if config.selfplay.parallel_games > config.selfplay.games_per_iteration:
        config = dataclasses.replace(
            config,
            selfplay=dataclasses.replace(
                config.selfplay, parallel_games=config.selfplay.games_per_iteration
            ),
        )
    return RecordedConfig(config, ignored)


def _near_configs(path: Path) -> str:
    """For a config that is not there, the configs beside it its name may have meant: those
    that add to its name (``gomoku.yaml``: ``gomoku_6x6.yaml``, ``gomoku_15x15.yaml``), else
    the closest spellings; empty when there are none."""
    try:
        names = sorted(p.name for p in path.parent.glob("*.yaml"))
    except OSError:
        return ""
    near = [n for n in names if n.startswith(f"{path.stem}_")]
    near = near or difflib.get_close_matches(path.name, names, n=3, cutoff=0.75)
    if not near:
        return ""
    return " (did you mean " + " or ".join(str(path.parent / n) for n in near) + "?)"


def _open_config(path: Path) -> BinaryIO:
    """``path`` opened to read: a file, or a pipe (``--config <(...)``). A device is refused
    (``ConfigError``): a terminal would wait for typing, ``/dev/zero`` never ends."""
    # Configs are also read unasked (play.py looks through every config.yaml under
    # checkpoints/), so opening must not wait: a FIFO that no one writes to would block a
    # plain open() for ever. Opened without waiting, it reads as empty (refused as such).
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISDIR(mode)):
            raise ConfigError(f"{path}: not a file (a device or socket); not read")
        os.set_blocking(fd, True)  # a pipe with a writer: wait for what it writes
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_yaml(path: Path) -> Any:
    """The YAML document in ``path``; any problem is a one-line ``ConfigError`` naming the
    file. An empty file is one: it would silently start a default run. The file is read
    with ``strict_yaml`` (no duplicated keys, bounded nesting and aliases), and only if it
    is at most ``strict_yaml.MAX_BYTES`` long."""
    try:
        with _open_config(path) as handle:
            # Read one byte past the limit rather than trust the size a stat gives: a
            # pipe has none.
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file{_near_configs(path)}") from None
    except OSError as error:
        # strerror, not str(error): that repeats the path, which the line already starts with
        reason = error.strerror or (str(error).strip().splitlines() or [""])[0]
        raise ConfigError(f"{path}: cannot read it ({reason})") from None
    if len(raw) > MAX_BYTES:
        raise ConfigError(
            f"{path}: larger than {MAX_BYTES // 1_000_000} MB, too large for a "
            f"config (one is a few KB); not read"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: cannot read it ({cut(str(error), 200)})") from None
    try:
        data = load_strict(text)
    except YamlRefused as error:
        raise ConfigError(f"{path}: {error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        # The parser's reason, e.g. "found character '\t' that cannot start any token"; its
        # other lines (the context, the line quoted with a caret) would break the one line.
        problem = getattr(error, "problem", None)
        reason = f": {cut(' '.join(str(problem).split()), 160)}" if problem else ""
        raise ConfigError(f"{path}: not valid YAML{where}{reason}") from None
    except ValueError as error:  # PyYAML passes on int()'s: an integer of over 4300 digits
        raise ConfigError(f"{path}: not a usable value in it ({cut(str(error))})") from None
    if data is None:
        raise ConfigError(
            f"{path}: empty, no settings in it (a config names at least its game; see configs/)"
        )
    return data


MAX_BASES = 8
"""How many ``base:`` files one config may stand on, one over another."""


def load_config(path: str | Path) -> Config:
    """Read a YAML config to run it; any problem is a one-line ``ConfigError``.

    A config may start from another: ``base: ../connect4.yaml`` (a path relative to the folder
    of the file that names it) takes every setting of that file, and this file's own settings
    override them, key by key inside each section (a different ``game.name`` replaces the
    whole ``game`` section: another game's parameters would not fit). So an experiment names
    only what it changes. The base's ``run_name`` is not taken: a run is named after its own
    file.
    """
    return _load(Path(path), ignore_removed=False).config


def read_recorded_config(path: str | Path) -> RecordedConfig:
    """Read a config of the research record (``configs/experiments/``, a finished run's
    ``config.yaml``) as ``load_config`` does, except that a removed switch set to anything
    but its off value is left out and named in ``ignored`` instead of refused: the file
    records what was run, and the code that ran it is gone. For reading and reporting only;
    training and ``--resume`` use ``load_config``."""
    return _load(Path(path), ignore_removed=True)


def _load(path: Path, *, ignore_removed: bool) -> RecordedConfig:
    data = _with_bases(path, (), ignore_removed=ignore_removed)
    if isinstance(data, dict) and data.get("run_name") is None:
        data = {**data, "run_name": path.stem}
    try:
        return _from_dict(data, ignore_removed=ignore_removed)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def config_data(path: Path) -> Any:
    """The YAML document in ``path`` with its ``base:`` chain resolved (see ``load_config``);
    not yet checked as a config, but each base is. Problems are one-line ``ConfigError``s."""
    return _with_bases(Path(path), (), ignore_removed=False)


def _with_bases(path: Path, below: tuple[Path, ...], *, ignore_removed: bool) -> Any:
    """``config_data``; ``below``: the files already read on the way here, which stand on
    this one."""
    data = read_yaml(path)
    if not isinstance(data, dict) or "base" not in data:
        return data
    data = dict(data)
    base = data.pop("base")
    if not isinstance(base, str) or not base.strip() or not base.isprintable():
        raise ConfigError(f"{path}: base: must be the path of another config, got {shown(base)}")
    base_path = path.parent / base
    try:
        chain, resolved = (*below, path.resolve()), base_path.resolve()
    except (OSError, ValueError, RuntimeError) as error:  # a NUL byte, a symlink loop
        raise ConfigError(f"{path}: base: {cut(base)}: not a usable path ({error})") from None
    if resolved in chain:
        raise ConfigError(f"{path}: base: {cut(base)} leads back to {cut(path.name)}")
    if len(chain) > MAX_BASES:
        raise ConfigError(f"{path}: base: more than {MAX_BASES} configs stand on one another")
    try:
        under = _with_bases(base_path, chain, ignore_removed=ignore_removed)
        if not isinstance(under, dict):
            raise ConfigError(f"{base_path}: is not a mapping of sections")
        # checked on its own, so that a bad setting of the base is blamed on the base
        _from_dict(under, ignore_removed=ignore_removed)
    except ConfigError as error:  # name the base once, cut: it may be any length
        message = str(error).removeprefix(f"{base_path}: ")
        raise ConfigError(f"{path}: base: {cut(str(base_path), 160)}: {message}") from None
    under.pop("run_name", None)
    game, base_game = data.get("game"), under.get("game")
    if (
        isinstance(game, dict)
        and isinstance(base_game, dict)
        and game.get("name", base_game.get("name")) != base_game.get("name")
    ):
        under.pop("game")
    return _merged(under, data)


def _merged(under: dict[Any, Any], over: dict[Any, Any]) -> dict[Any, Any]:
    """``over`` on top of ``under``: mappings merge key by key, any other value replaces."""
    merged = dict(under)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged
