"""A development set of Connect Four openings weighted to drawn positions (issue 60).

``docs/research/connect4_openings.md`` finds the shipped model's mistakes in drawn openings,
but the first development set (``connect4_openings_dev.tsv``) holds 44 drawn positions of 563:
semi-random games seldom stop drawn, and 44 cannot tell recipes apart. This draws openings the
way ``connect4_fresh_positions.py`` does (its semi-random games: half random moves and half
``uct:300``'s, none won at once by the mover), the lengths taken in turn within ``--lengths``,
and keeps every drawn position and, of each length, as many won ones as drawn ones (lost
positions are left out: ``connect4_opening_errors.py`` reads only positions not already lost).
None of the committed 1,002 positions is drawn, nor any of Pons' six sets (``data/pons``), of
the ``--exclude`` files or of the ``--exclude-table`` tables, played or mirrored. Run:

    python experiments/connect4_drawn_openings.py --seed 4 --lengths 8-12 --minutes 45 \\
        --exclude experiments/data/connect4_fresh.tsv experiments/data/connect4_fresh_seed2.tsv \\
            experiments/data/connect4_openings_dev.tsv \\
        --exclude-table experiments/data/connect4_opening_targets_s1200.tsv \\
        --out experiments/data/connect4_openings_drawn_dev.tsv

Solving is all the cost, and about one position in twelve is drawn, so each position is first
solved for its result alone (``connect4_solver.c --sign``, one search instead of one a move:
about 2.5 times cheaper), and only the kept ones for every move (``--weak``, the file's
format). Positions go in batches (``--batch``), each batch's kept positions appended to
``--out`` at once: a run stopped by ``--drawn``, ``--minutes`` or Ctrl-C leaves a usable file.
"""

from __future__ import annotations

import collections
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from connect4_fresh_positions import (
    board_keys,
    build_solver,
    lengths_range,
    notation,
    run_solver,
    semi_random_game,
)
from connect4_opening_targets import read_table

from alphazero.baselines.uct import UCTPlayer
from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.pons_positions import SETS, read_set
from alphazero.evaluation.solved_positions import load_positions

PONS = Path(__file__).with_name("data") / "pons"
"""Pons' six benchmark sets, test sets too: none of their positions is drawn either."""


def keep_balanced(
    results: Iterable[tuple[str, int]], kept: collections.Counter[tuple[int, int]]
) -> list[str]:
    """The positions to keep of ``results`` (moves as ``"4453"`` and the mover's result: 1 won,
    0 drawn, -1 lost): every drawn one, and a won one only while fewer won than drawn ones of
    its length are kept; no lost one. ``kept`` counts what is kept so far by ``(length,
    result)`` and is updated. The drawn ones are taken first, so a batch's won positions can
    match its own draws."""
    chosen = []
    for moves, result in sorted(results, key=lambda item: item[1] != 0):
        length = len(moves)
        if result == 0 or (result == 1 and kept[length, 1] < kept[length, 0]):
            kept[length, result] += 1
            chosen.append(moves)
    return chosen


def excluded_keys(files: Sequence[Path], tables: Sequence[Path]) -> set[tuple[int, ...]]:
    """The game keys (played and mirrored) of the committed file's positions, of Pons' six sets,
    of the solved-position files ``files`` and of the ``connect4_opening_targets.py --out``
    tables ``tables``."""
    seen: set[tuple[int, ...]] = set()
    for position in [*load_positions(), *(p for path in files for p in load_positions(path))]:
        seen |= board_keys(list(position.moves))
    for name, _ in SETS:
        for moves, _ in read_set(PONS / name):
            seen |= board_keys([int(c) - 1 for c in moves])
    for path in tables:
        for row in read_table(path):
            seen |= board_keys(row.moves)
    return seen


def draw_batch(
    size: int,
    lengths: Sequence[int],
    turn: int,
    rng: np.random.Generator,
    good: UCTPlayer,
    seen: set[tuple[int, ...]],
) -> tuple[list[str], int]:
    """``size`` new openings (1-based moves), the lengths taken in turn from ``lengths[turn]``
    on, none of ``seen`` (which they join); and the turn to start the next batch at."""
    batch: list[str] = []
    misses = 0  # games in a row that gave no new position: short openings run out
    while len(batch) < size:
        moves = semi_random_game(lengths[turn % len(lengths)], rng, good)
        if moves is None:
            continue
        turn += 1
        keys = board_keys(moves)
        if not keys & seen:
            seen |= keys
            batch.append(notation(moves))
            misses = 0
        elif (misses := misses + 1) == 10_000:
            raise SystemExit(
                "connect4_drawn_openings: 10,000 games in a row gave no new position; "
                "choose longer --lengths"
            )
    return batch, turn % len(lengths)


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, required=True, help="TSV to write (the committed file's format)"
    )
    parser.add_argument(
        "--seed", type=non_negative_integer, default=4, help="seed of the games (default 4)"
    )
    parser.add_argument(
        "--lengths",
        type=lengths_range,
        default=(5, 12),
        metavar="LOW-HIGH",
        help="moves played, LOW to HIGH, taken in turn (default 5-12)",
    )
    parser.add_argument(
        "--good-simulations", type=int, default=300, help="UCT simulations of a good move"
    )
    parser.add_argument(
        "--batch", type=int, default=100, help="positions solved between writes (default 100)"
    )
    parser.add_argument("--drawn", type=int, help="stop once this many drawn positions are kept")
    parser.add_argument(
        "--minutes", type=float, help="start no batch after this many minutes of wall time"
    )
    parser.add_argument("--jobs", type=int, default=2, help="solver processes at once (default 2)")
    parser.add_argument(
        "--exclude",
        type=Path,
        nargs="*",
        default=[],
        metavar="FILE",
        help="solved-position files whose positions (or their mirror images) to leave out",
    )
    parser.add_argument(
        "--exclude-table",
        type=Path,
        nargs="*",
        default=[],
        metavar="FILE",
        help="tables of connect4_opening_targets.py --out whose positions to leave out",
    )
    args = parser.parse_args()
    if args.lengths[0] < 1:
        parser.error("--lengths must start at 1 move or more (the empty board is no opening)")
    for name in ("batch", "drawn", "minutes", "jobs"):
        value = getattr(args, name)
        if value is not None and not value > 0:  # NaN too: --minutes nan started no batch
            parser.error(f"--{name} must be positive, got {value}")
    if args.good_simulations < 1:
        parser.error(f"--good-simulations must be at least 1, got {args.good_simulations}")
    if args.drawn is None and args.minutes is None:
        parser.error("give --drawn or --minutes (or both): when to stop")
    if args.out.exists():
        parser.error(f"--out {args.out} exists: batches are appended, so start from no file")
    try:  # read now, not after the solver is built
        seen = excluded_keys(args.exclude, args.exclude_table)
    except ValueError as error:  # the files' own errors: SolvedPositions, PonsPositions, Table
        parser.error(str(error))  # it names the file and the line

    start = time.monotonic()
    rng = np.random.default_rng(args.seed)
    good = UCTPlayer(simulations=args.good_simulations, seed=args.seed)
    lengths = list(range(args.lengths[0], args.lengths[1] + 1))
    kept: collections.Counter[tuple[int, int]] = collections.Counter()
    tally: collections.Counter[int] = collections.Counter()
    jobs = args.jobs
    turn = 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.touch()
    with tempfile.TemporaryDirectory() as folder:
        binary = build_solver(Path(folder))
        try:
            while (args.drawn is None or kept_of(kept, 0) < args.drawn) and (
                args.minutes is None or time.monotonic() - start < 60 * args.minutes
            ):
                batch, turn = draw_batch(args.batch, lengths, turn, rng, good, seen)
                # The result alone first (one search, not one a move), then every move of
                # the few positions kept.
                signs = [line.split("\t") for line in run_solver(binary, batch, "--sign", jobs)]
                found = [(moves, int(result)) for moves, result in signs]
                tally.update(result for _, result in found)
                counted = kept.copy()  # becomes ``kept`` once the batch is in the file
                chosen = keep_balanced(found, counted)
                solved = run_solver(binary, chosen, "--weak", jobs) if chosen else []
                expected = dict(found)
                for line in solved:
                    moves, score, _ = line.split("\t")
                    # --weak's result is the best of its moves', each solved apart
                    if int(score) != expected[moves]:
                        raise SystemExit(
                            f"connect4_drawn_openings: {moves} is {expected[moves]} by --sign "
                            f"but {score} by --weak"
                        )
                with args.out.open("a") as out:
                    out.writelines(f"{line}\n" for line in solved)
                kept = counted
                print(
                    f"{(time.monotonic() - start) / 60:.1f} min: {tally.total()} solved "
                    f"({tally[1]} won, {tally[0]} drawn, {tally[-1]} lost), kept "
                    f"{kept_of(kept, 0)} drawn and {kept_of(kept, 1)} won",
                    flush=True,
                )
        except KeyboardInterrupt:
            print("stopped: the batches solved so far are in the file", file=sys.stderr)
    print(
        f"wrote {kept_of(kept, 0)} drawn and {kept_of(kept, 1)} won positions to {args.out} "
        f"in {(time.monotonic() - start) / 60:.1f} minutes; by length (drawn/won): "
        + ", ".join(f"{n}: {kept[n, 0]}/{kept[n, 1]}" for n in lengths)
    )
    return 0


def kept_of(kept: collections.Counter[tuple[int, int]], result: int) -> int:
    return sum(count for (_, score), count in kept.items() if score == result)


if __name__ == "__main__":
    sys.exit(main())
