"""Which model plays a game when ``--model`` is not given (a shipped one, else a run of
``train.py``), and how to train one when there is none; which game the models the command line
names were trained on (``run_game``, ``named_game``), and a ``--game`` they cannot play."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..config import ConfigError, config_data
from ..evaluation.model_search import run_folder
from ..evaluation.player_specs import PlayerSpecError, model_spec_parts
from ..games import make, view_for
from ..games.base import GameError
from ..training.run_files import CONFIG_FILE
from .defaults import DEFAULT_GAME, FALLBACK_OPPONENT

PRETRAINED_DIR = Path("checkpoints", "pretrained")
"""Shipped models: ``checkpoints/pretrained/<game>/``, a run folder (``best.keras`` inside)."""
PROJECT_PRETRAINED_DIR = Path(__file__).resolve().parents[2] / PRETRAINED_DIR
"""The shipped models of the checkout this package lives in, so that ``play.py`` run from
another folder (where ``PRETRAINED_DIR``, a relative path, finds nothing) still has them."""
PROJECT_CONFIGS_DIR = Path(__file__).resolve().parents[2] / "configs"
"""The configs of the checkout this package lives in, named in the advice to train a model."""
RUNS_DIR = Path("checkpoints")
"""Where ``train.py`` writes its runs by default: ``checkpoints/<config name>/``."""


def default_model(name: str, params: Mapping[str, int] | None = None) -> Path | None:
    """The model ``play.py`` uses for game ``name`` with ``params`` when none is given.

    A shipped run folder in ``checkpoints/pretrained/`` first (the working folder's, else this
    checkout's: see ``pretrained_dirs``), else a run of ``train.py`` in ``checkpoints/`` that
    has saved a model; either must train this very game (the name and the parameters in its
    ``config.yaml``), so Gomoku 6x6 and 8x8 each find their own.
    ``None`` when there is none.
    """
    wanted = make(name, **(params or {})).params
    bases = [(base, False) for base in pretrained_dirs()] + [(RUNS_DIR, True)]
    for base, needs_model in bases:
        if not base.is_dir():
            continue
        # The folder named after the game first, so a user's own run of the default config
        # wins over experiments that happen to train the same game.
        folders = sorted(p for p in base.iterdir() if p.is_dir() and p != PRETRAINED_DIR)
        folders.sort(key=lambda p: p.name != name)
        for folder in folders:
            if needs_model and not any(
                (folder / file).is_file() for file in ("best.keras", "latest.keras")
            ):
                continue
            if config_game(folder / "config.yaml") == (name, wanted):
                return folder
    return None


def pretrained_dirs() -> list[Path]:
    """Where shipped models are looked for, in order: ``checkpoints/pretrained`` in the working
    folder, then in the checkout this package lives in (when that is another folder)."""
    dirs = [PRETRAINED_DIR]
    # Only where it is there: an installed (not editable) package has no checkpoints beside it.
    if PROJECT_PRETRAINED_DIR.is_dir() and PROJECT_PRETRAINED_DIR != PRETRAINED_DIR.resolve():
        dirs.append(PROJECT_PRETRAINED_DIR)
    return dirs


def config_game(config: Path) -> tuple[str, dict[str, int]] | None:
    """The game (name, full parameters) a config or run folder's config trains, if readable."""
    try:  # the bounded loader: any config.yaml under checkpoints/ is read here, unasked
        data = config_data(config)
        game = data["game"]
        name = str(game["name"])
        return name, make(name, **(game.get("params") or {})).params
    except (ConfigError, ValueError, TypeError, KeyError, AttributeError, GameError):
        return None


def run_game(model: Path | None) -> tuple[str, dict[str, int]] | None:
    """The game (name, full parameters) the run of ``model`` trained, from the ``config.yaml``
    of its run folder: ``model`` itself for a folder; for a model file, its folder, or the run
    above ``models/`` for ``RUN/models/iter_NNNN.keras`` (``model_search.run_folder``). None
    for a path that is not there, a folder without that file, a model file outside any run,
    or a ``config.yaml`` that cannot be read (loading the model then says why, in one line)."""
    try:
        if model is None or not (model.is_dir() or model.is_file()):
            return None
        # run_folder would take a folder's parent for its run: a folder is a run, or none.
        folder = model if model.is_dir() else run_folder(model)
    except (OSError, ValueError):  # a name too long, a NUL byte: check_model_paths says so
        return None
    return None if folder is None else config_game(folder / CONFIG_FILE)


def named_models(args: argparse.Namespace) -> list[Path]:
    """The models ``play.py``'s command line names: ``--model``, then the paths of ``--p1``'s
    and ``--p2``'s ``model:PATH`` specs. A spec whose budget cannot be one is left out here:
    ``cli_checks.read_lineup`` says what is wrong with it."""
    models = [] if args.model is None else [args.model]
    for spec in (args.p1, args.p2):
        try:
            parts = None if spec is None else model_spec_parts(spec)
        except PlayerSpecError:
            continue
        if parts is not None:
            models.append(Path(parts[0]))
    return models


def named_game(models: Sequence[Path]) -> tuple[str, dict[str, int]] | None:
    """The game (name, full parameters) the runs of ``models`` trained, when every one of them
    whose run can be read trained it; None when none can, or when they trained different
    games (``other_game_problem`` then says so)."""
    games = [game for game in map(run_game, models) if game is not None]
    return games[0] if games and all(game == games[0] for game in games) else None


def game_spec(name: str, params: Mapping[str, int]) -> str:
    """How ``--game`` names game ``name`` with ``params``: the name, and the parameters that
    differ from the game's defaults (``gomoku:size=8``)."""
    defaults = make(name).params
    changed = [f"{key}={value}" for key, value in params.items() if defaults.get(key) != value]
    return f"{name}:{','.join(changed)}" if changed else name


def other_game_problem(models: Sequence[Path], name: str, params: Mapping[str, int]) -> str | None:
    """One line when a model of ``models`` (``named_models``) is of a run that trained another
    game than ``name`` with ``params`` (``--game``: without it, ``options.parse_args`` takes
    the game of the models' runs): how to play its game, or, when the models' runs trained
    different games, which did which; None otherwise."""
    trained = [(model, game) for model in models if (game := run_game(model)) is not None]
    asked = (name, make(name, **params).params)
    other = next(((model, game) for model, game in trained if game != asked), None)
    if other is None:
        return None
    model, game = other
    if any(each != game for _, each in trained):  # no --game plays them all
        games = ", ".join(f"{each_model} {game_spec(*each)}" for each_model, each in trained)
        return f"the models' runs trained different games: {games}"
    spec = game_spec(*game)
    run = "this run" if model.is_dir() else "its run"
    return f"{model}: {run} trained {spec}, not {game_spec(*asked)}: drop --game, or --game {spec}"


def how_to_train(name: str, params: Mapping[str, int] | None = None, shown: str = "") -> str:
    """One line: there is no model for game ``name`` with ``params``, and how to train one.

    ``shown`` is the ``--game`` text as the person typed it. The line names the config in
    ``configs/`` that trains this very board; when none does, ``configs/<name>.yaml`` with the
    parameters to change.
    """
    missing, train = _missing(name, params, shown)
    return f"{missing}: {train} (or play a baseline in the terminal: --p2 {FALLBACK_OPPONENT})"


def fallback_notice(name: str, params: Mapping[str, int] | None = None, shown: str = "") -> str:
    """One line: there is no model for game ``name`` with ``params``, so the person plays the
    baseline ``FALLBACK_OPPONENT`` instead; and how to train a model (as ``how_to_train``)."""
    missing, train = _missing(name, params, shown)
    return f"{missing}, so you play the baseline {FALLBACK_OPPONENT} instead; for a model, {train}"


def _missing(name: str, params: Mapping[str, int] | None, shown: str) -> tuple[str, str]:
    """What is missing (the board, and where no model was found), and how to train one and
    play it: the two halves of ``how_to_train``'s line."""
    game = make(name, **(params or {}))
    wanted = game.params
    config = _config_for(name, wanted)
    unread = all(config_game(d / f"{name}.yaml") is None for d in _config_dirs())
    if config is None and unread and name == DEFAULT_GAME and wanted == make(name).params:
        config = Path("configs", f"{name}.yaml")  # not here to read (an installed package)
    game_option = "" if name == DEFAULT_GAME and not shown else f" --game {shown or name}"
    if config is None:
        config = _nearest_config(name, wanted) or Path("configs", f"{name}.yaml")
        settings = ",".join(f"{k}={v}" for k, v in wanted.items())
        train = f"`python train.py --config {config}` (set its game params to {settings})"
    elif config.stem == DEFAULT_GAME:
        train = "`python train.py`"
    else:
        train = f"`python train.py --config {config}`"
    play = f"`python play.py{game_option} --model {RUNS_DIR / config.stem}`"
    looked = " or ".join(str(d) for d in pretrained_dirs())
    missing = f"no model yet for {view_for(game).full_title} (none in {looked})"
    return missing, f"train one with {train}, then play it with {play}"


def _config_for(name: str, wanted: Mapping[str, int]) -> Path | None:
    """``configs/<file>`` of the config that trains game ``name`` with parameters ``wanted``:
    the working folder's configs first, then this checkout's (``play.py`` run from another
    folder), ``configs/<name>.yaml`` first in each; ``None`` when none does."""
    for folder in _config_dirs():
        configs = sorted(folder.glob("*.yaml"))
        configs.sort(key=lambda p: p.stem != name)
        found = next((c for c in configs if config_game(c) == (name, dict(wanted))), None)
        if found is not None:
            return Path("configs", found.name)
    return None


def _nearest_config(name: str, wanted: Mapping[str, int]) -> Path | None:
    """``configs/<file>`` of the config of game ``name`` whose board is nearest ``wanted``: the
    most parameters equal, then the least difference in all of them, so that a 12x12 board of
    five in a row starts from the 15x15 five-in-a-row recipe, not from the 6x6 four-in-a-row
    one. ``None`` when no config trains game ``name``."""
    ranked = []
    for folder in _config_dirs():
        for config in folder.glob("*.yaml"):
            found = config_game(config)
            if found is None or found[0] != name:
                continue
            params = found[1]
            same = sum(params.get(key) == value for key, value in wanted.items())
            apart = sum(abs(params.get(key, 0) - value) for key, value in wanted.items())
            ranked.append((-same, apart, config.name))
    return Path("configs", min(ranked)[2]) if ranked else None


def _config_dirs() -> list[Path]:
    """Where configs are looked for: ``configs`` in the working folder, then in this checkout
    (when that is another folder)."""
    here = Path("configs")
    return [here] if PROJECT_CONFIGS_DIR == here.resolve() else [here, PROJECT_CONFIGS_DIR]
