"""The config's sections: one frozen dataclass each, whose fields carry their defaults, their
allowed range (in ``metadata``) and, in the docstring under each field, what the setting
does. ``docs/configuration.md`` is written from these (``reference.py``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import yaml

from ..search.params import C_PUCT, GumbelParams, RootNoise, SearchParams
from .errors import ConfigError
from .typed import bounds, check_range


@dataclass(frozen=True)
class GameConfig:
    """Which game, built by ``alphazero.games.make(name, **params)``."""

    # Each section's TRY_FIRST: the settings a user would reasonably try first, which the
    # configuration reference names; the rest keep the values the shipped recipes found.
    TRY_FIRST: ClassVar[tuple[str, ...]] = ("name", "params")

    name: str = "connect4"
    """The game's registered name: ``tictactoe``, ``connect4``, ``gomoku``, ``dots_and_boxes``."""
    params: dict[str, int] = field(default_factory=dict)
    """The game's parameters, e.g. ``{size: 8, n_in_row: 5}``; missing ones take the game's
    defaults."""


@dataclass(frozen=True)
class NetworkConfig:
    """The residual tower shared by every game."""

    TRY_FIRST: ClassVar[tuple[str, ...]] = ("filters", "blocks")

    filters: int = field(default=64, metadata=bounds(1, 1024))
    """Channels of every convolution of the residual tower."""
    blocks: int = field(default=5, metadata=bounds(0, 64))
    """Residual blocks in the tower (two 3x3 convolutions each)."""
    value_hidden: int = field(default=64, metadata=bounds(1, 4096))
    """Width of the value head's hidden dense layer."""
    value_channels: int = field(default=1, metadata=bounds(1, 1024))
    """Channels of the value head's 1x1 convolution (AlphaZero's has 1)."""
    l2: float = field(default=1e-4, metadata=bounds(0.0, 1.0))
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
                check_range(getattr(config, f.name), f.metadata, f"network.{f.name}")
        return config


@dataclass(frozen=True)
class SearchConfig:
    """The search, for self-play and for playing."""

    TRY_FIRST: ClassVar[tuple[str, ...]] = (
        "algorithm",
        "simulations",
        "c_puct",
        "dirichlet_alpha",
        "evaluation_cache",
    )

    algorithm: Literal["puct", "gumbel"] = "puct"
    """Self-play's search. ``puct``: AlphaZero's, the visit counts as the policy target.
    ``gumbel``: Gumbel AlphaZero (Danihelka et al. 2022; ``alphazero/search/gumbel.py``),
    which improves the policy with far fewer simulations (8-32): the root samples
    ``gumbel_considered`` moves and halves them over the budget, the policy target is the
    improved policy, and the move played is the halving's survivor. Its Gumbel noise makes
    that a sample for the first ``selfplay.temperature_moves`` moves; later moves search
    without noise and play the best. It uses no Dirichlet noise. The evaluation ladder and
    ``play.py`` take the run's constants from ``params()`` but play with PUCT unless told
    otherwise (``evaluation.model_search.PLAY_ALGORITHM``: as strong at 800 simulations,
    half the CPU a move); ``play.py --search gumbel`` searches as self-play did."""
    simulations: int = field(default=200, metadata=bounds(2, 1_000_000))
    """Simulations per move in self-play (with ``selfplay.fast_simulations``: per full search)."""
    c_puct: float = field(default=C_PUCT, metadata=bounds(0.0, 100.0, open_low=True))
    """PUCT's exploration weight: how much the prior counts against the value."""
    dirichlet_alpha: float = field(default=0.3, metadata=bounds(0.0, 100.0, open_low=True))
    """PUCT self-play: the Dirichlet noise's alpha at the root (smaller: spikier)."""
    dirichlet_weight: float = field(default=0.25, metadata=bounds(0.0, 1.0))
    """PUCT self-play: the share of the root's prior that is noise."""
    gumbel_considered: int = field(default=16, metadata=bounds(1, 4096))
    """``gumbel``: moves sampled at the root (all of them when fewer are legal)."""
    evaluation_cache: int = field(default=0, metadata=bounds(0, 100_000_000))
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
            noise=RootNoise(self.dirichlet_alpha, self.dirichlet_weight),
            gumbel=GumbelParams(self.gumbel_considered),
        )


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play: how many games, how moves are chosen, which positions become examples."""

    TRY_FIRST: ClassVar[tuple[str, ...]] = (
        "games_per_iteration",
        "temperature_moves",
        "fast_simulations",
        "workers",
        "backend",
    )

    games_per_iteration: int = field(default=64, metadata=bounds(1, 1_000_000))
    """Self-play games played each iteration."""
    parallel_games: int = field(default=64, metadata=bounds(1, 100_000))
    """Games searched at once; their leaves share one network call."""
    temperature_moves: int = field(default=10, metadata=bounds(0, 10_000))
    """Moves (of the whole game) played with temperature 1; later ones take the top move."""
    augment: bool = True
    """Add every symmetric copy of each example to the buffer."""
    fast_simulations: int | None = field(default=None, metadata=bounds(2, 1_000_000))
    """Playout cap randomisation (KataGo): most moves get this cheap search, without noise,
    and are not training examples; ``null``: every move gets the full search."""
    full_search_share: float = field(default=0.25, metadata=bounds(0.0, 1.0))
    """With ``fast_simulations``: the share of moves that get the full search."""
    value_target_mix: float = field(default=0.0, metadata=bounds(0.0, 1.0))
    """Value target = (1 - mix) * game result + mix * search value (both for the mover)."""
    random_opening_share: float = field(default=0.0, metadata=bounds(0.0, 1.0))
    """Share of games that start from a random opening: 1 to ``random_opening_moves``
    uniformly random moves (none that ends the game), which are not training examples.
    Self-play otherwise only visits the positions its own sharpening policy leads to, and
    the value head learns little about the positions a fallible opponent creates."""
    random_opening_moves: int = field(default=8, metadata=bounds(1, 10_000))
    """The most random moves a random opening plays (see ``random_opening_share``)."""
    workers: int = field(default=1, metadata=bounds(1, 4096))
    """Self-play processes (each searching many games at once) feeding one learner."""
    backend: Literal["local", "ray"] = "local"
    """``local``: this machine; ``ray``: the workers are Ray actors on a cluster."""
    ray_address: str | None = None
    """Cluster to join with ``backend: ray`` (default: the ``RAY_ADDRESS`` variable, else
    a local Ray instance)."""


WINDOW_EXPONENT = 0.75
WINDOW_GROWTH = 0.4
"""The growing window's exponent and rate (``ReplayConfig.window``): KataGo's, which every
run here used; only the window's start was studied."""


@dataclass(frozen=True)
class ReplayConfig:
    """The replay buffer of examples, and the window training samples from."""

    TRY_FIRST: ClassVar[tuple[str, ...]] = ("capacity", "window_start")

    capacity: int = field(default=100_000, metadata=bounds(1, 100_000_000))
    """The buffer keeps the most recent ``capacity`` examples. With ``selfplay.augment`` every
    symmetric copy of a position is one of them: 2 a position in Connect Four, up to 8 on a
    square board, so the buffer spans that many times fewer self-play moves."""
    window_start: int | None = field(default=None, metadata=bounds(1, 100_000_000))
    """A window that grows with the run (KataGo's): training samples only the newest
    ``window(N)`` examples of the ``N`` made so far, ``N`` while ``N <= window_start``, then
    ``window_start * (1 + 0.4 * ((N / window_start) ** 0.75 - 1) / 0.75)``, at most
    ``capacity``. Early examples come from a network that is soon much stronger, and a
    window as long as the run would keep training on them. ``null``: the whole buffer."""

    def window(self, made: int) -> int:
        """How many of the newest examples training samples, after ``made`` in all."""
        start = self.window_start
        if start is None:
            return min(made, self.capacity)
        if made <= start:
            return min(made, self.capacity)
        a, b = WINDOW_EXPONENT, WINDOW_GROWTH
        grown = start * (1 + b * ((made / start) ** a - 1) / a)
        return int(min(grown, self.capacity))


@dataclass(frozen=True)
class TrainConfig:
    """The training steps after each iteration's self-play."""

    TRY_FIRST: ClassVar[tuple[str, ...]] = ("learning_rate", "lr_schedule", "steps_per_iteration")

    batch_size: int = field(default=256, metadata=bounds(1, 65_536))
    """Examples in one training step."""
    steps_per_iteration: int = field(default=100, metadata=bounds(0, 1_000_000))
    """Training steps after each iteration's self-play."""
    min_positions: int = field(default=1_000, metadata=bounds(0, 100_000_000))
    """No training until the buffer holds this many positions."""
    learning_rate: float = field(default=1e-3, metadata=bounds(0.0, 10.0, open_low=True))
    """Adam's learning rate (the start of a schedule)."""
    lr_schedule: Literal["constant", "cosine", "step"] = "constant"
    """``constant``; ``cosine``: down to ``lr_min_factor`` times the rate over
    ``lr_decay_steps``; ``step``: x0.1 every ``lr_decay_steps``."""
    lr_decay_steps: int = field(default=10_000, metadata=bounds(1, 100_000_000))
    """Steps over which ``cosine`` decays, or between ``step`` drops (x0.1)."""
    lr_min_factor: float = field(default=0.1, metadata=bounds(0.0, 1.0))
    """``cosine``: the rate's floor, as a share of ``learning_rate``."""


@dataclass(frozen=True)
class CheckpointConfig:
    """What the run folder keeps."""

    TRY_FIRST: ClassVar[tuple[str, ...]] = ("keep_every",)

    keep_every: int = field(default=5, metadata=bounds(0, 1_000_000))
    """Keep the model of every k-th iteration (0: keep only latest and best)."""


@dataclass(frozen=True)
class EvaluationConfig:
    """Matches against a fixed ladder of players that do not learn, during training."""

    TRY_FIRST: ClassVar[tuple[str, ...]] = ("every", "opponents", "games")

    every: int = field(default=5, metadata=bounds(0, 1_000_000))
    """Evaluate every k-th iteration (0: never; then ``best`` is simply the latest model)."""
    opponents: list[str] = field(default_factory=lambda: ["uct:200", "uct:1000"])
    """Player specs of the ladder, weakest first (see ``alphazero.evaluation.players``;
    ``uct:1000:knowledge`` gives a UCT or RAVE player the game's rollout knowledge). Each
    searches a fixed count (``uct:2000``, ``model:PATH:800``), never a time (``uct:2s``), so
    the ladder's games do not depend on the machine."""
    games: int = field(default=20, metadata=bounds(2, 100_000))
    """Games against each opponent, sides alternating."""
    simulations: int = field(default=100, metadata=bounds(2, 1_000_000))
    """The model's PUCT simulations per move in these games."""
    openings: int = field(default=0, metadata=bounds(0, 100))
    """Random moves before each pair of games, each pair from its own position and with the
    sides swapped (``games`` must be even); 0: every game from the start. Players that choose
    by search alone (``alphabeta``, the model) replay a few games from the start, so 20 games
    would be a handful; UCT's random rollouts vary its games by themselves."""
    solved_positions: bool = False
    """Measure the raw network on the game's solved positions every iteration (one batched
    call; only Connect Four 6x7 has them): how often its top move keeps the exact result and
    its value reads it, so both are seen to rise (``connect4_positions`` in the metrics)."""


@dataclass(frozen=True)
class Config:
    """A whole training run."""

    TRY_FIRST: ClassVar[tuple[str, ...]] = ("iterations", "seed")

    game: GameConfig = field(default_factory=GameConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
    iterations: int = field(default=100, metadata=bounds(1, 10_000_000))
    """Iterations of the run (raise it in a run's ``config.yaml`` to train further)."""
    seed: int = field(default=0, metadata=bounds(0, 2**32 - 1))
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
