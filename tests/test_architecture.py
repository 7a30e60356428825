"""The layout's rules, checked on every run of the suite: the layers of `.importlinter` (a room
imports only from the rooms below it, no circle inside any package), no import circle anywhere in
the module graph, no module over 500 lines and no function over 80 (argparse builders excepted)."""

import importlib.util

from importlinter.cli import lint_imports

from conftest import REPO


def _import_graph_script():
    spec = importlib.util.spec_from_file_location("import_graph", REPO / "bench" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_import_linter_contracts_hold(monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    status = lint_imports(config_filename=str(REPO / ".importlinter"), no_cache=True, no_logo=True)
    assert status == 0, capsys.readouterr().out


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
