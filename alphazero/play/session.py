"""The terminal session: a person against a model or a baseline (or two people), game after
game, with the board, the prompt's commands and what the model thought after its moves.

Everything the person types goes through ``prompt.ask_move``: no input can end the program with
a traceback. End of input and Ctrl-C leave politely (``play`` returns exit code 0).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions, Thought
from ..evaluation.model_search import PlaySearch
from ..evaluation.players import Player
from ..evaluation.time_budget import TimeBudget
from ..games import GameView, view_for
from ..games.base import Game, GameError
from ..training.run_errors import CheckpointError
from .board import Style
from .defaults import DEFAULT_SIMULATIONS
from .human import HumanPlayer
from .prompt import Leave, LineReader, ask_move
from .records import GameRecord, records_before, save_records
from .text import fill, is_tty, terminal_width
from .thoughts import format_thought

COMMAND_ALIASES = {"h": "help", "?": "help", "u": "undo", "exit": "quit", "q": "quit"}
COMMANDS_HELP = (
    "Commands: help (this), hint (the model's suggestion), undo (take back your last move "
    "and the replies to it), moves (the moves so far), board (draw the board again), quit "
    "(or end of input, or Ctrl-C)."
)
THOUGHTS_HELP = (
    "A hint lists the most searched moves, the one suggested first: their share of the "
    "visits, and in parentheses their value, from -1 (a loss) to +1 (a win) for the player "
    "to move. The outlook is what the move was chosen by: the search's value of the "
    "position on the same scale, or the result the search proved; in parentheses, the "
    "network's own win / draw / loss guess before searching (the network alone)."
)


def game_help(view: GameView[Any], width: int = 80) -> str:
    """The ``help`` text: the notation of ``view``'s game and the commands, wrapped to
    ``width``."""
    return "\n".join(
        fill(paragraph, width) for paragraph in (view.move_help, COMMANDS_HELP, THOUGHTS_HELP)
    )


def box_score(game: Game, view: GameView[Any]) -> str | None:
    """``boxes: X 1, O 0`` in a game that counts boxes (Dots and Boxes); else None."""
    boxes = getattr(game, "boxes", None)
    if boxes is None:
        return None
    return f"boxes: {view.marks[1]} {boxes[0]}, {view.marks[-1]} {boxes[1]}"


class HintModel:
    """Where ``hint`` gets a model: a player that is one, or a model loaded on first use (from
    ``source``, searching ``game`` as ``ModelPlayer`` does with the other arguments)."""

    def __init__(
        self,
        player: ModelPlayer | None = None,
        source: ModelSource | None = None,
        game: Game | None = None,
        simulations: int | TimeBudget = DEFAULT_SIMULATIONS,
        search: PlaySearch | None = None,
        options: PlayerOptions | None = None,
    ) -> None:
        self.player = player
        self.source = source
        self.game = game
        self.simulations = simulations
        self.search = search
        self.options = options
        self.error: str | None = None

    def get(self) -> tuple[ModelPlayer | None, str]:
        """``(model player, "")`` or ``(None, why there is none)``."""
        if self.player is not None:
            return self.player, ""
        if self.source is None or self.game is None:
            return None, "no model is loaded, so no hint: start with --model PATH to get hints"
        if self.error is None:
            try:
                self.player = ModelPlayer(
                    self.source, self.game, self.simulations, self.search, self.options
                )
                return self.player, ""
            except (CheckpointError, GameError, ValueError, OSError) as error:
                self.error = f"no hint: the model cannot be loaded ({error})"
        return None, self.error


def is_human(player: Player) -> bool:
    """Whether ``player`` is a person, whose moves the session asks for at its prompt."""
    return isinstance(player, HumanPlayer)


@dataclass
class Undo:
    """``ask``'s answer when the person takes moves back: truncate the game at ``index``."""

    index: int


class Session:
    """Games between a person and another player (or two people) at the terminal.

    ``new_game`` makes the starting position, always of one board, which ``view`` shows.
    ``names`` shows players by ``id``. Output goes to ``out``; input comes from ``reader``.
    """

    def __init__(
        self,
        new_game: Callable[[], Game],
        *,
        reader: LineReader,
        out: TextIO,
        style: Style,
        hint: HintModel,
        names: Mapping[int, str],
        show_thoughts: bool = True,
        save: Path | None = None,
        width: int | None = None,
    ) -> None:
        self.new_game = new_game
        self.view = view_for(new_game())
        self._width = width
        """Columns to wrap help and thoughts to; None: the terminal's, asked each time (it
        may have been resized)."""
        self.reader = reader
        self.out = out
        self.style = style
        self.hint = hint
        self.names = names
        self.show_thoughts = show_thoughts
        self.save_path = save
        self.records: list[GameRecord] = []
        self._saved_before = records_before(save)
        """The games the records file held before this session's, kept before them."""
        self._live = is_tty(out)
        # the game in progress, for the record of an abandoned game
        self._start: Game | None = None
        self._seats: dict[int, Player] = {}
        self._history: list[tuple[Game, int]] = []

    # ------------------------------------------------------------------ output
    def say(self, *lines: str) -> None:
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()

    def width(self) -> int:
        return self._width if self._width is not None else terminal_width()

    def say_wrapped(self, *lines: str) -> None:
        """Long lines (a game's introduction, a model's thoughts), wrapped with an indent on
        a terminal, which would otherwise break them at its edge, flush left; written whole
        into a file or a pipe, one line each, as a transcript is read and searched."""
        if self._live or self._width is not None:
            lines = tuple(fill(line, self.width(), columns=False) for line in lines)
        self.say(*lines)

    def name(self, player: Player) -> str:
        return self.names.get(id(player), player.name)

    def show_board(self, game: Game) -> None:
        self.say("", self.style.board(self.view.render(game)), "")

    def label(self, game: Game, player: int) -> str:
        """``X (you)``, ``O (random)``: the mark in colour and who plays it."""
        mark = self.view.marks[player]
        return f"{self.style.mark(mark)} ({self.name(self._seats[player])})"

    def announce(self, game: Game, player: int) -> str:
        """``you play`` / ``random (O) plays``: the start of the line naming a move."""
        name = self.name(self._seats[player])
        if name == "you":
            return "you play"
        return f"{name} ({self.style.mark(self.view.marks[player])}) plays"

    # ------------------------------------------------------------------ games
    def play(self, first: Player, second: Player, games: int | None = None) -> int:
        """Play ``games`` games, ``first`` moving first in the odd ones; with ``games`` None,
        game after game, sides swapped each time, for as long as the person wants another.
        A running score follows every game but a single one. The exit code."""
        wins = {id(first): 0, id(second): 0}
        draws = 0
        number = 0
        try:
            while True:
                seats = {1: first, -1: second} if number % 2 == 0 else {1: second, -1: first}
                if games is None and number:
                    self.say(f"--- game {number + 1} ---")
                elif games is not None and games > 1:
                    self.say(f"--- game {number + 1} of {games} ---")
                final = self.play_game(seats)
                self._record(final)
                number += 1
                if final.score:
                    wins[id(seats[final.score])] += 1
                else:
                    draws += 1
                if games != 1:
                    self.say(
                        f"score after {number} game{'s' * (number > 1)}: "
                        f"{self.name(first)} {wins[id(first)]}, "
                        f"{self.name(second)} {wins[id(second)]}, draws {draws}",
                        "",
                    )
                if number == games or (games is None and not self.another(seats[-1])):
                    break
        except (Leave, KeyboardInterrupt, EOFError):
            if self._start is not None:
                self._record(None)
            self.say("", "bye")
        return 0

    def another(self, next_first: Player) -> bool:
        """Ask whether to play again, ``next_first`` moving first; no at the end of input.
        Raises ``Leave`` (``bye``) on no, as after ``quit`` at a move."""
        name = self.name(next_first)
        who = "you move first" if name == "you" else f"{name} moves first"
        while True:
            line = self.reader.read(f"another game, sides swapped ({who})? (Y/n) ")
            if line is None:
                raise Leave("end of input")
            answer = line.strip().lower()
            if answer in ("", "y", "yes"):
                return True
            if answer in ("n", "no", "q", "quit", "exit"):
                raise Leave("no more games")
            self.say("answer y (another game) or n (stop)")

    def _record(self, final: Game | None) -> None:
        assert self._start is not None
        names = {p: self._seats[p].name for p in (1, -1)}
        actions = [action for _, action in self._history]
        self.records.append(GameRecord.of(self._start, names, actions, final))
        self._start = None
        if self.save_path is not None:
            try:
                save_records(self.save_path, self.records, self._saved_before)
            except OSError as error:
                print(f"cannot write {self.save_path}: {error}", file=sys.stderr)

    def play_game(self, seats: dict[int, Player]) -> Game:
        """One game to the end; the final position. Raises ``Leave`` if the person leaves."""
        game = self.new_game()
        self._start, self._seats, self._history = game, seats, []
        history = self._history
        view = self.view
        self.say_wrapped(
            f"{view.full_title}: {self.label(game, 1)} against {self.label(game, -1)}; "
            f"{view.marks[1]} moves first.",
            f"Type a move ({view.notation}), or help, hint, undo, quit.",
        )
        shown: Game | None = None
        while game.score is None:
            mover = seats[game.player]
            if is_human(mover):
                if shown is not game:
                    self.show_board(game)
                    shown = game
                answer = self.ask(game)
                if isinstance(answer, Undo):
                    game = history[answer.index][0]
                    del history[answer.index :]
                    continue
                action = answer
                self.say(f"{self.announce(game, game.player)} {view.format_move(action)}")
            else:
                action = self.machine_move(mover, game)
            history.append((game, action))
            before, game = game, game.sim_move(action)
            if game.score is None and game.player == before.player:
                self.say(self.again_line(game))
        self.show_board(game)
        self.say(self.result_line(game), self.moves_line())
        return game

    def again_line(self, game: Game) -> str:
        """Said when a move leaves the same player to move (a box completed in Dots and
        Boxes), so that a run of moves by one player reads as such."""
        mark = self.view.marks[game.player]
        score = box_score(game, self.view)
        if score is None:
            return f"  {mark} moves again"
        return f"  {mark} completes a box ({score}) and moves again"

    def machine_move(self, player: Player, game: Game) -> int:
        """The move of a player that is not a person, with what it thought if it says."""
        if self._live:
            self.out.write(f"{self.name(player)} is thinking...")
            self.out.flush()
        thought: Thought | None = None
        think = getattr(player, "think", None)
        try:
            if callable(think):
                thought = think(game)
                action = thought.action
            else:
                action = int(player(game))
        finally:
            if self._live:
                self.out.write("\r\x1b[K")
        self.say(f"{self.announce(game, game.player)} {self.view.format_move(action)}")
        if thought is not None and self.show_thoughts:
            self.say_wrapped(*format_thought(thought, "its search", "its outlook"))
        return action

    def result_line(self, game: Game) -> str:
        if game.score == 0:
            text = "result: draw"
        else:
            assert game.score is not None
            text = f"result: {self.label(game, game.score)} wins"
            if self.name(self._seats[game.score]) == "you":
                text += " - well played!"
        score = box_score(game, self.view)
        if score is not None:
            text += f" ({score})"
        return text

    def moves_line(self) -> str:
        if not self._history:
            return "moves: none yet"
        view = self.view
        return "moves: " + ", ".join(
            f"{view.marks[position.player]} {view.format_move(action)}"
            for position, action in self._history
        )

    # ------------------------------------------------------------------ the prompt
    def ask(self, game: Game) -> int | Undo:
        """Read lines until one is a legal move (an action) or an ``undo`` that can be done.

        Commands are answered here; anything else gets a short reason and the prompt again
        (``ask_move``). Raises ``Leave`` on ``quit`` and at the end of input.
        """
        mark = self.view.marks[game.player]
        who = self.name(self._seats[game.player])
        prompt = f"your move ({mark}): " if who == "you" else f"{who} to move ({mark}): "

        def leave() -> None:
            raise Leave("quit")

        commands: dict[str, Callable[[], Undo | None]] = {
            "help": lambda: self.say(game_help(self.view, self.width())),
            "hint": lambda: self.give_hint(game),
            "undo": lambda: self.undo(game),
            "moves": lambda: self.say(self.moves_line()),
            "board": lambda: self.show_board(game),
            "quit": leave,
        }
        for alias, command in COMMAND_ALIASES.items():
            commands[alias] = commands[command]
        return ask_move(game, self.reader, prompt, self.say, commands)

    def undo(self, game: Game) -> Undo | None:
        """Take back the person's last move and the replies to it, saying which; ``None``
        (and why) when they have not moved yet."""
        index = self.undo_point(game)
        if index is None:
            self.say("nothing to undo: you have not moved yet")
            return None
        taken = self._history[index:]
        view = self.view
        self.say(
            f"took back {len(taken)} move{'s' if len(taken) > 1 else ''}: "
            + ", ".join(f"{view.marks[p.player]} {view.format_move(a)}" for p, a in taken)
        )
        return Undo(index)

    def undo_point(self, game: Game) -> int | None:
        """Where ``undo`` goes back to: the last move made by the player to move now, so
        that it is their turn again in the position before it (Dots and Boxes has extra
        turns: never assume that the players alternate). ``None`` if they have not moved."""
        for index in range(len(self._history) - 1, -1, -1):
            if self._history[index][0].player == game.player:
                return index
        return None

    def give_hint(self, game: Game) -> None:
        player, reason = self.hint.get()
        if player is None:
            self.say(reason)
            return
        thought = player.think(game)
        self.say_wrapped(*format_thought(thought, "hint", "your outlook", chosen="suggested"))
