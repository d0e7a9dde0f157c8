"""YAML values -> the typed fields of the config dataclasses: each value converted to its
field's type and checked against the range in the field's ``metadata``, or a one-line
``ConfigError`` that names the key."""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from typing import Any, Literal

from .errors import ConfigError, cut, shown
from .strict_yaml import spelling


def bounds(low: float | None = None, high: float | None = None, *, open_low: bool = False):
    """A field's allowed range, for its ``metadata``: ``low <= value <= high`` (``low <
    value`` with ``open_low``); None: no bound."""
    return {"low": low, "high": high, "open_low": open_low}


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


# PyYAML reads YAML 1.1, where a float needs a dot and a signed exponent: 1e-3 and 1E3 are
# strings there, though YAML 1.2, JSON and Python read them as numbers, and people write them.
_SCIENTIFIC = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][-+]?[0-9]+")


def _convert(value: Any, tp: Any, key: str) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping of settings, got {shown(value)}")
        return build(tp, value, key + ".")
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(tp):
            try:
                return _convert(value, option, key)
            except ConfigError:
                continue
        raise ConfigError(f"{key}: expected {_type_name(tp)}, got {shown(value)}")
    if origin is Literal:
        if value in typing.get_args(tp):
            return value
        raise ConfigError(f"{key}: expected {_type_name(tp)}, got {shown(value)}")
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping, got {shown(value)}")
        return dict(value)
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected a list, got {shown(value)}")
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
    if tp is float and isinstance(value, str) and _SCIENTIFIC.fullmatch(value):
        return float(value)  # 1e999 is inf, which ``build`` refuses as it refuses 1.0e+999
    raise ConfigError(f"{key}: expected {_type_name(tp)}, got {shown(value)}")


def allowed_range(meta: dict[str, Any]) -> str:
    """A field's ``bounds`` as its range error and docs/configuration.md word them: ``>= 1 and
    <= 65,536``, ``> 0 and <= 100``; empty without bounds."""
    low, high = meta.get("low"), meta.get("high")
    left = "" if low is None else f"{'>' if meta.get('open_low') else '>='} {_bound(low)}"
    right = "" if high is None else f"<= {_bound(high)}"
    return " and ".join(part for part in (left, right) if part)


def _bound(x: float) -> str:
    """A whole bound without ``.0`` (``> 0``, even for a float) and with its thousands apart
    (``<= 65,536``, ``<= 4,294,967,295``: read, not copied into a config, unlike a default),
    any other as a config writes it (``1.0e-05``)."""
    return f"{int(x):,}" if float(x).is_integer() else spelling(x)


def check_range(value: Any, meta: dict[str, Any], key: str) -> None:
    low, high = meta.get("low"), meta.get("high")
    if value is None:
        return
    below = low is not None and (value <= low if meta.get("open_low") else value < low)
    if below or (high is not None and value > high):
        raise ConfigError(f"{key}: must be {allowed_range(meta)}, got {shown(value)}")


def build(cls: type, data: dict[str, Any], prefix: str = "") -> Any:
    """An instance of the dataclass ``cls`` from ``data``, every key known, typed and in range
    (nested dataclasses too); ``prefix`` is how the error names ``data``'s keys."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    # Sorted as text: YAML keys may be integers, null or true beside strings.
    unknown = sorted((key for key in data if key not in fields), key=str)
    if unknown:
        known = ", ".join(fields)
        name = cut(str(unknown[0]))
        raise ConfigError(f"{prefix}{name}: unknown setting (known here: {known})")
    kwargs = {}
    for name, value in data.items():
        key = prefix + name
        converted = _convert(value, hints[name], key)
        # NaN passes every range check (its comparisons are all False) and inf is no setting:
        # either would only show up as NaN losses, and as bare NaN in metrics.jsonl.
        if isinstance(converted, float) and not math.isfinite(converted):
            raise ConfigError(f"{key}: must be a finite number, got {shown(converted)}")
        check_range(converted, dict(fields[name].metadata), key)
        kwargs[name] = converted
    return cls(**kwargs)
