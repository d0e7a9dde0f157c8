"""Two models' mistakes on the same openings, told apart by where they differ (issue 60).

Reads the ``--json`` files that ``connect4_opening_errors.py`` wrote for each model on the
same positions and, for every pair of them, every search budget both read and each kind of
position (drawn, won), counts the openings where only the first model errs, only the second,
or both. Two models read the same positions, so only the openings where they differ tell
them apart: the exact two-sided sign test on those gives ``p`` (before any allowance for the
many pairs looked at). Run:

    python experiments/connect4_opening_errors.py --model RUN_A/models/iter_0090.keras \\
        --positions experiments/data/connect4_openings_drawn_dev.tsv --sims 800 --json a.json
    python experiments/connect4_opening_errors.py --model RUN_B/models/iter_0090.keras \\
        --positions experiments/data/connect4_openings_drawn_dev.tsv --sims 800 --json b.json
    python experiments/compare_opening_errors.py a.json b.json
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path
from typing import Any

from alphazero.config.command_line import OneLineParser

KINDS = ((0, "drawn openings lost"), (1, "won openings not kept"))


def sign_test(first: int, second: int) -> float:
    """The exact two-sided p of ``first`` against ``second`` discordant pairs, each side
    equally likely under the null hypothesis."""
    n = first + second
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(first, second) + 1)) / 2**n
    return min(1.0, 2 * tail)


def mistakes(readings: list[dict[str, Any]], budget: int, result: int) -> dict[str, bool]:
    """By opening (its moves): whether the search at ``budget`` chose a move that does not
    keep the opening's ``result``."""
    return {
        r["moves"]: r["searches"][str(budget)]["move"] not in r["correct"]
        for r in readings
        if r["result"] == result and str(budget) in r["searches"]
    }


def compare(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per budget both read and kind of opening: each model's mistakes, where only
    one errs, where both do, and the sign test's p, over the openings both read."""
    budgets = sorted(
        {int(b) for r in first for b in r["searches"]}
        & {int(b) for r in second for b in r["searches"]}
    )
    rows = []
    for budget, (result, kind) in itertools.product(budgets, KINDS):
        a, b = mistakes(first, budget, result), mistakes(second, budget, result)
        shared = sorted(a.keys() & b.keys())
        if not shared:
            continue
        only_first = sum(a[m] and not b[m] for m in shared)
        only_second = sum(b[m] and not a[m] for m in shared)
        rows.append(
            {
                "simulations": budget,
                "kind": kind,
                "openings": len(shared),
                "first": sum(a[m] for m in shared),
                "second": sum(b[m] for m in shared),
                "only_first": only_first,
                "only_second": only_second,
                "both": sum(a[m] and b[m] for m in shared),
                "p": sign_test(only_first, only_second),
            }
        )
    return rows


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "readings", type=Path, nargs="+", help="connect4_opening_errors.py --json files"
    )
    args = parser.parse_args()
    if len(args.readings) < 2:
        parser.error("give at least two files of readings to compare")
    loaded = {}
    for path in args.readings:
        try:
            loaded[path] = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            print(f"error: {path}: cannot read it ({error})", file=sys.stderr)
            return 2
    print("| first / second | simulations | openings | mistakes | only first | only second "
          "| both | p |")  # fmt: skip
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for (name_a, a), (name_b, b) in itertools.combinations(loaded.items(), 2):
        for row in compare(a, b):
            print(
                f"| {name_a.stem} / {name_b.stem} | {row['simulations']} | {row['openings']} "
                f"{row['kind']} | {row['first']} / {row['second']} | {row['only_first']} "
                f"| {row['only_second']} | {row['both']} | {row['p']:.2f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
