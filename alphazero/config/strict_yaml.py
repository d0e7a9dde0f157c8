"""A strict, bounded YAML loader for config files.

``yaml.safe_load`` runs no code, but it still accepts what a config never needs and a hostile
or mistyped file can abuse: a duplicated key (the last one silently wins), nesting deep enough
to exhaust Python's recursion, and aliases that expand a 1 KB file into billions of values (a
"billion laughs"). ``load`` refuses each with one ``YamlRefused`` line that says where.
``spelling`` goes the other way: a value as a config writes it, for messages and the reference.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_BYTES = 1_000_000
"""Largest config file read at all (a full resolved config is about 3 KB)."""
MAX_DEPTH = 16
"""Deepest nesting of values; a config needs 4 (root, section, ``game.params``, a value)."""
MAX_VALUES = 10_000
"""Most values (scalars, lists and mappings) once every alias is expanded; a config has
about 200."""

_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlRefused(yaml.YAMLError):
    """Valid YAML that a config must not be; the message is one line naming the line."""


def _at(mark: Any) -> str:
    return f" at line {mark.line + 1}" if mark is not None else ""


class _StrictLoader(yaml.SafeLoader):
    """``SafeLoader`` that counts while composing, before anything is built.

    Composing is where PyYAML recurses (once per level of nesting) and where an alias is
    still one shared node, so both limits are checked there, at the cost of a number per
    node: ``_stats`` holds each finished node's expanded size and depth, keyed by ``id``
    (the nodes stay alive in the tree being built, so no id is reused meanwhile).
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._values = 0
        self._stats: dict[int, tuple[int, int]] = {}

    def _count(self, values: int, mark: Any) -> None:
        self._values += values
        if self._values > MAX_VALUES:
            raise YamlRefused(
                f"more than {MAX_VALUES} values{_at(mark)} once its aliases are expanded "
                f"(a config has a few hundred)"
            )

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            target = self.anchors.get(event.anchor)
            if target is not None:  # (an undefined one: PyYAML's own error)
                stats = self._stats.get(id(target))
                if stats is None:  # its anchor is still open: the value would contain itself
                    raise YamlRefused(
                        f"alias *{event.anchor}{_at(event.start_mark)} refers to a value that "
                        f"contains it"
                    )
                size, depth = stats
                if self._depth + depth > MAX_DEPTH:
                    raise YamlRefused(
                        f"nested more than {MAX_DEPTH} levels deep{_at(event.start_mark)} "
                        f"once alias *{event.anchor} is expanded"
                    )
                self._count(size, event.start_mark)
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise YamlRefused(f"nested more than {MAX_DEPTH} levels deep{_at(mark)}")
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        self._count(1, node.start_mark)
        children: list[Node] = []
        if isinstance(node, SequenceNode):
            children = list(node.value)
        elif isinstance(node, MappingNode):
            children = [item for pair in node.value for item in pair]
        stats = [self._stats[id(child)] for child in children]
        self._stats[id(node)] = (
            1 + sum(size for size, _ in stats),
            1 + max((depth for _, depth in stats), default=0),
        )
        return node

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        # Checked before merge keys (<<) are flattened in: a key written out may override a
        # merged one, as YAML intends; only a key written twice is a mistake.
        if isinstance(node, MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    first = seen.get(key)
                except TypeError:  # unhashable: the base class says so, with its line
                    continue
                if first is not None:
                    raise YamlRefused(
                        f"duplicate key {_short(key)} at line {line} (first at line {first})"
                    )
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _short(key: Any) -> str:
    text = repr(key) if isinstance(key, str) else str(key)
    return text if len(text) <= 80 else text[:77] + "..."


def load(text: str) -> Any:
    """The single YAML document in ``text``, refused (``YamlRefused``) if it nests deeper
    than ``MAX_DEPTH``, expands to more than ``MAX_VALUES`` values or repeats a key; other
    problems raise PyYAML's own ``YAMLError``."""
    loader = _StrictLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def spelling(value: Any) -> str:
    """``value`` as a config writes it on one line, and ``load`` reads it back: ``100000``,
    ``1.0e-05``, ``null``, ``true``, ``connect4``, ``[uct:200, uct:1000]``, ``{size: 8}``.

    ``yaml.safe_dump``'s flow style spells scalars and mappings so, but quotes every string
    with a colon inside a list (``['uct:200']``), which YAML reads back without the quotes;
    so each item of a list or mapping keeps its plain spelling whenever ``load`` reads it
    back as the same value in a list, as the configs write their ladders."""
    if isinstance(value, list):
        return "[" + ", ".join(_in_flow(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_in_flow(k)}: {_in_flow(v)}" for k, v in value.items()) + "}"
    return _dumped(value)


def _dumped(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=float("inf"))
    return text.removesuffix("\n...\n").strip()


def _in_flow(value: Any) -> str:
    """An item of a list or mapping: its own spelling if it reads back inside brackets, else
    PyYAML's quoted one (``a,b`` would be two items)."""
    plain = spelling(value)
    try:
        if load(f"[{plain}]") == [value]:
            return plain
    except yaml.YAMLError:
        pass
    return _dumped([value])[1:-1]
