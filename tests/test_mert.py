import math
import random

import pytest

from cad.tune.mert import Candidate, _envelope, bleu, bleu_stats, corpus_bleu_at, line_search, optimize


def test_bleu_stats_and_score_match_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    hyp = "le chat est sur le tapis".split()
    ref = "le chat est sur un tapis".split()
    s = bleu_stats(hyp, ref)
    assert s[:4] == (5, 3, 2, 1) and s[4:8] == (6, 5, 4, 3) and s[8:] == (6, 6)
    ours = bleu(s) * 100
    theirs = sacrebleu.corpus_bleu([" ".join(hyp)], [[" ".join(ref)]], tokenize="none", smooth_method="none").score
    assert ours == pytest.approx(theirs, abs=1e-6)


def test_upper_envelope_by_hand():
    # y = 0x + 1, y = x + 0, y = -x + 0: left line -x wins until -1, then the flat one until 1, then x
    env = _envelope([(0.0, 1.0, 0), (1.0, 0.0, 1), (-1.0, 0.0, 2)])
    assert env == [(-math.inf, 2), (-1.0, 0), (1.0, 1)]


def test_line_search_finds_the_best_step_exactly():
    rng = random.Random(5)
    refs = [[rng.choice("abcdef") for _ in range(8)] for _ in range(15)]
    nbest = []
    for r in refs:
        cands = []
        for _ in range(6):
            hyp = [w if rng.random() < 0.7 else rng.choice("abcdef") for w in r]
            cands.append(Candidate([rng.uniform(-1, 1) for _ in range(3)], bleu_stats(hyp, r)))
        nbest.append(cands)
    w = [0.3, -0.2, 0.5]
    d = [1.0, 0.0, 0.0]
    gamma, best = line_search(nbest, w, d)
    assert corpus_bleu_at(nbest, [w[0] + gamma, w[1], w[2]]) == pytest.approx(best)
    grid = max(corpus_bleu_at(nbest, [w[0] + g / 20, w[1], w[2]]) for g in range(-400, 401))
    assert best >= grid - 1e-12
    tuned, score = optimize(nbest, w)
    assert score >= corpus_bleu_at(nbest, w) and score == pytest.approx(corpus_bleu_at(nbest, tuned))
    assert sum(abs(x) for x in tuned) == pytest.approx(1.0)


def _reachable_task(tmp_path, n_sentences: int):
    """A random model's sentences (tmp_path/src) and, as references (tmp_path/ref), its own
    translations under other weights: a weighting that scores better exists."""
    from cad.decoder import Decoder, DecoderModel
    from cad.decoder.model import SearchSettings, apply_weight_overwrite
    from cad.moses.ini import parse_config
    from decoder_fixtures import random_model

    ini, sents = random_model(tmp_path, 41, n_sentences=n_sentences)
    cfg = parse_config(ini)
    apply_weight_overwrite(cfg, "LM0= 0.05 WordPenalty0= 0.5 Distortion0= 0.0")
    target = Decoder(DecoderModel.from_config(cfg, None, SearchSettings()))
    refs = [target.translate(s).text for s in sents]
    (tmp_path / "src").write_text("\n".join(sents) + "\n")
    (tmp_path / "ref").write_text("\n".join(refs) + "\n")
    return ini, sents, refs


def test_mert_driver_improves_bleu_on_a_small_model(tmp_path):
    from cad.cli import main
    from cad.moses.ini import parse_config

    from cad.decoder import Decoder, DecoderModel

    ini, sents, refs = _reachable_task(tmp_path, 12)
    def corpus(dec):
        total = [0] * 10
        for s, r in zip(sents, refs):
            for k, v in enumerate(bleu_stats(dec.translate(s).best.words, r.split())):
                total[k] += v
        return bleu(total)

    b0 = corpus(Decoder(DecoderModel.load(ini)))
    assert main(["-q", "tune", "mert", "--config", str(ini), "--source", str(tmp_path / "src"), "--reference",
                 str(tmp_path / "ref"), "--out", str(tmp_path / "tuned.ini"), "--nbest", "50", "--iterations", "6"]) == 0
    b1 = corpus(Decoder(DecoderModel.load(tmp_path / "tuned.ini")))
    assert b1 > b0
    # as in Moses, UnknownWordPenalty is not tuned: it keeps its weight, the others sum to 1 in |.|
    tuned = parse_config(tmp_path / "tuned.ini").weights
    assert tuned["UnknownWordPenalty0"] == [1.0]
    assert sum(abs(x) for k, v in tuned.items() if k != "UnknownWordPenalty0" for x in v) == pytest.approx(1, abs=1e-5)


def test_mert_returns_the_iteration_with_the_best_decoded_bleu(tmp_path):
    # mert-moses.pl --return-best-dev: the written weights are those whose 1-best scored best,
    # and decoding with the written moses.ini reproduces that BLEU
    from cad.decoder import Decoder, DecoderModel
    from cad.tune.run import mert
    from decoder_fixtures import random_model

    ini, sents = random_model(tmp_path, 43)
    refs = [s.replace("a", "u").replace("b", "v") for s in sents]   # unrelated references: a hard task
    (tmp_path / "src").write_text("\n".join(sents) + "\n")
    (tmp_path / "ref").write_text("\n".join(refs) + "\n")
    res = mert(str(ini), str(tmp_path / "src"), str(tmp_path / "ref"), str(tmp_path / "t.ini"), nbest=20,
               iterations=4, search_algorithm=0, restarts=3)
    assert 1 <= len(res.history) <= 4
    assert res.bleu == max(b for _, b in res.history)
    assert res.bleu >= res.history[0][1]
    dec = Decoder(DecoderModel.load(tmp_path / "t.ini"))
    total = [0] * 10
    for s, r in zip(sents, refs):
        for k, v in enumerate(bleu_stats(dec.translate(s).best.words, r.split())):
            total[k] += v
    assert bleu(total) == pytest.approx(res.bleu, abs=1e-9)


def test_random_restarts_never_end_below_the_plain_ascent():
    rng = random.Random(9)
    refs = [[rng.choice("abcdef") for _ in range(8)] for _ in range(20)]
    nbest = [[Candidate([rng.uniform(-1, 1) for _ in range(4)],
                        bleu_stats([w if rng.random() < 0.6 else rng.choice("abcdef") for w in r], r))
              for _ in range(8)] for r in refs]
    w = [0.2, 0.3, -0.1, 0.4]
    _, plain = optimize(nbest, w)
    tuned, restarted = optimize(nbest, w, restarts=10, seed=3)
    assert restarted >= plain
    assert corpus_bleu_at(nbest, tuned) == pytest.approx(restarted)
    assert optimize(nbest, w, restarts=10, seed=3) == (tuned, restarted)     # fixed seed: same result


def test_compiled_line_search_equals_the_python_one():
    pytest.importorskip("cad.tune._mert", reason="the compiled line search is not built (make install)")
    rng = random.Random(11)
    for trial in range(30):
        refs = [[rng.choice("abcdefgh") for _ in range(rng.randint(3, 12))] for _ in range(rng.randint(1, 25))]
        nbest = []
        for r in refs:
            cands = []
            for _ in range(rng.randint(1, 12)):
                hyp = [w if rng.random() < 0.6 else rng.choice("abcdefgh") for w in r][:rng.randint(1, 14)]
                # few distinct feature values: equal slopes, equal intercepts and shared breakpoints
                cands.append(Candidate([rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0]) for _ in range(4)], bleu_stats(hyp, r)))
            nbest.append(cands)
        w = [rng.uniform(-1, 1) for _ in range(4)]
        d = [0.0] * 4
        d[trial % 4] = 1.0
        if trial % 3 == 0:
            d = [rng.uniform(-1, 1) for _ in range(4)]
        assert line_search(nbest, w, d, native=True) == line_search(nbest, w, d, native=False)


def test_tune_folds_reports_each_fold_held_out(tmp_path, capsys):
    """Four documents in two folds: each fold is translated with the weights tuned on the other
    (whose references come from other weights, so tuning helps), its held-out BLEU is the BLEU of
    those very translations, and --final tunes on every document."""
    import json

    from cad.cli import main
    from cad.decoder import Decoder, DecoderModel
    from sacrebleu.metrics import BLEU

    ini, sents, refs = _reachable_task(tmp_path, 16)
    (tmp_path / "docs").write_text("0\ta\n4\tb\n8\tc\n12\td\n")
    out = tmp_path / "folds"
    assert main(["-q", "tune", "folds", "--config", str(ini), "--source", str(tmp_path / "src"), "--reference",
                 str(tmp_path / "ref"), "--docs", str(tmp_path / "docs"), "--out", str(out), "--nbest", "30",
                 "--iterations", "4", "--final", str(tmp_path / "final.ini")]) == 0
    rep = json.loads((out / "report.json").read_text())
    assert [(f["fold"], f["documents"], f["sentences"], f["tuning_sentences"]) for f in rep["folds"]] == \
        [(1, 2, 8, 8), (2, 2, 8, 8)]
    # fold 1 (sentences 0-7) was tuned on sentences 8-15 only
    assert (out / "fold1.tune.src").read_text().splitlines() == sents[8:]
    tuned = Decoder(DecoderModel.load(out / "fold1.ini"))
    hyps = [tuned.translate(s).text for s in sents[:8]]
    assert (out / "tuned.out").read_text().splitlines()[:8] == hyps
    assert rep["folds"][0]["heldout_bleu_tuned"] == pytest.approx(BLEU(force=True).corpus_score(hyps, [refs[:8]]).score)
    assert rep["pooled_bleu_tuned"] > rep["pooled_bleu_start"] and 0 <= rep["bootstrap_p"] <= 1
    assert rep["final"]["config"] == str(tmp_path / "final.ini") and (tmp_path / "final.ini").exists()
    assert rep["final"]["start"] == str(out / "fold2.ini")
    assert "| pooled | 4 | 16 |" in capsys.readouterr().out
    # a fold count the documents cannot fill is refused, naming the docs file
    assert main(["-q", "tune", "folds", "--config", str(ini), "--source", str(tmp_path / "src"), "--reference",
                 str(tmp_path / "ref"), "--docs", str(tmp_path / "docs"), "--out", str(out), "--folds", "5"]) == 1
    assert "docs" in capsys.readouterr().err


def test_tune_folds_resumes_after_the_folds_it_finished(tmp_path, capsys):
    """A fold already tuned with the same model, tuning set and options is not tuned again (its
    weights file untouched, the report the same); a changed option, a changed table or a weights
    file written by something else tunes it again."""
    import json
    import os

    from cad.cli import main

    ini, _, _ = _reachable_task(tmp_path, 16)
    (tmp_path / "docs").write_text("0\ta\n4\tb\n8\tc\n12\td\n")
    out = tmp_path / "folds"

    def run(*extra):
        assert main(["-q", "tune", "folds", "--config", str(ini), "--source", str(tmp_path / "src"), "--reference",
                     str(tmp_path / "ref"), "--docs", str(tmp_path / "docs"), "--out", str(out), "--nbest", "30",
                     *extra]) == 0
        capsys.readouterr()
        return {k: os.stat(out / f"fold{k}.ini").st_mtime_ns for k in (1, 2)}, json.loads((out / "report.json").read_text())

    first, rep1 = run("--iterations", "3")
    # an interrupted run: fold 2's weights lost, fold 1's kept
    os.remove(out / "fold2.ini")
    again, rep2 = run("--iterations", "3")
    assert again[1] == first[1] and (out / "fold2.ini").exists()
    strip = [{k: v for k, v in f.items() if k != "seconds"} for f in rep1["folds"]]
    assert [{k: v for k, v in f.items() if k != "seconds"} for f in rep2["folds"]] == strip
    assert rep2["pooled_bleu_tuned"] == rep1["pooled_bleu_tuned"]
    # another option: tuned again
    other, _ = run("--iterations", "2")
    assert other[1] != again[1] and other[2] != again[2]
    # the same option, but a table of the model touched since: tuned again
    from cad.moses.ini import parse_config
    table = next(f.path for f in parse_config(ini).features if f.type.startswith("PhraseDictionary"))
    os.utime(table, ns=(os.stat(table).st_atime_ns, os.stat(table).st_mtime_ns + 10**9))
    touched, _ = run("--iterations", "2")
    assert touched[1] != other[1]
    # a weights file written over by something else is not taken
    kept, _ = run("--iterations", "2")
    assert kept[1] == touched[1]
    (out / "fold1.ini").write_text((out / "fold1.ini").read_text() + "\n")
    mtime = os.stat(out / "fold1.ini").st_mtime_ns
    rewritten, _ = run("--iterations", "2")
    assert rewritten[1] != mtime
