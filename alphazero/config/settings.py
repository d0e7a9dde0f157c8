"""Typed configuration: YAML -> dataclasses -> the parts that need them.

Every section is a frozen dataclass whose fields carry their defaults and, in ``metadata``,
their allowed range. ``load_config`` rejects unknown keys, wrong types and out-of-range values
with one ``ConfigError`` line that names the key and says what is expected.
"""

from __future__ import annotations

import dataclasses
import math
import re
import reprlib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from ..evaluation.player_specs import PlayerSpecError, check_spec, model_spec_parts
from ..games import make
from ..search.params import C_PUCT, GumbelParams, RootNoise, SearchParams
from . import strict_yaml


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the key."""


def _range(low: float | None = None, high: float | None = None, *, open_low: bool = False):
    return {"low": low, "high": high, "open_low": open_low}


@dataclass(frozen=True)
class GameConfig:
    """Which game, built by ``alphazero.games.make(name, **params)``."""

    name: str = "connect4"
    """The game's registered name: ``tictactoe``, ``connect4``, ``gomoku``, ``dots_and_boxes``."""
    params: dict[str, int] = field(default_factory=dict)
    """The game's parameters, e.g. ``{size: 8, n_in_row: 5}``; missing ones take the game's
    defaults."""


@dataclass(frozen=True)
class NetworkConfig:
    """The residual tower shared by every game."""

    filters: int = field(default=64, metadata=_range(1, 1024))
    """Channels of every convolution of the residual tower."""
    blocks: int = field(default=5, metadata=_range(0, 64))
    """Residual blocks in the tower (two 3x3 convolutions each)."""
    value_hidden: int = field(default=64, metadata=_range(1, 4096))
    """Width of the value head's hidden dense layer."""
    value_channels: int = field(default=1, metadata=_range(1, 1024))
    """Channels of the value head's 1x1 convolution (AlphaZero's has 1)."""
    policy_channels: int = field(default=2, metadata=_range(1, 1024))
    """Channels of the policy head's 1x1 convolution."""
    l2: float = field(default=1e-4, metadata=_range(0.0, 1.0))
    """Weight decay on every kernel."""

    @classmethod
    def from_size(cls, text: str) -> NetworkConfig:
        """``"64x5"`` -> 64 filters and 5 residual blocks, the other fields at their defaults.

        FILTERSxBLOCKS is how the docs, configs and run names spell a network. Raises
        ``ConfigError`` for anything else, blocks first (``"5x64"``) included: read the other
        way round, that would be a 64-block network, built and timed without a word.
        """
        filters, sep, blocks = text.strip().lower().partition("x")
        if not (sep and filters.isdigit() and blocks.isdigit()):
            raise ConfigError(f"expected FILTERSxBLOCKS such as 64x5, got {text!r}")
        config = cls(filters=int(filters), blocks=int(blocks))
        if config.filters < config.blocks:
            raise ConfigError(f"expected FILTERSxBLOCKS such as 64x5 (filters first), got {text!r}")
        for f in dataclasses.fields(cls):
            if f.name in ("filters", "blocks"):
                _check_range(getattr(config, f.name), f.metadata, f"network.{f.name}")
        return config


@dataclass(frozen=True)
class SearchConfig:
    """The search, for self-play and for playing."""

    algorithm: Literal["puct", "gumbel"] = "puct"
    """Self-play's search. ``puct``: AlphaZero's, the visit counts as the policy target.
    ``gumbel``: Gumbel AlphaZero (Danihelka et al. 2022; ``alphazero/search/gumbel.py``),
    which improves the policy with far fewer simulations (8-32): the root samples
    ``gumbel_considered`` moves and halves them over the budget, the policy target is the
    improved policy, and the move played is the halving's survivor. Its Gumbel noise makes
    that a sample for the first ``selfplay.temperature_moves`` moves (all of them with a
    ``final_temperature`` above 0); later moves search without noise and play the best.
    It uses no Dirichlet noise, virtual loss or ``temperature_value_cutoff``, and one leaf
    per tree. The evaluation ladder and ``play.py --model RUN`` search the same way
    (``params()``: the one ``SearchParams`` of the run)."""
    simulations: int = field(default=200, metadata=_range(2, 1_000_000))
    """Simulations per move in self-play (with ``selfplay.fast_simulations``: per full search)."""
    c_puct: float = field(default=C_PUCT, metadata=_range(0.0, 100.0, open_low=True))
    """PUCT's exploration weight: how much the prior counts against the value."""
    dirichlet_alpha: float = field(default=0.3, metadata=_range(0.0, 100.0, open_low=True))
    """PUCT self-play: the Dirichlet noise's alpha at the root (smaller: spikier)."""
    dirichlet_weight: float = field(default=0.25, metadata=_range(0.0, 1.0))
    """PUCT self-play: the share of the root's prior that is noise."""
    dirichlet_alpha_scaled: bool = False
    """Read ``dirichlet_alpha`` as a total spread over the legal moves (alpha / moves each),
    as KataGo does, instead of the same alpha for every move."""
    leaves_per_tree: int = field(default=1, metadata=_range(1, 256))
    """Leaves selected per tree per network call, kept apart by a virtual loss."""
    virtual_loss: float = field(default=1.0, metadata=_range(0.0, 100.0))
    """The loss a pending leaf counts as, so ``leaves_per_tree`` leaves of one tree differ."""
    gumbel_considered: int = field(default=16, metadata=_range(1, 4096))
    """``gumbel``: moves sampled at the root (all of them when fewer are legal)."""
    gumbel_c_visit: float = field(default=50.0, metadata=_range(0.0, 1e6))
    """``gumbel``: the visit offset in Q's weight (see ``gumbel_c_scale``)."""
    gumbel_c_scale: float = field(default=0.1, metadata=_range(0.0, 1e3, open_low=True))
    """``gumbel``: Q's weight against the prior, ``(c_visit + max N) * c_scale * Q`` with Q
    rescaled to [0, 1] among a node's moves. 50 and 0.1 are mctx's defaults; the paper's Go
    and chess runs used ``c_scale`` 1.0."""
    evaluation_cache: int = field(default=0, metadata=_range(0, 100_000_000))
    """Self-play remembers this many network evaluations by position and reuses them where a
    search meets a position again (a transposition, or the next move's search); 0: off."""
    inference_precision: Literal["auto", "float32", "bfloat16"] = "auto"
    """Arithmetic of the network's large self-play batches. ``auto``: bfloat16 where the CPU
    has it natively (faster there: docs/research/benchmarks.md), float32 elsewhere."""

    def params(self) -> SearchParams:
        """The search these settings describe, for self-play, the ladder and play."""
        return SearchParams(
            algorithm=self.algorithm,
            c_puct=self.c_puct,
            leaves_per_tree=self.leaves_per_tree,
            virtual_loss=self.virtual_loss,
            noise=RootNoise(
                self.dirichlet_alpha, self.dirichlet_weight, self.dirichlet_alpha_scaled
            ),
            gumbel=GumbelParams(self.gumbel_considered, self.gumbel_c_visit, self.gumbel_c_scale),
        )


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play: how many games, how moves are chosen, which positions become examples."""

    games_per_iteration: int = field(default=64, metadata=_range(1, 1_000_000))
    """Self-play games played each iteration."""
    parallel_games: int = field(default=64, metadata=_range(1, 100_000))
    """Games searched at once; their leaves share one network call."""
    carry_over: bool = False
    """Self-play runs on across iterations (OpenSpiel's and KataGo's actors): when the
    iteration's ``games_per_iteration`` games have ended, the games still in flight pause
    between two moves and go on in the next iteration with the new weights, so every network
    call holds about ``parallel_games`` positions instead of a tail of ever fewer as the
    iteration's last games end. The paused games are saved with the checkpoint
    (``paused_NNNN.npz``); each goes on with its next move searched afresh, so resuming stays
    exact. A game then trains on positions an earlier network played. False: each
    iteration plays its games from start to end (runs from before the switch resume so)."""
    temperature_moves: int = field(default=10, metadata=_range(0, 10_000))
    """Moves (of the whole game) played with temperature 1; later ones take the top move."""
    final_temperature: float = field(default=0.0, metadata=_range(0.0, 10.0))
    """The temperature of moves after ``temperature_moves`` (0: the most visited move)."""
    temperature_value_cutoff: float | None = field(default=None, metadata=_range(0.0, 2.0))
    """When a move is sampled (temperature above 0), leave out the moves whose search value is
    more than this below the most visited move's (values in [-1, 1]; None: sample from every
    move). A sampled blunder decides the game, and its result is then a wrong value target
    for every position before it."""
    augment: bool = True
    """Add every symmetric copy of each example to the buffer."""
    resign_threshold: float | None = field(default=None, metadata=_range(-1.0, 0.0))
    """Resign when the root value for the mover falls below this (None: never)."""
    resign_playthrough: float = field(default=0.1, metadata=_range(0.0, 1.0))
    """Share of would-resign games played to the end to measure false resignations."""
    fast_simulations: int | None = field(default=None, metadata=_range(2, 1_000_000))
    """Playout cap randomisation (KataGo): most moves get this cheap search, without noise,
    and are not training examples; None: every move gets the full search."""
    full_search_share: float = field(default=0.25, metadata=_range(0.0, 1.0))
    """With ``fast_simulations``: the share of moves that get the full search."""
    value_target_mix: float = field(default=0.0, metadata=_range(0.0, 1.0))
    """Value target = (1 - mix) * game result + mix * search value (both for the mover)."""
    random_opening_share: float = field(default=0.0, metadata=_range(0.0, 1.0))
    """Share of games that start from a random opening: 1 to ``random_opening_moves``
    uniformly random moves (none that ends the game), which are not training examples.
    Self-play otherwise only visits the positions its own sharpening policy leads to, and
    the value head learns little about the positions a fallible opponent creates."""
    random_opening_moves: int = field(default=8, metadata=_range(1, 10_000))
    """The most random moves a random opening plays (see ``random_opening_share``)."""
    workers: int = field(default=1, metadata=_range(1, 4096))
    """Self-play processes (each searching many games at once) feeding one learner."""
    backend: Literal["local", "ray"] = "local"
    """``local``: this machine; ``ray``: the workers are Ray actors on a cluster."""
    ray_address: str | None = None
    """Cluster to join with ``backend: ray`` (default: the ``RAY_ADDRESS`` variable, else
    a local Ray instance)."""


@dataclass(frozen=True)
class ReplayConfig:
    """The replay buffer of examples, and the window training samples from."""

    capacity: int = field(default=100_000, metadata=_range(1, 100_000_000))
    """The buffer keeps the most recent ``capacity`` examples. With ``selfplay.augment`` every
    symmetric copy of a position is one of them: 2 a position in Connect Four, up to 8 on a
    square board, so the buffer spans that many times fewer self-play moves."""
    window_start: int | None = field(default=None, metadata=_range(1, 100_000_000))
    """A window that grows with the run (KataGo's): training samples only the newest
    ``window(N)`` examples of the ``N`` made so far, ``N`` while ``N <= window_start``, then
    ``window_start * (1 + growth * ((N / window_start) ** exponent - 1) / exponent)``, at
    most ``capacity``. Early examples come from a network that is soon much stronger, and a
    window as long as the run would keep training on them. None: the whole buffer."""
    window_exponent: float = field(default=0.75, metadata=_range(0.0, 1.0, open_low=True))
    """The growing window's exponent (see ``window_start``)."""
    window_growth: float = field(default=0.4, metadata=_range(0.0, 10.0))
    """The growing window's rate (see ``window_start``)."""

    def window(self, made: int) -> int:
        """How many of the newest examples training samples, after ``made`` in all."""
        start = self.window_start
        if start is None:
            return min(made, self.capacity)
        if made <= start:
            return min(made, self.capacity)
        a, b = self.window_exponent, self.window_growth
        grown = start * (1 + b * ((made / start) ** a - 1) / a)
        return int(min(grown, self.capacity))


@dataclass(frozen=True)
class TrainConfig:
    """The training steps after each iteration's self-play."""

    batch_size: int = field(default=256, metadata=_range(1, 65_536))
    """Examples in one training step."""
    steps_per_iteration: int = field(default=100, metadata=_range(0, 1_000_000))
    """Training steps after each iteration's self-play."""
    min_positions: int = field(default=1_000, metadata=_range(0, 100_000_000))
    """No training until the buffer holds this many positions."""
    optimizer: Literal["sgd", "adam"] = "adam"
    """``adam``, or ``sgd`` with ``momentum``."""
    learning_rate: float = field(default=1e-3, metadata=_range(0.0, 10.0, open_low=True))
    """The optimizer's learning rate (the start of a schedule)."""
    momentum: float = field(default=0.9, metadata=_range(0.0, 1.0))
    """``sgd``'s momentum."""
    lr_schedule: Literal["constant", "cosine", "step"] = "constant"
    """``constant``; ``cosine``: down to ``lr_min_factor`` times the rate over
    ``lr_decay_steps``; ``step``: x0.1 every ``lr_decay_steps``."""
    lr_decay_steps: int = field(default=10_000, metadata=_range(1, 100_000_000))
    """Steps over which ``cosine`` decays, or between ``step`` drops (x0.1)."""
    lr_min_factor: float = field(default=0.1, metadata=_range(0.0, 1.0))
    """``cosine``: the rate's floor, as a share of ``learning_rate``."""
    value_loss_weight: float = field(default=1.0, metadata=_range(0.0, 100.0))
    """Weight of the win/draw/loss cross-entropy beside the policy's in the loss (AlphaGo Zero
    weighs them equally; a larger weight asks more of the value head)."""
    late_value_loss_weight: float | None = field(default=None, metadata=_range(0.0, 100.0))
    """The value's weight from optimizer step ``late_value_from_step`` on (None: the weight
    never changes). On Connect Four, weight 2 from the start trailed the flagship; from
    iteration 111 a branch of the flagship gained a little and a whole run did not, so
    neither is in ``configs/connect4.yaml`` (docs/research/learning_speed/connect4.md)."""
    late_value_from_step: int = field(default=0, metadata=_range(0, 100_000_000))
    """First optimizer step (counted over the whole run, as the learning-rate schedule is)
    with ``late_value_loss_weight``."""


@dataclass(frozen=True)
class CheckpointConfig:
    """What the run folder keeps."""

    keep_every: int = field(default=5, metadata=_range(0, 1_000_000))
    """Keep the model of every k-th iteration (0: keep only latest and best)."""


@dataclass(frozen=True)
class EvaluationConfig:
    """Matches against a fixed ladder of players that do not learn, during training."""

    every: int = field(default=5, metadata=_range(0, 1_000_000))
    """Evaluate every k-th iteration (0: never; then ``best`` is simply the latest model)."""
    opponents: list[str] = field(default_factory=lambda: ["uct:200", "uct:1000"])
    """Player specs of the ladder, weakest first (see ``alphazero.evaluation.players``)."""
    games: int = field(default=20, metadata=_range(2, 100_000))
    """Games against each opponent, sides alternating."""
    simulations: int = field(default=100, metadata=_range(2, 1_000_000))
    """The model's PUCT simulations per move in these games."""
    rollout_knowledge: bool = False
    """Give the UCT / RAVE opponents rollout knowledge (Gomoku, Dots and Boxes)."""
    solved_positions: bool = False
    """Measure the raw network on the game's solved positions every iteration (one batched
    call; only Connect Four 6x7 has them): how often its top move keeps the exact result and
    its value reads it, so both are seen to rise (``connect4_positions`` in the metrics)."""


@dataclass(frozen=True)
class Config:
    """A whole training run."""

    game: GameConfig = field(default_factory=GameConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
    iterations: int = field(default=100, metadata=_range(1, 10_000_000))
    """Iterations of the run (raise it in a run's ``config.yaml`` to train further)."""
    seed: int = field(default=0, metadata=_range(0, 2**32 - 1))
    """Seeds every random choice: a seed and a number of workers always give the same run."""
    run_name: str | None = None
    """Folder under ``checkpoints/``; defaults to the config file's stem."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def default_run_dir(self) -> Path:
        """``checkpoints/<run_name>``: where ``train.py`` keeps the run unless told otherwise."""
        return Path("checkpoints") / (self.run_name or "run")

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)


# ------------------------------------------------------------------------- parsing
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlong = 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 4
_REPR.maxlevel = 3


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shown(value: Any) -> str:
    """``value`` as an error quotes it: its repr, cut to about 80 characters. ``reprlib``
    never builds the whole repr, so a huge value costs no time or memory either."""
    try:
        return _cut(_REPR.repr(value))
    except Exception:  # e.g. an integer too long to print: name its type only
        return f"<{type(value).__name__}>"


_LONG_QUOTE = re.compile(r"'[^'\n]{79,}'|\"[^\"\n]{79,}\"")


def _from_elsewhere(error: BaseException) -> str:
    """The first line of another module's error (the game registry's, a player spec's),
    with every quoted value in it cut as ``_shown`` cuts, and the line as a last guard."""
    lines = str(error).strip().splitlines()
    text = lines[0] if lines else type(error).__name__
    text = _LONG_QUOTE.sub(lambda m: m.group(0)[:38] + "..." + m.group(0)[-38:], text)
    return _cut(text, 400)


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if tp is type(None):
        return "null"
    if origin is dict:
        return "a mapping"
    if origin is list:
        return "a list"
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(
        tp, getattr(tp, "__name__", str(tp))
    )


_SCALARS: dict[Any, Any] = {
    type(None): lambda v: v is None,
    bool: lambda v: isinstance(v, bool),
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    str: lambda v: isinstance(v, str),
}


def _convert(value: Any, tp: Any, key: str) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping of settings, got {_shown(value)}")
        return _build(tp, value, key + ".")
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(tp):
            try:
                return _convert(value, option, key)
            except ConfigError:
                continue
        raise ConfigError(f"{key}: expected {_type_name(tp)}, got {_shown(value)}")
    if origin is Literal:
        if value in typing.get_args(tp):
            return value
        raise ConfigError(f"{key}: expected {_type_name(tp)}, got {_shown(value)}")
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping, got {_shown(value)}")
        return dict(value)
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected a list, got {_shown(value)}")
        (item_type,) = typing.get_args(tp)
        return [_convert(item, item_type, f"{key}[{i}]") for i, item in enumerate(value)]
    accepts = _SCALARS.get(tp)
    if accepts is not None and accepts(value):
        if tp is not float:
            return value
        try:
            return float(value)
        except OverflowError:  # an integer too large for a float: as unusable as inf
            return math.inf
    raise ConfigError(f"{key}: expected {_type_name(tp)}, got {_shown(value)}")


def _check_range(value: Any, meta: dict[str, Any], key: str) -> None:
    low, high = meta.get("low"), meta.get("high")
    if value is None or low is None:
        return
    below = value <= low if meta.get("open_low") else value < low
    if below or (high is not None and value > high):
        lower = f"> {low}" if meta.get("open_low") else f">= {low}"
        raise ConfigError(f"{key}: must be {lower} and <= {high}, got {_shown(value)}")


REMOVED_SETTINGS: dict[str, dict[str, Any]] = {
    "selfplay": {
        "value_discount": 1.0,
        "symmetric_search": False,
        "weak_side_share": 0.0,
        "weak_side_simulations": 16,
        "weak_side_random": 0.0,
    },
}
"""Switches that are gone (their studies did not win: docs/research/learning_speed.md), with
the value that left them off. A run folder's ``config.yaml`` names every key: one that names
a removed switch at that value still loads; any other value is a one-line error."""


def _without_removed(data: dict[str, Any], prefix: str) -> dict[str, Any]:
    """``data`` without the removed switches that are off; ``ConfigError`` for one that is
    on."""
    removed = REMOVED_SETTINGS.get(prefix.rstrip("."), {})
    kept = {}
    for key, value in data.items():
        if key not in removed:
            kept[key] = value
        elif (
            type(value) is not type(removed[key])
            and not (isinstance(removed[key], float) and type(value) is int)
        ) or value != removed[key]:
            raise ConfigError(
                f"{prefix}{key}: this switch is gone (its study did not win, "
                f"docs/research/learning_speed.md); remove it from the config"
            )
    return kept


def _build(cls: type, data: dict[str, Any], prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    data = _without_removed(data, prefix)
    # Sorted as text: YAML keys may be integers, null or true beside strings.
    unknown = sorted((key for key in data if key not in fields), key=str)
    if unknown:
        known = ", ".join(fields)
        name = _cut(str(unknown[0]))
        raise ConfigError(f"{prefix}{name}: unknown setting (known here: {known})")
    kwargs = {}
    for name, value in data.items():
        key = prefix + name
        converted = _convert(value, hints[name], key)
        # NaN passes every range check (its comparisons are all False) and inf is no setting:
        # either would only show up as NaN losses, and as bare NaN in metrics.jsonl.
        if isinstance(converted, float) and not math.isfinite(converted):
            raise ConfigError(f"{key}: must be a finite number, got {_shown(converted)}")
        _check_range(converted, dict(fields[name].metadata), key)
        kwargs[name] = converted
    return cls(**kwargs)


def config_from_dict(data: dict[str, Any]) -> Config:
    """Build and validate a ``Config``; the game and its parameters are checked too."""
    if not isinstance(data, dict):
        raise ConfigError(f"a config must be a mapping of sections, got {type(data).__name__}")
    config = _build(Config, data)
    try:  # the game registry validates the name and parameters
        make(config.game.name, **config.game.params)
    except (ValueError, TypeError) as error:
        raise ConfigError(f"game: {_from_elsewhere(error)}") from None
    _check_combinations(config)
    if config.selfplay.parallel_games > config.selfplay.games_per_iteration:
        config = dataclasses.replace(
            config,
            selfplay=dataclasses.replace(
                config.selfplay, parallel_games=config.selfplay.games_per_iteration
            ),
        )
    return config


def _check_combinations(config: Config) -> None:
    """Settings that are each valid but together would waste a run (or stop it hours in).
    The ``model:`` opponents are only looked for here; training loads them at its start."""

    game = make(config.game.name, **config.game.params)
    evaluation = config.evaluation
    if evaluation.every and not evaluation.opponents:
        raise ConfigError("evaluation.opponents: give at least one player, e.g. [uct:200]")
    for i, spec in enumerate(evaluation.opponents):
        key = f"evaluation.opponents[{i}]"
        try:
            check_spec(spec)
        except PlayerSpecError as error:
            raise ConfigError(f"{key}: {_from_elsewhere(error)}") from None
        kind = spec.strip().partition(":")[0]
        if kind.lower() == "human":
            raise ConfigError(f"{key}: a person cannot be a ladder opponent during training")
        if kind.lower() == "perfect" and not game.solvable:
            raise ConfigError(f"{key}: there is no perfect player for {game.name}")
        if kind.lower() == "alphabeta" and game.name != "gomoku":
            raise ConfigError(f"{key}: alphabeta plays only Gomoku, not {game.name}")
        if (model := model_spec_parts(spec)) is not None and not _exists(model[0]):
            raise ConfigError(f"{key}: no model at {_cut(model[0])}")
    if evaluation.solved_positions and not game.has_solved_positions:
        raise ConfigError(
            f"evaluation.solved_positions: there are no solved positions of {game.full_title}"
        )
    if config.train.min_positions > config.replay.capacity:
        raise ConfigError(
            f"train.min_positions ({config.train.min_positions}) is above replay.capacity "
            f"({config.replay.capacity}): training would never start"
        )
    if config.search.algorithm == "gumbel" and config.search.leaves_per_tree > 1:
        raise ConfigError(
            "search.leaves_per_tree must be 1 with algorithm: gumbel (its schedule visits one "
            "leaf of a tree at a time)"
        )
    fast = config.selfplay.fast_simulations
    if fast is not None:
        if fast >= config.search.simulations:
            raise ConfigError(
                f"selfplay.fast_simulations ({fast}) must be below search.simulations "
                f"({config.search.simulations})"
            )
        if config.selfplay.full_search_share <= 0:
            raise ConfigError(
                "selfplay.full_search_share must be above 0 with fast_simulations: "
                "no move would become a training example"
            )


def _exists(path: str) -> bool:
    try:
        return Path(path).exists()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


def read_yaml(path: Path) -> Any:
    """The YAML document in ``path``; any problem is a one-line ``ConfigError`` naming the
    file. An empty file is one: it would silently start a default run. The file is read
    with ``strict_yaml`` (no duplicated keys, bounded nesting and aliases), and only if it
    is at most ``strict_yaml.MAX_BYTES`` long."""
    try:
        with open(path, "rb") as handle:
            # Read one byte past the limit rather than trust the size a stat gives: a
            # pipe or /dev/zero has none.
            raw = handle.read(strict_yaml.MAX_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except OSError as error:
        # strerror, not str(error): that repeats the path, which the line already starts with
        reason = error.strerror or (str(error).strip().splitlines() or [""])[0]
        raise ConfigError(f"{path}: cannot read it ({reason})") from None
    if len(raw) > strict_yaml.MAX_BYTES:
        raise ConfigError(
            f"{path}: larger than {strict_yaml.MAX_BYTES // 1_000_000} MB, too large for a "
            f"config (one is a few KB); not read"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: cannot read it ({_cut(str(error), 200)})") from None
    try:
        data = strict_yaml.load(text)
    except strict_yaml.YamlRefused as error:
        raise ConfigError(f"{path}: {error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}: not valid YAML{where}") from None
    except ValueError as error:  # PyYAML passes on int()'s: an integer of over 4300 digits
        raise ConfigError(f"{path}: not a usable value in it ({_cut(str(error))})") from None
    if data is None:
        raise ConfigError(
            f"{path}: empty, no settings in it (a config names at least its game; see configs/)"
        )
    return data


MAX_BASES = 8
"""How many ``base:`` files one config may stand on, one over another."""


def load_config(path: str | Path) -> Config:
    """Read a YAML config; any problem is a one-line ``ConfigError``.

    A config may start from another: ``base: ../connect4.yaml`` (a path relative to the folder
    of the file that names it) takes every setting of that file, and this file's own settings
    override them, key by key inside each section (a different ``game.name`` replaces the
    whole ``game`` section: another game's parameters would not fit). So an experiment names
    only what it changes. The base's ``run_name`` is not taken: a run is named after its own
    file.
    """
    path = Path(path)
    data = config_data(path)
    if isinstance(data, dict) and data.get("run_name") is None:
        data = {**data, "run_name": path.stem}
    try:
        return config_from_dict(data)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def config_data(path: Path) -> Any:
    """The YAML document in ``path`` with its ``base:`` chain resolved (see ``load_config``);
    not yet checked as a config, but each base is. Problems are one-line ``ConfigError``s."""
    return _with_bases(Path(path), ())


def _with_bases(path: Path, below: tuple[Path, ...]) -> Any:
    """``config_data``; ``below``: the files already read on the way here, which stand on
    this one."""
    data = read_yaml(path)
    if not isinstance(data, dict) or "base" not in data:
        return data
    data = dict(data)
    base = data.pop("base")
    if not isinstance(base, str) or not base.strip() or not base.isprintable():
        raise ConfigError(f"{path}: base: must be the path of another config, got {_shown(base)}")
    base_path = path.parent / base
    try:
        chain, resolved = (*below, path.resolve()), base_path.resolve()
    except (OSError, ValueError, RuntimeError) as error:  # a NUL byte, a symlink loop
        raise ConfigError(f"{path}: base: {_cut(base)}: not a usable path ({error})") from None
    if resolved in chain:
        raise ConfigError(f"{path}: base: {_cut(base)} leads back to {_cut(path.name)}")
    if len(chain) > MAX_BASES:
        raise ConfigError(f"{path}: base: more than {MAX_BASES} configs stand on one another")
    try:
        under = _with_bases(base_path, chain)
        if not isinstance(under, dict):
            raise ConfigError(f"{base_path}: is not a mapping of sections")
        config_from_dict(under)  # so a bad setting of the base is blamed on the base
    except ConfigError as error:  # name the base once, cut: it may be any length
        message = str(error).removeprefix(f"{base_path}: ")
        raise ConfigError(f"{path}: base: {_cut(str(base_path), 160)}: {message}") from None
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
