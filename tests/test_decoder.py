import math
import random

import pytest

from cad.decoder.model import DecoderModel, SearchSettings
from cad.decoder.nbest import nbest_lines
from cad.decoder.options import collect_options
from cad.decoder.search import Decoder
from cad.decoder.tables import LN10
from cad.core.errors import CadError
from cad.moses.ini import baseline_config, write_config

from conftest import write
from decoder_fixtures import random_model


@pytest.fixture(autouse=True, params=["native", "python"])
def engine(request, monkeypatch):
    """Every search test runs on both engines: the compiled core and the Python reference."""
    from cad.decoder import native

    if request.param == "python":
        monkeypatch.setenv("CAD_NATIVE", "0")
    elif not native.available():
        pytest.skip("the compiled core is not built (pip install -e . builds it)")
    return request.param


def allowed(cov: int, s: int, e: int, n: int, limit: int, last_end: int) -> bool:
    """Moses's distortion rules (SearchNormal::ProcessOneHypothesis), written independently of the
    decoder: the jump from the previous phrase's end is within the limit, and a phrase away from
    the first gap ends within the limit of it."""
    if limit < 0:
        return True
    gap = next(i for i in range(n) if not cov >> i & 1)
    return abs(last_end - s) <= limit and (s == gap or e - gap <= limit)


def score_derivation(model: DecoderModel, steps, n: int) -> float:
    """Model score of a complete derivation, from scratch (whole-sentence LM, orientations)."""
    w = {s.name: s.weights for s in model.slots}
    total = 0.0
    words = []
    prev = None   # (start, end, option)
    for opt in steps:
        if opt.table >= 0:
            total += sum(a * b for a, b in zip(w[f"TranslationModel{opt.table}"], opt.scores))
        else:
            total += w["UnknownWordPenalty0"][0] * -100
        total += w["WordPenalty0"][0] * -len(opt.words) + w["PhrasePenalty0"][0]
        last_end = prev.end if prev else 0
        total += w["Distortion0"][0] * -abs(last_end - opt.start)
        ps, pe = (prev.start, prev.end) if prev else (0, 0)
        o = 0 if opt.start == pe else 1 if opt.end == ps else 2
        if opt.reordering is not None:
            total += w["LexicalReordering0"][o] * opt.reordering[o]
        if prev is not None and prev.reordering is not None:
            total += w["LexicalReordering0"][3 + o] * prev.reordering[3 + o]
        words.extend(opt.words)
        prev = opt
    for lm, slot in zip(model.lms, model.slots_of("KENLM")):       # every LM, each with its own weight
        total += slot.weights[0] * lm.model.score(" ".join(words), bos=True, eos=True) * LN10
    return total


def exhaustive_best(model: DecoderModel, sentence: str) -> float:
    tokens = sentence.split()
    n = len(tokens)
    options = collect_options(model, tokens)
    limit = model.settings.distortion_limit
    best = -math.inf

    def rec(cov, steps):
        nonlocal best
        if cov == (1 << n) - 1:
            best = max(best, score_derivation(model, steps, n))
            return
        for (s, e), opts in options.items():
            mask = ((1 << (e - s)) - 1) << s
            if cov & mask or not allowed(cov, s, e, n, limit, steps[-1].end if steps else 0):
                continue
            for o in opts:
                rec(cov | mask, steps + [o])

    rec(0, [])
    return best


@pytest.mark.parametrize("seed, limit, algorithm", [(1, -1, 0), (2, 2, 0), (3, 3, 0), (4, 0, 0), (5, 1, 0),
                                                     (6, 2, 0), (7, -1, 0), (8, 4, 0)])
def test_best_score_equals_exhaustive_search(tmp_path, seed, limit, algorithm):
    rng = random.Random(seed)
    weights = {"LM0": [rng.uniform(0.2, 1)], "Distortion0": [rng.uniform(0, 0.6)],
               "WordPenalty0": [rng.uniform(-1.5, 0.5)], "TranslationModel0": [rng.uniform(0, 0.5) for _ in range(4)],
               "LexicalReordering0": [rng.uniform(0, 0.6) for _ in range(6)]}
    ini, sents = random_model(tmp_path, seed, weights=weights, distortion_limit=limit)
    inputs = [s for s in sents if len(s.split()) <= 6][:3] + ["a q b"]   # "q" is unknown
    model = DecoderModel.load(ini, input_sentences=inputs,
                              settings=SearchSettings(stack=0, beam_threshold=0, search_algorithm=algorithm))
    dec = Decoder(model)
    for sent in inputs:
        tr = dec.translate(sent, nbest=5)
        assert tr.best.total == pytest.approx(exhaustive_best(model, sent), abs=1e-6), sent
        # the best derivation's features, scored from scratch, give the same total
        steps = [next(o for o in collect_options(model, sent.split())[(st.src_start, st.src_end)]
                      if o.words == st.words and o.table == st.table) for st in tr.best.steps]
        assert score_derivation(model, steps, len(sent.split())) == pytest.approx(tr.best.total, abs=1e-6)
        totals = [d.total for d in tr.nbest]
        assert totals == sorted(totals, reverse=True) and totals[0] == pytest.approx(tr.best.total)


def test_cube_pruning_matches_normal_search_on_small_inputs(tmp_path):
    ini, sents = random_model(tmp_path, 11)
    normal = Decoder(DecoderModel.load(ini, settings=SearchSettings(stack=0, beam_threshold=0)))
    cube = Decoder(DecoderModel.load(ini, settings=SearchSettings(search_algorithm=1, pop_limit=100000, stack=0,
                                                                  beam_threshold=0)))
    for s in sents[:6]:
        assert cube.translate(s).best.total == pytest.approx(normal.translate(s).best.total, abs=1e-6)


def test_nbest_features_add_up_to_totals(tmp_path):
    ini, sents = random_model(tmp_path, 21)
    dec = Decoder(DecoderModel.load(ini))
    weights = dec.weights
    for k, s in enumerate(sents[:5]):
        tr = dec.translate(s, nbest=20)
        for line in nbest_lines(k, tr):
            _, text, feats, total = line.split(" ||| ")
            values = [float(x) for x in feats.split() if not x.endswith("=")]
            assert sum(w * v for w, v in zip(weights, values)) == pytest.approx(float(total), abs=1e-4)
        texts = [d.text for d in dec.translate(s, nbest=20, distinct=True).nbest]
        assert len(texts) == len(set(texts))
        # paths are distinct derivations: no two identical segmentations with identical phrases
        derivs = {tuple((st.src_start, st.src_end, st.words) for st in d.steps) for d in tr.nbest}
        assert len(derivs) == len(tr.nbest)


def make_model(tmp_path, pt: str, cm: str | None = None, backoff=(0, 1), ro: str | None = None,
               lm_sents=("x y z",), table_limit=20, dl=6):
    from cad.lm.arpa import write_arpa
    from cad.lm.kneser_ney import estimate

    write(tmp_path / "pt", pt)
    write_arpa(estimate([s.split() for s in lm_sents], 2), tmp_path / "lm.arpa")
    if ro is not None:
        write(tmp_path / "ro", ro)
    cfg = baseline_config(str(tmp_path / "pt"), str(tmp_path / "ro") if ro is not None else None,
                          str(tmp_path / "lm.arpa"), 2, table_limit=table_limit, distortion_limit=dl)
    if cm is not None:
        from cad.moses.ini import Feature

        write(tmp_path / "cm", cm)
        cfg.features.insert(4, Feature("PhraseDictionaryMemory", "TranslationModel1",
                                       {"num-features": "1", "path": str(tmp_path / "cm"), "input-factor": "0",
                                        "output-factor": "0"}))
        cfg.weights["TranslationModel1"] = [0.8]
        cfg.mapping = [(0, "T", 0), (1, "T", 1)]
        cfg.backoff = list(backoff)
    write_config(cfg, tmp_path / "moses.ini")
    return tmp_path / "moses.ini"


def test_backoff_table_only_for_untranslatable_single_words(tmp_path):
    ini = make_model(tmp_path, "the ||| le ||| 0.5 0.5 0.5 0.5\nit ||| il ||| 0.5 0.5 0.5 0.5\n",
                     cm="it ||| elle ||| 0.9\nit-fem-sing ||| elle ||| 0.9\nthe it-fem-sing ||| la elle ||| 0.9\n")
    model = DecoderModel.load(ini)
    opts = collect_options(model, "the it it-fem-sing".split())
    assert [o.words for o in opts[(1, 2)]] == [("il",)]                      # path 0 translates "it"
    assert [(o.words, o.table) for o in opts[(2, 3)]] == [(("elle",), 1)]    # back-off: unknown to path 0
    assert (0, 3) not in opts and (1, 3) not in opts
    assert Decoder(model).translate("the it-fem-sing").text == "le elle"
    # back-off 0: the second path is always consulted, its options join the first's
    ini0 = make_model(tmp_path, "the ||| le ||| 0.5 0.5 0.5 0.5\nit ||| il ||| 0.5 0.5 0.5 0.5\n",
                      cm="it ||| elle ||| 0.9\nthe it-fem-sing ||| la elle ||| 0.9\n", backoff=(0, 0))
    opts0 = collect_options(DecoderModel.load(ini0), "the it-fem-sing".split())
    assert {o.words for o in opts0[(0, 2)]} == {("la", "elle")}


def test_unknown_words_are_copied_with_penalty(tmp_path):
    ini = make_model(tmp_path, "the ||| le ||| 0.5 0.5 0.5 0.5\n")
    dec = Decoder(DecoderModel.load(ini))
    tr = dec.translate("the zorglub")
    assert tr.text == "le zorglub"
    assert tr.feature_dict()["UnknownWordPenalty0"] == [-100.0]
    assert (1, 1) in tr.best.word_alignment


def test_table_limit_keeps_the_best_options(tmp_path):
    pt = "".join(f"a ||| t{i} ||| {p} {p} {p} {p}\n" for i, p in enumerate([0.1, 0.9, 0.5, 0.3]))
    model = DecoderModel.load(make_model(tmp_path, pt, table_limit=2))
    assert [o.words for o in collect_options(model, ["a"])[(0, 1)]] == [("t1",), ("t2",)]
    model = DecoderModel.load(make_model(tmp_path, pt, table_limit=0))
    assert len(collect_options(model, ["a"])[(0, 1)]) == 4
    model = DecoderModel.load(make_model(tmp_path, pt, table_limit=0), settings=SearchSettings(ttable_limit=1))
    assert len(collect_options(model, ["a"])[(0, 1)]) == 1


def test_options_per_span_are_capped_and_thresholded_as_moses(tmp_path):
    # 60 translations of "a", no table-limit: Moses keeps the 50 best per span by default
    probs = [round(0.01 + 0.015 * i, 3) for i in range(60)]
    pt = "".join(f"a ||| t{i} ||| {p} {p} {p} {p}\n" for i, p in enumerate(probs))
    ini = make_model(tmp_path, pt, table_limit=0)
    everything = collect_options(DecoderModel.load(ini, settings=SearchSettings(max_trans_opt=0)), ["a"])[(0, 1)]
    assert len(everything) == 60
    ranked = [o.words for o in everything]          # sorted by estimated score, best first
    assert ranked[0] == ("t59",)
    default = collect_options(DecoderModel.load(ini), ["a"])[(0, 1)]
    assert [o.words for o in default] == ranked[:50]
    two = collect_options(DecoderModel.load(ini, settings=SearchSettings(max_trans_opt=2)), ["a"])[(0, 1)]
    assert [o.words for o in two] == [("t59",), ("t58",)]
    # threshold 0.5: only options whose estimated score is within log(0.5) of the best survive
    best = everything[0].future
    want = [o.words for o in everything if o.future >= best + math.log(0.5)]
    assert 1 < len(want) < 50
    cut = collect_options(DecoderModel.load(ini, settings=SearchSettings(option_threshold=0.5)), ["a"])[(0, 1)]
    assert [o.words for o in cut] == want


def test_distortion_limit_blocks_long_jumps(tmp_path):
    # the LM strongly prefers the target order "z y x" (a full reversal of the source)
    pt = "a ||| x ||| 1 1 1 1\nb ||| y ||| 1 1 1 1\nc ||| z ||| 1 1 1 1\n"
    ini = make_model(tmp_path, pt, lm_sents=["z y x"] * 20, dl=-1)
    free = Decoder(DecoderModel.load(ini, settings=SearchSettings(stack=0, beam_threshold=0)))
    free.model.settings.distortion_limit = -1
    free.model.slot("Distortion0").weights = [0.0]
    assert free.translate("a b c").text == "z y x"
    mono = Decoder(DecoderModel.load(ini))
    mono.model.settings.distortion_limit = 0
    assert mono.translate("a b c").text == "x y z"
    # limit 1: "c" first would end 3 words after the first gap (> 1), so z cannot come first
    one = Decoder(DecoderModel.load(ini))
    one.model.settings.distortion_limit = 1
    one.model.slot("Distortion0").weights = [0.0]
    assert not one.translate("a b c").text.startswith("z")


@pytest.mark.parametrize("algorithm", [0, 1])
def test_search_space_is_exactly_moses_distortion_rules(tmp_path, algorithm):
    # seven one-word phrases and no LM or distortion preference: the n-best list, unpruned,
    # holds every ordering the decoder allows, which must be exactly those Moses allows. With
    # limit 3, [1,2) [2,3) [0,1) [5,6) ends within 3 of the first gap (3) but jumps 4 words
    # from the previous phrase, so Moses (and cad) refuse it.
    src = "a b c d e f g"
    pt = "".join(f"{w} ||| {w.upper()}x ||| 1 1 1 1\n" for w in src.split())
    ini = make_model(tmp_path, pt, dl=3)
    model = DecoderModel.load(ini, settings=SearchSettings(stack=0, beam_threshold=0, search_algorithm=algorithm,
                                                           pop_limit=10 ** 9))
    model.slot("LM0").weights = [0.0]
    model.slot("Distortion0").weights = [0.0]
    tr = Decoder(model).translate(src, nbest=10 ** 6)
    got = {tuple(st.src_start for st in d.steps) for d in tr.nbest}
    n = 7
    want = set()

    def rec(cov, order, last_end):
        if cov == (1 << n) - 1:
            want.add(tuple(order))
            return
        for s in range(n):
            if not cov >> s & 1 and allowed(cov, s, s + 1, n, 3, last_end):
                rec(cov | 1 << s, order + [s], s + 1)

    rec(0, [], 0)
    assert (1, 2, 0, 5, 3, 4, 6) not in want
    assert any(o != tuple(range(n)) for o in want)
    assert got == want


def test_lexicalized_reordering_orientations_by_hand(tmp_path):
    pt = "a ||| x ||| 1 1 1 1\nb ||| y ||| 1 1 1 1\nc ||| z ||| 1 1 1 1\n"
    ro = ("a ||| x ||| 0.5 0.25 0.25 0.6 0.3 0.1\nb ||| y ||| 0.2 0.7 0.1 0.6 0.3 0.1\n"
          "c ||| z ||| 0.4 0.4 0.2 0.6 0.3 0.1\n")
    ini = make_model(tmp_path, pt, ro=ro, lm_sents=["x z y"] * 20)
    dec = Decoder(DecoderModel.load(ini, settings=SearchSettings(stack=0, beam_threshold=0)))
    dec.model.slot("Distortion0").weights = [0.0]
    tr = dec.translate("a b c", nbest=50)
    ln = math.log
    by_order = {tuple(st.words[0] for st in d.steps): d for d in tr.nbest}
    d = by_order[("x", "z", "y")]   # a, then c (jump), then b (swap with c)
    lr = tr.feature_dict(d)["LexicalReordering0"]
    # backward: a mono (sentence start), c discontinuous, b swap; forward: a->c discontinuous, c->b swap
    assert lr[0] == pytest.approx(ln(0.5)) and lr[2] == pytest.approx(ln(0.2)) and lr[1] == pytest.approx(ln(0.7))
    assert lr[5] == pytest.approx(ln(0.1)) and lr[4] == pytest.approx(ln(0.3)) and lr[3] == 0
    mono = by_order[("x", "y", "z")]
    lr = tr.feature_dict(mono)["LexicalReordering0"]
    assert lr[0] == pytest.approx(ln(0.5) + ln(0.2) + ln(0.4)) and lr[3] == pytest.approx(2 * ln(0.6))
    assert tr.feature_dict(mono)["Distortion0"] == [0.0]
    assert tr.feature_dict(d)["Distortion0"] == [-(1 + 2)]


def test_model_errors_name_file_and_line(tmp_path):
    ini = make_model(tmp_path, "a ||| x ||| 0.5 0.5 0.5\n")
    with pytest.raises(CadError, match="3 scores, but TranslationModel0 declares num-features=4") as err:
        DecoderModel.load(ini)
    assert err.value.path.endswith("pt") and err.value.line == 1
    ini = make_model(tmp_path, "a ||| x ||| 0.5 0.5 0.5 0.5\n")
    (tmp_path / "pt").unlink()
    with pytest.raises(CadError, match="not found") as err:
        DecoderModel.load(ini)
    assert err.value.path == str(ini) and err.value.line is not None
    write(tmp_path / "bad.ini", f"[feature]\nFancyFeature name=F0\nPhraseDictionaryMemory num-features=4 "
                                f"path={tmp_path / 'pt'}\n[weight]\nF0= 1\nPhraseDictionaryMemory0= 1 1 1 1\n")
    write(tmp_path / "pt", "a ||| x ||| 0.5 0.5 0.5 0.5\n")
    with pytest.raises(CadError, match="not supported") as err:
        DecoderModel.load(tmp_path / "bad.ini")
    assert err.value.line == 2


class _NoLazyPruning(Decoder):
    def _lazy_prune(self, stacks, k, size, floor):
        return stacks[k]


@pytest.mark.parametrize("seed", [41, 42, 43])
def test_lazy_pruning_keeps_the_search_result(tmp_path, seed):
    # small stacks make the lazy pruning fire often; the best translation must not change
    ini, sentences = random_model(tmp_path, seed)
    for stack in (1, 2, 3, 5):
        settings = SearchSettings(stack=stack)
        lazy = Decoder(DecoderModel.load(ini, settings=settings), native=False)
        plain = _NoLazyPruning(DecoderModel.load(ini, settings=settings), native=False)
        fired = []
        original = lazy._lazy_prune
        lazy._lazy_prune = lambda *a: fired.append(1) or original(*a)
        for sent in sentences:
            a, b = lazy.translate(sent), plain.translate(sent)
            assert a.text == b.text and a.best.total == pytest.approx(b.best.total, abs=1e-9)
        assert fired, "the test must exercise lazy pruning"


def test_a_new_stateful_feature_is_one_class(tmp_path):
    # a feature the search has never heard of: -1 each time a phrase starts with the word the
    # previous phrase ended with (its state: the last target word). Its weight must change the
    # search's choice, its values must reach the n-best list, and the totals stay weighted sums.
    from cad.decoder.registry import FeatureSlot
    from cad.decoder.stateful import StatefulFeature

    class Repeats(StatefulFeature):
        def empty_state(self):
            return "<s>"

        def values(self, state, last_start, last_end, opt, complete):
            return ((0, -1.0),) if opt.words[0] == state else ()

        def evaluate(self, state, last_start, last_end, opt, complete):
            v = self.values(state, last_start, last_end, opt, complete)
            return (self.weights[0] * v[0][1] if v else 0.0), opt.words[-1]

    pt = "a ||| x ||| 0.9 0.9 0.9 0.9\nb ||| x ||| 0.6 0.6 0.6 0.6\nb ||| y ||| 0.3 0.3 0.3 0.3\n"
    ini = make_model(tmp_path, pt, lm_sents=["x x", "x y"], dl=0)
    for weight, expected in ((0.0, "x x"), (5.0, "x y")):
        model = DecoderModel.load(ini, settings=SearchSettings(stack=0, beam_threshold=0))
        slot = FeatureSlot("Repeats0", "Repeats", model.size, 1, [weight])
        model.slots.append(slot)
        model.stateful.insert(0, Repeats(slot))
        tr = Decoder(model).translate("a b", nbest=10)
        assert tr.text == expected
        by_text = {d.text: d for d in tr.nbest}
        assert by_text["x x"].features[-1] == -1.0 and by_text["x y"].features[-1] == 0.0
        for d in tr.nbest:
            assert d.total == pytest.approx(sum(w * f for w, f in zip(model.weights(), d.features)))
        assert tr.feature_dict(by_text["x x"])["Repeats0"] == [-1.0]


def test_translations_round_trip_through_json(tmp_path):
    import json

    from cad.decoder.serialize import translation_from_dict, translation_to_dict

    ini, sents = random_model(tmp_path, 11)
    dec = Decoder(DecoderModel.load(ini))
    for s in sents[:4]:
        tr = dec.translate(s, nbest=5)
        back = translation_from_dict(json.loads(json.dumps(translation_to_dict(tr))))
        assert back == tr
        assert back.best.word_alignment == tr.best.word_alignment and back.feature_dict() == tr.feature_dict()


def _same(a, b):
    assert a.text == b.text and a.best.total == b.best.total and a.best.features == b.best.features
    assert a.best.word_alignment == b.best.word_alignment
    assert [(d.text, d.total, d.features) for d in a.nbest] == [(d.text, d.total, d.features) for d in b.nbest]


@pytest.mark.parametrize("seed", [41, 42, 43, 44])
def test_compiled_core_gives_the_python_search_result(tmp_path, seed, engine):
    """The compiled core (cad/decoder/_core.cpp) against the Python search: the same 1-best,
    totals and feature values to the last bit, and the same n-best lists, with both algorithms,
    small stacks (lazy pruning), several distortion limits and pop limits."""
    if engine == "python":
        pytest.skip("compares the two engines once")
    for limit in (6, 2, -1):
        ini, sentences = random_model(tmp_path, seed, n_sentences=8, distortion_limit=limit)
        for algorithm, stack, pops in ((0, 200, 1000), (0, 2, 1000), (1, 200, 1000), (1, 3, 5)):
            settings = SearchSettings(search_algorithm=algorithm, stack=stack, pop_limit=pops)
            model = DecoderModel.load(ini, settings=settings)
            fast, slow = Decoder(model), Decoder(model, native=False)
            assert fast._core() is not None and slow._core() is None
            for sent in sentences:
                _same(fast.translate(sent, nbest=7), slow.translate(sent, nbest=7))
                _same(fast.translate(sent, nbest=5, distinct=True), slow.translate(sent, nbest=5, distinct=True))


def test_compiled_core_steps_aside_for_what_it_cannot_run(tmp_path, monkeypatch, engine):
    if engine == "python":
        pytest.skip("about the native engine")
    ini, sentences = random_model(tmp_path, 7, n_sentences=3)
    model = DecoderModel.load(ini)
    assert Decoder(model)._core() is not None
    monkeypatch.setenv("CAD_NATIVE", "0")
    assert Decoder(model)._core() is None
    monkeypatch.delenv("CAD_NATIVE")

    class Other(type(model.stateful[0])):       # a stateful feature the core does not know
        pass

    model.stateful[0].__class__ = Other
    assert Decoder(model)._core() is None


def test_decode_cli_engines_agree(tmp_path, capsys, engine):
    from cad.cli import main

    if engine == "python":
        pytest.skip("compares the two engines once")
    ini, sentences = random_model(tmp_path, 5, n_sentences=10)
    write(tmp_path / "in", "\n".join(sentences) + "\n")
    outs = []
    for eng in ("native", "python"):
        assert main(["decode", "-f", str(ini), "-input-file", str(tmp_path / "in"), "-n-best-list",
                     str(tmp_path / f"nb.{eng}"), "10", "--engine", eng, "-search-algorithm", "1"]) == 0
        outs.append((capsys.readouterr().out, (tmp_path / f"nb.{eng}").read_text()))
    assert outs[0] == outs[1] and outs[0][0].count("\n") == 10
    assert main(["decode", "-f", str(ini), "--engine", "fast"]) == 1
    assert "--engine must be one of native, python" in capsys.readouterr().err


@pytest.mark.slow
def test_engines_agree_on_the_dev_talks(shared_data, engine):
    """The trained baseline model (make train) on 300 dev sentences, cube pruning at Moses's
    defaults: the compiled core and the Python search give the same 1-best and model score."""
    from conftest import REPO

    if engine == "python":
        pytest.skip("compares the two engines once")
    ini = REPO / "models" / "baseline" / "moses.ini"
    if not ini.exists():
        pytest.skip(f"no trained model at {ini} (make train)")
    from cad.corpus.truecase import ModelCase

    case = ModelCase.of(ini, "en", "fr")
    sents = [case.source_line(line) for line in open(shared_data / "en-fr" / "dev.en", encoding="utf-8")][:300]
    model = DecoderModel.load(ini, input_sentences=sents, settings=SearchSettings(search_algorithm=1))
    fast, slow = Decoder(model), Decoder(model, native=False)
    for s in sents:
        a, b = fast.translate(s), slow.translate(s)
        assert a.text == b.text and a.best.total == pytest.approx(b.best.total, abs=1e-4)


def test_kept_options_are_bounded_and_change_nothing(tmp_path, monkeypatch, engine):
    """The table-limited options are kept for the source phrases asked for most recently only:
    memory stays flat over any input, and letting them go changes no translation (they are made
    again the same)."""
    from cad.decoder import options

    ini, sentences = random_model(tmp_path, 45, n_sentences=8)
    unbounded = [Decoder(DecoderModel.load(ini)).translate(s, nbest=5) for s in sentences]
    monkeypatch.setattr(options, "TEMPLATES_KEPT", 3)
    model = DecoderModel.load(ini)
    dec = Decoder(model)
    for s, want in zip(sentences, unbounded):
        _same(dec.translate(s, nbest=5), want)
        assert all(len(kept) <= 3 for kept in model.limit_cache.values())
    assert any(len(kept) == 3 for kept in model.limit_cache.values())


def test_an_option_placed_from_its_template_copies_every_field(tmp_path, engine):
    from dataclasses import fields

    from cad.decoder.options import TranslationOption, _place

    values = {f.name: object() for f in fields(TranslationOption)}
    placed = _place(TranslationOption(**values), 7, 9)
    assert (placed.start, placed.end) == (7, 9)
    for name, v in values.items():
        if name not in ("start", "end", "native"):
            assert getattr(placed, name) is v, name
    # the compiled search's packed copy is not carried over: a placed option's scores may change
    assert placed.native is None
    assert not hasattr(placed, "__dict__")          # slots: the kept templates are small


def test_compiled_core_packs_an_option_once_and_reads_its_packed_copy(tmp_path, engine):
    """The core packs what it reads of a kept template into the template's `native` slot and
    reads that copy in later sentences: the same output as reading the fields; a copy that another
    core packed, or that is damaged, is read afresh from the fields."""
    if engine == "python":
        pytest.skip("about the native engine")
    from cad.decoder import native
    from cad.decoder.options import sentence_options

    ini, sentences = random_model(tmp_path, 47, n_sentences=3)
    model = DecoderModel.load(ini)
    dec = Decoder(model)
    first = [dec.translate(s, nbest=3) for s in sentences]
    kept = [o for opts in model.limit_cache[next(iter(model.limit_cache))].values() for o in opts]
    assert kept and all(isinstance(o.native, bytes) for o in kept)
    packed = {id(o): o.native for o in kept}
    again = [dec.translate(s, nbest=3) for s in sentences]
    for a, b in zip(first, again):
        _same(a, b)
    assert all(o.native is packed[id(o)] for o in kept)      # read, not packed again
    # a copy another core packed (its LM's word indices may differ) or a damaged one is not
    # trusted: the fields are read, and the option packed again by the core that reads it
    core = native.core_for(dec.stateful)
    lm = next(f.lm.model for f in dec.stateful if hasattr(f, "lm"))
    other = type(core)([lm], LN10)
    native.search(dec, other, sentences[0].split(), sentence_options(model, sentences[0].split()).raw, 0, False)
    by_other = {id(o): o.native for o in kept if o.native is not packed[id(o)]}
    assert by_other
    for o in kept[1::2]:
        o.native = o.native[:-1]
    for a, s in zip(first, sentences):
        _same(dec.translate(s, nbest=3), a)
    assert all(o.native is not by_other[id(o)] for o in kept if id(o) in by_other)
    assert all(len(o.native) == len(packed[id(o)]) for o in kept)      # the damaged ones packed again


def test_compiled_core_takes_each_option_span_from_its_list(tmp_path, engine):
    """Plain decoding hands the core the kept templates themselves (no span of their own); the
    core gives each the span of its list, and only the options it returns are placed, each at
    that span. A layout that would give an option two spans, or none inside the list, is refused."""
    if engine == "python":
        pytest.skip("about the native engine")
    from cad.decoder import native
    from cad.decoder.options import sentence_options

    ini, sentences = random_model(tmp_path, 46, n_sentences=4)
    model = DecoderModel.load(ini)
    dec = Decoder(model)
    for sent in sentences:
        collected = sentence_options(model, sent.split())
        assert any(o.end == 0 for opts in collected.raw.values() for o in opts)      # templates
        placed = collected.options
        assert all((o.start, o.end) == span for span, opts in placed.items() for o in opts)
        dec._begin(sent.split())
        best, paths = native.search(dec, dec._core(), sent.split(), collected.raw, 3, False)
        def key(o):
            return o.start, o.end, o.words, o.table, o.scores, o.future

        for opt in best + [o for p in paths for o in p]:
            assert key(opt) in {key(o) for o in placed.get((opt.start, opt.end), [])}
    core = dec._core()
    opt = placed[next(iter(placed))][0]
    feats = [(native.native_kind(f), list(f.weights), bool(f.expensive), b) for f, b in zip(dec.stateful, dec._bounds)]
    for spans in ([(0, 1, 0, 1), (1, 2, 0, 1)], [(0, 1, 0, 2)], [(0, 1, 0, 1), (0, 1, 0, 1)]):
        with pytest.raises(RuntimeError):
            core.search(2, [opt], spans, feats, 1, 200, -100.0, -1, 1000, 0, False)
