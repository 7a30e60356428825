"""The shape of the code: the import graph's circles (grimp, the graph library of import-linter),
the arrows between rooms, the modules over 500 lines and the functions over 80, and the modules
outside the language room that name a language's facts directly.

    python bench/import_graph.py [--rooms DEPTH] [REPO]

A circle is a strongly connected component of the module import graph (every import the source
states, at module level or inside a function), counted as one whatever its size; a package's
`__init__` counts as a module of its own. The layers themselves are checked by import-linter
(`.importlinter`, `make check`, tests/test_architecture.py).
"""

from __future__ import annotations

import argparse
import ast
import collections
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("cad", "coref")
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def import_graph(repo: Path) -> dict[str, set[str]]:
    import grimp

    sys.path.insert(0, str(repo))
    g = grimp.build_graph(*PACKAGES, include_external_packages=False, cache_dir=None)
    return {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def room_arrows(graph: dict[str, set[str]], depth: int) -> dict[str, set[str]]:
    def room(m: str) -> str:
        return ".".join(m.split(".")[:depth])

    arrows: dict[str, set[str]] = collections.defaultdict(set)
    for m, targets in graph.items():
        for t in targets:
            if room(m) != room(t):
                arrows[room(m)].add(room(t))
    return arrows


def is_argparse_builder(name: str) -> bool:
    """Functions that only declare a command line (one add_argument after another) may be long."""
    return name == "build_parser" or (name.startswith("add_") and name.endswith(("_parser", "_parsers")))


def oversized(repo: Path) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(modules over MAX_MODULE_LINES, functions over MAX_FUNCTION_LINES but argparse builders)."""
    modules, functions = [], []
    for pkg in PACKAGES:
        for path in sorted((repo / pkg).rglob("*.py")):
            rel = str(path.relative_to(repo))
            text = path.read_text(encoding="utf-8")
            n = len(text.splitlines())
            if n > MAX_MODULE_LINES:
                modules.append((rel, n))
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not is_argparse_builder(node.name):
                    length = node.end_lineno - node.lineno + 1
                    if length > MAX_FUNCTION_LINES:
                        functions.append((f"{rel}:{node.lineno} {node.name}", length))
    return modules, functions


# the room of languages' facts and the modules of it every stage may import (its interface: the
# Language data and the pairs' registry); a room of one language's own may read that language's
# facts (the English resolver reads English's pronoun classes)
LANGUAGE_ROOM = "cad.lang"
LANGUAGE_INTERFACE = frozenset({"cad.lang", "cad.lang.facts", "cad.lang.pairs"})
OWN_LANGUAGE_ROOMS = {"coref.english": frozenset({"cad.lang.en"}), "coref.spanish": frozenset({"cad.lang.es"})}


def _module_names(repo: Path) -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((repo / pkg).rglob("*.py")):
            parts = list(path.relative_to(repo).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imported(module: str, tree: ast.AST, known: set[str], is_package: bool) -> set[str]:
    """Every module `module`'s source names in an import, at any depth: `from a import b` names
    a.b where that is a module, else a."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_package else module.split(".")[:-1]
                pkg = pkg[:len(pkg) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in known else base)
    return out


def language_fact_imports(repo: Path, facts: set[str] | None = None) -> dict[str, list[str]]:
    """{module outside the language room: the language-fact modules it imports}, for every module
    that names a language's facts directly instead of reading them from the pair it is given.
    `facts`: the fact modules (default: every module of the language room but its interface)."""
    modules = _module_names(repo)
    if facts is None:
        facts = {m for m in modules if m.startswith(LANGUAGE_ROOM + ".") and m not in LANGUAGE_INTERFACE}
    out = {}
    for module, path in sorted(modules.items()):
        if module == LANGUAGE_ROOM or module.startswith(LANGUAGE_ROOM + "."):
            continue
        own = next((allowed for room, allowed in OWN_LANGUAGE_ROOMS.items()
                    if module == room or module.startswith(room + ".")), frozenset())
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = sorted((_imported(module, tree, set(modules), path.name == "__init__.py") & facts) - own)
        if named:
            out[module] = named
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", nargs="?", default=str(REPO), help="the checkout to read (default: this one)")
    ap.add_argument("--rooms", type=int, default=2, help="dotted depth of a room for the arrows (default: 2)")
    a = ap.parse_args()
    repo = Path(a.repo)
    graph = import_graph(repo)
    found = circles(graph)
    print(f"{len(graph)} modules, {sum(len(t) for t in graph.values())} imports, {len(found)} circles")
    for c in found:
        print("  circle: " + " <-> ".join(c))
    print("arrows between rooms:")
    for r, targets in sorted(room_arrows(graph, a.rooms).items()):
        print(f"  {r} -> {', '.join(sorted(targets))}")
    modules, functions = oversized(repo)
    print(f"{len(modules)} modules over {MAX_MODULE_LINES} lines, {len(functions)} functions over "
          f"{MAX_FUNCTION_LINES} lines (argparse builders excepted)")
    for name, n in modules + functions:
        print(f"  {name}: {n} lines")
    named = language_fact_imports(repo)
    print(f"{len(named)} modules outside {LANGUAGE_ROOM} name a language's facts directly")
    for module, facts in named.items():
        print(f"  {module}: {', '.join(facts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
