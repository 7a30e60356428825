import json

import pytest

from cad.cli import main
from cad.core.errors import CadError
from coref.backends import get_backend

from conftest import write

spacy = pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def sieve():
    from coref.english.sieve import SieveResolver

    return SieveResolver()


def toks(text: str) -> list[list[str]]:
    return [s.split() for s in text.strip().split("\n")]


def test_sieve_rejects_gender_incompatible_antecedents(sieve):
    doc = toks("My cat brought home a mouse that he hunted , and it was not dead .\n"
               "Mary bought a car .\nShe likes it a lot .")
    recs = sieve.resolve("d", doc)
    it1 = next(r for r in recs if (r.sentence, r.index) == (0, 11))
    assert it1.referential and it1.candidates
    assert all(c.text.lower() != "he" for c in it1.candidates)           # masculine pronoun
    assert abs(sum(c.probability for c in it1.candidates) - 1) < 1e-9
    it2 = next(r for r in recs if r.sentence == 2)
    assert it2.best.text == "a car"                                       # not Mary, not She
    assert all(c.text not in ("Mary", "She") for c in it2.candidates)


def test_sieve_marks_pleonastic_it(sieve):
    recs = sieve.resolve("d", toks("The farmers looked at the sky .\nIt is raining .\n"
                                    "It is important that we stay inside .\nIt turns out they were right ."))
    by = {(r.sentence, r.index): r for r in recs}
    for key in ((1, 0), (2, 0), (3, 0)):
        assert not by[key].referential and by[key].candidates == []
    they = by[(3, 3)]
    assert they.best.text == "The farmers" and they.best.number == "plur"


def test_sieve_probability_list_rule(sieve):
    recs = sieve.resolve("d", toks("The boxes and the bottles are on the table .\nThey are heavy ."))
    they = recs[0]
    assert len(they.candidates) >= 2
    assert abs(sum(c.probability for c in they.candidates) - 1) < 1e-9
    best = they.candidates[0].probability
    assert all(c.probability >= 0.01 * best for c in they.candidates[2:])
    assert they.best.text == "The boxes and the bottles"


def test_coref_cli_writes_jsonl(tmp_path, capsys):
    write(tmp_path / "in.txt", "The machine broke .\nIt is old .\n")
    assert main(["-q", "coref", "--backend", "sieve", "--input", str(tmp_path / "in.txt"),
                 "--out", str(tmp_path / "out.jsonl")]) == 0
    rec = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[0])
    assert (rec["sentence"], rec["index"], rec["token"]) == (1, 0, "It")
    assert rec["candidates"][0]["text"] == "The machine" and rec["candidates"][0]["number"] == "sing"
    write(tmp_path / "bad.txt", "one\n\nthree\n")
    assert main(["coref", "--input", str(tmp_path / "bad.txt"), "--out", str(tmp_path / "o.jsonl")]) == 1
    assert "bad.txt:2" in capsys.readouterr().err


def test_stanza_and_gold_backends_report_clearly(tmp_path):
    try:
        import stanza  # noqa: F401
    except ImportError:
        with pytest.raises(CadError, match="optional extra"):
            get_backend("stanza")
    with pytest.raises(CadError, match="needs --gold"):
        get_backend("gold")
    with pytest.raises(CadError, match="unknown backend"):
        get_backend("magic")


def test_sieve_on_ted_dev_talks_reaches_target(shared_data, capsys):
    d = shared_data
    assert main(["-q", "coref-eval", "--backend", "sieve", "--gold", str(d / "coref/parcorfull/corpus/TED/EN"),
                 "--input", str(d / "en-fr/dev.en"), "--docs", str(d / "en-fr/dev.docs")]) == 0
    out = dict(line.split("\t") for line in capsys.readouterr().out.strip().splitlines())
    assert int(out["pronouns"]) > 700
    assert float(out["antecedent accuracy"].split()[0]) >= 0.65


def test_coreferee_backend_when_a_model_is_installed():
    from coref.english.train_coreferee import installed

    if not installed():
        pytest.skip("no coreferee model installed (make coref-model)")
    res = get_backend("coreferee")
    recs = res.resolve("d", toks("My cat brought home a mouse .\nIt was not dead ."))
    it = recs[0]
    assert it.referential and abs(sum(c.probability for c in it.candidates) - 1) < 1e-9
