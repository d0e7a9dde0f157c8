"""The configuration reference, ``docs/configuration.md``, written from the config dataclasses:
``python -m alphazero.config.reference [--check]``.

Every key's default and range come from its ``dataclasses.field``, and its meaning from the
docstring under it in ``alphazero/config/sections.py``, so the page cannot say what the code
does not.
``tests/test_config_reference.py`` fails when the committed page no longer matches.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import re
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

from . import sections as config_module
from .removed import REMOVED_SETTINGS
from .sections import Config
from .strict_yaml import spelling
from .typed import allowed_range

SENTENCE_END = re.compile(r"(?<=[a-z0-9`)])\. (?=[A-Z`])")
PAGE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"

INTRO = """\
# Configuration reference

A run is described by one YAML file (`configs/*.yaml`), read into the typed dataclasses of
`alphazero/config/sections.py`. Every key is optional: a missing one takes the default below.
A key that does not exist, a wrong type or a value out of range stops `train.py` at once with
one line that names the key. A config may start with `base: OTHER.yaml` (a path relative to
its own folder) to take every setting of that file and override them key by key. The run folder's
`config.yaml` is the resolved whole, and `--resume` reads it.

This page is written by `python -m alphazero.config.reference` from the dataclasses and their
docstrings; a test fails when it no longer matches them.
"""


def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string literal under it in the class body), by name."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for statement, following in zip(body, [*body[1:], None], strict=True):
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        if (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return docs


def _default(f: dataclasses.Field[Any]) -> str:
    """The field's default as a config writes it (``strict_yaml.spelling``), as code."""
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return "required"
    return f"`{spelling(value)}`"


def _allowed(f: dataclasses.Field[Any], hint: Any) -> str:
    choices = [a for a in typing.get_args(hint) if typing.get_origin(hint) is typing.Literal]
    if choices:
        return ", ".join(f"`{spelling(c)}`" for c in choices)
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    base = args[0] if args else hint
    optional = type(None) in typing.get_args(hint)
    if "low" in f.metadata:
        text = allowed_range(dict(f.metadata))  # as a value out of range is told
    elif base is bool:
        text = "`true`, `false`"
    elif typing.get_origin(hint) is dict:
        text = "names to integers"
    elif typing.get_origin(hint) is list:
        text = "a list"
    else:
        text = {str: "text"}.get(base, getattr(base, "__name__", str(base)))
    return f"{text}, or `null`" if optional else text


def _meaning(doc: str) -> str:
    """The docstring's first sentences (at least a line's worth) as one table cell."""
    sentences = SENTENCE_END.split(" ".join(doc.split()).replace("``", "`"))
    text = sentences[0]
    for sentence in sentences[1:]:
        if len(text) >= 80:
            break
        text += ". " + sentence
    text = text if text.endswith(".") else text + "."
    return text.replace("|", "\\|")


def missing_docs() -> list[str]:
    """Keys whose field has no docstring: each must say what it does."""
    missing = []
    for section in dataclasses.fields(Config):
        cls = _section_class(section)
        if cls is None:
            continue
        docs = field_docs(cls)
        missing += [
            f"{section.name}.{f.name}" for f in dataclasses.fields(cls) if f.name not in docs
        ]
    return missing


def _section_class(section: dataclasses.Field[Any]) -> type | None:
    hints = typing.get_type_hints(Config, vars(config_module))
    cls = hints[section.name]
    return cls if dataclasses.is_dataclass(cls) else None


def render() -> str:
    """The whole page."""
    out = [INTRO]
    top_docs = field_docs(Config)
    top_hints = typing.get_type_hints(Config, vars(config_module))
    top: list[str] = []
    for section in dataclasses.fields(Config):
        cls = _section_class(section)
        if cls is None:
            doc = top_docs.get(section.name, "")
            top.append(
                f"| `{section.name}` | {_default(section)} "
                f"| {_allowed(section, top_hints[section.name])} | {_meaning(doc)} |"
            )
            continue
        docs = field_docs(cls)
        hints = typing.get_type_hints(cls, vars(config_module))
        out.append(f"## `{section.name}`\n")
        if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}("):  # not dataclass's
            out.append(_meaning(inspect.cleandoc(cls.__doc__)) + "\n")
        out.append(_try_first(cls, f"{section.name}."))
        out.append("| key | default | allowed | meaning |\n| --- | --- | --- | --- |")
        for f in dataclasses.fields(cls):
            out.append(
                f"| `{section.name}.{f.name}` | {_default(f)} | {_allowed(f, hints[f.name])} "
                f"| {_meaning(docs.get(f.name, ''))} |"
            )
        out.append("")
    out.append("## Top level\n")
    out.append(_try_first(Config, ""))
    out.append("| key | default | allowed | meaning |\n| --- | --- | --- | --- |")
    out += top
    out.append("")
    out += _removed()
    return "\n".join(out) + "\n"


def _try_first(cls: type, prefix: str) -> str:
    """The line naming the section's settings a user would reasonably try first."""
    names = ", ".join(f"`{prefix}{name}`" for name in getattr(cls, "TRY_FIRST", ()))
    return f"Worth trying first: {names}.\n" if names else ""


def _removed() -> list[str]:
    """The table of removed switches: a run folder that names one at its value still loads.

    The research record's configs are read with ``read_recorded_config``, which ignores such
    keys instead of refusing them; that is the code's business, not a user's, so the page
    does not say it."""
    out = [
        "## Removed settings\n",
        "Switches that are gone, each now always at the value shown. A config that sets one to "
        "that value (a run folder's `config.yaml` names every key) loads as if it were absent; "
        "any other value stops `train.py` and `--resume` with one line naming the key.\n",
        "| key | always | why it went |\n| --- | --- | --- |",
    ]
    for section, keys in REMOVED_SETTINGS.items():
        for key, removed in keys.items():
            why = removed.why
            if removed.record:  # a path from the repository's root; the page is in docs/
                why = f"[{why}]({Path(removed.record).relative_to('docs')})"
            out.append(f"| `{section}.{key}` | `{spelling(removed.off)}` | {why} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.config.reference",
        description=f"Write the configuration reference ({PAGE.relative_to(PAGE.parents[1])}) "
        "from the config dataclasses and their docstrings.",
    )
    parser.add_argument(
        "--check", action="store_true", help="only say whether the page is up to date (exit 1)"
    )
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        stale = not PAGE.is_file() or PAGE.read_text() != text
        print(f"{PAGE}: {'stale' if stale else 'up to date'}")
        return 1 if stale else 0
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
