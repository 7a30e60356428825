"""The table limit's ranking in the compiled core (cad/decoder/ranking.py): the same options as
Python's sort of every entry, whatever the limit, the ties and the scores."""

import random

import pytest

from cad.decoder import native
from cad.decoder.model import DecoderModel, SearchSettings
from cad.decoder.options import sentence_options
from cad.decoder.ranking import MARGIN, Ranking
from cad.decoder.search import Decoder
from cad.lm.arpa import write_arpa
from cad.lm.kneser_ney import estimate
from cad.moses.ini import add_lm, baseline_config, write_config

from conftest import write

pytestmark = pytest.mark.skipif(not native.available(), reason="the compiled core is not built")

TGT = ["x", "y", "z", "w", "v", "u", "never-seen"]
# few values, so that many entries tie; 0 and 1e-50 fall to Moses's floor of -100
SCORES = ["0.5", "0.25", "1", "0.125", "0", "1e-50", "3.5e-2", "0.5000001"]


def ranked_model(tmp_path, seed: int, table_limit: int, lms: int = 2, lm_weight: float = 0.3):
    rng = random.Random(seed)
    sources = ["a", "b", "c", "a b", "b c", "a b c"]
    pt, ro = [], []
    for src in sources:
        for k in range(rng.randint(1, 60)):
            tgt = " ".join(rng.choice(TGT) for _ in range(rng.randint(1, 3))) + f" t{k % 7}"
            scores = " ".join(rng.choice(SCORES) for _ in range(4))
            pt.append(f"{src} ||| {tgt} ||| {scores} ||| 0-0")
            ro.append(f"{src} ||| {tgt} ||| " + " ".join(rng.choice(SCORES[:4]) for _ in range(6)))
    write(tmp_path / "pt", "\n".join(pt) + "\n")
    write(tmp_path / "ro", "\n".join(ro) + "\n")
    cfg = baseline_config(str(tmp_path / "pt"), str(tmp_path / "ro"), str(tmp_path / "lm0.arpa"), 3,
                          table_limit=table_limit, distortion_limit=6)
    for k in range(lms):
        text = [[rng.choice(TGT[:-1] + [f"t{j}" for j in range(7)]) for _ in range(rng.randint(2, 7))]
                for _ in range(60)]
        write_arpa(estimate(text, 3), tmp_path / f"lm{k}.arpa")
        if k:
            add_lm(cfg, str(tmp_path / f"lm{k}.arpa"), 3)
    cfg.weights["LM1"] = [lm_weight]
    write_config(cfg, tmp_path / "moses.ini")
    return tmp_path / "moses.ini"


def _fields(opts):
    return [(o.words, o.scores, o.stateless, o.future, o.values, o.reordering, o.alignment) for o in opts]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("limit", [1, 2, 5, 20, 0])
@pytest.mark.parametrize("lm_weight", [0.3, -0.4])
def test_the_core_ranking_gives_python_options(tmp_path, seed, limit, lm_weight):
    """With LM weights of at least 0 the core leaves unestimated the entries whose stateless sum
    is already below the limit-th best; a negative weight estimates every entry."""
    ini = ranked_model(tmp_path, seed, limit, lm_weight=lm_weight)
    fast, slow = DecoderModel.load(ini), DecoderModel.load(ini)
    decoder = Decoder(fast)
    ranking = decoder._ranker()
    assert ranking is not None and ranking.terms(0) is not None
    for sent in ["a b c", "c b a", "a a b c b"]:
        got = sentence_options(fast, sent.split(), ranking=ranking).raw
        want = sentence_options(slow, sent.split()).raw
        assert got.keys() == want.keys()
        for span in want:
            assert _fields(got[span]) == _fields(want[span]), span


def test_the_core_ranking_decodes_as_python(tmp_path):
    ini = ranked_model(tmp_path, 7, 3)
    settings = SearchSettings(search_algorithm=1)
    fast, slow = Decoder(DecoderModel.load(ini, settings=settings)), \
        Decoder(DecoderModel.load(ini, settings=settings), native=False)
    assert fast._ranker() is not None and slow._ranker() is None
    for sent in ["a b c", "c b a b", "b a c a"]:
        a, b = fast.translate(sent, nbest=5), slow.translate(sent, nbest=5)
        assert a.text == b.text and a.best.total == b.best.total and a.best.features == b.best.features
        assert [(d.text, d.total) for d in a.nbest] == [(d.text, d.total) for d in b.nbest]


def test_candidates_hold_every_entry_the_limit_keeps_and_ties(tmp_path):
    ini = ranked_model(tmp_path, 4, 2)
    model = DecoderModel.load(ini)
    ranking = Decoder(model)._ranker()
    table = model.tables[0]
    lines = ["x ||| 0.5 0.5 0.5 0.5 ||| 0-0", "y ||| 0.9 0.9 0.9 0.9 ||| 0-0", "x ||| 0.5 0.5 0.5 0.5 ||| 0-0",
             "z ||| 0.1 0.1 0.1 0.1 ||| 0-0", "x ||| 0.5 0.5 0.5 0.5 ||| 0-0"]
    stateless, lms = ranking.terms(0)
    got = ranking.core.limit_candidates("\n".join(lines), 4, stateless, lms, 2, MARGIN)
    assert got == [lines[k] for k in (0, 1, 2, 4)]      # "y", and the three equal "x" tied for the second place
    # nothing to leave out, no limit, or a score the core does not read itself: Python ranks
    assert ranking.core.limit_candidates("\n".join(lines[:2]), 4, stateless, lms, 2, MARGIN) is None
    assert ranking.core.limit_candidates("\n".join(lines), 4, stateless, lms, 0, MARGIN) is None
    odd = lines + ["u ||| 1_0 0.5 0.5 0.5 ||| 0-0"]
    assert ranking.core.limit_candidates("\n".join(odd), 4, stateless, lms, 2, MARGIN) is None
    assert ranking.core.limit_candidates("\n".join(lines), 4, stateless, lms, 2, MARGIN) is not None
    assert table.num_scores == 4


def test_the_ranking_steps_aside_for_a_feature_it_does_not_know(tmp_path):
    ini = ranked_model(tmp_path, 5, 2)
    model = DecoderModel.load(ini)
    ranking = Ranking(Decoder(model)._core(), model)
    assert ranking.terms(0) is not None
    penalty = next(f for f in model.stateless if type(f).__name__ == "WordPenalty")

    class Other(type(penalty)):         # may score otherwise than the core computes
        pass

    penalty.__class__ = Other
    ranking = Ranking(ranking.core, model)
    assert ranking.terms(0) is None
    slow = DecoderModel.load(ini)
    for sent in ["a b c", "b c a"]:
        got = sentence_options(model, sent.split(), ranking=ranking).raw
        assert _fields(sum(got.values(), [])) == _fields(sum(sentence_options(slow, sent.split()).raw.values(), []))
