"""UCT simulations per second on Connect Four: ours, our UCT-RAVE, and OpenSpiel's C++ MCTS.

Each round, each engine plays the first ``--moves`` moves of a game against itself from the
empty board, ``--simulations`` simulations per move (a fresh tree each move, one random
rollout per simulation, ``c = sqrt(2)``), and we time the searches only:

* ``ours: uct``: ``MonteCarloTreeSearch.best_action``;
* ``ours: rave``: ``RAVESearch.best_action`` (its rollouts also record the moves);
* ``open_spiel``: ``pyspiel.MCTSBot(game, RandomRolloutEvaluator(1, seed), uct_c=sqrt(2),
  max_simulations, max_memory_mb, solve=False, seed, verbose=False).step(state)``.

The engines take turns within each round, ``--rounds`` rounds, and the medians are reported,
so a busy machine slows them alike. ``--profile`` adds a cProfile of one of our searches.

Run: ``python benchmarks/uct.py`` (``--rounds 7 --moves 4 --simulations 1000``).
"""

from __future__ import annotations

import cProfile
import io
import math
import pstats
import statistics
import time
from collections.abc import Callable

from alphazero.baselines.rave import RAVESearch
from alphazero.baselines.uct import MonteCarloTreeSearch
from alphazero.config.command_line import OneLineParser
from alphazero.games import make

Engine = Callable[[int], tuple[int, float]]  # seed -> (simulations run, seconds searching)


def ours(search_class, simulations: int, moves: int) -> Engine:
    def run(seed: int) -> tuple[int, float]:
        game = make("connect4")
        total, elapsed = 0, 0.0
        for ply in range(moves):
            search = search_class(game, rng=seed * 1000 + ply)
            start = time.perf_counter()
            action = search.best_action(simulations)
            elapsed += time.perf_counter() - start
            total += search.simulations
            game = game.sim_move(action)
        return total, elapsed

    return run


def open_spiel(simulations: int, moves: int) -> Engine | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")

    def run(seed: int) -> tuple[int, float]:
        bot = pyspiel.MCTSBot(
            game,
            pyspiel.RandomRolloutEvaluator(1, seed),
            math.sqrt(2),  # uct_c
            simulations,  # max_simulations
            1000,  # max_memory_mb
            False,  # solve
            seed,
            False,  # verbose
        )
        state = game.new_initial_state()
        elapsed = 0.0
        for _ in range(moves):
            start = time.perf_counter()
            action = bot.step(state)
            elapsed += time.perf_counter() - start
            state.apply_action(action)
        return simulations * moves, elapsed

    return run


def profile(simulations: int, top: int) -> str:
    search = MonteCarloTreeSearch(make("connect4"), rng=0)
    profiler = cProfile.Profile()
    profiler.enable()
    search.best_action(simulations)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rounds", type=int, default=7, help="interleaved rounds of each engine (default 7)"
    )
    parser.add_argument("--moves", type=int, default=4, help="moves searched per game")
    parser.add_argument("--simulations", type=int, default=1000, help="per move")
    parser.add_argument("--profile", action="store_true", help="cProfile one of our searches")
    args = parser.parse_args()
    for dest in ("rounds", "moves", "simulations"):  # no rounds: a median of none
        if getattr(args, dest) < 1:
            parser.error(f"--{dest} must be at least 1, got {getattr(args, dest)}")

    engines: dict[str, Engine] = {
        "ours: uct": ours(MonteCarloTreeSearch, args.simulations, args.moves),
        "ours: rave": ours(RAVESearch, args.simulations, args.moves),
    }
    spiel = open_spiel(args.simulations, args.moves)
    if spiel is not None:
        engines["open_spiel"] = spiel
    for engine in engines.values():  # warm up: imports, caches
        engine(99)

    rates: dict[str, list[float]] = {name: [] for name in engines}
    for round_ in range(args.rounds):
        for name, engine in engines.items():
            sims, seconds = engine(round_)
            rates[name].append(sims / seconds)

    print(
        f"Connect Four, {args.simulations} simulations per move, first {args.moves} moves, "
        f"median of {args.rounds} interleaved rounds"
    )
    medians = {name: statistics.median(r) for name, r in rates.items()}
    for name, rate in medians.items():
        spread = f"{min(rates[name]):,.0f}..{max(rates[name]):,.0f}"
        print(f"  {name:<12} {rate:>10,.0f} simulations/s   (range {spread})")
    if "open_spiel" in medians:
        per_round = [u / s for u, s in zip(rates["ours: uct"], rates["open_spiel"], strict=True)]
        print(
            f"  ours: uct / open_spiel = {medians['ours: uct'] / medians['open_spiel']:.2f} "
            f"(median of per-round ratios {statistics.median(per_round):.2f}); "
            f"ours: rave / open_spiel = {medians['ours: rave'] / medians['open_spiel']:.2f}"
        )
    if args.profile:
        print(profile(args.simulations * args.moves, 15))


if __name__ == "__main__":
    main()
