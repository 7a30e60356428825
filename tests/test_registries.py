"""The registries of cad's parts (cad/core/registry.py): a coreference backend, a CM model, a
translation system and a metric are each one class defined in this module, registered under a
name, and used from the command line without any cad module naming them; an installed
distribution's entry points add parts too; setup.cfg declares the built-in ones."""

from __future__ import annotations

import configparser
import json
import sys
import textwrap

import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.core.registry import Names, Registry
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

@register_backend("first-word")
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


def test_a_backend_from_this_module_resolves_with_cad_coref(tmp_path, capsys):
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


@pytest.mark.parametrize("registry", ["coref.backends:BACKENDS"])
def test_setup_cfg_declares_each_built_in_part_as_the_registry_does(registry):
    """An installed cad lists its parts to importlib.metadata under the same names and classes as
    the registry declares them (a checkout that is not installed reads the registry alone)."""
    module, _, name = registry.partition(":")
    reg = getattr(__import__(module, fromlist=[name]), name)
    assert _declared(reg.group) == reg.declarations()
