"""The package's shape: modules that import each other without cycles (function-level and
type-checking imports included), few modules at the top level, and short functions."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "alphazero"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The package's modules that ``module`` imports anywhere, ``if TYPE_CHECKING:`` included:
    a cycle of imports made only for the type checker is still two modules that each need the
    other to be read."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            # `from . import trainer` names a module, not an attribute
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    # a submodule import also runs its packages' __init__, but those edges are not cycles
    # of this module's making, so only the named module counts
    return {name for name in found if name in known and name != module}


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {
        name: _imports(ast.parse(path.read_text()), name, path.name == "__init__.py", set(paths))
        for name, path in paths.items()
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as the modules along it, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    stack: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        stack.append(name)
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name)):
            return found
    return None


def test_the_graph_sees_function_level_and_type_checking_imports() -> None:
    graph = _graph()
    assert "alphazero.network.tf_setup" in graph["alphazero.workers.processes"]
    assert "alphazero.games.base" in graph["alphazero.training.checkpoints"]  # TYPE_CHECKING


def test_the_cycle_finder_finds_a_type_checking_cycle() -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n"
    known = {"pkg.a", "pkg.b"}
    graph = {
        "pkg.a": _imports(ast.parse(source), "pkg.a", False, known),
        "pkg.b": _imports(ast.parse("from .a import A\n"), "pkg.b", False, known),
    }
    assert _cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]


def test_the_package_has_no_import_cycle() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_only_play_imports_play() -> None:
    """Play (the terminal and the page) sits on top of the pipeline: nothing below it, such
    as the evaluation's players, reaches up into it."""
    upward = {
        module: sorted(target for target in targets if target.startswith("alphazero.play"))
        for module, targets in _graph().items()
        if not module.startswith("alphazero.play")
    }
    assert not {module: found for module, found in upward.items() if found}


MAX_TOP_LEVEL_MODULES = 8
MAX_FUNCTION_LINES = 80


def test_the_top_level_of_the_package_holds_at_most_eight_modules() -> None:
    """The subpackages show the pipeline; the top level keeps only what spans it."""
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, modules


def _long_functions(tree: ast.AST, limit: int) -> list[tuple[str, int]]:
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_the_length_check_counts_a_function_from_def_to_its_last_line() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    assert _long_functions(ast.parse(f"def short():\n{body[: body.rindex('    x79')]}"), 80) == []
    assert _long_functions(ast.parse(f"def long():\n{body}"), 80) == [("long", 81)]


def test_no_function_in_the_package_is_over_80_lines() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}: {name} ({lines} lines)"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, lines in _long_functions(ast.parse(path.read_text()), MAX_FUNCTION_LINES)
    ]
    assert not found, "over 80 lines: " + "; ".join(found)
