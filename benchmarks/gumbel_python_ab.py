"""The Gumbel search's own Python, this tree's ``alphazero/search/gumbel.py`` against the
same file at a git revision, in one process, rounds interleaved, on Connect Four or on 15x15
Gomoku (``--game gomoku``: ~200 children a node where Connect Four has 7).

Timing two checkouts in two processes mixes the change with the noise between processes
(on the shared 2-core machine, ``selfplay.py``'s ratio moved 0.72-0.80 between runs of the
same code). Here the revision's ``gumbel.py`` is loaded beside the current one as a second
module of the package, and both search the same games from the same seeds, with the
fixed random linear policy of ``search_python.py`` (its CPU measured and left out).
``--whole-search`` loads the revision's whole ``alphazero/search`` package instead (its
``node.py``, ``batched.py``... beside the current ones, its own driver walking its own trees),
for changes that reach beyond ``gumbel.py``. ``--game-file`` also loads the revision's file of
the game (``alphazero/games/gomoku.py``...), whose positions the revision's side then searches.

Both sides must choose the same moves with the same policy targets and values, to the last
bit (a change that only makes the search cheaper): each round compares them and the script
stops with an error where they differ.

Gomoku searches as ``configs/gomoku_15x15.yaml``'s self-play does (16 moves considered at the
root), from positions after 0-6 random moves.

``python benchmarks/gumbel_python_ab.py --base HEAD~1`` (about a minute).
``python benchmarks/gumbel_python_ab.py --base HEAD~1 --game gomoku --games 64 --moves 2``
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
from search_python import TimedPolicy

from alphazero.config.command_line import OneLineParser
from alphazero.games import Game, make
from alphazero.search import Policy, RootSearch

ROOT = Path(__file__).resolve().parent.parent
MODULE = "alphazero/search/gumbel.py"
PACKAGE = "alphazero/search"


def _git(*args: str) -> str:
    """``git args`` in the repository; its output (``ValueError`` with git's last line)."""
    try:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        detail = (getattr(error, "stderr", "") or str(error)).strip().splitlines()
        raise ValueError(detail[-1] if detail else str(error)) from None


def module_at(revision: str, path: str = MODULE) -> ModuleType:
    """``path`` (a module of ``alphazero.search`` or ``alphazero.games``) as it was at
    ``revision``, a module of the same package beside the current one."""
    try:
        source = _git("show", f"{revision}:{path}")
    except ValueError as error:
        raise ValueError(f"no {path} at {revision!r}: {error}") from None
    package = str(Path(path).parent).replace("/", ".")
    name = f"{package}._{Path(path).stem}_base"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package
    sys.modules[name] = module
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
    return module


def package_at(revision: str, folder: Path) -> ModuleType:
    """The ``gumbel`` module of ``alphazero/search`` as it was at ``revision``, the whole
    package loaded from ``folder`` (where its files are written) as
    ``alphazero._search_base``: its modules import one another, not the current ones."""
    try:
        names = _git("ls-tree", "--name-only", f"{revision}:{PACKAGE}").split()
        for name in names:
            if name.endswith(".py"):
                (folder / name).write_text(_git("show", f"{revision}:{PACKAGE}/{name}"))
    except ValueError as error:
        raise ValueError(f"no {PACKAGE} at {revision!r}: {error}") from None
    name = "alphazero._search_base"
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    return importlib.import_module(f"{name}.gumbel")


CONSIDERED = {"connect4": 16, "gomoku": 16}
"""Moves considered at the root: the default, and configs/gomoku_15x15.yaml's."""

Results = list[tuple[int, bytes, float]]
"""Each search's move, policy target (its bytes) and value, in order."""


def _new_game(make_game: Callable[[], Game], rng: np.random.Generator) -> Game:
    """A fresh game; Gomoku's after 0-6 random moves, as self-play's random openings."""
    game = make_game()
    if game.name == "gomoku":
        for _ in range(int(rng.integers(0, 7))):
            game = game.sim_move(int(rng.choice(game.available_moves)))
    return game


def search_seconds(
    gumbel: ModuleType, make_game: Callable[[], Game], games: int, moves: int
) -> tuple[float, Results]:
    """CPU seconds of ``games`` games searched together for ``moves`` moves, 32 simulations
    each from a rerooted tree, the policy's own CPU left out, and what the searches found.
    The trees are of ``gumbel``'s own ``Node`` (with ``--whole-search``, the revision's)."""
    policy = TimedPolicy(make_game())
    rng = np.random.default_rng(0)
    openings = np.random.default_rng(1)
    nodes = [gumbel.Node(_new_game(make_game, openings)) for _ in range(games)]
    results: Results = []
    start = time.process_time()
    for _ in range(moves):
        nodes = [gumbel.reroot(node) for node in nodes]
        if hasattr(gumbel, "gumbel_search"):  # gumbel.py before the search policies
            roots = gumbel.gumbel_search(nodes, policy, 32, gumbel.GumbelParams(), rng)
        else:
            roots = _searched(gumbel, nodes, policy, rng)
        choices = [gumbel.gumbel_choice(root) for root in roots]
        results += [(c.action, np.asarray(c.policy).tobytes(), c.value) for c in choices]
        nodes = [
            c.node if c.node.game.score is None else gumbel.Node(_new_game(make_game, openings))
            for c in choices
        ]
    return time.process_time() - start - policy.seconds, results


def _searched(gumbel: ModuleType, nodes: list, policy: Policy, rng: np.random.Generator) -> list:
    """``gumbel``'s roots searched with 32 simulations in all by its own package's driver and
    ``select``, walked by ``gumbel``'s own root and interior selection
    (``policies.gumbel_policy``'s way)."""
    package = gumbel.__package__
    select = importlib.import_module(f"{package}.node").select
    run = importlib.import_module(f"{package}.batched").run
    game = nodes[0].game.name
    params = gumbel.GumbelParams(considered=CONSIDERED.get(game, 16))
    roots = [gumbel.GumbelRoot.start(node, 32, params, rng) for node in nodes]
    interior = gumbel.select_child
    if "params" in inspect.signature(interior).parameters:  # before sigma's constants were fixed
        interior = functools.partial(interior, params=params)
    searches = [
        RootSearch(
            root.node,
            32,
            functools.partial(select, root.node, lambda _, r=root: r.select_action(), interior),
            lambda *_: None,
        )
        for root in roots
    ]  # fmt: skip
    run(searches, policy)
    return roots


def main() -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="git revision to compare against")
    parser.add_argument(
        "--game", choices=sorted(CONSIDERED), default="connect4", help="gomoku: 15x15, five"
    )
    parser.add_argument("--games", type=int, default=128, help="games searched at once")
    parser.add_argument("--moves", type=int, default=3, help="moves per game and round")
    parser.add_argument(
        "--rounds", type=int, default=7, help="interleaved rounds of each side (default 7)"
    )
    parser.add_argument(
        "--whole-search",
        action="store_true",
        help="load the revision's whole alphazero/search, not only its gumbel.py",
    )
    parser.add_argument(
        "--game-file",
        action="store_true",
        help="also load the revision's alphazero/games/<game>.py for its side",
    )
    args = parser.parse_args()
    if min(args.games, args.moves, args.rounds) < 1:
        parser.error("--games, --moves and --rounds must be at least 1")
    import alphazero.search.gumbel as current

    try:
        if args.whole_search:
            # Kept until the process ends: the package's modules were loaded from it.
            folder = tempfile.TemporaryDirectory(prefix="search_base_")
            base = package_at(args.base, Path(folder.name))
        else:
            base = module_at(args.base)
        base_make = functools.partial(make, args.game)
        if args.game_file:
            games = module_at(args.base, f"alphazero/games/{args.game}.py")
            classes = [c for c in vars(games).values() if getattr(c, "name", None) == args.game]
            base_make = classes[0]
    except ValueError as error:
        parser.error(f"--base: {error}")
    versions = {
        args.base: (base, base_make),
        "this tree": (current, functools.partial(make, args.game)),
    }
    seconds: dict[str, list[float]] = {name: [] for name in versions}
    for _ in range(args.rounds):
        found = []
        for name, (module, make_game) in versions.items():
            spent, results = search_seconds(module, make_game, args.games, args.moves)
            seconds[name].append(spent)
            found.append(results)
        if found[0] != found[1]:
            sys.exit(f"{args.base} and this tree chose differently: not the same search")
    swapped = "alphazero/search" if args.whole_search else "gumbel.py"
    if args.game_file:
        swapped += f" and games/{args.game}.py"
    title = "15x15 Gomoku" if args.game == "gomoku" else "Connect Four"
    print(
        f"Gumbel search's Python, {title}, {args.games} games x {args.moves} moves, "
        f"32 simulations, {args.rounds} interleaved rounds (CPU s, policy excluded; "
        f"{swapped} swapped); the same moves, targets and values every round"
    )
    for name, runs in seconds.items():
        print(
            f"  {name:>10}: median {np.median(runs):.3f}  runs "
            + ", ".join(f"{x:.3f}" for x in runs)
        )
    ratios = [a / b for a, b in zip(seconds[args.base], seconds["this tree"], strict=True)]
    print(f"{args.base} / this tree: {np.median(ratios):.2f}x by the median of the rounds' ratios")


if __name__ == "__main__":
    main()
