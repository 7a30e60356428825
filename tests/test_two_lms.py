"""Several language models, each a feature of its own (Moses's LM0, LM1, ...: a large out-of-domain
and a small in-domain LM): the moses.ini lines, the decoder's scores against a search from scratch,
the compiled core against the Python search, the binary LMs, `cad moses-ini add-lm`, `cad train
--extra-lm` and MERT tuning both weights. The real Moses decodes such a model as cad does in
tests/test_moses_real.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.decoder import Decoder, DecoderModel, SearchSettings
from cad.decoder.nbest import nbest_lines
from cad.decoder.tables import LN10
from cad.moses.ini import add_lm, baseline_config, format_config, parse_config, write_config

from conftest import write
from decoder_fixtures import random_model
from test_decoder import _same, exhaustive_best


@pytest.fixture(params=["native", "python"])
def engine(request, monkeypatch):
    """The decoding tests run on both engines: the compiled core and the Python reference."""
    from cad.decoder import native

    if request.param == "python":
        monkeypatch.setenv("CAD_NATIVE", "0")
    elif not native.available():
        pytest.skip("the compiled core is not built (pip install -e . builds it)")
    return request.param


def test_moses_ini_with_two_lms_is_written_as_train_model_and_read_back_exactly(tmp_path):
    """train-model.perl with two -lm: `KENLM lazyken=0 name=LMk factor=0 path=... order=...` lines
    side by side after Distortion, `LMk= 0.5` weights; cad writes that and reads it back to the byte."""
    cfg = baseline_config("/m/pt.gz", "/m/ro.gz", "/m/lm.arpa", 5)
    assert add_lm(cfg, "/m/lm.ted.arpa", 4) == "LM1"
    write_config(cfg, tmp_path / "moses.ini")
    text = (tmp_path / "moses.ini").read_text()
    assert ("Distortion\nKENLM lazyken=0 name=LM0 factor=0 path=/m/lm.arpa order=5\n"
            "KENLM lazyken=0 name=LM1 factor=0 path=/m/lm.ted.arpa order=4\n") in text
    assert text.endswith("Distortion0= 0.3\nLM0= 0.5\nLM1= 0.5\n")
    assert format_config(parse_config(tmp_path / "moses.ini")) == text
    # a feature after the LMs (the CoreferenceModel's line) stays after them; the next LM is LM2
    cfg.features.append(type(cfg.features[0])("WordPenalty", "WordPenalty1", name_pos=0))
    cfg.weights["WordPenalty1"] = [0.1]
    assert add_lm(cfg, "/m/lm3.arpa", 3, weight=0.25) == "LM2"
    assert [f.name for f in cfg.features][-4:] == ["LM0", "LM1", "LM2", "WordPenalty1"]
    again = write(tmp_path / "again.ini", format_config(cfg))
    assert format_config(parse_config(again)) == again.read_text()
    assert "LM1= 0.5\nLM2= 0.25\nWordPenalty1= 0.1\n" in again.read_text()


def test_each_lm_is_a_feature_of_its_own(tmp_path, engine):
    """The n-best lists carry LM0= and LM1=, each the whole sentence's natural-log probability under
    its model (</s> included), and the total is their weighted sum with the other features."""
    ini, sents = random_model(tmp_path, 61, extra_lms=1, weights={"LM1": [0.4]})
    model = DecoderModel.load(ini)
    assert [lm.path for lm in model.lms] == [str(tmp_path / "lm.arpa"), str(tmp_path / "lm1.arpa")]
    assert model.lm is model.lms[0] and model.lms[0].order == 3 and model.lms[1].order == 4
    dec = Decoder(model)
    for k, s in enumerate(sents[:5]):
        tr = dec.translate(s, nbest=10)
        for d, line in zip(tr.nbest, nbest_lines(k, tr)):
            assert " LM0= " in line and " LM1= " in line
            feats = dict(zip([n for n, _, _ in tr.feature_names], [d.features[o:o + n] for _, o, n in tr.feature_names]))
            for name, lm in (("LM0", model.lms[0]), ("LM1", model.lms[1])):
                assert feats[name][0] == pytest.approx(lm.model.score(d.text, bos=True, eos=True) * LN10, abs=1e-5)
            assert sum(w * v for w, v in zip(dec.weights, d.features)) == pytest.approx(d.total, abs=1e-9)


@pytest.mark.parametrize("seed, limit, algorithm", [(1, -1, 0), (2, 2, 0), (3, 3, 1), (4, 1, 0)])
def test_best_score_equals_exhaustive_search_with_two_lms(tmp_path, seed, limit, algorithm, engine):
    """Without pruning, the best derivation is the best of all derivations scored from scratch, with
    each LM weighted by its own weight (one of them negative: a feature that can raise the score)."""
    rng = random.Random(seed)
    weights = {"LM0": [rng.uniform(0.2, 1)], "LM1": [rng.uniform(-0.3, 1)], "Distortion0": [rng.uniform(0, 0.6)],
               "WordPenalty0": [rng.uniform(-1.5, 0.5)], "TranslationModel0": [rng.uniform(0, 0.5) for _ in range(4)],
               "LexicalReordering0": [rng.uniform(0, 0.6) for _ in range(6)]}
    ini, sents = random_model(tmp_path, seed, weights=weights, distortion_limit=limit, extra_lms=1)
    inputs = [s for s in sents if len(s.split()) <= 6][:3] + ["a q b"]   # "q" is unknown
    model = DecoderModel.load(ini, input_sentences=inputs,
                              settings=SearchSettings(stack=0, beam_threshold=0, search_algorithm=algorithm,
                                                      pop_limit=100000))
    dec = Decoder(model)
    for sent in inputs:
        # kenlm's whole-sentence score sums float32 values: 1e-6 apart from the decoder's double sums
        assert dec.translate(sent).best.total == pytest.approx(exhaustive_best(model, sent), abs=1e-5), sent


@pytest.mark.parametrize("seed, lms", [(41, 1), (42, 2), (43, 1), (44, 2)])
def test_compiled_core_gives_the_python_search_result_with_several_lms(tmp_path, seed, lms, engine):
    """The compiled core with two and three LMs against the Python search: the same 1-best, totals
    and feature values to the last bit, and the same n-best lists, with both algorithms, small
    stacks, pop limits and distortion limits, and an LM of negative weight."""
    if engine == "python":
        pytest.skip("compares the two engines once")
    weights = {"LM1": [0.3]} if seed % 2 else {"LM1": [-0.15], "LM2": [0.4]}
    for limit in (6, 2, -1):
        ini, sentences = random_model(tmp_path, seed, n_sentences=8, distortion_limit=limit, extra_lms=lms,
                                      weights=weights)
        for algorithm, stack, pops in ((0, 200, 1000), (0, 2, 1000), (1, 200, 1000), (1, 3, 5)):
            model = DecoderModel.load(ini, settings=SearchSettings(search_algorithm=algorithm, stack=stack,
                                                                   pop_limit=pops))
            fast, slow = Decoder(model), Decoder(model, native=False)
            assert fast._core() is not None and fast._core().lm_count == lms + 1 and slow._core() is None
            for sent in sentences:
                _same(fast.translate(sent, nbest=7), slow.translate(sent, nbest=7))
                _same(fast.translate(sent, nbest=5, distinct=True), slow.translate(sent, nbest=5, distinct=True))


def test_binary_lms_decode_as_their_arpa_files(tmp_path, engine):
    """`cad binarize` writes each LM's KenLM binary twin (lm.binlm, lm1.binlm), which the decoder then
    reads memory-mapped: the same translations, scores and n-best lists as the ARPA files."""
    from cad.moses.binarize import binarize_model

    ini, sents = random_model(tmp_path, 62, extra_lms=1, weights={"LM1": [0.45]})

    def outputs():
        model = DecoderModel.load(ini)
        dec = Decoder(model)
        return [lm.path for lm in model.lms], [dec.translate(s, nbest=6) for s in sents]

    paths, text = outputs()
    assert [Path(p).name for p in paths] == ["lm.arpa", "lm1.arpa"]
    done = binarize_model(ini)
    assert {Path(p).name for _, p in done.written} >= {"lm.binlm", "lm1.binlm"}
    paths, binary = outputs()
    assert [Path(p).name for p in paths] == ["lm.binlm", "lm1.binlm"]
    for a, b in zip(binary, text):
        _same(a, b)


def test_decode_with_two_lms_is_the_same_on_either_engine_and_any_threads(tmp_path, capsys):
    """`cad decode` of a two-LM model: the same 1-best and 10-best lists on the compiled core with
    one and two threads and on the Python search."""
    ini, sents = random_model(tmp_path, 66, n_sentences=10, extra_lms=1, weights={"LM1": [0.3]})
    write(tmp_path / "in", "".join(f"{s}\n" for s in sents))
    outs = []
    for engine, threads in (("native", "1"), ("native", "2"), ("python", "1")):
        nb = tmp_path / f"nb.{engine}.{threads}"
        assert main(["decode", "-f", str(ini), "-input-file", str(tmp_path / "in"), "-n-best-list", str(nb), "10",
                     "--engine", engine, "-threads", threads, "-search-algorithm", "1"]) == 0
        outs.append((capsys.readouterr().out, nb.read_text()))
    assert outs[0] == outs[1] == outs[2] and outs[0][0].count("\n") == 10 and " LM1= " in outs[0][1]


def test_moses_ini_add_lm_command(tmp_path, capsys):
    """`cad moses-ini add-lm` writes a configuration with the next LM (its order read from the file),
    which decodes with both; a missing LM or an order that contradicts the file is refused by name."""
    ini, sents = random_model(tmp_path, 63)
    write(tmp_path / "ted.fr", "".join(f"{s}\n" for s in ("x y z", "y z w w", "v u x", "z z y x")))
    assert main(["-q", "lm", "--text", str(tmp_path / "ted.fr"), "--order", "2", "--out", str(tmp_path / "ted.arpa")]) == 0
    out = tmp_path / "two.ini"
    assert main(["moses-ini", "add-lm", "--config", str(ini), "--lm", str(tmp_path / "ted.arpa"),
                 "--weight", "0.3", "--out", str(out)]) == 0
    text = out.read_text()
    assert f"KENLM lazyken=0 name=LM1 factor=0 path={tmp_path / 'ted.arpa'} order=2\n" in text
    assert text.replace(f"KENLM lazyken=0 name=LM1 factor=0 path={tmp_path / 'ted.arpa'} order=2\n", "").replace(
        "LM1= 0.3\n", "") == ini.read_text()
    tr = Decoder(DecoderModel.load(out)).translate(sents[0], nbest=2)
    assert [n for n, _, _ in tr.feature_names][-2:] == ["LM0", "LM1"]
    capsys.readouterr()
    assert main(["moses-ini", "add-lm", "--config", str(ini), "--lm", str(tmp_path / "none.arpa"), "--out",
                 str(tmp_path / "x.ini")]) == 1
    assert "none.arpa" in capsys.readouterr().err and not (tmp_path / "x.ini").exists()
    assert main(["moses-ini", "add-lm", "--config", str(ini), "--lm", str(tmp_path / "ted.arpa"), "--order", "3",
                 "--out", str(tmp_path / "x.ini")]) == 1
    err = capsys.readouterr().err
    assert "ted.arpa" in err and "order 2" in err and not (tmp_path / "x.ini").exists()


def test_a_configuration_with_two_lms_names_a_missing_one_by_its_line(tmp_path):
    ini, _ = random_model(tmp_path, 64, extra_lms=1)
    (tmp_path / "lm1.arpa").unlink()
    with pytest.raises(CadError, match=r"LM1: language model .*lm1.arpa not found") as exc:
        DecoderModel.load(ini)
    line = ini.read_text().splitlines().index(f"KENLM lazyken=0 name=LM1 factor=0 path={tmp_path / 'lm1.arpa'} order=4")
    assert str(exc.value).startswith(f"{ini}:{line + 1}: ")


def test_train_adds_an_extra_lm_without_training_the_model_again(tmp_path, caplog):
    """`cad train --extra-lm TEXT` on a trained model: only the extra LM (OUT/lm1.arpa, from TEXT)
    and the moses.ini are made, train.json is left as it was; the moses.ini has LM1 beside LM0 and
    decodes with both. Without --extra-lm again, the moses.ini is the one-LM model's once more."""
    from cad.sample import SAMPLE_PREFIX

    out = tmp_path / "model"
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out)]) == 0
    one_lm = (out / "moses.ini").read_text()
    settings = (out / "train.json").read_bytes()
    assert '"extra_lm_texts"' not in settings.decode() and not (out / "lm.extra.json").exists()
    # raw as the sample corpus is: tokenized and truecased as its French side was
    ted = write(tmp_path / "ted.fr", "Il est là.\nelle est grande .\n\nIl est grand et elle est là.\n")
    caplog.set_level("INFO")
    assert main(["train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out), "--extra-lm", str(ted)]) == 0
    for stage in ("prepare", "align", "lex", "phrases", "lm"):
        assert f"[{stage}] up to date, skipped" in caplog.text
    assert "[lm1] running" in caplog.text and "[moses.ini] running" in caplog.text
    assert (out / "lm1.fr").read_text().splitlines() == ["il est là .", "elle est grande .",
                                                          "il est grand et elle est là ."]
    assert (out / "train.json").read_bytes() == settings
    cfg = parse_config(out / "moses.ini")
    assert [f.name for f in cfg.features if f.type == "KENLM"] == ["LM0", "LM1"]
    assert cfg.feature("LM1").path == str((out / "lm1.arpa").resolve()) and cfg.weights["LM1"] == [0.5]
    model = DecoderModel.load(out / "moses.ini")
    assert model.lms[1].model.score("il est là", bos=True, eos=True) > model.lms[1].model.score("là il est")
    assert Decoder(model).translate("it is big .").text
    caplog.clear()
    assert main(["train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out), "--extra-lm", str(ted)]) == 0
    assert "[lm1] up to date, skipped" in caplog.text and "[moses.ini] up to date, skipped" in caplog.text
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out)]) == 0
    assert (out / "moses.ini").read_text() == one_lm and not (out / "lm.extra.json").exists()


def test_mert_tunes_each_lm_weight(tmp_path):
    """MERT's n-best lists carry LM0= and LM1= for every candidate, and it tunes the two weights as
    two features: references made by the same model with LM1 weighed far above LM0 are reached from
    weights that favour LM0, by raising LM1's weight against LM0's."""
    from cad.decoder.model import apply_weight_overwrite
    from cad.tune.run import TuningSet, mert

    ini, sents = random_model(tmp_path, 65, n_sentences=14, extra_lms=1, weights={"LM1": [0.05]})
    cfg = parse_config(ini)
    apply_weight_overwrite(cfg, "LM0= 0.05 LM1= 1.0")
    target = Decoder(DecoderModel.from_config(cfg, None, SearchSettings()))
    refs = [target.translate(s).text for s in sents]
    write(tmp_path / "src", "".join(f"{s}\n" for s in sents))
    write(tmp_path / "ref", "".join(f"{r}\n" for r in refs))
    model = DecoderModel.load(ini, input_sentences=sents)
    lines = [line for k, tr in enumerate(TuningSet(model, sents).decode(Decoder(model), 20, "decode"))
             for line in nbest_lines(k, tr)]
    assert len(lines) > len(sents) and all(" LM0= " in line and " LM1= " in line for line in lines)
    res = mert(str(ini), str(tmp_path / "src"), str(tmp_path / "ref"), str(tmp_path / "tuned.ini"), nbest=30,
               iterations=5, restarts=5)
    assert res.bleu > res.history[0][1] and len(res.weights) == model.size
    tuned = parse_config(tmp_path / "tuned.ini").weights
    assert tuned["LM1"][0] / tuned["LM0"][0] > 0.05 / 0.5
