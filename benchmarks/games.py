"""Random-playout throughput of our games, side by side with OpenSpiel driven from Python.

For each game three loops play uniformly random games from the start, each for ``--seconds``:

* ``ours: playout``: ``Game.playout``, the loop the UCT baseline runs for its rollouts;
* ``ours: sim_move``: the public interface, one new position per move (what search does);
* ``open_spiel``: ``state.legal_actions()`` / ``apply_action`` / ``is_terminal`` from Python.

The three run interleaved, ``--rounds`` times each, and the median of each is reported, so a
noisy shared machine affects them alike. Run: ``python benchmarks/games.py``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from alphazero.config.command_line import OneLineParser
from alphazero.games import make

GAMES: list[tuple[str, dict[str, int], str, dict[str, int]]] = [
    ("tictactoe", {}, "tic_tac_toe", {}),
    ("connect4", {}, "connect_four", {}),
    ("gomoku", {"size": 6, "n_in_row": 4}, "gomoku", {"size": 6, "connect": 4}),
    ("gomoku", {"size": 8, "n_in_row": 5}, "gomoku", {"size": 8, "connect": 5}),
    ("gomoku", {"size": 15, "n_in_row": 5}, "gomoku", {"size": 15, "connect": 5}),
    ("dots_and_boxes", {"rows": 3, "cols": 3}, "dots_and_boxes", {"num_rows": 3, "num_cols": 3}),
    ("dots_and_boxes", {"rows": 5, "cols": 5}, "dots_and_boxes", {"num_rows": 5, "num_cols": 5}),
]

Loop = Callable[[random.Random], int]  # plays one game, returns its number of moves


def timed(loop: Loop, seconds: float, seed: int) -> tuple[float, float]:
    """(moves/s, games/s) of ``loop`` run repeatedly for about ``seconds``."""
    rng = random.Random(seed)
    moves = games = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(20):
            moves += loop(rng)
            games += 1
    return moves / elapsed, games / elapsed


def loops(name: str, params: dict[str, int], spiel_name: str, spiel_params: dict[str, int]):
    start = make(name, **params)

    def ours_playout(rng: random.Random) -> int:
        return start.playout(rng)[1]

    def ours_sim_move(rng: random.Random) -> int:
        game, moves = start, 0
        while game.score is None:
            legal = game.available_moves
            game = game.sim_move(legal[int(rng.random() * len(legal))])
            moves += 1
        return moves

    result = {"ours: playout": ours_playout, "ours: sim_move": ours_sim_move}
    try:
        import pyspiel
    except ImportError:
        return result
    spiel_game = pyspiel.load_game(spiel_name, spiel_params)

    def open_spiel(rng: random.Random) -> int:
        state, moves = spiel_game.new_initial_state(), 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            moves += 1
        return moves

    result["open_spiel"] = open_spiel
    return result


def main() -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument("--only", default=None, help="run only games whose name contains this")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")  # a median of none
    if not args.seconds > 0:  # NaN too
        parser.error(f"--seconds must be above 0, got {args.seconds:g}")

    header = f"{'game':<22}{'loop':<16}{'moves/s':>12}{'games/s':>11}{'vs open_spiel':>15}"
    print(header)
    print("-" * len(header))
    for name, params, spiel_name, spiel_params in GAMES:
        label = name + "".join(f" {v}" for v in params.values())
        if args.only and args.only not in label:
            continue
        variants = loops(name, params, spiel_name, spiel_params)
        samples: dict[str, list[tuple[float, float]]] = {k: [] for k in variants}
        for round_ in range(args.rounds):
            for key, loop in variants.items():
                samples[key].append(timed(loop, args.seconds, seed=round_))
        medians = {
            k: (statistics.median(m for m, _ in v), statistics.median(g for _, g in v))
            for k, v in samples.items()
        }
        reference = medians.get("open_spiel", (0.0, 0.0))[0]
        for key, (moves, games) in medians.items():
            ratio = f"{moves / reference:.2f}x" if reference else "-"
            print(f"{label:<22}{key:<16}{moves:>12,.0f}{games:>11,.0f}{ratio:>15}")
        print()


if __name__ == "__main__":
    main()
