"""Seed 002: WMT judgments, Kendall's tau, the shallow trees and their REL marker, the preference
kernel and the learned tree-kernel metric."""

import gzip

import numpy as np
import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.eval.correlation import kendall_tau
from cad.eval.rank.judgments import Judgment, read_judgments
from cad.eval.rank.syntax import mark_relations
from cad.eval.rank.tree import Tree


def test_tree_text_round_trip_and_errors():
    text = "(ROOT (S (NP (DT the) (NN cat)) (O (-LRB- -LRB-))))"
    assert str(Tree.parse(text)) == text
    assert Tree("(").label == "(" and str(Tree("NN", [Tree("a b")])) == "(NN a_b)"
    for bad in ("(S (NP the)", "(S) x", "()", ""):
        with pytest.raises(CadError):
            Tree.parse(bad)


def test_kendall_tau_by_hand():
    j = [Judgment(1, "A", "B", "a"), Judgment(1, "A", "C", "b"), Judgment(1, "B", "C", "tie"),
         Judgment(2, "A", "B", "b"), Judgment(2, "A", "C", "a"), Judgment(2, "A", "C", "a")]
    scores = {(1, "A"): 0.5, (1, "B"): 0.2, (1, "C"): 0.9, (2, "A"): 0.4, (2, "B"): 0.4, (2, "C"): 0.1}
    r = kendall_tau(j, lambda s, x: scores[(s, x)])
    # seg 1: A>B concordant, C>A concordant, B~C human tie left out; seg 2: A=B metric tie,
    # discordant under WMT12; A>C twice (repeats count), concordant: C=4, D=1 -> tau .6
    assert (r.concordant, r.discordant, r.metric_ties, r.human_ties) == (4, 1, 1, 1)
    assert r.tau == pytest.approx(0.6)
    r = kendall_tau(j, lambda s, x: scores[(s, x)], "ties-excluded")
    assert (r.concordant, r.discordant) == (4, 0) and r.tau == 1.0


def test_judgments_reader_and_correlation_cli(tmp_path, capsys):
    (tmp_path / "j.tsv").write_text("1\tA\tB\ta\n1\tA\tC\tb\n2\tA\tB\tb\n")
    (tmp_path / "s.tsv").write_text("1\tA\t0.5\n1\tB\t0.2\n1\tC\t0.9\n2\tA\t0.3\n2\tB\t0.1\n")
    assert main(["eval", "correlation", "--judgments", str(tmp_path / "j.tsv"), "--scores", str(tmp_path / "s.tsv")]) == 0
    out = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert out["concordant"] == "2" and out["discordant"] == "1" and out["tau"] == "0.3333"
    (tmp_path / "bad.tsv").write_text("1\tA\tB\ta\n1\tA\tB\twon\n")
    with pytest.raises(CadError, match=r"bad.tsv:2: winner 'won'"):
        read_judgments(tmp_path / "bad.tsv")
    (tmp_path / "short.tsv").write_text("1\tA\t0.5\n")
    assert main(["eval", "correlation", "--judgments", str(tmp_path / "j.tsv"), "--scores",
                 str(tmp_path / "short.tsv")]) == 1
    assert "no score for B on segment 1" in capsys.readouterr().err


def test_rel_marker_follows_seed_002s_figure():
    # Figure 1 of seed 002 (its syntactic part): hypothesis "not to give them the time to think ."
    hyp = Tree.parse("(S (VP (RB not) (TO to) (VB give)) (NP (PRP them)) (NP (DT the) (NN time)) "
                     "(VP (TO to) (VB think)) (O (. .)))")
    ref = Tree.parse("(S (VP (TO to) (VB give)) (NP (PRP them)) (NP (DT no) (NN time)) (VP (TO to) (VB think)) "
                     "(O (. .)))")
    marked = mark_relations(hyp, ref.leaves())
    # a pre-terminal is linked when its word is anywhere in the reference; a chunk when all its
    # children are: "not" and "the" are not, so neither are their chunks, nor the sentence
    assert str(marked) == ("(S (VP (RB not) (TO-REL to) (VB-REL give)) (NP-REL (PRP-REL them)) "
                           "(NP (DT the) (NN-REL time)) (VP-REL (TO-REL to) (VB-REL think)) (O-REL (.-REL .)))")
    assert str(mark_relations(ref, ref.leaves())).startswith("(S-REL (VP-REL")
    assert str(hyp).startswith("(S (VP (RB not)")          # the input is left alone


def test_shallow_tree_of_a_parsed_sentence():
    pytest.importorskip("en_core_web_sm", reason="spaCy's English model is not installed (make install)")
    from cad.eval.rank.syntax import load_parser, parse_texts, syntax_only

    nlp = load_parser()
    tree, clauses, empty, escaped = parse_texts(nlp, ["The cat has not eaten the fish.",
                                                      "If it rains, we stay home but they leave.", "",
                                                      "It&#39;s here."])
    # ROOT > S > clause > chunks > PTB tags > lowercased words; the verb group with its negation is one VP
    assert str(syntax_only(tree)) == ("(ROOT (S (NP (DT the) (NN cat)) (VP (VBZ has) (RB not) (VBN eaten)) "
                                      "(NP (DT the) (NN fish)) (O (. .))))")
    assert str(tree).startswith("(ROOT (S (EDU:NUCLEUS (NP (DT the) (NN cat))")
    # one unit per clause, named by its connective; "but" opens the conjunct it precedes, and
    # punctuation closes the clause before it
    assert [(c.label, c.leaves()) for c in clauses.children[0].children] == [
        ("EDU:CONDITION", ["if", "it", "rains", ","]), ("EDU:NUCLEUS", ["we", "stay", "home"]),
        ("EDU:CONTRAST", ["but", "they", "leave", "."])]
    assert str(empty) == "(ROOT S)"            # an empty output still has a tree for the kernels
    assert "'s" in escaped.leaves()                       # HTML references are unescaped first


TREES = ["(S (NP (DT the) (NN cat)) (VP (VBZ sleeps)))", "(S (NP (DT a) (NN cat)) (VP (VBD slept)))",
         "(S (NP (NN cats)) (VP (VBP sleep)) (O (. .)))", "(S (VP (VB sleep)) (NP (DT the) (NN cat)))"]


def _pairs():
    from cad.eval.rank.objects import make_pair

    trees = [Tree.parse(t) for t in TREES]
    ref = trees[0]
    return [make_pair(t, ref) for t in trees]


def test_preference_kernel_symmetry_and_its_nystrom_feature_map():
    from cad.eval.rank.metric import KernelSpec, Nystrom, pair_gram, preference_kernel

    spec = KernelSpec("ptk", 0.4, 0.4)
    pairs = _pairs()
    k = pair_gram(pairs, pairs, spec)
    a, b = (1, 2), (3, 0)
    # Eq. 1 by its terms, symmetric between the two pairs, and antisymmetric within a pair
    assert preference_kernel(k, a, b) == pytest.approx(k[1, 3] + k[2, 0] - k[1, 0] - k[2, 3])
    assert preference_kernel(k, a, b) == pytest.approx(preference_kernel(k, b, a))
    assert preference_kernel(k, (2, 1), b) == pytest.approx(-preference_kernel(k, a, b))
    # the object kernel sums the hypothesis and reference parts, each normalized: K(x, x) = 2
    assert np.diag(k) == pytest.approx([2, 2, 2, 2])
    # with every object a landmark, Nyström is exact: PK is the dot product of feature differences
    phi = Nystrom.fit(pairs, spec, rel_tol=1e-12).transform(pairs, spec)
    assert phi @ phi.T == pytest.approx(k, abs=1e-8)
    assert (phi[1] - phi[2]) @ (phi[3] - phi[0]) == pytest.approx(preference_kernel(k, a, b), abs=1e-8)


def test_pairwise_ranker_recovers_a_preference():
    from cad.eval.rank.metric import train_ranker

    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 3))
    true = np.array([2.0, -1.0, 0.0])
    i, j = rng.integers(0, 200, 400), rng.integers(0, 200, 400)
    keep = i != j
    i, j = i[keep], j[keep]
    win = np.where(x[i] @ true > x[j] @ true, i, j)
    lose = np.where(win == i, j, i)
    w, scale = train_ranker(x, win, lose, c=10.0)
    s = (x / scale) @ w
    assert np.mean(s[win] > s[lose]) > 0.95
    assert w[0] > 0 > w[1] and abs(w[2]) < abs(w[1])


def _mini_wmt(folder, n=40):
    """A judged test set where the reference-like output beats the one missing a word, which beats
    the scrambled one."""
    nouns = ["cat", "dog", "minister", "court", "bank", "farmer", "city", "report", "child", "team"]
    verbs = ["sees", "likes", "visits", "helps", "follows", "answers", "ignores", "calls"]
    refs, outs, judg = [], [], []
    for s in range(1, n + 1):
        a, b, v = nouns[s % 10], nouns[(3 * s + 1) % 10], verbs[s % 8]
        ref = f"The {a} {v} the old {b} every day."
        refs.append(ref)
        texts = {"good": f"The {a} {v} the old {b} each day.", "mid": f"The {a} {v} {b} every day.",
                 "bad": f"day {b} every the {v} old {a} the."}
        outs += [f"{s}\t{sys}\t{t}" for sys, t in sorted(texts.items())]
        judg += [f"{s}\tbad\tgood\tb", f"{s}\tbad\tmid\tb", f"{s}\tgood\tmid\ta"]
    folder.mkdir()
    (folder / "ref.xx-en.txt").write_text("\n".join(refs) + "\n")
    with gzip.open(folder / "outputs.xx-en.tsv.gz", "wt") as fh:
        fh.write("\n".join(outs) + "\n")
    with gzip.open(folder / "judgments.xx-en.tsv.gz", "wt") as fh:
        fh.write("\n".join(judg) + "\n")
    return refs


def test_rank_cv_train_and_score_end_to_end(tmp_path, capsys):
    pytest.importorskip("en_core_web_sm", reason="spaCy's English model is not installed (make install)")
    import json

    data = tmp_path / "wmt"
    refs = _mini_wmt(data)
    common = ["--data", str(data), "--landmarks", "8", "--cache", str(tmp_path / "trees.tsv.gz")]
    assert main(["-q", "eval", "rank", "cv"] + common + ["--folds", "3", "--out", str(tmp_path / "cv")]) == 0
    rep = json.loads((tmp_path / "cv.json").read_text())
    # segments 10, 20, 30, 40 hold the landmarks and are never scored: 36 segments x 3 judgments
    assert rep["reserved_segments"] == 4 and rep["scored_segments"] == 36
    counts = rep["counts"]["SYN learned"]["xx-en"]
    assert counts["concordant"] + counts["discordant"] == 108
    assert rep["tau"]["SYN learned"]["xx-en"] > 0.5 and rep["tau"]["sentBLEU"]["xx-en"] > 0.5
    assert rep["tau"]["SYN+CLS learned + BLEU + chrF"]["xx-en"] > 0.5
    assert "| SYN similarity |" in (tmp_path / "cv.md").read_text()
    # the parse cache was written; a second run reads it and the kernel features kept in OUT.work
    assert gzip.open(tmp_path / "trees.tsv.gz", "rt").read().count("\n") == 3 * 40 + 40
    assert "SYN tree-kernel features" in rep["seconds"]
    assert main(["-q", "eval", "rank", "cv"] + common + ["--folds", "3", "--out", str(tmp_path / "cv")]) == 0
    again = json.loads((tmp_path / "cv.json").read_text())
    assert "SYN tree-kernel features" not in again["seconds"] and again["tau"] == rep["tau"]

    assert main(["-q", "eval", "rank", "train"] + common + ["--out", str(tmp_path / "m.json")]) == 0
    (tmp_path / "hyp").write_text(f"{refs[0]}\nevery {refs[0].lower()} the\n")
    (tmp_path / "ref").write_text(f"{refs[0]}\n{refs[0]}\n")
    capsys.readouterr()
    assert main(["eval", "rank", "score", "--model", str(tmp_path / "m.json"), "--hypothesis",
                 str(tmp_path / "hyp"), "--reference", str(tmp_path / "ref")]) == 0
    out = capsys.readouterr()
    good, bad = (float(x) for x in out.out.split())
    assert good > bad and "tree-rank|SYN|ptk|lambda:0.4|mu:0.4|landmarks:8|extra:sentbleu+chrf" in out.err
    (tmp_path / "ref").write_text(f"{refs[0]}\n")
    assert main(["eval", "rank", "score", "--model", str(tmp_path / "m.json"), "--hypothesis",
                 str(tmp_path / "hyp"), "--reference", str(tmp_path / "ref")]) == 1
    assert "2 hypotheses but 1 references" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text('{"format": "cad-tree-rank-1", "kernel": {}}\n')
    assert main(["eval", "rank", "score", "--model", str(tmp_path / "bad.json"), "--hypothesis",
                 str(tmp_path / "hyp"), "--reference", str(tmp_path / "hyp")]) == 1
    assert "bad.json: a damaged model (KeyError" in capsys.readouterr().err


def test_bootstrap_tau_by_hand():
    from cad.eval.significance import bootstrap_tau

    # two pairs, three segments: (concordant, discordant) per segment
    a = [[[3, 2, 1], [0, 1, 1]], [[2, 2, 2], [1, 0, 1]]]     # tau 6-2/8 = .5 and 6-2/8 = .5
    b = [[[2, 1, 1], [1, 2, 1]], [[1, 2, 1], [2, 0, 2]]]     # tau 4-4/8 = 0 and 4-4/8 = 0
    r = bootstrap_tau(a, b, resamples=500, seed=2)
    assert r.delta == pytest.approx(0.5)
    assert r.low <= r.delta <= r.high and r.p_value < 0.05
    same = bootstrap_tau(a, a, resamples=100)
    assert (same.delta, same.low, same.high, same.p_value) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError):
        bootstrap_tau(a, [[[1, 2]]])
