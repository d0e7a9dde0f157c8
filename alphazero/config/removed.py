"""Settings that are gone, and how a config that still names one is read.

A run folder's ``config.yaml`` names every key of the config it ran with, so a switch taken
out of the config would make every older run folder unreadable. Each removed switch is kept
here with the value that left it off: a config that names it at that value loads as if the
key were absent (it ran as the code without the switch runs). Any other value ran something
the code no longer has, so training or resuming from it stops with one line; the research
record's configs, which are read rather than run, may ask for the key to be ignored instead.
"""

from __future__ import annotations

from typing import Any

from .errors import ConfigError

REMOVED_SETTINGS: dict[str, dict[str, Any]] = {
    "selfplay": {
        "value_discount": 1.0,
        "symmetric_search": False,
        "weak_side_share": 0.0,
        "weak_side_simulations": 16,
        "weak_side_random": 0.0,
    },
}
"""Removed switches by section, each with the value that left it off (their studies did not
win: docs/research/learning_speed.md)."""


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
            if key in removed and not _is_off(value, removed[key]):
                if not ignore:
                    raise ConfigError(
                        f"{section}.{key}: this switch is gone (its study did not win, "
                        f"docs/research/learning_speed.md); remove it from the config"
                    )
                ignored.append(f"{section}.{key}")
        kept[section] = {key: value for key, value in values.items() if key not in removed}
    return kept, ignored
