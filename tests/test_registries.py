"""The registries of cad's parts (cad/core/registry.py): a coreference backend, a CM model, a
translation system and a metric are each one class defined in this module, registered under a
name, and used from the command line without any cad module naming them; an installed
distribution's entry points add parts too; setup.cfg declares the built-in ones. The command
groups, a registry too, have tests/test_command_groups.py."""

from __future__ import annotations

import configparser
import json
import sys
import textwrap

import pytest

from cad.cli import main
from cad.cm.models import CM_MODELS, PronounModel, register_cm_model
from cad.core.errors import CadError
from cad.core.registry import Names, Registry
from cad.eval.metrics import METRICS, Metric, MetricResult, Sources, build_metric, register_metric
from cad.translate.systems import SYSTEMS, DocumentTranslation, TranslationSystem, register_system
from coref.backends import BACKENDS, Backend, BackendOptions, get_backend, register_backend
from coref.records import Candidate, PronounResolution

from conftest import REPO, write


# -- the registry itself ------------------------------------------------------------------------------

class One:
    pass


class Two:
    pass


def test_a_registry_keeps_its_order_imports_declared_parts_when_chosen_and_refuses_a_second_class():
    reg = Registry("widget", "cad.test_widgets_none")
    reg.register("one")(One)
    reg.declare("ordered", "collections:OrderedDict")
    assert list(reg) == ["one", "ordered"] and "ordered" in reg and "three" not in reg
    assert not reg.loaded("ordered")
    from collections import OrderedDict

    assert reg.get("ordered") is OrderedDict and reg.loaded("ordered")
    reg.register("one")(One)                                  # the same class again: nothing happens
    with pytest.raises(ValueError, match="widget one is registered twice"):
        reg.register("one")(Two)
    with pytest.raises(CadError, match=r"unknown widget 'three' \(choose from one, ordered\)"):
        reg.get("three")
    assert reg.find("three") is None
    copy = reg.copy()
    copy.register("two")(Two)
    assert "two" in copy and "two" not in reg
    names = Names(lambda: [n.upper() for n in reg])
    reg.register("late")(Two)                                 # read when used, not when made
    assert list(names) == ["ONE", "ORDERED", "LATE"] and "LATE" in names


def _install(tmp_path, monkeypatch, module: str, source: str, group: str, entry: str) -> None:
    """A distribution installed on sys.path: `module`.py and its entry point `entry` of `group`."""
    site = tmp_path / "site"
    write(site / f"{module}.py", textwrap.dedent(source))
    dist = site / f"{module}-1.0.dist-info"
    write(dist / "METADATA", f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    write(dist / "entry_points.txt", f"[{group}]\n{entry}\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, module, raising=False)


# -- coreference backends -----------------------------------------------------------------------------

class FirstWord(Backend):
    """The fixture backend: every pronoun's antecedent is its document's first word; `model=` names
    a file whose first line is the probability it gives."""

    reads_model = True

    def __init__(self, pronouns: tuple[str, ...], probability: float = 1.0):
        self.pronouns, self.probability = pronouns, probability

    @classmethod
    def from_options(cls, options: BackendOptions) -> FirstWord:
        model = options.get("model")
        return cls(options.pronouns, float(open(model).readline()) if model else 1.0)

    def resolve(self, doc_id, sentences):
        return [PronounResolution(doc_id, s, i, tok, True, [Candidate(0, 0, 1, 0, sentences[0][0], self.probability)])
                for s, sent in enumerate(sentences) for i, tok in enumerate(sent) if tok.lower() in self.pronouns]


@pytest.fixture
def first_word():
    """FirstWord registered for one test (other tests list the backends that read a model)."""
    with BACKENDS.restored():
        register_backend("first-word")(FirstWord)
        yield FirstWord


def test_a_backend_from_this_module_resolves_with_cad_coref(first_word, tmp_path, capsys):
    write(tmp_path / "in.txt", "Mice run .\nThey hide and it rains .\n")
    write(tmp_path / "model", "0.25\n")
    assert "first-word" in BACKENDS and list(BACKENDS)[-1] == "first-word"
    out = tmp_path / "out.jsonl"
    assert main(["-q", "coref", "--backend", "first-word", "--input", str(tmp_path / "in.txt"), "--out", str(out),
                 "--pronouns", "they", "--model", str(tmp_path / "model")]) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["sentence"], r["index"], r["token"]) for r in recs] == [(1, 0, "They")]
    assert recs[0]["candidates"][0]["text"] == "Mice" and recs[0]["candidates"][0]["probability"] == 0.25
    # its options reach it in a worker too: documents resolved in shards, the same records
    write(tmp_path / "in.docs", "0\td0\n1\td1\n")
    sharded = tmp_path / "sharded.jsonl"
    assert main(["-q", "coref", "--backend", "first-word", "--input", str(tmp_path / "in.txt"), "--docs",
                 str(tmp_path / "in.docs"), "--out", str(sharded), "--model", str(tmp_path / "model"),
                 "--workers", "1"]) == 0
    assert [json.loads(line)["candidates"][0]["text"] for line in sharded.read_text().splitlines()] == \
        ["They", "They"]
    # --coref-model is for the backends that read a model: this one says it does
    assert "first-word" in __import__("coref.backends", fromlist=["model_backends"]).model_backends()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["-q", "coref", "--backend", "no-such", "--input", str(tmp_path / "in.txt")])
    assert "'first-word'" in capsys.readouterr().err      # argparse lists it among the choices


def test_the_built_in_backends_keep_their_names_order_and_messages():
    assert list(BACKENDS)[:7] == ["ranker", "sieve", "coreferee", "gold", "stanza", "corzu", "spanish"]
    with pytest.raises(CadError, match="needs --gold"):
        get_backend("gold")
    with pytest.raises(CadError, match="the corzu backend needs --corzu RECORDS and --docs"):
        get_backend("corzu")
    with pytest.raises(CadError, match=r"unknown backend 'magic' \(choose from ranker, sieve, coreferee, gold, "):
        get_backend("magic")


def test_an_installed_distribution_s_backend_is_found_by_its_entry_point(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("coref.backends.BACKENDS", BACKENDS.copy())
    import coref.backends

    _install(tmp_path, monkeypatch, "regfixture_backend", """\
        from coref.backends import Backend
        from coref.records import PronounResolution


        class EveryIt(Backend):
            def resolve(self, doc_id, sentences):
                return [PronounResolution(doc_id, s, i, t, False) for s, sent in enumerate(sentences)
                        for i, t in enumerate(sent) if t == "it"]
        """, coref.backends.ENTRY_POINTS, "every-it = regfixture_backend:EveryIt")
    assert "every-it" in coref.backends.BACKENDS and not coref.backends.BACKENDS.loaded("every-it")
    write(tmp_path / "in.txt", "it is it .\n")
    assert main(["-q", "coref", "--backend", "every-it", "--input", str(tmp_path / "in.txt"),
                 "--out", str(tmp_path / "out.jsonl")]) == 0
    assert [json.loads(x)["index"] for x in (tmp_path / "out.jsonl").read_text().splitlines()] == [0, 2]


def _declared(group: str) -> dict[str, str]:
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(REPO / "setup.cfg")
    out = {}
    for line in cfg["options.entry_points"][group].strip().splitlines():
        name, _, value = line.partition("=")
        out[name.strip()] = value.strip()
    return out


@pytest.mark.parametrize("registry", ["coref.backends:BACKENDS", "cad.cm.models:CM_MODELS",
                                      "cad.translate.systems:SYSTEMS", "cad.eval.metrics:METRICS",
                                      "cad.cli.groups:COMMAND_GROUPS", "cad.lang.pairs:LANGUAGES",
                                      "cad.lang.pairs:PAIRS"])
def test_setup_cfg_declares_each_built_in_part_as_the_registry_does(registry):
    """An installed cad lists its parts to importlib.metadata under the same names and classes as
    the registry declares them (a checkout that is not installed reads the registry alone)."""
    module, _, name = registry.partition(":")
    reg = getattr(__import__(module, fromlist=[name]), name)
    assert _declared(reg.group) == reg.declarations()


# -- a small model: "it sleeps" is "il dort" by the phrase table, "elle dort" by a CM that says so ----

def tiny_model(tmp_path):
    from cad.lm.arpa import write_arpa
    from cad.lm.kneser_ney import estimate
    from cad.moses.ini import baseline_config, write_config

    write(tmp_path / "pt", "it ||| il ||| 0.7 0.7 0.7 0.7 ||| 0-0\nit ||| elle ||| 0.3 0.3 0.3 0.3 ||| 0-0\n"
                           "sleeps ||| dort ||| 1 1 1 1 ||| 0-0\n"
                           "the mouse ||| la souris ||| 1 1 1 1 ||| 0-0 1-1\n"
                           "runs ||| court ||| 1 1 1 1 ||| 0-0\n")
    write_arpa(estimate([["il", "dort"], ["elle", "dort"], ["la", "souris", "court"]], 2), tmp_path / "lm.arpa")
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0),
                 tmp_path / "base.ini")
    write(tmp_path / "doc.en", "the mouse runs\nit sleeps\n")
    return tmp_path / "base.ini"


# -- CM models ----------------------------------------------------------------------------------------

class OneClass(PronounModel):
    """The fixture pronoun model: its file names the class it gives 0.9, whatever the antecedent."""

    def __init__(self, cls: str):
        self.cls = cls

    @classmethod
    def from_file(cls, path, pair=None):
        return cls(open(path, encoding="utf-8").read().strip())

    def class_distribution(self, mixture, tokens=None, index=None):
        return {self.cls: 0.9, "il" if self.cls != "il" else "elle": 0.1}


@pytest.fixture
def one_class():
    with CM_MODELS.restored():
        register_cm_model("one-class")(OneClass)
        yield OneClass


def test_a_cm_model_from_this_module_is_configured_and_decoded_with(one_class, first_word, tmp_path, capsys):
    pytest.importorskip("spacy")
    base = tiny_model(tmp_path)
    write(tmp_path / "model.txt", "elle\n")
    assert main(["-q", "cm", "config", "--mode", "feature", "--cm-model", "one-class", "--base", str(base),
                 "--cm", str(tmp_path / "model.txt"), "--weight", "2", "--out", str(tmp_path / "cm.ini")]) == 0
    assert "model=one-class" in (tmp_path / "cm.ini").read_text()
    args = ["-q", "translate", "--input", str(tmp_path / "doc.en"), "--backend", "first-word", "--read-ahead", "0"]
    assert main(args + ["--config", str(base), "--system", "baseline", "--out", str(tmp_path / "bl")]) == 0
    assert (tmp_path / "bl").read_text() == "la souris court\nil dort\n"
    assert main(args + ["--config", str(tmp_path / "cm.ini"), "--out", str(tmp_path / "cm")]) == 0
    assert (tmp_path / "cm").read_text() == "la souris court\nelle dort\n"
    # the same model reranking the baseline's n-best lists
    assert main(args + ["--config", str(base), "--cm-mode", "rerank", "--cm-model", "one-class", "--classes",
                        str(tmp_path / "model.txt"), "--cm-weight", "2", "--out", str(tmp_path / "rr")]) == 0
    assert (tmp_path / "rr").read_text() == "la souris court\nelle dort\n"
    # a model=... the registry does not know is refused with the names it knows
    (tmp_path / "bad.ini").write_text((tmp_path / "cm.ini").read_text().replace("model=one-class", "model=none"))
    capsys.readouterr()
    assert main(args + ["--config", str(tmp_path / "bad.ini"), "--out", str(tmp_path / "x")]) == 1
    assert "unknown model=none (choose from table, classifier, source-table, one-class)" in capsys.readouterr().err


def test_the_built_in_cm_models_keep_their_names_and_message(tmp_path):
    from cad.cm.models import load_pronoun_model

    assert list(CM_MODELS)[:3] == ["table", "classifier", "source-table"]
    with pytest.raises(CadError, match=r"unknown CM model 'neural' \(choose from table, classifier, source-table"):
        load_pronoun_model(tmp_path, "neural")


# -- translation systems ------------------------------------------------------------------------------

class Shouting(TranslationSystem):
    """The fixture system: the baseline's translations in capitals, with no coreference."""

    reads_coreference = False

    def translate_document(self, doc_id, sentences, records, roles=None, given=None):
        return DocumentTranslation([tr.text.upper() for tr in given], ["" for _ in given])


@pytest.fixture
def shouting():
    with SYSTEMS.restored():
        register_system("shouting")(Shouting)
        yield Shouting


def test_a_translation_system_from_this_module_translates_with_cad_translate(shouting, tmp_path, capsys):
    base = tiny_model(tmp_path)
    assert main(["-q", "translate", "--config", str(base), "--input", str(tmp_path / "doc.en"), "--system",
                 "shouting", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out").read_text() == "LA SOURIS COURT\nIL DORT\n"
    from cad.translate.translator import DocumentTranslator

    with pytest.raises(ValueError, match="unknown system 'whispering'"):
        DocumentTranslator(None, "whispering")


def test_the_built_in_systems_keep_the_command_line_s_choices():
    from cad.translate.systems import CM_MODE_CHOICES, SYSTEM_CHOICES

    assert list(SYSTEM_CHOICES) == ["cm", "baseline", "pe"]
    assert list(CM_MODE_CHOICES) == ["auto", "backoff", "feature", "rerank"]


# -- metrics ------------------------------------------------------------------------------------------

class LengthRatio(Metric):
    """The fixture metric: the hypotheses' words over the first reference's, per cent (`unit=` may
    count characters instead)."""

    name = "LenRatio"
    options = {"unit": "words"}

    def corpus_score(self, hypotheses, references, sources=None):
        self.check(hypotheses, references, sources)
        size = (lambda line: len(line.split())) if self.settings["unit"] == "words" else len
        ratio = 100 * sum(map(size, hypotheses)) / max(1, sum(map(size, references[0])))
        return MetricResult(self.name, ratio, self.signature(len(references), unit=self.settings["unit"]))


@pytest.fixture
def length_ratio():
    with METRICS.restored():
        register_metric("length-ratio")(LengthRatio)
        yield LengthRatio


def test_a_metric_from_this_module_scores_with_cad_eval_metric(length_ratio, tmp_path, capsys):
    from cad import __version__

    write(tmp_path / "hyp", "a b c\nd\n")
    write(tmp_path / "ref", "a b\nc d e f\n")
    base = ["-q", "eval", "metric", "--candidate", str(tmp_path / "hyp"), "--reference", str(tmp_path / "ref")]
    capsys.readouterr()
    assert main(base + ["--metric", "length-ratio"]) == 0
    assert capsys.readouterr().out == f"LenRatio|nrefs:1|unit:words|version:cad-{__version__} = 66.67\n"
    assert main(base + ["--metric", "length-ratio", "--option", "length-ratio.unit=chars", "--metric", "bleu"]) == 0
    ratio, bleu = capsys.readouterr().out.splitlines()
    assert ratio.startswith("LenRatio|nrefs:1|unit:chars|") and ratio.endswith(" = 60.00")        # 6 characters against 10
    assert bleu.startswith("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:")
    assert main(base + ["--metric", "length-ratio", "--option", "length-ratio.size=3"]) == 1
    assert "metric LenRatio has no option size (its options: unit)" in capsys.readouterr().err


def test_bleu_and_chrf_through_the_metric_interface_are_cad_eval_bleu_s_lines(tmp_path, capsys):
    write(tmp_path / "hyp", "le chat est noir .\nil dort bien .\n")
    write(tmp_path / "ref", "le chat est blanc .\nelle dort bien .\n")
    files = ["--candidate", str(tmp_path / "hyp"), "--reference", str(tmp_path / "ref")]
    capsys.readouterr()
    assert main(["eval", "bleu", *files]) == 0
    bleu_lines = capsys.readouterr().out
    assert main(["eval", "metric", "--metric", "bleu", "--metric", "chrf", *files]) == 0
    assert capsys.readouterr().out == bleu_lines
    hyp, ref = (tmp_path / "hyp").read_text().splitlines(), (tmp_path / "ref").read_text().splitlines()
    result = build_metric("bleu", {"tokenize": "none"}).corpus_score(hyp, [ref])
    assert "tok:none" in str(result.signature) and result.detail.precisions[0] == pytest.approx(100 * 7 / 9)


def test_apt_through_the_metric_interface(tmp_path, capsys):
    """APT on sequences (hypotheses, references, the source and both alignments), a signature
    naming what decides it, the same score as cad eval apt's; the settings it is given unchanged."""
    from cad.eval.apt import evaluate
    from cad.eval.apt_metric import AptMetric
    from cad.eval.apt_settings import french_settings

    src = ["it is big .", "it is small .", "it is green ."]
    ref = ["il est grand .", "c' est petit .", "elle est verte ."]
    cand = ["il est grand .", "il est petit .", "il est vert ."]
    al = ["0-0 1-1 2-2 3-3"] * 3
    result = build_metric("apt").corpus_score(cand, [ref], Sources(src, al, [al]))
    assert result.score == pytest.approx((1 + 0.5) / 3) and result.detail.counts[3] == 1
    assert str(result.signature).startswith("nrefs:1|cases:1,2,3,4,5,6|weights:1,0.5,0,0,0,0|other:yes|"
                                            "lists:en-fr|improve:yes|margin:1|version:cad-")
    assert result.format().split(" = ")[1] == "0.5000 (findings per case 1,1,1,0,0,0)"
    with pytest.raises(CadError, match="reads the source side"):
        build_metric("apt").corpus_score(cand, [ref])
    # fewer cases with six weights: each case's own weight, in the result's settings, not the given ones
    s = french_settings(weights=[1, 0.5, 0, 0, 0, 0], cases=[1, 3])
    files = [write(tmp_path / n, "\n".join(x) + "\n") for n, x in
             (("src", src), ("ref", ref), ("cand", cand), ("aref", al), ("acand", al))]
    res = evaluate(*files, s)
    assert s.weights == [1, 0.5, 0, 0, 0, 0] and res.settings.weights == [1, 0]
    assert res.score == pytest.approx(1 / 2)
    assert AptMetric(settings=s).corpus_score(cand, [ref], Sources(src, al, [al])).score == res.score
    other = french_settings()
    other.target_list = other.target_list[:-1]
    assert AptMetric(settings=other).signature().items[4][1].startswith("sha256:")
    # cad eval metric reads the files and prints the same
    capsys.readouterr()
    assert main(["eval", "metric", "--metric", "apt", "--option", "apt.cases=1,3", "--candidate", str(files[2]),
                 "--reference", str(files[1]), "--source", str(files[0]), "--align-ref", str(files[3]),
                 "--align-cand", str(files[4])]) == 0
    assert capsys.readouterr().out.startswith("APT|nrefs:1|cases:1,3|weights:1,0|")
    assert main(["eval", "metric", "--metric", "apt", "--candidate", str(files[2]), "--reference", str(files[1])]) == 1
    assert "apt read the source side: give --source" in capsys.readouterr().err
