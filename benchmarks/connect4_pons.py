"""A Connect Four player's mistakes on Pascal Pons' six benchmark sets, as AlphaZero.jl counts them.

The sets (``experiments/data/pons/``, 1,000 positions each: beginning, middle and end of the
game, easy to hard) are the field's standard yardstick. A mistake is a move whose result (win,
draw or loss, from the project's solver) is worse than the best move's, as in AlphaZero.jl's
``games/connect-four/scripts/pons_benchmark.jl``; the rate is over all the positions scored.
Only the positions ``experiments/connect4_pons_solve.py`` has solved are scored (all of them
once it has run to the end); the table says how many. Run:

    python benchmarks/connect4_pons.py --model checkpoints/pretrained/connect4 --sims 800
    python benchmarks/connect4_pons.py --player uct:2000 --sets end-easy --limit 100

A model plays as in ``play.py``: the same player (``model:PATH:SIMS``), with play's leaves per
network call and engine, every position of a batch searched at once. The table has one row
per set: the mistake rate with its 95% (Wilson) interval, and the simulations a move. Stopped
with Ctrl-C (or ``kill``), it prints the row of the set it was scoring over the positions done.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from alphazero.evaluation.player_specs import PlayerSpecError, budget, model_spec_parts
from alphazero.evaluation.players import BatchPlayer, Player, make_player
from alphazero.evaluation.pons_positions import (
    SETS,
    PonsPosition,
    PonsPositionsError,
    load_set,
    wilson_interval,
)
from alphazero.games import make
from alphazero.network.engines import EngineError
from alphazero.play.options import DEFAULT_ENGINE, DEFAULT_LEAVES, DEFAULT_SIMULATIONS
from alphazero.training.run_errors import CheckpointError

FOLDER = Path(__file__).resolve().parents[1] / "experiments" / "data" / "pons"
BATCH = 64
"""Positions searched at once: with play's 4 leaves each, 256 per network call."""
SET_NAMES = {label.replace(" ", "-"): name for name, label in SETS}


def choose(player: Player, positions: Sequence[PonsPosition], label: str) -> list[int]:
    """The player's move in each position, a batch at a time where it can; on an interrupt,
    those of the batches done (the set's first positions)."""
    actions: list[int] = []
    with tqdm(total=len(positions), desc=label, unit="position", leave=False) as bar:
        try:
            for start in range(0, len(positions), BATCH):
                games = [p.game for p in positions[start : start + BATCH]]
                if isinstance(player, BatchPlayer):
                    moves = player.batch_moves(games)
                else:
                    moves = [player(game) for game in games]
                actions += moves
                bar.update(len(games))
        except KeyboardInterrupt:
            pass
    return actions


def interrupted(*_: object) -> None:
    raise KeyboardInterrupt


def simulations_of(spec: str) -> str:
    """The simulations a move the spec gives (a time budget or none: ``-``)."""
    kind, _, rest = spec.partition(":")
    if (model := model_spec_parts(spec)) is not None:
        return str(model[1])
    if kind.lower() in ("uct", "rave"):
        simulations = budget(rest.split(":")[0], spec).get("simulations")
        return "-" if simulations is None else str(simulations)
    return "-"


HEADER = (
    "| set | positions | mistakes | mistake rate | 95% interval | simulations |\n"
    "| --- | ---: | ---: | ---: | --- | ---: |"
)


def row(label: str, mistakes: int, scored: int, total: int, simulations: str) -> str:
    """A markdown row: the set, its positions scored (of ``total``), the mistakes, their rate
    with its 95% interval, and the simulations a move."""
    if scored == 0:
        return f"| {label} | 0 of {total} | | not solved yet | | {simulations} |"
    low, high = wilson_interval(mistakes, scored)
    shown = f"{scored}" if scored == total else f"{scored} of {total}"
    return (
        f"| {label} | {shown} | {mistakes} | {mistakes / scored:.1%} | "
        f"{low:.1%}-{high:.1%} | {simulations} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--model", type=Path, help="a run folder (its best.keras) or a .keras file")
    who.add_argument("--player", help="any player spec instead: model:PATH:SIMS, uct:2000 ...")
    parser.add_argument(
        "--sims",
        type=int,
        default=DEFAULT_SIMULATIONS,
        help=f"--model's simulations a move (default {DEFAULT_SIMULATIONS}, play's)",
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
    parser.add_argument("--seed", type=int, default=0, help="the player's seed (default 0)")
    args = parser.parse_args()
    if args.sims < 2:  # the first simulation evaluates the root: one visits no move
        parser.error(f"--sims must be at least 2, got {args.sims}")
    if args.limit is not None and args.limit < 1:
        parser.error(f"--limit must be at least 1, got {args.limit}")
    spec = args.player if args.player is not None else f"model:{args.model}:{args.sims}"
    try:
        sets = [(label, *load_set(args.folder, SET_NAMES[label])) for label in args.sets]
        player = make_player(
            spec, make("connect4"), seed=args.seed, leaves=DEFAULT_LEAVES, engine=DEFAULT_ENGINE
        )
        simulations = simulations_of(spec)
    except (PonsPositionsError, PlayerSpecError, CheckpointError, EngineError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{spec} on Pascal Pons' benchmark sets ({args.folder}):")
    print(HEADER, flush=True)
    kinds = []
    # Stopped (Ctrl-C, or kill for a run in the background), a set's row covers its first
    # positions scored and the sets after it are left out.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupted)
    for label, positions, total in sets:  # a row as soon as its set is scored
        positions = positions[: args.limit]
        actions = choose(player, positions, label)
        stopped = len(actions) < len(positions)
        positions = positions[: len(actions)]
        wrong = [p.is_mistake(a) for p, a in zip(positions, actions, strict=True)]
        print(row(label, sum(wrong), len(positions), total, simulations), flush=True)
        kinds.append(f"{label} {by_result(positions, wrong)}")
        if stopped:
            print(f"stopped: {label} scored on its first {len(actions)} positions only")
            break
    print("mistakes by the position's result (a lost position has none):")
    print("\n".join(kinds))
    return 0


def by_result(positions: Sequence[PonsPosition], wrong: Sequence[bool]) -> str:
    """``won 3 of 420, drawn 5 of 180``: where the mistakes were."""
    parts = []
    for name, best in (("won", 1), ("drawn", 0)):
        these = [w for p, w in zip(positions, wrong, strict=True) if p.best == best]
        parts.append(f"{name} {sum(these)} of {len(these)}")
    return ", ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
