"""Settings that are gone, and how a config that still names one is read.

A run folder's ``config.yaml`` names every key of the config it ran with, so a switch taken
out of the config would make every older run folder unreadable. Each removed switch is kept
here with the value that left it off: a config that names it at that value loads as if the
key were absent (it ran as the code without the switch runs). Any other value ran something
the code no longer has, so training or resuming from it stops with one line; the research
record's configs, which are read rather than run, may ask for the key to be ignored instead
(``read_recorded_config``, which names the keys it ignored).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .errors import ConfigError
from .strict_yaml import spelling


class Removed(NamedTuple):
    """A removed switch: the value that left it off, why it went in a few words, and the
    research record's page on it (a path from the repository's root), if it has one."""

    off: Any
    why: str
    record: str | None = None


_FIXED = "no study varied it"
_C4 = "docs/research/learning_speed/connect4.md"
_C4_2025 = "docs/research/learning_speed/connect4_2025.md"
_GOMOKU = "docs/research/learning_speed/gomoku.md"

REMOVED_SETTINGS: dict[str, dict[str, Removed]] = {
    "search": {
        "dirichlet_alpha_scaled": Removed(False, "never measured; configs set alpha by hand"),
        "gumbel_c_visit": Removed(50.0, _FIXED),
        "gumbel_c_scale": Removed(0.1, _FIXED),
        "leaves_per_tree": Removed(1, "self-play batches whole games instead"),
        "virtual_loss": Removed(1.0, _FIXED),
    },
    "selfplay": {
        "value_discount": Removed(1.0, "worse on Gomoku 6x6", _GOMOKU),
        "symmetric_search": Removed(False, "behind at equal CPU on Connect Four", _C4),
        "weak_side_share": Removed(0.0, "no gain on Gomoku 6x6", _GOMOKU),
        "weak_side_simulations": Removed(16, "no gain on Gomoku 6x6", _GOMOKU),
        "weak_side_random": Removed(0.0, "no gain on Gomoku 6x6", _GOMOKU),
        "final_temperature": Removed(0.0, _FIXED),
        "carry_over": Removed(False, "fewer games per CPU-hour", "docs/research/benchmarks.md"),
        "resign_threshold": Removed(None, "never measured: no run resigned"),
        "resign_playthrough": Removed(0.1, "it checked resigning, also gone"),
        "temperature_value_cutoff": Removed(None, "no gain with search on Connect Four", _C4_2025),
    },
    "network": {
        "policy_channels": Removed(2, "16 trailed 2 on Connect Four", _C4),
    },
    "train": {
        "optimizer": Removed("adam", "every run used Adam; SGD never tried"),
        "momentum": Removed(0.9, "SGD's, never tried"),
        "value_loss_weight": Removed(1.0, "no gain in a whole Connect Four run", _C4),
        "late_value_loss_weight": Removed(None, "no gain in a whole Connect Four run", _C4),
        "late_value_from_step": Removed(0, "no gain in a whole Connect Four run", _C4),
    },
    "evaluation": {
        "rollout_knowledge": Removed(False, "a player spec asks for it: uct:1000:knowledge"),
    },
    "replay": {
        "window_exponent": Removed(0.75, _FIXED),
        "window_growth": Removed(0.4, _FIXED),
    },
}
"""Removed switches by section: each one's off value (what the code now always does) and
why it went. ``docs/configuration.md`` lists them."""


def _is_off(value: Any, off: Any) -> bool:
    """Whether ``value`` is the removed switch's off value: equal and of its type (an integer
    stands for a float, as it does for every float setting)."""
    same_type = type(value) is type(off) or (isinstance(off, float) and type(value) is int)
    return same_type and value == off


def without_removed(data: Any, *, ignore: bool = False) -> tuple[Any, list[str]]:
    """``data`` (a config's sections) without the removed switches, and the keys (``section.
    name``) that were set to anything but their off value. Such a key is a one-line
    ``ConfigError`` unless ``ignore``. ``data`` that is not a mapping of sections is
    returned as it is, for the config's own checks to refuse."""
    if not isinstance(data, dict):
        return data, []
    kept = dict(data)
    ignored: list[str] = []
    for section, removed in REMOVED_SETTINGS.items():
        values = data.get(section)
        if not isinstance(values, dict) or not removed.keys() & values.keys():
            continue
        for key, value in values.items():
            if key in removed and not _is_off(value, removed[key].off):
                if not ignore:
                    gone = removed[key]
                    why = f"{gone.why}: {gone.record}" if gone.record else gone.why
                    raise ConfigError(
                        f"{section}.{key}: this switch is gone, always {spelling(gone.off)} "
                        f"now ({why}); remove it from the config"
                    )
                ignored.append(f"{section}.{key}")
        kept[section] = {key: value for key, value in values.items() if key not in removed}
    return kept, ignored
