"""How a trained model searches when it plays: its run's ``search:`` section, then flags.

A model in a run folder (``RUN``, ``RUN/best.keras``, ``RUN/models/iter_NNNN.keras``) was
trained with the search its ``RUN/config.yaml`` names. ``trained_search`` reads it;
``play_search`` is what ``play.py``, its hints, ``--web``, ``benchmarks/strength.py`` and
the evaluation ladder search with: the run's settings, with the algorithm ``PLAY_ALGORITHM``
unless the caller names one. A model file without a run has only the defaults.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from ..config import ConfigError, SearchConfig, read_recorded_config
from ..search.params import SearchParams
from ..training.run_errors import CheckpointError
from ..training.run_files import CONFIG_FILE

PLAY_ALGORITHM: str | None = "puct"
"""The search a model plays with unless told otherwise, with its run's constants; None:
the algorithm it was trained with. On the Connect Four flagship (trained with Gumbel) PUCT
chose the correct move within noise of Gumbel at 800 simulations, for half the CPU a move
in play (docs/research/play_search.md)."""


def run_folder(path: str | os.PathLike[str]) -> Path | None:
    """The run folder a model belongs to (the folder itself, or the folder of its file, or
    the run above ``models/``), if it has a ``config.yaml``."""
    path = Path(path)
    for folder in (path, path.parent, path.parent.parent):
        if folder.is_dir() and (folder / CONFIG_FILE).is_file():
            if folder == path.parent.parent and path.parent.name != "models":
                continue
            return folder
    return None


def trained_search(path: str | os.PathLike[str]) -> SearchParams:
    """The search the model at ``path`` was trained with (``CheckpointError`` for a broken
    ``config.yaml``); the defaults for a model without a run folder. The config is read as
    the record of a finished run: a study's model plays though a switch it set is gone."""
    folder = run_folder(path)
    if folder is None:
        return SearchConfig().params()
    try:
        return read_recorded_config(folder / CONFIG_FILE).config.search.params()
    except ConfigError as error:  # already one line naming the file
        raise CheckpointError(str(error)) from None


def play_search(
    trained: SearchParams,
    algorithm: str | None = None,
    c_puct: float | None = None,
    leaves: int | None = None,
) -> SearchParams:
    """The search to play with: ``trained``, its algorithm replaced by ``algorithm`` (else
    by ``PLAY_ALGORITHM`` if that is set), and ``c_puct`` and ``leaves`` (leaves per tree)
    where given."""
    algorithm = algorithm or PLAY_ALGORITHM or trained.algorithm
    changes: dict[str, object] = {"algorithm": algorithm}
    if c_puct is not None:
        changes["c_puct"] = c_puct
    if leaves is not None:
        changes["leaves_per_tree"] = leaves
    return dataclasses.replace(trained, **changes)


@dataclass(frozen=True)
class PlaySearch:
    """What a person asked of a model's search (``play.py --search``, ``--c-puct``,
    ``--leaves``); None: as ``play_search`` decides from the model's run."""

    algorithm: str | None = None
    c_puct: float | None = None
    leaves: int | None = None
    """Leaves selected per tree and network call (``leaves_per_tree``): PUCT keeps them apart
    by a virtual loss, so a move takes less time for the same simulations
    (``benchmarks/play_speed.py``)."""

    def __post_init__(self) -> None:
        if self.leaves is not None and self.leaves < 1:
            raise ValueError(f"leaves must be at least 1, got {self.leaves}")

    def resolve(self, path: str | os.PathLike[str]) -> SearchParams:
        """The search the model at ``path`` plays with (``CheckpointError`` for a run folder
        whose ``config.yaml`` is broken)."""
        return play_search(trained_search(path), self.algorithm, self.c_puct, self.leaves)
