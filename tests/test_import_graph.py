"""The project's modules import each other without circles, counting imports inside functions too (a late
import that breaks a circle at run time is still a circle in the design). `from package import module`
counts as importing that module."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "accounts",
    "bench",
    "cohorts",
    "common",
    "config",
    "course",
    "drills",
    "experiments",
    "gpu_worker",
    "health",
    "instructor",
    "labs",
    "testing",
)
SKIPPED = {"tests", "migrations", "fixtures"}  # tests import freely; fixtures are learner code


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if not SKIPPED & set(path.relative_to(ROOT).parts)
    }


def _imported(name: str, path: Path, node: ast.AST, modules: dict) -> list[str]:
    if isinstance(node, ast.Import):
        wanted = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = ".".join(filter(None, [package if node.level else "", node.module or ""]))
        wanted = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    else:
        return []
    found = []
    for target in wanted:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.append(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {
        name: {
            target
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            for target in _imported(name, path, node, modules)
        }
        for name, path in modules.items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_checker_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_in_a_circle():
    graph = import_graph()
    assert len(graph) > 100 and "labs.models" in graph["labs.leaderboard"]
    assert circles(graph) == []


# The floors of the house, lowest first. A package imports only from floors below its own (the worker, at the
# bottom, imports no web code at all); `config` is the composition root (settings, URLs, the Celery wiring);
# `testing` (the pytest plugin that starts services and workers) and `bench` drive the whole site.
FLOORS = [
    {"gpu_worker"},
    {"common"},
    {"accounts"},
    {"course"},
    {"cohorts"},
    {"drills", "health"},
    {"labs", "experiments"},
    {"instructor"},
    {"config"},
    {"testing"},
    {"bench"},
]


def floor_of(module: str) -> int:
    top = module.split(".")[0]
    return next(number for number, floor in enumerate(FLOORS) if top in floor)


def test_every_package_has_a_floor():
    assert {package for floor in FLOORS for package in floor} == set(PACKAGES)


def test_imports_only_go_down_the_floors():
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in import_graph().items()
        for target in targets
        if source.split(".")[0] != target.split(".")[0] and floor_of(target) >= floor_of(source)
    )
    assert upward == []


def test_the_floor_checker_finds_an_upward_import():
    assert floor_of("labs.views") > floor_of("cohorts.models") > floor_of("common.readcache")
