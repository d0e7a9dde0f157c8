"""Why a Connect Four model chooses losing moves in drawn openings (issue 60).

For every opening position of solved-position files (4-12 moves played, not already lost) it
asks the network and the search what they make of each move, and sorts the search's mistakes
(a move that loses a drawn position, or does not keep a won one) by where they come from:

- **prior**: the network's most likely move is already a mistake;
- **value**: the network's value of the positions after each move (one ply, no search) ranks a
  mistake first;
- **search**: the search's value of the chosen move against the best correct move's, and its
  visit shares, at each budget in ``--sims``.

It also reads the value head on drawn positions: a head that calls drawn openings won or lost
pushes the search toward moves it cannot tell apart. Run:

    python experiments/connect4_opening_errors.py --model checkpoints/pretrained/connect4 \\
        --positions DEV.tsv --sims 200 800 3200 --json out.json

where ``DEV.tsv`` is a development set of ``experiments/connect4_fresh_positions.py
--lengths 4-12`` (not a set that reports).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from alphazero.config.command_line import OneLineParser
from alphazero.evaluation.model_search import play_search, trained_search
from alphazero.evaluation.pons_positions import wilson_interval
from alphazero.evaluation.solved_positions import (
    SolvedPosition,
    SolvedPositionsError,
    load_positions,
)
from alphazero.games import make
from alphazero.games.base import value_to_parent
from alphazero.network.model import InferenceModel
from alphazero.search import Node, search
from alphazero.search.params import SearchParams
from alphazero.search.policy import process_policies
from alphazero.training.checkpoints import load_model
from alphazero.training.run_errors import CheckpointError

OPENING = (4, 12)


@dataclass
class Reading:
    """What the network and the searches make of one position, for its mover."""

    moves: str
    result: int
    """The solver's result for the mover: 1 won, 0 drawn."""
    correct: list[int]
    """The moves that keep the result."""
    prior: list[float]
    """``[7]`` the network's move probabilities."""
    value: float
    """The network's value of the position."""
    child_values: list[float | None]
    """``[7]`` the network's value after each move (None: illegal or the game ends)."""
    searches: dict[int, dict[str, object]]
    """Per budget: ``move``, ``visits [7]`` and ``q [7]`` (the search's value of each move)."""


def read_positions(
    network: InferenceModel,
    params: SearchParams,
    positions: Sequence[SolvedPosition],
    budgets: Sequence[int],
) -> list[Reading]:
    games = [p.game for p in positions]
    priors, values = process_policies(network, games)
    after = [(i, a, g.sim_move(a)) for i, g in enumerate(games) for a in g.available_moves]
    open_children = [(i, a, c) for i, a, c in after if c.score is None]
    _, child_values = process_policies(network, [c for _, _, c in open_children])
    child_value = {
        (i, a): value_to_parent(float(v), c, games[i])
        for (i, a, c), v in zip(open_children, child_values, strict=True)
    }
    readings = [
        Reading(
            moves="".join(str(m + 1) for m in p.moves),
            result=int(np.sign(p.score)),
            correct=[a for a in range(7) if p.is_correct(a)],
            prior=[round(float(x), 4) for x in priors[i]],
            value=round(float(values[i]), 4),
            child_values=[child_value.get((i, a)) for a in range(7)],
            searches={},
        )
        for i, p in enumerate(positions)
    ]
    for budget in tqdm(budgets, desc="searches", unit="budget"):
        found = search([Node(g) for g in games], network, params, budget, np.random.default_rng(0))
        for reading, action, root in zip(readings, found.actions, found.roots, strict=True):
            children = root.children
            reading.searches[budget] = {
                "move": int(action),
                "visits": [children[a].N if a in children else 0 for a in range(7)],
                "q": [round(children[a].V, 4) if a in children else None for a in range(7)],
            }
    return readings


def summarize(readings: list[Reading], budgets: list[int]) -> None:
    for result, label in ((0, "drawn"), (1, "won")):
        group = [r for r in readings if r.result == result]
        if not group:
            continue
        prior_wrong = [r for r in group if int(np.argmax(r.prior)) not in r.correct]
        value_wrong = [r for r in group if one_ply_choice(r) not in r.correct]
        values = np.array([r.value for r in group])
        print(f"\n{label}: {len(group)} positions")
        print(f"  network's top move a mistake: {share(prior_wrong, group)}")
        print(f"  one-ply value's move a mistake: {share(value_wrong, group)}")
        print(
            f"  value head: mean {values.mean():+.3f}, mean |v| {np.abs(values).mean():.3f}, "
            f"share |v| > 1/3: {np.mean(np.abs(values) > 1 / 3):.1%}"
        )
        mass = np.array([sum(r.prior[a] for a in r.correct) for r in group])
        print(
            f"  prior mass on correct moves: mean {mass.mean():.3f}, median {np.median(mass):.3f}"
        )
        for budget in budgets:
            wrong = [r for r in group if r.searches[budget]["move"] not in r.correct]
            from_prior = sum(r in prior_wrong for r in wrong)
            from_value = sum(r in value_wrong for r in wrong)
            gaps = [q_gap(r, budget) for r in wrong]
            gaps = [g for g in gaps if g is not None]
            gap = f", Q gap (chosen - best correct) median {np.median(gaps):+.3f}" if gaps else ""
            low, high = wilson_interval(len(wrong), len(group))
            print(
                f"  {budget:>6} sims: {len(wrong)} mistakes ({len(wrong) / len(group):.1%}, "
                f"95% interval {low:.1%}-{high:.1%}); "
                f"of them prior wrong {from_prior}, one-ply value wrong {from_value}{gap}"
            )


def share(part: Sequence[object], whole: Sequence[object]) -> str:
    return f"{len(part)} ({len(part) / len(whole):.1%})"


def one_ply_choice(reading: Reading) -> int:
    """The move the network's value after each move ranks first (a move that ends the game
    is never a win here: the sets hold no win in one)."""
    values = [v if v is not None else -np.inf for v in reading.child_values]
    return int(np.argmax(values))


def q_gap(reading: Reading, budget: int) -> float | None:
    found = reading.searches[budget]
    q = found["q"]
    chosen = q[found["move"]]  # type: ignore[index]
    best = [q[a] for a in reading.correct if q[a] is not None]  # type: ignore[index]
    return None if chosen is None or not best else float(chosen - max(best))


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="run folder or .keras file")
    parser.add_argument(
        "--positions", type=Path, nargs="+", required=True, help="solved-position files"
    )
    parser.add_argument("--sims", type=int, nargs="+", default=[800], help="search budgets")
    parser.add_argument("--json", type=Path, help="write every reading here")
    args = parser.parse_args()
    if min(args.sims) < 2:  # the first simulation evaluates the root: one visits no move
        parser.error(f"--sims must be at least 2, got {min(args.sims)}")
    game = make("connect4")
    try:  # the positions first: a missing file is named before TensorFlow loads a model
        positions: list[SolvedPosition] = [
            p
            for path in args.positions
            for p in load_positions(path)
            if OPENING[0] <= len(p.moves) <= OPENING[1] and p.score >= 0
        ]
        model = load_model(args.model, game, compile=False)
        params = play_search(trained_search(args.model))
    except (SolvedPositionsError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    network = InferenceModel(model, max_batch=1024)
    low, high = OPENING
    print(f"{len(positions)} opening positions ({low}-{high} moves), search {params.describe()}")
    readings = read_positions(network, params, positions, args.sims)
    summarize(readings, args.sims)
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in readings]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
