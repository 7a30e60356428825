"""The layout's rules, checked on every run of the suite: the layers of `.importlinter` (a room
imports only from the rooms below it, no circle inside any package), no import circle anywhere in
the module graph, no module over 500 lines and no function over 80 (argparse builders excepted)."""

import importlib.util
import subprocess
import sys

from conftest import REPO


def _import_graph_script():
    spec = importlib.util.spec_from_file_location("import_graph", REPO / "bench" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_import_linter_contracts_hold():
    # in a process of its own: import-linter configures logging, which would silence the other tests' loggers
    proc = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                           "sys.exit(lint_imports_command())", "--config", ".importlinter", "--no-cache"],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_import_circle():
    graph = _import_graph_script()
    g = graph.import_graph(REPO)
    assert "cad.decoder.search" in g and "coref.backends" in g       # the graph reads this checkout
    assert graph.circles(g) == []


def test_circles_are_found():
    graph = _import_graph_script()
    found = graph.circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}})
    assert found == [["a", "b", "c"]]


def test_no_module_over_500_lines_and_no_function_over_80():
    modules, functions = _import_graph_script().oversized(REPO)
    assert modules == [] and functions == []
