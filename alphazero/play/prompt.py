"""Reading what a person types: lines from a terminal or a pipe, and the one loop that asks until
a line is a legal move (``human.HumanPlayer`` and the terminal session both use it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TextIO, TypeVar

from ..games import view_for
from ..games.base import Game, GameError, MoveParseError
from .text import printable

MAX_INPUT = 100
"""Longer lines are refused without being parsed: no move is written in more."""


class LineReader:
    """What a person types, one line at a time; ``None`` at the end of input.

    With ``stream=None`` it reads standard input with ``input()`` (line editing on a
    terminal). With ``echo`` the line is written back after the prompt, so that a transcript
    of piped input reads like a session at a terminal.
    """

    def __init__(self, out: TextIO, stream: TextIO | None = None, echo: bool = False) -> None:
        self.out = out
        self.stream = stream
        self.echo = echo

    def read(self, prompt: str) -> str | None:
        if self.stream is None:
            try:
                line = input(prompt)
            except EOFError:
                return None
            except UnicodeDecodeError:  # stdin without errors="replace": not text
                line = "\ufffd"
        else:
            self.out.write(prompt)
            self.out.flush()
            raw = self.stream.readline()
            if not raw:
                return None
            line = raw.rstrip("\r\n")
        if self.echo:
            self.out.write(printable(line, 60) + "\n")
        return line


class Leave(Exception):
    """The person left the game: ``quit`` or the end of input."""


Answer = TypeVar("Answer")


def ask_move(
    game: Game,
    reader: LineReader,
    prompt: str,
    say: Callable[[str], None],
    commands: Mapping[str, Callable[[], Answer | None]] | None = None,
) -> int | Answer:
    """Read lines until one is a legal move in ``game``, and return its action.

    A line naming one of ``commands`` (in any case) runs that instead: a command returning
    ``None`` leaves the prompt open, any other answer is returned. Every other line gets a
    short reason through ``say`` and the prompt again, so that no input ends the program with
    a traceback. Raises ``Leave`` at the end of input.
    """
    commands = commands or {}
    has_help = "help" in commands
    view = view_for(game)
    while True:
        line = reader.read(prompt)
        if line is None:
            raise Leave("end of input")
        text = line.strip()
        if not text:
            say("type a move, or help" if has_help else "type a move")
            continue
        if len(text) > MAX_INPUT:
            say(f"that line is too long to be a move ({len(text)} characters)")
            continue
        command = commands.get(text.lower())
        if command is not None:
            answer = command()
            if answer is not None:
                return answer
            continue
        try:
            action = view.parse_move(text)
            game.sim_move(action)  # raises with the reason when the move is illegal
        except MoveParseError as error:
            say(f"{reason(error, game)}; or type help" if has_help else reason(error, game))
            continue
        except GameError as error:
            say(reason(error, game))
            continue
        return action


def reason(error: Exception, game: Game) -> str:
    """A game's error message without the game's name in front."""
    return str(error).removeprefix(f"{game.name}: ")
