"""The situation governors (cad/cm/governors.py): the verbs whose subject *it* the aligned corpus
translates *ça*, counted by domain weight, and the table's decision, file and command."""

import subprocess
import sys

import pytest

from cad.cm.governors import SHIPPED, GovernorCount, SituationGovernors, is_situation, shipped
from cad.core.errors import CadError


def test_a_governor_needs_enough_subjects_and_the_smoothed_share():
    # (k + 1) / (n + 2): 5 / 12 = .417 passes .4, 4 / 12 = .333 does not
    assert is_situation(GovernorCount("works", 10, 4), 10, 0.4)
    assert not is_situation(GovernorCount("breaks", 10, 3), 10, 0.4)
    # nine subjects all ça: too few to say
    assert not is_situation(GovernorCount("smells", 9, 9), 10, 0.4)
    assert is_situation(GovernorCount("smells", 9, 9), 5, 0.4)
    table = SituationGovernors([GovernorCount("works", 10, 4), GovernorCount("breaks", 10, 3)], 10, 0.4)
    assert table.verbs == {"works"} and "Works" in table and "breaks" not in table


def test_the_table_is_written_and_read_back_with_its_settings(tmp_path):
    path = tmp_path / "g.tsv"
    SituationGovernors([GovernorCount("works", 12, 6.5), GovernorCount("has", 30, 2)], 3, 0.3).write(path, "here")
    lines = path.read_text().splitlines()
    assert lines == ["# cad-situation-governors-1 min_subjects=3 share=0.3 source=here", "has\t30\t2", "works\t12\t6.5"]
    back = SituationGovernors.read(path)
    assert (back.min_subjects, back.share, back.verbs) == (3, 0.3, {"works"})
    assert back.counts["works"] == GovernorCount("works", 12, 6.5)


@pytest.mark.parametrize("text, where", [("has\t30\t2\n", ":1:"),
                                         ("# cad-situation-governors-1 min_subjects=3 share=0.3\nhas\t30\n", ":2:"),
                                         ("# cad-situation-governors-1\nhas\t3\t4\n", ":2:"),
                                         ("# cad-situation-governors-1\nhas\t3\t1\nhas\t4\t1\n", ":3:.*line 2"),
                                         ("# cad-situation-governors-1 share=x\n", ":1:")])
def test_a_bad_table_names_its_line(tmp_path, text, where):
    path = tmp_path / "g.tsv"
    path.write_text(text)
    with pytest.raises(CadError, match=f"g.tsv{where}") as err:
        SituationGovernors.read(path)
    assert err.value.path == str(path) and err.value.line == int(where.split(":")[1])


def test_the_shipped_table_is_the_large_corpus_count():
    table = shipped()
    assert SHIPPED.read_text().startswith("# cad-situation-governors-1 min_subjects=10 share=0.4 source=")
    # speech's ça: *ça marche*, *ça fait mal*, *ça veut dire*; a thing's verbs are not
    assert {"works", "work", "hurt", "means", "happened"} <= table.verbs
    assert not {"has", "comes", "wants", "says", "is"} & table.verbs
    assert all(is_situation(table.counts[v], 10, 0.4) for v in table.verbs)


def _corpus(tmp_path):
    rows = [("it works .", "ça marche .", "0-0 1-1 2-2"),                         # talk: ×3
            ("it broke last week .", "il s' est cassé la semaine dernière .", "0-0 1-3 2-6 3-5 4-7"),
            ("we bought a violin .", "nous avons acheté un violon .", "0-0 1-2 2-3 3-4 4-5"),
            ("it works .", "il fonctionne .", "0-0 1-1 2-2"),                     # the news: ×1
            ("I think it works well .", "je crois que ça marche bien .", "0-0 1-1 2-3 3-4 4-5 5-6")]
    for suffix, k in (("en", 0), ("fr", 1)):
        (tmp_path / f"c.{suffix}").write_text("".join(r[k] + "\n" for r in rows))
    (tmp_path / "c.align").write_text("".join(r[2] + "\n" for r in rows))
    (tmp_path / "c.docs").write_text("0\tsated:talk\n3\tnews:paper\n")
    return tmp_path / "c"


def test_every_subject_it_is_counted_by_its_verb_and_its_documents_weight(parser, tmp_path):
    from cad.cm.governors import count_governors

    c = _corpus(tmp_path)
    plain = {g.governor: g for g in count_governors(f"{c}.en", f"{c}.fr", f"{c}.align")}
    assert plain == {"works": GovernorCount("works", 3, 2), "broke": GovernorCount("broke", 1, 0)}
    weighted = {g.governor: g for g in count_governors(f"{c}.en", f"{c}.fr", f"{c}.align", docs=f"{c}.docs",
                                                       domain_weights={"sated": 3.0})}
    assert weighted == {"works": GovernorCount("works", 5, 4), "broke": GovernorCount("broke", 3, 0)}


def _cad(*args):
    return subprocess.run([sys.executable, "-m", "cad", "-q", *args], capture_output=True, text=True)


def test_the_command_counts_a_corpus_and_refuses_bad_input(parser, tmp_path):
    c = _corpus(tmp_path)
    out = tmp_path / "g.tsv"
    r = _cad("cm", "governors", "--corpus", str(c), "--align", f"{c}.align", "--domain-weight", "sated=3",
             "--min-subjects", "4", "--out", str(out))
    assert r.returncode == 0, r.stderr
    table = SituationGovernors.read(out)
    assert table.verbs == {"works"} and table.counts["broke"] == GovernorCount("broke", 3, 0)
    # a line short in the alignment: the file and line named, nothing written
    (tmp_path / "short.align").write_text("0-0 1-1 2-2\n")
    bad = tmp_path / "bad.tsv"
    r = _cad("cm", "governors", "--corpus", str(c), "--align", str(tmp_path / "short.align"), "--out", str(bad))
    assert r.returncode != 0 and "short.align" in r.stderr and not bad.exists()
    for extra, message in ((["--src", "es", "--tgt", "en"], "--src es"), (["--share", "0"], "--share"),
                           (["--min-subjects", "0"], "--min-subjects"), (["--domain-weight", "sated"], "PREFIX=W")):
        r = _cad("cm", "governors", "--corpus", str(c), "--align", f"{c}.align", "--out", str(bad), *extra)
        assert r.returncode != 0 and message in r.stderr and not bad.exists(), (extra, r.stderr)
