"""`cad cm experiment --fold-configs`: each fold translated by every system with the decoder
weights of its own configuration (tuned without it), the CM weight chosen on the other fold with
those same weights, the halves pooled."""

import json

import pytest

from cad.core.errors import CadError
from cad.decoder import Decoder, DecoderModel
from cad.moses.ini import parse_config, write_config
from coref.records import Candidate, PronounResolution, write_jsonl
from test_cm_feature import tiny_model

TAIL, TAIL_FR = " in the garden today", " dans le jardin aujourd'hui"


def _talks(tmp_path):
    """Four two-sentence talks (mouse, cat, mouse, cat), their references, alignments and coreference."""
    src, ref, align, recs = [], [], [], []
    for d, (noun, fr, pron) in enumerate([("mouse", "la souris", "elle"), ("cat", "le chat", "il")] * 2):
        src += [f"the {noun} runs" + TAIL, "it sleeps" + TAIL]
        ref += [f"{fr} court" + TAIL_FR, f"{pron} dort" + TAIL_FR]
        align += [" ".join(f"{i}-{i}" for i in range(7)), " ".join(f"{i}-{i}" for i in range(6))]
        recs.append(PronounResolution(str(d), 1, 0, "it", True, [Candidate(0, 0, 2, 1, f"the {noun}", 1.0)], 1.0))
    for name, lines in (("src", src), ("ref", ref), ("align", align)):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    (tmp_path / "docs").write_text("".join(f"{2 * d}\td{d}\n" for d in range(4)))
    write_jsonl(recs, tmp_path / "coref.jsonl")
    return src


def _experiment(tmp_path, out, **kw):
    from cad.experiments.pronoun_eval import run_experiment

    return run_experiment(str(tmp_path / "base.ini"), str(tmp_path / "classes.gz"), str(tmp_path / "classes.gz"),
                          str(tmp_path / "src"), str(tmp_path / "ref"), str(tmp_path / "align"),
                          str(tmp_path / "docs"), None, str(out), grid=(0.0, 2.0), workers=1,
                          coref_records=str(tmp_path / "coref.jsonl"), **{"systems": ("BL", "CM-feature"), **kw})


def test_each_fold_is_translated_with_its_own_decoder_weights(tmp_path):
    pytest.importorskip("spacy")
    tiny_model(tmp_path, 0.0)
    with open(tmp_path / "pt", "a") as fh:
        fh.write("in the garden today ||| dans le jardin aujourd'hui ||| 1 1 1 1 ||| 0-0 1-1 2-2 3-3\n")
    src = _talks(tmp_path)
    # fold 2's weights reward the table's less likely phrases: BL writes elle there, il with fold 1's
    cfg = parse_config(tmp_path / "base.ini")
    cfg.weights["TranslationModel0"] = [-w for w in cfg.weights["TranslationModel0"]]
    write_config(cfg, tmp_path / "fold2.ini")
    by = {name: [Decoder(DecoderModel.load(tmp_path / name)).translate(s).text for s in src]
          for name in ("base.ini", "fold2.ini")}
    assert by["base.ini"][1] != by["fold2.ini"][1]          # the two weightings translate it apart

    report = _experiment(tmp_path, tmp_path / "exp", fold_configs=[str(tmp_path / "base.ini"),
                                                                 str(tmp_path / "fold2.ini")])
    bl = (tmp_path / "exp.work" / "bl.out").read_text().splitlines()
    assert bl == by["base.ini"][:4] + by["fold2.ini"][4:]   # fold 1 is talks 0-1, fold 2 talks 2-3
    assert report["protocol"]["decoder_weights"] == [str(tmp_path / "base.ini"), str(tmp_path / "fold2.ini")]
    row = next(r for r in report["systems"] if r["system"] == "CM-feature")
    # the CM's weight chosen on each tuning fold: at 2 the antecedent's gender beats either weighting
    assert row["tuned_weight"] == {"fold1": 2.0, "fold2": 2.0}
    cm = (tmp_path / "exp.work" / "cm-feature.out").read_text().splitlines()
    assert [cm[k].split()[0] for k in (1, 3, 5, 7)] == ["elle", "il", "elle", "il"]
    assert (tmp_path / "exp.fold1.work").is_dir() and (tmp_path / "exp.fold2.work").is_dir()
    assert json.loads((tmp_path / "exp.json").read_text())["protocol"]["note"].startswith("each fold translated")

    # one configuration for every fold gives the experiment without --fold-configs, line for line
    _experiment(tmp_path, tmp_path / "same", fold_configs=[str(tmp_path / "base.ini")] * 2)
    _experiment(tmp_path, tmp_path / "plain")
    for name in ("bl.out", "cm-feature.out", "cm-feature.align"):
        assert (tmp_path / "same.work" / name).read_text() == (tmp_path / "plain.work" / name).read_text()


def test_fold_configs_must_match_the_folds_and_exclude_mert(tmp_path):
    tiny_model(tmp_path, 0.0)
    _talks(tmp_path)
    with pytest.raises(CadError, match="3 fold configurations for 2 folds"):
        _experiment(tmp_path, tmp_path / "x", fold_configs=[str(tmp_path / "base.ini")] * 3)
    with pytest.raises(CadError, match="not both"):
        _experiment(tmp_path, tmp_path / "x", fold_configs=[str(tmp_path / "base.ini")] * 2, mert_iterations=2)


def test_the_classifier_with_the_agreement_is_a_system_of_its_own(tmp_path):
    from cad.experiments.pronoun_eval import CLASSIFIER_AGREEMENT, parse_systems

    assert parse_systems("BL,CM-feature, classifier, agreement,CM-feature, classifier,CM-feature, agreement") == (
        "BL", CLASSIFIER_AGREEMENT, "CM-feature, classifier", "CM-feature, agreement")
    pytest.importorskip("spacy")
    tiny_model(tmp_path, 0.0)
    _talks(tmp_path)
    # it reads the classifier CM beside the class table, as "CM-feature, classifier" does
    with pytest.raises(CadError, match="needs the classifier CM"):
        _experiment(tmp_path, tmp_path / "x", systems=("BL", CLASSIFIER_AGREEMENT))


@pytest.mark.parametrize("weights, message", [("0", "need two weights"), ("1", "two weights >= 0"),
                                              ("1,-3", "two weights >= 0")])
def test_the_agreement_weights_are_two(tmp_path, capsys, weights, message):
    from cad.cli import main

    args = ["-q", "cm", "experiment", "--other-words", "none", "--agreement-weights", weights, "--out", str(tmp_path / "x")]
    for flag in ("--config", "--classes", "--cm", "--source", "--reference", "--align-ref", "--docs"):
        args += [flag, str(tmp_path / flag.strip("-"))]
    assert main(args) == 1
    assert message in capsys.readouterr().err and not list(tmp_path.iterdir())
