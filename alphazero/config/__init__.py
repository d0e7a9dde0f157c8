"""Typed configuration: YAML -> frozen dataclasses -> the parts of a run that need them.

``load_config`` reads a config file (its ``base:`` chain too) and rejects unknown keys,
wrong types, out-of-range values and removed switches with one ``ConfigError`` line that
names the key. The sections are in ``sections.py``, the reading in ``loading.py``, the
switches that are gone in ``removed.py``; ``python -m alphazero.config.reference`` writes
``docs/configuration.md`` from the sections. ``command_line.py`` gives the command lines'
numbers and choices the same one-line errors, naming the option.
"""

from .errors import ConfigError
from .loading import (
    MAX_BASES,
    RecordedConfig,
    config_data,
    config_from_dict,
    load_config,
    read_recorded_config,
    read_yaml,
)
from .removed import REMOVED_SETTINGS
from .sections import (
    CheckpointConfig,
    Config,
    EvaluationConfig,
    GameConfig,
    NetworkConfig,
    ReplayConfig,
    SearchConfig,
    SelfPlayConfig,
    TrainConfig,
)

__all__ = [
    "MAX_BASES",
    "REMOVED_SETTINGS",
    "CheckpointConfig",
    "Config",
    "ConfigError",
    "EvaluationConfig",
    "GameConfig",
    "NetworkConfig",
    "RecordedConfig",
    "ReplayConfig",
    "SearchConfig",
    "SelfPlayConfig",
    "TrainConfig",
    "config_data",
    "config_from_dict",
    "load_config",
    "read_recorded_config",
    "read_yaml",
]
