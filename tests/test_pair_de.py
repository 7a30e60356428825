"""English→German, a third language pair given as data: German's facts (cad/lang/de.py) and the
embedded sample (cad/sample/en-de.*) are all there is of it. The same `cad` commands as for
English→French train it, build its CM, configure and translate with it, and the pronoun follows the
German gender of its antecedent's translation (*die Lampe … sie*, *der Tisch … er*, *das Buch … es*)."""

import gzip
import json

import pytest

from cad.cli import main
from cad.cm.class_model import ClassTable, credit_matrix, gender_shares
from cad.core.errors import CadError
from cad.lang.pairs import PAIRS, language, pair
from cad.sample import SAMPLE_EN_DE

# documents that are not in the sample: "bought … yesterday" is new, the nouns are the sample's
DOCUMENTS = [("I bought a lamp yesterday.", "It was very cheap.", "Sie"),
             ("I bought a table yesterday.", "It was very cheap.", "Er"),
             ("I bought a book yesterday.", "It was very cheap.", "Es")]


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    out = tmp_path_factory.mktemp("en-de")
    model = out / "model"
    assert main(["-q", "train", "--corpus", str(SAMPLE_EN_DE), "--src", "en", "--tgt", "de", "--out", str(model)]) == 0
    assert main(["-q", "cm", "build", "--corpus", str(model / "corpus"), "--align",
                 str(model / "aligned.grow-diag-final-and"), "--src", "en", "--tgt", "de", "--backend", "sieve",
                 "--out", str(out / "cm")]) == 0
    for mode, table in (("feature", "classes.gz"), ("backoff", "cm.gz")):
        assert main(["-q", "cm", "config", "--base", str(model / "moses.ini"), "--cm", str(out / "cm" / table),
                     "--mode", mode, "--out", str(out / f"{mode}.ini")]) == 0
    lines = [line for doc in DOCUMENTS for line in doc[:2]]
    (out / "test.en").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    (out / "test.docs").write_text("".join(f"{2 * k}\tdoc:{k}\n" for k in range(len(DOCUMENTS))), encoding="utf-8")
    return out


def _translate(german, tmp_path, config: str, *extra: str) -> tuple[list[str], list[dict]]:
    out, trace = tmp_path / f"{config}.de", tmp_path / f"{config}.trace.jsonl"
    args = ["-q", "translate", "--config", str(german / config), "--src", "en", "--tgt", "de", "--backend", "sieve",
            "--input", str(german / "test.en"), "--docs", str(german / "test.docs"), "--raw", "--out", str(out),
            "--trace", str(trace), *extra]
    assert main(args) == 0
    return out.read_text(encoding="utf-8").splitlines(), \
        [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]


def test_german_is_a_registered_pair_of_facts():
    assert "en-de" in PAIRS and pair("en", "de").target is language("de")
    de = pair("en", "de").target
    assert {"er", "sie", "es"} <= set(de.classes) and de.genders == ("masc", "fem", "neut")
    # APT's similar pair es/das is the credit matrix's, as il/ce is French's
    assert credit_matrix(1.0, pair("en", "de"))["es"]["das"] == 1.0
    assert credit_matrix(1.0, pair("en", "de"))["er"].get("sie") is None
    assert gender_shares({"it-subj-neut-sing": 0.75, "it-subj-fem-sing": 0.25}, pair("en", "de")) == \
        {"masc": 0.0, "fem": 0.25, "neut": 0.75}
    with pytest.raises(CadError, match="unknown language pair de-xx .*en-de"):
        pair("de", "xx")


def test_german_morphology_reads_the_lexicon_and_the_determiner():
    m = pair("en", "de").target.morphology()
    tags = m.tag([["Ich", "habe", "den", "Hund", "gesehen", "."], ["Die", "Schlüssel", "und", "das", "Xylofon", "."],
                  ["er", "schläft", "."]])
    assert (tags[0][3].pos, tags[0][3].gender, tags[0][3].number, tags[0][3].source) == ("NOUN", "masc", "sing", "lexicon")
    # a form of both numbers: the determiner decides (die + masculine noun: plural)
    assert (tags[1][1].gender, tags[1][1].number) == ("masc", "plur")
    # a capitalized word after a determiner is a noun, its gender the determiner's where it says one
    assert (tags[1][4].pos, tags[1][4].gender, tags[1][4].source) == ("NOUN", "neut", "determiner")
    assert (tags[2][0].pos, tags[2][0].gender, tags[2][0].source) == ("PRON", "masc", "pronoun")
    assert m.noun_features("Lampe") == ("fem", "sing") and not m.knows_noun("gesehen")


def test_the_cm_learns_the_german_genders(german):
    lines = gzip.open(german / "cm" / "cm.gz", "rt", encoding="utf-8").read().splitlines()
    probs = {tuple(x.split(" ||| ")[:2]): float(x.split(" ||| ")[2]) for x in lines}
    for bundle, right in (("it-masc-sing", "er"), ("it-fem-sing", "sie"), ("it-neut-sing", "es"),
                          ("they-masc-plur", "sie")):
        best = max((p, t) for (b, t), p in probs.items() if b == bundle)
        assert best[1] == right, (bundle, best)
    table = ClassTable.read(german / "cm" / "classes.gz", pair("en", "de"))
    for gender, right in (("masc", "er"), ("fem", "sie"), ("neut", "es")):
        dist = table.class_distribution({f"it-copa-{gender}-sing": 1.0})
        assert max(dist, key=dist.get) == right
    assert json.loads((german / "cm" / "provenance.json").read_text())["pair"] == "en-de"
    # a French reading of the German table is refused, naming the file and line
    with pytest.raises(CadError, match=r"classes\.gz:1: unknown pronoun class 'er'"):
        ClassTable.read(german / "cm" / "classes.gz", pair("en", "fr"))


def test_the_feature_line_names_the_pair(german):
    text = (german / "feature.ini").read_text(encoding="utf-8")
    assert "CoreferenceModel" in text and "pair=en-de" in text


def test_german_has_no_predicate_agreement_feature(german, tmp_path, capsys):
    # the default agreement weights ask for French's agreement where the target has one; German has none
    assert "PronounAgreement" not in (german / "feature.ini").read_text(encoding="utf-8")
    assert main(["-q", "cm", "config", "--base", str(german / "model" / "moses.ini"), "--cm",
                 str(german / "cm" / "classes.gz"), "--mode", "feature", "--agreement-weights", "2,3",
                 "--out", str(tmp_path / "agr.ini")]) != 0
    assert "German" in capsys.readouterr().err and not (tmp_path / "agr.ini").exists()


@pytest.mark.parametrize("config", ["feature.ini", "backoff.ini"])
def test_the_pronoun_follows_the_antecedents_german_gender(german, tmp_path, config):
    baseline, _ = _translate(german, tmp_path, "model/moses.ini", "--system", "baseline")
    got, traces = _translate(german, tmp_path, config)
    pronouns = [got[2 * k + 1].split()[0] for k in range(len(DOCUMENTS))]
    assert pronouns == [d[2] for d in DOCUMENTS]
    # the decoder alone says one pronoun for all three: the CM made the difference
    assert len({baseline[2 * k + 1].split()[0] for k in range(len(DOCUMENTS))}) == 1
    # each document's *it* (its second sentence) read its antecedent's gender from the translation
    read = {t["doc"]: t for t in traces if t["sentence"] == 1}
    assert [read[f"doc:{k}"]["features"].split("-")[-2:] if config == "backoff.ini" else
            read[f"doc:{k}"]["features"].split("-")[2:4] for k in range(len(DOCUMENTS))] == \
        [["fem", "sing"], ["masc", "sing"], ["neut", "sing"]]
    assert [read[f"doc:{k}"]["antecedent_translation"] for k in range(len(DOCUMENTS))] == ["Lampe", "Tisch", "Buch"]


def test_translating_an_unknown_pair_is_a_clear_error(german, tmp_path, capsys):
    assert main(["-q", "translate", "--config", str(german / "feature.ini"), "--src", "de", "--tgt", "en",
                 "--input", str(german / "test.en"), "--out", str(tmp_path / "x")]) == 1
    assert "unknown language pair de-en" in capsys.readouterr().err
