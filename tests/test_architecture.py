"""The layout's rules, checked on every run of the suite: the layers of `.importlinter` (a room
imports only from the rooms below it, no circle inside any package), no import circle anywhere in
the module graph, no module over 500 lines and no function over 80 (argparse builders excepted),
and no module outside the language room (cad/lang) that names a language's facts directly: every
stage reads them from the language pair it is given (cad/lang/pairs.py)."""

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


def test_no_module_outside_the_language_room_names_a_language_s_facts():
    # cad.lang.fr, .en, .de ... may be read only through cad.lang.pairs (the English and Spanish
    # resolvers excepted, which read their own language's)
    assert _import_graph_script().language_fact_imports(REPO) == {}


def _tree(root, files: dict[str, str]):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_language_s_facts_named_from_another_room_are_counted(tmp_path):
    _tree(tmp_path, {
        "cad/__init__.py": "", "cad/lang/__init__.py": "NONE = 'NONE'\n", "cad/lang/fr.py": "X = 1\n",
        "cad/lang/en.py": "X = 1\n", "cad/lang/pairs.py": "def pair(s, t): pass\n", "cad/lang/facts.py": "",
        "cad/cm/__init__.py": "",
        "cad/cm/direct.py": "from cad.lang.fr import X\n",
        "cad/cm/package.py": "from cad.lang import NONE, fr\n",
        "cad/cm/inside.py": "def f():\n    import cad.lang.en\n",
        "cad/cm/relative.py": "from ..lang import fr\n",
        "cad/cm/through_the_pair.py": "from cad.lang import NONE\nfrom cad.lang.pairs import pair\n",
        "coref/__init__.py": "", "coref/english/__init__.py": "", "coref/spanish/__init__.py": "",
        "coref/english/own.py": "from cad.lang.en import X\n",
        "coref/spanish/other.py": "from cad.lang.fr import X\n",
    })
    found = _import_graph_script().language_fact_imports(tmp_path)
    assert found == {"cad.cm.direct": ["cad.lang.fr"], "cad.cm.package": ["cad.lang.fr"],
                     "cad.cm.inside": ["cad.lang.en"], "cad.cm.relative": ["cad.lang.fr"],
                     "coref.spanish.other": ["cad.lang.fr"]}
