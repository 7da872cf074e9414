"""Issue 29, item 11: the command line sits on top of the package. Nothing but
``python -m ssdlab`` imports ``ssdlab.cli`` (shared pieces live in ``ssdlab.cliutil``),
so the CLI is in no import cycle, and no module is in one at all (imports inside
functions counted); the old names stay importable from ``ssdlab.cli``."""

import ast
from pathlib import Path

import ssdlab

PKG = Path(ssdlab.__file__).resolve().parent


def _module(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    """ssdlab module -> the ssdlab modules it imports (anywhere in its body)."""
    mods = {_module(p): p for p in PKG.rglob("*.py")}
    # the compiled core (ssdlab._core) is a leaf module, not the package
    mods.update({"ssdlab._core": None})
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        if p is None:
            continue
        pkg = m if p.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(p.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                # `from pkg import sub` imports the submodule (the package's own
                # __init__ is not an edge: it imports everything to export it)
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                         for a in node.names]  # fmt: skip
            for n in names:
                while n and n not in mods:
                    n = n.rpartition(".")[0]
                if n and n != m:
                    graph[m].add(n)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_nothing_below_the_cli_imports_it():
    graph = _graph()
    importers = sorted(m for m, deps in graph.items() if "ssdlab.cli" in deps)
    assert importers == ["ssdlab.__main__"]


def test_the_cli_is_in_no_import_cycle():
    for comp in _cycles(_graph()):
        assert "ssdlab.cli" not in comp, sorted(comp)
        assert "ssdlab.cliutil" not in comp, sorted(comp)


def test_the_package_has_no_import_cycle_at_all():
    # was: 16 modules in one cycle (api, comparison, report, workloads, fio, sweep, ...)
    assert _cycles(_graph()) == []


def test_old_names_still_importable_from_the_cli():
    from ssdlab import cli, cliutil

    assert cli.UsageError is cliutil.UsageError
    assert cli.write_atomically is cliutil.write_atomically
