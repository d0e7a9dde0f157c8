"""A Connect Four player's mistakes on Pascal Pons' six benchmark sets, as AlphaZero.jl counts them.

The sets (``experiments/data/pons/``, 1,000 positions each: beginning, middle and end of the
game, easy to hard) are the field's standard yardstick. A mistake is a move whose result (win,
draw or loss, from the project's solver) is worse than the best move's, as in AlphaZero.jl's
``games/connect-four/scripts/pons_benchmark.jl``; the rate is over all the positions scored.
Only the positions ``experiments/connect4_pons_solve.py`` has solved are scored (all of them
once it has run to the end); the table says how many. Run:

    python benchmarks/connect4_pons.py --model checkpoints/pretrained/connect4 --sims 800
    python benchmarks/connect4_pons.py --model checkpoints/pretrained/connect4 \\
        --sets beginning-hard --sims 200 800 3200 12800 --results pons.jsonl
    python benchmarks/connect4_pons.py --model checkpoints/pretrained/connect4 --game-time 20
    python benchmarks/connect4_pons.py --player uct:2000 --sets end-easy --limit 100

A model plays as in ``play.py``: the same player (``model:PATH:SIMS``, or a time budget:
``model:PATH:2s`` a move, ``model:PATH:60s/game`` a game's shared out by the plies played),
with play's leaves per network call and engine; with a number of simulations the positions
of a batch are searched at once, with a time budget one at a time. Several budgets (``--sims
200 800``, ``--move-time``, ``--game-time``, or several ``--player`` specs) make one row each
per set. A row has the mistake rate with its 95% (Wilson) interval, the simulations a move
(what a time budget bought, on average) and the CPU seconds a move. Time budgets count CPU
seconds by default (``--clock``).

With ``--results FILE`` every position's move is appended to FILE (JSON Lines) as it is
scored, and a run that finds FILE there scores only what it lacks, for the same spec: a long
run (12,800 simulations a move) can be stopped and resumed. Stopped with Ctrl-C (or ``kill``),
it prints the row of what it was scoring over the positions done.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.model_player import ModelPlayer
from alphazero.evaluation.player_specs import (
    DEFAULT_MODEL_SIMULATIONS,
    PlayerSpecError,
    budget,
    model_spec_parts,
)
from alphazero.evaluation.players import BatchPlayer, Player, make_player
from alphazero.evaluation.pons_positions import (
    SETS,
    PonsPosition,
    PonsPositionsError,
    load_set,
    wilson_interval,
)
from alphazero.evaluation.time_budget import CLOCKS, TimeBudget
from alphazero.games import make
from alphazero.network.engines import EngineError
from alphazero.play.defaults import DEFAULT_ENGINE, DEFAULT_LEAVES, DEFAULT_SIMULATIONS
from alphazero.training.run_errors import CheckpointError

FOLDER = Path(__file__).resolve().parents[1] / "experiments" / "data" / "pons"
BATCH = 64
"""Positions searched at once at play's 800 simulations: with its 4 leaves each, 256 per
network call."""
BATCH_SIMULATIONS = BATCH * DEFAULT_SIMULATIONS
"""Simulations in flight at most, so that more a move search fewer positions at once: the
trees of a whole batch at 12,800 simulations each would not fit a small machine's memory."""
SET_NAMES = {label.replace(" ", "-"): name for name, label in SETS}


@dataclass
class Scored:
    """A spec's moves on one set so far: each position's record, by its moves."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, record: dict[str, Any]) -> None:
        self.records[record["moves"]] = record


def key(position: PonsPosition) -> str:
    """A position as the set writes it: its moves as 1-based columns."""
    return "".join(str(a + 1) for a in position.moves)


def batch_size(spec: str) -> int:
    """Positions searched at once by ``spec``'s player (``BATCH_SIMULATIONS`` in flight)."""
    model = model_spec_parts(spec)
    if model is None:
        return BATCH
    if isinstance(model[1], TimeBudget):  # searched one at a time: a record each
        return 1
    return max(1, min(BATCH, BATCH_SIMULATIONS // (model[1] or DEFAULT_MODEL_SIMULATIONS)))


def score(
    player: Player,
    spec: str,
    set_name: str,
    positions: Sequence[PonsPosition],
    scored: Scored,
    results: Path | None,
) -> bool:
    """Score ``player`` on the ``positions`` not in ``scored`` yet, a batch at a time, each
    record added to ``scored`` (and appended to ``results``). False when interrupted."""
    todo = [p for p in positions if key(p) not in scored.records]
    size = batch_size(spec)
    log = player.log if isinstance(player, ModelPlayer) else None
    with tqdm(total=len(positions), initial=len(positions) - len(todo), desc=f"{set_name} "
              f"{spec}", unit="position", leave=False) as bar:  # fmt: skip
        try:
            for start in range(0, len(todo), size):
                batch = todo[start : start + size]
                games = [p.game for p in batch]
                simulations = log.simulations if log is not None else 0
                began = time.process_time()
                if isinstance(player, BatchPlayer):
                    actions = player.batch_moves(games)
                else:
                    actions = [player(game) for game in games]
                cpu = (time.process_time() - began) / len(batch)
                done = (log.simulations - simulations) / len(batch) if log is not None else None
                records = [
                    {"spec": spec, "set": set_name, "moves": key(p), "action": a,
                     "mistake": p.is_mistake(a), "simulations": done, "cpu_seconds": cpu}
                    for p, a in zip(batch, actions, strict=True)
                ]  # fmt: skip
                for record in records:
                    scored.add(record)
                if results is not None:
                    with results.open("a", encoding="utf-8") as out:
                        out.writelines(json.dumps(r) + "\n" for r in records)
                bar.update(len(batch))
        except KeyboardInterrupt:
            return False
    return True


def read_results(path: Path | None) -> dict[tuple[str, str], Scored]:
    """What an earlier run wrote to ``path``, by (spec, set); nothing if it is not there."""
    found: dict[tuple[str, str], Scored] = {}
    if path is None or not path.exists():
        return found
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise PonsPositionsError(f"--results {path}: cannot read it ({error})") from None
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
            found.setdefault((record["spec"], record["set"]), Scored()).add(record)
        except (ValueError, KeyError, TypeError):
            if number < len(lines):
                raise PonsPositionsError(
                    f"--results {path}, line {number}: not a record of this benchmark"
                ) from None
            # A last line cut short by a stop mid-write: dropped, so that the records added
            # after it start on a line of their own; that position is scored again.
            path.write_text("".join(f"{line}\n" for line in lines[:-1]), encoding="utf-8")
    return found


def interrupted(*_: object) -> None:
    raise KeyboardInterrupt


def budget_of(spec: str) -> str:
    """The budget a move the spec gives: simulations, a time (``2s``, ``60s/game``), or
    ``-``."""
    kind, _, rest = spec.partition(":")
    if (model := model_spec_parts(spec)) is not None:
        return str(model[1] or DEFAULT_MODEL_SIMULATIONS)
    if kind.lower() in ("uct", "rave"):
        given = budget(rest.split(":")[0], spec)
        return str(given["simulations"] or f"{given['seconds']:g}s")
    return "-"


HEADER = (
    "| set | budget | positions | mistakes | mistake rate | 95% interval | simulations a move "
    "| CPU s a move |\n| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"
)


def row(label: str, spec: str, records: Sequence[dict[str, Any]], total: int) -> str:
    """A markdown row: the set, the spec's budget, its positions scored (of ``total``), the
    mistakes, their rate with its 95% interval, and the simulations and CPU seconds a move."""
    given = budget_of(spec)
    if not records:
        return f"| {label} | {given} | 0 of {total} | | not solved yet | | | |"
    scored = len(records)
    mistakes = sum(bool(r["mistake"]) for r in records)
    low, high = wilson_interval(mistakes, scored)
    shown = f"{scored}" if scored == total else f"{scored} of {total}"
    counts = [r["simulations"] for r in records if r.get("simulations") is not None]
    simulations = f"{sum(counts) / len(counts):,.0f}" if len(counts) == scored else "-"
    cpu = sum(float(r["cpu_seconds"]) for r in records) / scored
    return (
        f"| {label} | {given} | {shown} | {mistakes} | {mistakes / scored:.1%} | "
        f"{low:.1%}-{high:.1%} | {simulations} | {cpu:.3f} |"
    )


def parse_args() -> argparse.Namespace:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--model", type=Path, help="a run folder (its best.keras) or a .keras file")
    who.add_argument(
        "--player",
        nargs="+",
        metavar="SPEC",
        help="any player specs instead, a row each: model:PATH:SIMS, model:PATH:2s, uct:2000 ...",
    )
    parser.add_argument(
        "--sims",
        type=int,
        nargs="+",
        metavar="N",
        help=f"--model's simulations a move, a row each (default {DEFAULT_SIMULATIONS}, play's, "
        "unless a time is given)",
    )
    parser.add_argument(
        "--move-time",
        type=float,
        nargs="+",
        default=[],
        metavar="SECONDS",
        help="--model searching SECONDS a move (as play.py --move-time), a row each",
    )
    parser.add_argument(
        "--game-time",
        type=float,
        nargs="+",
        default=[],
        metavar="SECONDS",
        help="--model with SECONDS a game, shared out by each position's plies played (as "
        "play.py --game-time), a row each",
    )
    parser.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="cpu",
        help="what a time budget counts (default cpu: steadier on a busy machine)",
    )
    parser.add_argument(
        "--sets",
        nargs="+",
        choices=list(SET_NAMES),
        default=list(SET_NAMES),
        help="the sets to score (default: all six)",
    )
    parser.add_argument(
        "--limit", type=int, help="score only the first N solved positions of each set"
    )
    parser.add_argument(
        "--folder",
        type=Path,
        default=FOLDER,
        help="the sets and their per-move results (default experiments/data/pons)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        metavar="FILE",
        help="append each position's move to FILE (JSON Lines) and score only what it lacks: "
        "a stopped run resumes",
    )
    parser.add_argument(
        "--seed", type=non_negative_integer, default=0, help="the player's seed (default 0)"
    )
    return parser.parse_args()


def specs_of(args: argparse.Namespace) -> list[str]:
    """The player specs to score, a row each; ``ValueError`` for a bad budget."""
    if args.player is not None:
        if args.sims or args.move_time or args.game_time:
            raise ValueError("--sims, --move-time and --game-time go with --model")
        return list(args.player)
    sims = args.sims or ([] if args.move_time or args.game_time else [DEFAULT_SIMULATIONS])
    budgets: list[int | TimeBudget] = []
    for count in sims:
        if count < 2:  # the first simulation evaluates the root: one visits no move
            raise ValueError(f"--sims must be at least 2, got {count}")
        budgets.append(count)
    budgets += [TimeBudget(seconds) for seconds in args.move_time]
    budgets += [TimeBudget(seconds, per_game=True) for seconds in args.game_time]
    return [f"model:{args.model}:{given}" for given in budgets]


def main() -> int:
    args = parse_args()
    try:
        if args.limit is not None and args.limit < 1:
            raise ValueError(f"--limit must be at least 1, got {args.limit}")
        specs = specs_of(args)
        for spec in specs:
            budget_of(spec)  # a bad spec is named before any model loads
        sets = [(label, *load_set(args.folder, SET_NAMES[label])) for label in args.sets]
        if args.results is not None and not args.results.parent.is_dir():
            folder = args.results.parent
            raise ValueError(f"--results {args.results}: the folder {folder} does not exist")
        done = read_results(args.results)
    except (PonsPositionsError, PlayerSpecError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    players: dict[str, Player] = {}
    print(f"{', '.join(specs)} on Pascal Pons' benchmark sets ({args.folder}):")
    print(HEADER, flush=True)
    kinds = []
    # Stopped (Ctrl-C, or kill for a run in the background), a row covers the positions
    # scored and the rows after it are left out.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupted)
    for label, positions, total in sets:  # a row as soon as it is scored
        positions = positions[: args.limit]
        for spec in specs:
            scored = done.setdefault((spec, SET_NAMES[label]), Scored())
            finished = True
            if any(key(p) not in scored.records for p in positions):
                try:
                    player = players.get(spec) or load(spec, args)
                except (PlayerSpecError, CheckpointError, EngineError, ValueError) as error:
                    print(f"error: {error}", file=sys.stderr)
                    return 2
                players[spec] = player
                finished = score(player, spec, SET_NAMES[label], positions, scored, args.results)
            these = [p for p in positions if key(p) in scored.records]
            records = [scored.records[key(p)] for p in these]
            print(row(label, spec, records, total), flush=True)
            shown = f"{label} at {budget_of(spec)}:" if len(specs) > 1 else label
            kinds.append(f"{shown} {by_result(these, records)}")
            if not finished:
                print(f"stopped: {label} {spec} scored on {len(records)} positions only")
                return 0
    print("mistakes by the position's result (a lost position has none):")
    print("\n".join(kinds))
    return 0


def load(spec: str, args: argparse.Namespace) -> Player:
    """The player ``spec`` names, as play builds it, time budgets counted by ``--clock``; a
    model's network has run once, so that its first move's seconds are not its start-up's."""
    start = make("connect4")
    player = make_player(
        spec, start, seed=args.seed, leaves=DEFAULT_LEAVES, engine=DEFAULT_ENGINE,
        clock=CLOCKS[args.clock],
    )  # fmt: skip
    if isinstance(player, ModelPlayer):
        player.network(start.encode()[None])
    return player


def by_result(positions: Sequence[PonsPosition], records: Sequence[dict[str, Any]]) -> str:
    """``won 3 of 420, drawn 5 of 180``: where the mistakes were."""
    parts = []
    for name, best in (("won", 1), ("drawn", 0)):
        these = [r["mistake"] for p, r in zip(positions, records, strict=True) if p.best == best]
        parts.append(f"{name} {sum(these)} of {len(these)}")
    return ", ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
