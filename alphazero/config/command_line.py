"""Values typed on a command line (``play.py``, ``train.py``, ``python -m alphazero.report``,
the benchmarks and experiments): numbers and choices.

An option's value that is no number, or not one of the option's choices, or that its
``type=`` refuses with an ``ArgumentTypeError``, is one line naming the option, as a bad
setting in a config names its key: ``error: --seed: expected an integer, got 'abc'``,
``error: --clock: expected wall or cpu, got 'sundial'``, exit code 2, where argparse would
print its usage block first. So is a value the command refuses once parsed
(``parser.error("--rounds must be at least 1, got 0")``), as ``train.py`` prints its own. The
errors argparse finds while parsing besides these (an unknown option, a missing value) stay
its own, usage block and all: they are about the command's shape, which the usage shows.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn


class NumberError(argparse.ArgumentTypeError):
    """A value of a number option that is not that number; the message says what was
    expected and what came."""


def integer(text: str) -> int:
    """``type=`` of an integer option."""
    try:
        return int(text)
    except ValueError:
        raise NumberError(f"expected an integer, got {text!r}") from None


def non_negative_integer(text: str) -> int:
    """``type=`` of an integer option that is 0 or more (a seed)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise NumberError(f"expected a non-negative integer, got {text!r}")
    return value


def number(text: str) -> float:
    """``type=`` of a number option: what ``float`` reads (``nan`` and ``inf`` too, which
    the option's own range check refuses where they make no sense)."""
    try:
        return float(text)
    except ValueError:
        raise NumberError(f"expected a number, got {text!r}") from None


def integers(text: str) -> list[int]:
    """``type=`` of an option that is a comma-separated list of integers (``1,8,64``); its
    range is the command's to check."""
    try:
        return [int(item) for item in text.split(",")]
    except ValueError:
        raise NumberError(f"expected comma-separated integers, got {text!r}") from None


class ChoiceError(argparse.ArgumentError):
    """A value of an option with ``choices`` that is none of them; the message names them and
    what came."""


def _listed(choices: Iterable[object]) -> str:
    """``wall or cpu``, ``auto, always or never``."""
    names = [str(choice) for choice in choices]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


class OneLineParser(argparse.ArgumentParser):
    """``ArgumentParser`` whose number options (``type=integer``, ``non_negative_integer``,
    ``number`` or ``integers``; ``type=int`` and ``type=float`` read as ``integer`` and
    ``number``), options with ``choices`` and any type raising ``ArgumentTypeError`` report a
    bad value in one line naming the option; and whose ``error``, called after parsing by the
    command's own checks of the values, is one line too."""

    def __init__(self, **kwargs: Any) -> None:
        # Its errors are raised rather than printed, so that _refuse can tell a number's or a
        # choice's.
        super().__init__(exit_on_error=False, **kwargs)
        # argparse looks a type up in this registry before calling it, so a script's plain
        # type=int gets the same one-line error as type=integer.
        self.register("type", int, integer)
        self.register("type", float, number)
        self._parsing = False

    def error(self, message: str) -> NoReturn:
        """``error: MESSAGE``, exit code 2: a value the command refused after parsing. During
        parsing (an unknown option, a missing value), argparse's usage and message."""
        if self._parsing:
            super().error(message)
        self.exit(2, f"error: {message}\n")

    def parse_known_args(  # type: ignore[override]  # only the form that returns a Namespace
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # Refused here rather than in parse_args: a subcommand's parser is called through this
        # method, and its errors show its own usage, as argparse's do.
        parsing, self._parsing = self._parsing, True
        try:
            return super().parse_known_args(args, namespace)
        except argparse.ArgumentError as error:
            self._refuse(error)
        finally:
            self._parsing = parsing

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # argparse's own check words it "invalid choice: ..." in an ArgumentError that
        # _refuse could not tell from an unknown option's.
        if action.choices is not None and value not in action.choices:
            raise ChoiceError(action, f"expected {_listed(action.choices)}, got {value!r}")

    def parse_args(  # type: ignore[override]  # only the form that returns a Namespace
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        # argparse refuses unrecognized arguments after parse_known_args has returned: still
        # parsing, for error(); Python 3.13 raises that refusal instead, for _refuse.
        parsing, self._parsing = self._parsing, True
        try:
            return super().parse_args(args, namespace)
        except argparse.ArgumentError as error:
            self._refuse(error)
        finally:
            self._parsing = parsing

    def _refuse(self, error: argparse.ArgumentError) -> NoReturn:
        # argparse raises its ArgumentError while handling the type's own error, which is
        # therefore its context: a ChoiceError, or a type's ArgumentTypeError (a NumberError,
        # a script's own type worded for the user) is one line, anything else argparse's usual.
        worded = isinstance(error.__context__, argparse.ArgumentTypeError)
        one_line = isinstance(error, ChoiceError) or worded
        if one_line and error.argument_name:
            self.exit(2, f"error: {error.argument_name}: {error.message}\n")
        super().error(str(error))
