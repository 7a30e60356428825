"""One place for every default (cad/defaults.py): the Makefile's `?=` values, every command-line
option's default and its help, the library's functions and the moses.ini line's implicit values
all say what cad.defaults says, and no module states one of those values as a default of its own."""

from __future__ import annotations

import argparse
import ast
import inspect
import re

import pytest

from cad import defaults as D
from cad.cli import build_parser

from conftest import REPO


def makefile_values() -> dict[str, str]:
    return dict(re.findall(r"^(\w+) \?= (.*)$", (REPO / "Makefile").read_text(), re.M))


def test_the_makefile_states_the_same_defaults():
    make = makefile_values()
    assert make["CM_READING"] == D.CM_READING
    assert make["CM_OBJECTIVE"] == D.CM_OBJECTIVE
    assert make["CM_TUNE"] == D.CM_TUNE
    # make pronoun-eval measures the configurations at the weight cad cm config writes
    assert float(make["CM_GRID"]) == D.CM_FEATURE_WEIGHT
    assert make["CM_CLASS_TABLE"] == D.CM_CLASS_TABLE
    assert make["COREF_BACKEND"] == D.COREF_BACKEND
    assert tuple(map(float, make["CM_AGREEMENT"].split(","))) == D.CM_AGREEMENT_WEIGHTS


def _parsers(p: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def options() -> dict[tuple[tuple[str, ...], str], tuple[argparse.Action, str]]:
    """(command path, option) -> (the action, its help as printed)."""
    found = {}
    for path, p in _parsers(build_parser()):
        formatter = p._get_formatter()
        for action in p._actions:
            for flag in action.option_strings:
                found[(path, flag)] = (action, formatter._expand_help(action) if action.help else "")
    return found


def shown(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


# every option of these names, on every command that has one, defaults to the value
EVERYWHERE = {"--objective": D.CM_OBJECTIVE, "--reading": D.CM_READING, "--cm-model": D.CM_MODEL}
# the options of one command
ONE = {
    (("cm", "config"), "--objective"): D.CM_OBJECTIVE,
    (("cm", "experiment"), "--tune-on"): D.CM_TUNE,
    (("cm", "config"), "--agreement-weights"): ",".join(f"{w:g}" for w in D.CM_AGREEMENT_WEIGHTS),
    (("cm", "experiment"), "--agreement-weights"): ",".join(f"{w:g}" for w in D.CM_AGREEMENT_WEIGHTS),
    (("cm", "build"), "--class-table"): D.CM_CLASS_TABLE,
    (("translate",), "--cm-weight"): D.CM_RERANK_WEIGHT,
    (("translate",), "--nbest"): D.CM_RERANK_NBEST,
    (("cm", "experiment"), "--nbest"): D.CM_RERANK_NBEST,
    (("cm", "experiment-source"), "--nbest"): D.CM_RERANK_NBEST,
    (("cm", "rerank"), "--weight"): D.CM_TABLE_RERANK_WEIGHT,
    (("coref-train",), "--temperature"): D.COREF_TEMPERATURE,
    (("cm", "experiment-source"), "--backend"): D.COREF_BACKEND_SPANISH,
    (("contrastive", "make"), "--backend"): D.CONTRASTIVE_BACKEND,
    (("coref-heldout",), "--backend"): D.COREF_BACKEND,
}
for _cmd in (("coref-train",), ("coref-eval",), ("coref-heldout",)):
    ONE.update({(_cmd, "--l2"): D.COREF_L2, (_cmd, "--window"): D.COREF_WINDOW,
                (_cmd, "--in-domain-weight"): D.COREF_IN_DOMAIN_WEIGHT})
for _cmd in (("coref",), ("coref-eval",), ("coref-heldout",)):
    ONE[(_cmd, "--pronouns")] = ",".join(D.COREF_PRONOUNS)
# cad serve offers the backends that need no per-input files (not corzu's records, not the gold annotation)
ONE[(("serve",), "--backend")] = D.COREF_BACKEND


def test_every_option_defaults_to_cad_defaults_and_its_help_says_so():
    found = options()
    checked = set()
    for (path, flag), (action, help_) in found.items():
        expected = ONE.get((path, flag), EVERYWHERE.get(flag))
        if flag == "--backend" and (path, flag) not in ONE:
            # every other --backend chooses among all the backends, and takes the pipeline's
            from coref.backends import BACKENDS

            assert action.choices is BACKENDS, path
            expected = D.COREF_BACKEND
        if expected is None:
            continue
        checked.add((path, flag))
        assert action.default == expected, (path, flag, action.default)
        assert f"default: {shown(expected)}" in help_ or f"default {shown(expected)}" in help_ \
            or (flag == "--objective" and f"({expected}, default" in help_), (path, flag, help_)
    assert set(ONE) <= checked                            # each of them is still an option
    assert {f for _, f in checked} >= set(EVERYWHERE) | {"--backend"}
    # cad cm config's --weight: no default of its own (two modes), the help states both
    action, help_ = found[(("cm", "config"), "--weight")]
    assert action.default is None
    assert f"default {shown(D.CM_BACKOFF_WEIGHT)} backoff, {shown(D.CM_FEATURE_WEIGHT)} feature" in help_


def test_cm_config_writes_the_pipeline_s_defaults(tmp_path):
    from cad.cli import main
    from cad.moses.ini import baseline_config, parse_config, write_config

    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm"), 2), tmp_path / "base.ini")
    base = ["-q", "cm", "config", "--base", str(tmp_path / "base.ini"), "--cm", str(tmp_path / "classes.gz")]
    assert main(base + ["--mode", "feature", "--out", str(tmp_path / "f.ini")]) == 0
    feature = parse_config(tmp_path / "f.ini")
    line = next(f for f in feature.features if f.type == "CoreferenceModel")
    # a value equal to the line's implicit one is left out, and reads as it (the next test)
    written = (line.args.get("objective", D.CM_IMPLICIT_OBJECTIVE), line.args.get("reading", D.CM_IMPLICIT_READING))
    assert written == (D.CM_OBJECTIVE, D.CM_READING)
    assert "model" not in line.args and D.CM_MODEL == D.CM_IMPLICIT_MODEL
    assert feature.weights[line.name] == [D.CM_FEATURE_WEIGHT]
    assert main(base + ["--out", str(tmp_path / "b.ini")]) == 0
    assert parse_config(tmp_path / "b.ini").weights["TranslationModel1"] == [D.CM_BACKOFF_WEIGHT]


def test_a_coreference_model_line_without_its_keys_reads_the_implicit_values(tmp_path):
    """What a moses.ini line leaves out: the implicit values, which the configuration writer leaves
    out too, so that a written line decodes as it was written."""
    from cad.cm.class_model import OBJECTIVES, READINGS, ClassTable
    from cad.cm.config import feature_config
    from cad.cm.feature import CoreferenceModelFeature
    from cad.decoder.registry import FeatureSlot
    from cad.moses.ini import Feature, baseline_config, write_config

    ClassTable({"it": {"il": 1.0}}).write(tmp_path / "classes.gz")
    bare = CoreferenceModelFeature(FeatureSlot("CM0", "CoreferenceModel", 0, 1, [1.0]),
                                   Feature("CoreferenceModel", "CM0", {"path": str(tmp_path / "classes.gz")}))
    assert (bare.objective, bare.reading) == (D.CM_IMPLICIT_OBJECTIVE, D.CM_IMPLICIT_READING)
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm"), 2), tmp_path / "base.ini")
    for objective in OBJECTIVES:
        for reading in READINGS:
            cfg = feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", 1.0, objective, reading=reading)
            line = next(f for f in cfg.features if f.type == "CoreferenceModel")
            assert ("objective" in line.args) == (objective != D.CM_IMPLICIT_OBJECTIVE)
            assert ("reading" in line.args) == (reading != D.CM_IMPLICIT_READING)
            f = CoreferenceModelFeature(FeatureSlot("CM0", "CoreferenceModel", 0, 1, [1.0]), line)
            assert (f.objective, f.reading) == (objective, reading)


def test_the_library_s_defaults_are_cad_defaults():
    from cad.cm.config import cm_config, feature_config, write_cm_config, write_feature_config
    from cad.experiments.pronoun_eval import run_experiment
    from cad.translate.translator import DocumentTranslator
    from coref.english.train import fold_resolvers, train_ranker

    def default(fn, name):
        return inspect.signature(fn).parameters[name].default

    for fn in (cm_config, write_cm_config):
        assert default(fn, "weight") == D.CM_BACKOFF_WEIGHT
    for fn in (feature_config, write_feature_config):
        assert (default(fn, "weight"), default(fn, "objective")) == (D.CM_FEATURE_WEIGHT, D.CM_OBJECTIVE)
    assert (default(run_experiment, "objective"), default(run_experiment, "reading")) == (D.CM_OBJECTIVE, D.CM_READING)
    assert (default(run_experiment, "backoff_weight"), default(run_experiment, "nbest")) == \
        (D.CM_BACKOFF_WEIGHT, D.CM_RERANK_NBEST)
    assert default(DocumentTranslator.__init__, "nbest") == D.CM_RERANK_NBEST
    assert default(train_ranker, "temperature") == D.COREF_TEMPERATURE
    for fn in (train_ranker, fold_resolvers):
        assert (default(fn, "l2"), default(fn, "window"), default(fn, "in_domain_weight")) == \
            (D.COREF_L2, D.COREF_WINDOW, D.COREF_IN_DOMAIN_WEIGHT)


# the values of the options cad.defaults holds, which no module may state as a default of its own
WATCHED_NAMES = {"objective", "reading", "backend", "kind", "model", "cm_model", "--objective", "--reading",
                 "--backend", "--cm-model"}
WATCHED_VALUES = {"likelihood", "credit", "apt", "exact", "mixture", "map", "table", "classifier", "source-table",
                  "ranker", "sieve", "coreferee", "gold", "stanza", "corzu", "spanish"}


def _literal_defaults(tree: ast.AST):
    """(line, name, value) of every string literal given as the default of a watched name: a
    parameter's default, argparse's default=, and `.get(name, default)`."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            for arg, d in pairs:
                if isinstance(d, ast.Constant) and arg.arg in WATCHED_NAMES:
                    yield d.lineno, arg.arg, d.value
        elif isinstance(node, ast.Call):
            first = node.args[0] if node.args else None
            name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
            if name not in WATCHED_NAMES:
                continue
            for kw in node.keywords:
                if kw.arg == "default" and isinstance(kw.value, ast.Constant):
                    yield kw.value.lineno, name, kw.value.value
            if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and len(node.args) == 2 \
                    and isinstance(node.args[1], ast.Constant):
                yield node.args[1].lineno, name, node.args[1].value


def test_no_module_states_a_default_of_its_own():
    stated = []
    for root in ("cad", "coref"):
        for path in sorted((REPO / root).rglob("*.py")):
            if path == REPO / "cad" / "defaults.py":
                continue
            for line, name, value in _literal_defaults(ast.parse(path.read_text(encoding="utf-8"))):
                if value in WATCHED_VALUES:
                    stated.append(f"{path.relative_to(REPO)}:{line}: {name} = {value!r}")
    assert stated == []


def test_the_literal_finder_finds_them():
    code = ("def f(objective='credit', *, reading='map'):\n    pass\n"
            "s.add_argument('--backend', default='sieve')\n"
            "line.args.get('model', 'classifier')\n")
    assert sorted(v for _, _, v in _literal_defaults(ast.parse(code))) == ["classifier", "credit", "map", "sieve"]


@pytest.mark.parametrize("name", ["CM_READING", "CM_OBJECTIVE", "COREF_BACKEND"])
def test_the_makefile_passes_its_values_on(name):
    """The Makefile's variables reach the commands (so that `make` runs what it states)."""
    text = (REPO / "Makefile").read_text()
    assert f"$({name})" in text.split(f"{name} ?=", 1)[1]
