import json
import random

import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.eval.bleu import bleu_chrf
from cad.eval.correlation import correlations_from_tsv, pearson, spearman
from cad.eval.pronoun_pr import pronoun_prf
from cad.eval.significance import mcnemar

from conftest import write


def test_pronoun_precision_recall_by_hand(tmp_path):
    src = write(tmp_path / "s", "it is here and it is there .\nthey come .\n")
    ref = write(tmp_path / "r", "il est ici et il est là .\nils viennent .\n")
    cand = write(tmp_path / "c", "il est ici et elle est là .\nelles ils viennent .\n")
    aref = write(tmp_path / "ar", "0-0 1-1 2-2 3-3 4-4 5-5 6-6 7-7\n0-0 1-1 2-2\n")
    acand = write(tmp_path / "ac", "0-0 1-1 2-2 3-3 4-4 5-5 6-6 7-7\n0-0 0-1 1-2 2-3\n")
    res = pronoun_prf(src, ref, cand, aref, acand)
    # it: C = {il, elle}, R = {il, il}: clipped 1 -> P 1/2, R 1/2
    assert (res["it"].clipped, res["it"].candidate, res["it"].reference) == (1, 2, 2)
    # they: C = {elles, ils}, R = {ils}: clipped 1 -> P 1/2, R 1
    assert (res["they"].precision, res["they"].recall) == (0.5, 1.0)
    assert (res["all"].clipped, res["all"].candidate, res["all"].reference) == (2, 4, 3)
    assert res["all"].f == pytest.approx(2 * (0.5 * 2 / 3) / (0.5 + 2 / 3))
    assert all(res["all"].__dict__[k] == res["it"].__dict__[k] + res["they"].__dict__[k]
               for k in ("clipped", "candidate", "reference"))                 # the total sums the lines


def test_pronoun_counts_clip_per_occurrence_as_the_discomt_scorer(tmp_path, caplog):
    # two *it* whose translations are swapped between the sentences of one document
    src = write(tmp_path / "s", "It sleeps .\nthen it runs .\nIT is .\n")
    ref = write(tmp_path / "r", "il dort .\npuis elle court .\nc' est .\n")
    cand = write(tmp_path / "c", "elle dort .\npuis Il court .\nc' est .\n")
    al = write(tmp_path / "a", "0-0 1-1 2-2\n0-0 1-1 2-2 3-3\n0-0 1-1 2-2\n")
    occ = pronoun_prf(src, ref, cand, al, al)
    # It and it are scored, IT is not; Il never matches il (words compared as written)
    assert (occ["it"].clipped, occ["it"].candidate, occ["it"].reference) == (0, 2, 2)
    docs = write(tmp_path / "d", "0\n")                       # the scorer's format: start lines only
    per_doc = pronoun_prf(src, ref, cand, al, al, docs=docs, clip="document")
    # cad's earlier count: everything lowercased (IT too: c' = c'), clipped per pronoun and document
    assert (per_doc["it"].clipped, per_doc["it"].candidate) == (3, 3)
    # they has no aligned candidate word anywhere: left out of the total, as the scorer does
    assert occ["they"].reference == 0 and occ["all"].reference == 2
    src2 = write(tmp_path / "s2", "they come .\nit goes .\n")
    ref2 = write(tmp_path / "r2", "ils viennent .\nil va .\n")
    cand2 = write(tmp_path / "c2", "viennent .\nil va .\n")
    a_ref2 = write(tmp_path / "ar2", "0-0 1-1 2-2\n0-0 1-1 2-2\n")
    # the candidate alignment: a trailing empty line and a point beyond the sentence are accepted
    a_cand2 = write(tmp_path / "ac2", "1-0 2-1 7-9\n0-0 1-1 2-2\n\n")
    per = {}
    with caplog.at_level("WARNING"):
        res = pronoun_prf(src2, ref2, cand2, a_ref2, a_cand2, docs=write(tmp_path / "d2", "0\n1\n"), per_document=per)
    assert "1 alignment point(s) beyond their sentence ignored" in caplog.text
    assert (res["they"].candidate, res["they"].reference) == (0, 1)
    assert (res["all"].clipped, res["all"].candidate, res["all"].reference) == (1, 1, 1)
    assert (per[0]["they"].reference, per[1]["it"].clipped) == (1, 1)
    with pytest.raises(CadError, match="has 3 lines but the source"):       # only alignments may trail
        pronoun_prf(src2, ref2, write(tmp_path / "c3", "x\n\n\n"), a_ref2, a_cand2)


def test_pronouns_cli_per_document(tmp_path, capsys):
    src = write(tmp_path / "s", "it sleeps .\nit runs .\n")
    ref = write(tmp_path / "r", "il dort .\nelle court .\n")
    al = write(tmp_path / "a", "0-0 1-1 2-2\n0-0 1-1 2-2\n")
    assert main(["eval", "pronouns", "--source", str(src), "--reference", str(ref), "--candidate", str(ref),
                 "--align-ref", str(al), "--align-cand", str(al), "--docs", str(write(tmp_path / "d", "0 talk\n1\n")),
                 "--per-document"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["document\tit recall\tthey recall", "0\t1/1\t-/-", "1\t1/1\t-/-"]
    assert out[-3].startswith("all\t1.0000\t1.0000")


def test_mcnemar_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(3)
    for n, p in ((30, 0.5), (200, 0.6), (500, 0.3)):
        a = [rng.random() < p for _ in range(n)]
        b = [x if rng.random() < 0.8 else not x for x in a]
        r = mcnemar(a, b)
        k = r.b + r.c
        if r.exact:
            assert r.p_value == pytest.approx(stats.binomtest(r.b, k, 0.5).pvalue)
        else:
            assert r.p_value == pytest.approx(stats.chi2.sf((abs(r.b - r.c) - 1) ** 2 / k, 1))
        forced = mcnemar(a, b, exact=True)
        assert forced.p_value == pytest.approx(stats.binomtest(r.b, k, 0.5).pvalue)
    assert mcnemar([True, False], [True, False]).p_value == 1.0


def test_correlations_against_scipy(tmp_path):
    stats = pytest.importorskip("scipy.stats")
    x = [0.41, 0.40, 0.45, 0.38, 0.45, 0.30, 0.50]
    h = [0.52, 0.50, 0.58, 0.49, 0.55, 0.40, 0.61]
    assert pearson(x, h) == pytest.approx(stats.pearsonr(x, h)[0])
    assert spearman(x, h) == pytest.approx(stats.spearmanr(x, h)[0])
    tsv = write(tmp_path / "m.tsv", "system\tAPT\tBLEU\thuman\n" + "".join(
        f"s{i}\t{a}\t{30 + i}\t{b}\n" for i, (a, b) in enumerate(zip(x, h))))
    res = correlations_from_tsv(tsv)
    assert res["APT"]["pearson"] == pytest.approx(stats.pearsonr(x, h)[0])
    write(tmp_path / "bad.tsv", "system\tAPT\thuman\na\t0.1\nb\t0.2\t0.3\n")
    with pytest.raises(CadError, match="2 columns") as err:
        correlations_from_tsv(tmp_path / "bad.tsv")
    assert err.value.line == 2


def test_bleu_matches_sacrebleu_and_checks_lengths(tmp_path):
    import sacrebleu

    hyp = ["le chat est noir .", "il dort ."]
    ref = ["le chat est noir .", "elle dort bien ."]
    h, r = write(tmp_path / "h", "\n".join(hyp) + "\n"), write(tmp_path / "r", "\n".join(ref) + "\n")
    res = bleu_chrf(h, r)
    assert res["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyp, [ref]).score)
    assert res["bleu_signature"].startswith("nrefs:1|case:mixed|eff:no|tok:13a")
    write(tmp_path / "h2", "one line\n")
    with pytest.raises(CadError, match="lines but the reference"):
        bleu_chrf(tmp_path / "h2", r)


def test_bleu_with_several_references_prints_sacrebleus_line(tmp_path, capsys):
    import sacrebleu

    from cad.cli import main

    hyp = ["le chat est noir .", "il dort ."]
    refs = [["le chat est noir .", "elle dort bien ."], ["un chat noir .", "il dort ."]]
    h = write(tmp_path / "h", "\n".join(hyp) + "\n")
    r = [write(tmp_path / f"r{k}", "\n".join(x) + "\n") for k, x in enumerate(refs)]
    res = bleu_chrf(h, r)
    expected = sacrebleu.corpus_bleu(hyp, refs)
    assert res["bleu"] == pytest.approx(expected.score) and res["bleu"] > bleu_chrf(h, r[0])["bleu"]
    assert res["bleu_precisions"] == pytest.approx(expected.precisions) and res["bleu_bp"] == expected.bp
    assert res["chrf"] == pytest.approx(sacrebleu.corpus_chrf(hyp, refs).score)
    assert main(["eval", "bleu", "--candidate", str(h), "--reference", str(r[0]), "--reference", str(r[1])]) == 0
    bleu_line, chrf_line = capsys.readouterr().out.splitlines()
    assert bleu_line == f"BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:{sacrebleu.__version__} = " \
        f"{expected.score:.2f} " + "/".join(f"{p:.1f}" for p in expected.precisions) + \
        f" (BP = {expected.bp:.3f} ratio = {expected.ratio:.3f} hyp_len = {expected.sys_len} ref_len = {expected.ref_len})"
    assert chrf_line.startswith("chrF2|nrefs:2|")


def test_report_on_dev_talks_reference_vs_swapped(shared_data, tmp_path, capsys):
    d = shared_data / "en-fr"
    swap = {"il": "elle", "elle": "il", "ils": "elles", "elles": "ils"}
    lines = (d / "dev.fr").read_text(encoding="utf-8").splitlines()
    write(tmp_path / "swapped.fr", "\n".join(" ".join(swap.get(w, w) for w in l.split(" ")) for l in lines) + "\n")
    al = d / "dev.en-fr.alig"
    assert main(["-q", "eval", "report", "--source", str(d / "dev.en"), "--reference", str(d / "dev.fr"),
                 "--align-ref", str(al), "--docs", str(d / "dev.docs"), "--out", str(tmp_path / "rep"),
                 "--system", f"reference={d / 'dev.fr'}:{al}",
                 "--system", f"swapped={tmp_path / 'swapped.fr'}:{al}"]) == 0
    rep = json.loads((tmp_path / "rep.json").read_text())
    ref, sw = rep["systems"]
    assert ref["apt"] == 1.0 and ref["bleu"] == pytest.approx(100.0)
    assert sw["cases"]["C3"] > 100 and sw["apt"] < 0.8
    assert sw["mcnemar_vs_reference"]["C1"] < 1e-6
    assert (tmp_path / "rep.png").read_bytes()[:4] == b"\x89PNG"
    assert "| swapped |" in (tmp_path / "rep.md").read_text()


def test_eval_apt_flags_and_errors(tmp_path, capsys):
    src = write(tmp_path / "s", "it is big .\n")
    ref = write(tmp_path / "r", "il est grand .\n")
    al = write(tmp_path / "a", "0-0 1-1 2-2 3-3\n")
    assert main(["eval", "apt", "--source", str(src), "--reference", str(ref), "--candidate", str(ref),
                 "--align-ref", str(al), "--align-cand", str(al), "--out", str(tmp_path / "o")]) == 0
    assert capsys.readouterr().out.startswith("Score: 1.0000")
    assert (tmp_path / "o.detail").exists()
    assert main(["eval", "apt", "--source", str(src)]) == 1
    assert "--reference" in capsys.readouterr().err
    write(tmp_path / "o.detail", "bad\n1\t2\n")
    assert main(["eval", "mcnemar", str(tmp_path / "o.detail"), str(tmp_path / "o.detail")]) == 1
    assert "o.detail:2" in capsys.readouterr().err


def test_report_scores_case_unless_told_to_lowercase(tmp_path):
    from cad.eval.report import System, build_report

    src = write(tmp_path / "s", "It is big .\nThey sleep .\n")
    ref = write(tmp_path / "r", "Il est grand .\nIls dorment .\n")
    low = write(tmp_path / "c", "il est grand .\nils dorment .\n")
    al = write(tmp_path / "a", "0-0 1-1 2-2 3-3\n0-0 1-1 2-2\n")
    cased = build_report(str(src), str(ref), str(al), [System("low", str(low), str(al))])["systems"][0]
    lower = build_report(str(src), str(ref), str(al), [System("low", str(low), str(al))],
                         lowercase=True)["systems"][0]
    assert lower["bleu"] == pytest.approx(100.0) and cased["bleu"] < 60
    assert "case:mixed" in cased["bleu_signature"] and "case:lc" in lower["bleu_signature"]


def test_pronoun_counts_equal_the_discomt_scorers_on_its_example(capsys):
    """`cad eval pronouns` on the DiscoMT scorer's own example (../shared/data/pronoun-pr: 131 WMT
    news documents, an MT output and both alignments) prints the counts that scorer
    (discomt.eval.PronounEvaluation, eval.sh) printed on it, count for count."""
    from conftest import SHARED

    d = SHARED / "pronoun-pr"
    names = ("mt-output.en", "pronoun-test.tok.fr", "mt-output.fr", "pronoun-test.tok.en-fr.alig",
             "mt-output.en-fr.alig", "doc-boundaries")
    if not all((d / n).exists() for n in names):
        pytest.skip(f"the DiscoMT scorer's example is not at {d} (set CAD_SHARED_DATA to the shared data)")
    src, ref, cand, aref, acand, docs = (str(d / n) for n in names)
    assert main(["eval", "pronouns", "--source", src, "--reference", ref, "--candidate", cand,
                 "--align-ref", aref, "--align-cand", acand, "--docs", docs]) in (0, None)
    rows = {f[0]: tuple(int(x) for x in f[4:7])
            for f in (line.split("\t") for line in capsys.readouterr().out.splitlines()[1:])}
    # (clipped, candidate words, reference words): precision clipped/candidate, recall clipped/reference
    assert rows == {"it": (410, 1379, 1319), "they": (216, 582, 509), "all": (626, 1961, 1828)}
    res = pronoun_prf(src, ref, cand, aref, acand, docs=docs)
    assert round(res["all"].f, 4) == 0.3304 and round(res["they"].f, 4) == 0.3960   # the scorer's F1
