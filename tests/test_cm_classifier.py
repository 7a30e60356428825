"""The classifier CM: features, probabilities against scikit-learn's, its file format, and the
decoder feature and reranker reading it in place of the class table."""

import json
import math

import pytest

from cad.cm.class_classifier import ClassifierCM, antecedent_features, features, \
    source_features, train_classifier
from cad.cm.class_model import ClassTable, gender_shares, score_class
from cad.lang import NONE
from cad.cm.config import FEATURE_NAME, feature_config
from cad.cm.models import load_pronoun_model
from cad.decoder import Decoder, DecoderModel
from cad.core.errors import CadError
from cad.moses.ini import parse_config, write_config


def test_features_of_a_hand_made_instance():
    toks = ["so", "it", "is", "clear", "that", "we", "won"]
    f = source_features(toks, 1, "copa")
    assert f["pron=it"] == f["role=it_copa"] == f["s-1=so"] == f["s+1=it_is"] == f["s+12=it_is_clear"] == 1.0
    assert f["s+3=that"] == 1.0 and f["pleo_that"] == 1.0 and "pleo_to" not in f
    # the antecedent enters by its candidates' weights
    a = antecedent_features({"it-copa-fem-sing": 0.5, "it-copa-masc-sing": 0.2, "it-copa-nonref": 0.3})
    assert a["gen=it_fem"] == pytest.approx(0.5) and a["gen=it_masc"] == pytest.approx(0.2)
    assert a["num=it_sing"] == pytest.approx(0.7)
    assert a["ant=it_nonref"] == pytest.approx(0.3) and a["ant=it_copa_fem-sing"] == pytest.approx(0.5)
    assert a["gn=it_copa_fem_sing"] == pytest.approx(0.5)
    assert antecedent_features({"they-subj": 1.0}) == {"ant=they_unknown": 1.0, "ant=they_subj_unknown": 1.0}
    # the role comes from the mixture's bundles
    assert features(toks, 1, {"it-copa-nonref": 1.0})["role=it_copa"] == 1.0
    with pytest.raises(CadError, match="outside"):
        features(toks, 9, {"it-subj": 1.0})


def synthetic(n=60):
    """fem antecedent -> elle, masc -> il, *it 's a* -> ce whatever the antecedent."""
    out = []
    for k in range(n):
        g = "fem" if k % 2 else "masc"
        mix = {f"it-subj-{g}-sing": 0.9, "it-subj-nonref": 0.1}
        if k % 3 == 0:
            out.append((mix, "ce", 1.0, ["and", "it", "'s", "a", "cat"], 1))
        else:
            out.append((mix, "elle" if g == "fem" else "il", 1.0, ["and", "it", "runs", "away"], 1))
    return out


def test_probabilities_equal_scikit_learns():
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    data = synthetic()
    X = [features(t, i, m) for m, _, _, t, i in data]
    y = [c for _, c, _, _, _ in data]
    model = ClassifierCM.fit(X, y, [1.0] * len(y), C=0.5)
    vec = DictVectorizer()
    clf = LogisticRegression(C=0.5, max_iter=2000).fit(vec.fit_transform(X), y)
    for x in X[:7]:
        want = dict(zip(clf.classes_, clf.predict_proba(vec.transform([x]))[0]))
        got = model.proba(x)
        assert got == pytest.approx(want, abs=1e-9)
    # two classes: sklearn keeps one weight row; the model's softmax gives the same probabilities
    X2, y2 = X[1:40:3], [c if c != "ce" else "il" for c in y[1:40:3]]
    two = ClassifierCM.fit(X2, y2, [1.0] * len(y2), C=1.0)
    clf2 = LogisticRegression(C=1.0, max_iter=2000).fit(vec.fit_transform(X2), y2)
    for x in X2[:4]:
        want = dict(zip(clf2.classes_, clf2.predict_proba(vec.transform([x]))[0]))
        assert two.proba(x) == pytest.approx(want, abs=1e-9)


def test_learns_antecedent_and_source_context_and_round_trips(tmp_path):
    data = synthetic(120)
    model = train_classifier(data, [(k // 2) % 2 for k in range(len(data))])
    assert set(model.meta["heldout_log_loss"]) == {"0.03", "0.1", "0.3", "1.0"} and "table_heldout_log_loss" in model.meta
    runs = ["it", "runs", "away"]
    fem = model.class_distribution({"it-subj-fem-sing": 1.0}, runs, 0)
    masc = model.class_distribution({"it-subj-masc-sing": 1.0}, runs, 0)
    cop = model.class_distribution({"it-subj-fem-sing": 1.0}, ["it", "'s", "a", "cat"], 0)
    assert max(fem, key=fem.get) == "elle" and max(masc, key=masc.get) == "il" and max(cop, key=cop.get) == "ce"
    # the class table of the same data cannot see *'s a*: its distribution is the same in both contexts
    table = ClassTable.estimate_em([d[:3] for d in data], 5)
    assert table.class_distribution({"it-subj-fem-sing": 1.0}, runs, 0) == \
        table.class_distribution({"it-subj-fem-sing": 1.0}, ["it", "'s", "a", "cat"], 0)
    model.save(tmp_path / "classifier.json")
    back = load_pronoun_model(tmp_path, "classifier")        # a directory means its classifier.json
    assert back.class_distribution({"it-subj-fem-sing": 1.0}, runs, 0) == pytest.approx(fem, abs=1e-12)
    assert back.meta == json.loads(json.dumps(model.meta))


@pytest.mark.parametrize("content, message", [
    ("{", "not a classifier CM file"),
    ('{"format": "cad-source-aware-1"}', "expected format"),
    ('{"format": "cad-cm-classifier-1", "classes": ["il", "elle"], "features": ["a"], "coef": [[1.0]], '
     '"intercept": [0, 0]}', "shapes"),
    ('{"format": "cad-cm-classifier-1", "classes": ["il", "xx"], "features": ["a"], "coef": [[1.0], [2.0]], '
     '"intercept": [0, 0]}', "unknown classes"),
])
def test_bad_model_files(tmp_path, content, message):
    p = tmp_path / "classifier.json"
    p.write_text(content)
    with pytest.raises(CadError, match=message):
        ClassifierCM.load(p)
    with pytest.raises(CadError, match="not found"):
        ClassifierCM.load(tmp_path / "missing.json")
    with pytest.raises(CadError, match="unknown CM model"):
        load_pronoun_model(p, "neural")


def test_score_class_equals_the_tables_own_score():
    table = ClassTable({"it-cop-fem-sing": {"elle": 0.5, "ce": 0.3, NONE: 0.2},
                        "it-cop-nonref": {"elle": 0.1, "ce": 0.6, NONE: 0.3}})
    mix = {"it-cop-fem-sing": 0.7, "it-cop-nonref": 0.3}
    dist = table.class_distribution(mix)
    for cls in ("elle", "ce", "il", NONE):
        for obj in ("likelihood", "credit"):
            assert score_class(dist, cls, obj, gender_shares(mix)) == pytest.approx(table.score(mix, cls, obj))
    assert score_class(dist, "elle", "credit") == pytest.approx(math.log(0.7 * 0.5 + 0.3 * 0.1))
    # il takes ce's similar credit in the 30% that is not feminine only
    assert table.score(mix, "il", "credit") == pytest.approx(math.log(0.3 * (0.7 * 0.3 + 0.3 * 0.6)))


def test_decoder_feature_reads_the_classifier(tmp_path):
    from test_cm_feature import tiny_model

    tiny_model(tmp_path, 2.0)          # writes base.ini, the phrase table and the LM
    data = [({"it-subj-fem-sing": 1.0}, "elle", 1.0, ["it", "sleeps"], 0),
            ({"it-subj-masc-sing": 1.0}, "il", 1.0, ["it", "sleeps"], 0)] * 20
    model = ClassifierCM.fit([features(t, i, m) for m, _, _, t, i in data], [d[1] for d in data],
                             [1.0] * len(data), C=10.0)
    model.save(tmp_path / "classifier.json")
    cfg = feature_config(tmp_path / "base.ini", tmp_path / "classifier.json", 2.0, "likelihood", "classifier")
    write_config(cfg, tmp_path / "clf.ini")
    assert next(f for f in parse_config(tmp_path / "clf.ini").features if f.name == FEATURE_NAME).args["model"] == \
        "classifier"
    dec = Decoder(DecoderModel.load(tmp_path / "clf.ini"))
    assert dec.translate("it sleeps").text == "il dort"
    tr = dec.translate("it sleeps", context={"pronouns": {0: {"it-subj-fem-sing": 1.0}}})
    assert tr.text == "elle dort"
    p = model.class_distribution({"it-subj-fem-sing": 1.0}, ["it", "sleeps"], 0)["elle"]
    assert tr.feature_dict()[FEATURE_NAME] == pytest.approx([math.log(p)])
    assert dec.translate("it sleeps", context={"pronouns": {0: {"it-subj-masc-sing": 1.0}}}).text == "il dort"
    # an unknown model kind on the feature line is refused, naming the file
    bad = tmp_path / "bad.ini"
    bad.write_text((tmp_path / "clf.ini").read_text().replace("model=classifier", "model=neural"))
    with pytest.raises(CadError, match="unknown model=neural") as e:
        DecoderModel.load(bad)
    assert "bad.ini" in str(e.value)


def test_reranker_reads_the_classifier():
    from cad.translate.rerank import ClassReranker, Hypothesis
    from coref.records import Candidate, PronounResolution

    data = [({"it-subj-fem-sing": 1.0}, "elle", 1.0, ["it", "sleeps", "."], 0),
            ({"it-subj-masc-sing": 1.0}, "il", 1.0, ["it", "sleeps", "."], 0)] * 20
    model = ClassifierCM.fit([features(t, i, m) for m, _, _, t, i in data], [d[1] for d in data],
                             [1.0] * len(data), C=10.0)
    src = [["the", "mouse", "runs", "."], ["it", "sleeps", "."]]
    first = [Hypothesis(["la", "souris", "court", "."], 0.0, [(0, 0), (1, 1), (2, 2), (3, 3)])]
    second = [Hypothesis(["il", "dort", "."], -1.0, [(0, 0), (1, 1), (2, 2)]),
              Hypothesis(["elle", "dort", "."], -1.5, [(0, 0), (1, 1), (2, 2)])]
    r = PronounResolution("d", 1, 0, "it", True, [Candidate(0, 0, 2, 1, "the mouse", 1.0)], 1.0)
    dist = model.class_distribution({"it-subj-fem-sing": 1.0}, src[1], 0)
    margin = math.log(dist["elle"]) - math.log(dist["il"])
    # elle wins iff w * margin > 0.5
    for w, expected in ((0.4 / margin, 0), (0.6 / margin, 1)):
        _, traces = ClassReranker(model, w).rerank_document([first, second], [r], src, roles={(1, 0): "subj"})
        assert traces[1].chosen == expected


def test_cli_config_and_translate_with_the_classifier(tmp_path, capsys):
    pytest.importorskip("spacy")
    from cad.cli import main
    from test_cm_feature import tiny_model

    tiny_model(tmp_path, 2.0)
    data = [({"it-subj-fem-sing": 1.0}, "elle", 1.0, ["it", "sleeps"], 0),
            ({"it-subj-masc-sing": 1.0}, "il", 1.0, ["it", "sleeps"], 0)] * 20
    ClassifierCM.fit([features(t, i, m) for m, _, _, t, i in data], [d[1] for d in data], [1.0] * len(data),
                     C=10.0).save(tmp_path / "classifier.json")
    assert main(["-q", "cm", "config", "--mode", "feature", "--cm-model", "classifier", "--base",
                 str(tmp_path / "base.ini"), "--cm", str(tmp_path / "classifier.json"), "--weight", "2",
                 "--objective", "likelihood", "--out", str(tmp_path / "clf.ini")]) == 0
    assert "model=classifier" in (tmp_path / "clf.ini").read_text()
    (tmp_path / "doc.en").write_text("the mouse runs\nit sleeps\nthe cat runs\nit sleeps\n")
    (tmp_path / "doc.docs").write_text("0\tmouse\n2\tcat\n")
    args = ["-q", "translate", "--input", str(tmp_path / "doc.en"), "--docs", str(tmp_path / "doc.docs"),
            "--out", str(tmp_path / "out")]
    assert main(args + ["--config", str(tmp_path / "clf.ini")]) == 0
    assert (tmp_path / "out").read_text() == "la souris court\nelle dort\nle chat court\nil dort\n"
    assert main(args + ["--config", str(tmp_path / "base.ini"), "--cm-mode", "rerank", "--cm-model", "classifier",
                        "--classes", str(tmp_path / "classifier.json"), "--cm-weight", "2"]) == 0
    assert (tmp_path / "out").read_text() == "la souris court\nelle dort\nle chat court\nil dort\n"
    capsys.readouterr()
    # the classifier is a pronoun model of the feature, not a back-off phrase table
    assert main(["-q", "cm", "config", "--cm-model", "classifier", "--base", str(tmp_path / "base.ini"),
                 "--cm", str(tmp_path / "classifier.json"), "--out", str(tmp_path / "x.ini")]) == 1
    assert "needs --mode feature" in capsys.readouterr().err
    assert not (tmp_path / "x.ini").exists()


def test_contrastive_scoring_reads_the_classifier_through_penalized_options(tmp_path):
    """Candidates the table cannot produce ("bien" is in no phrase) are reached by penalized options,
    not the fallback, and the classifier CM reads their pronoun: both items right."""
    pytest.importorskip("spacy")
    import json as _json

    from cad.experiments.contrastive import ContextScorer, read_suite, score_suite
    from coref.backends import get_backend
    from test_cm_feature import tiny_model

    tiny_model(tmp_path, 2.0)
    data = [({"it-subj-fem-sing": 1.0}, "elle", 1.0, ["it", "sleeps"], 0),
            ({"it-subj-masc-sing": 1.0}, "il", 1.0, ["it", "sleeps"], 0)] * 20
    ClassifierCM.fit([features(t, i, m) for m, _, _, t, i in data], [d[1] for d in data], [1.0] * len(data),
                     C=10.0).save(tmp_path / "classifier.json")
    write_config(feature_config(tmp_path / "base.ini", tmp_path / "classifier.json", 2.0, "likelihood",
                                "classifier"), tmp_path / "clf.ini")
    lines = [_json.dumps({"id": f"t{k}", "context": [{"source": src, "target": tgt}], "source": "it sleeps",
                          "targets": ["elle dort bien", "il dort bien"], "correct": k})
             for k, (src, tgt) in enumerate((("the mouse runs", "la souris court"), ("the cat runs", "le chat court")))]
    (tmp_path / "suite.jsonl").write_text("\n".join(lines) + "\n")
    results, summary = score_suite(ContextScorer(Decoder(DecoderModel.load(tmp_path / "clf.ini")),
                                                 get_backend("ranker")), read_suite(tmp_path / "suite.jsonl"))
    assert (summary["forced"], summary["fallback"], summary["penalized"]) == (2, 0, 2)
    assert summary["accuracy"] == 1.0
