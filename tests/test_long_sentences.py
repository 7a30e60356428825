"""Long sentences: the compiled core searches them in its coverage window (any length under a
distortion limit), with the future-cost table in a band plus the suffixes, and gives the Python
search's result; its hypotheses are compacted as the search goes."""

import random

import pytest

from cad.decoder import Decoder, DecoderModel, native
from cad.decoder.model import SearchSettings
from cad.decoder.options import EXACT_WORDS, NEG_INF, collect_options, future_costs
from decoder_fixtures import SRC_VOCAB, random_model


def _same(a, b):
    assert a.text == b.text and a.best.total == b.best.total and a.best.features == b.best.features
    assert a.best.word_alignment == b.best.word_alignment
    assert [(d.text, d.total, d.features) for d in a.nbest] == [(d.text, d.total, d.features) for d in b.nbest]


def _cubic(n, options):
    """The whole table by Moses's recursion over every split point."""
    fc = [[NEG_INF] * (n + 1) for _ in range(n + 1)]
    for (s, e), opts in options.items():
        fc[s][e] = max(fc[s][e], opts[0].future)
    for length in range(2, n + 1):
        for s in range(0, n - length + 1):
            e = s + length
            fc[s][e] = max([fc[s][e]] + [fc[s][k] + fc[k][e] for k in range(s + 1, e)])
    return fc


@pytest.mark.skipif(not native.available(), reason="the compiled core is not built")
@pytest.mark.parametrize("algorithm", [0, 1])
def test_a_sentence_longer_than_the_window_gives_the_python_search_result(tmp_path, algorithm):
    ini, _ = random_model(tmp_path, 11, distortion_limit=4)
    rng = random.Random(3)
    sentence = " ".join(rng.choice(SRC_VOCAB) for _ in range(600))
    settings = SearchSettings(search_algorithm=algorithm, stack=30, pop_limit=60)
    model = DecoderModel.load(ini, settings=settings)
    fast, slow = Decoder(model), Decoder(model, native=False)
    core = fast._core()
    core.set_collect_at(5000)           # compact the hypotheses many times over
    assert native.fits(600, collect_options(model, sentence.split()), 4)
    _same(fast.translate(sentence, nbest=3), slow.translate(sentence, nbest=3))
    assert core.collections > 0
    _same(fast.translate(sentence), slow.translate(sentence))


def test_future_costs_of_a_long_sentence(tmp_path):
    """Up to EXACT_WORDS words the whole table of the cubic recursion, the same floats; beyond,
    the band's spans are the recursion's values and each suffix its maximum (the sums may be
    associated otherwise)."""
    ini, _ = random_model(tmp_path, 12, distortion_limit=3)
    model = DecoderModel.load(ini)
    rng = random.Random(5)
    for n in (40, EXACT_WORDS + 30):
        tokens = [rng.choice(SRC_VOCAB + ["unknown"]) for _ in range(n)]
        options = collect_options(model, tokens)
        exact, fc = _cubic(n, options), future_costs(n, options, 3)
        for s in range(n):
            for e in range(s + 1, min(n, s + fc.band) + 1):
                assert fc(s, e) == exact[s][e]
            assert fc(s, n) == pytest.approx(exact[s][n], abs=1e-9)
        if n <= EXACT_WORDS:
            assert all(fc(s, e) == exact[s][e] for s in range(n) for e in range(s + 1, n + 1))
        else:
            with pytest.raises(ValueError):
                fc(0, fc.band + 1)


@pytest.mark.skipif(not native.available(), reason="the compiled core is not built")
def test_without_a_distortion_limit_a_long_sentence_goes_to_python(tmp_path):
    ini, _ = random_model(tmp_path, 13, distortion_limit=-1)
    model = DecoderModel.load(ini)
    options = collect_options(model, ["a"] * 300)
    assert not native.fits(300, options, -1) and native.fits(256, options, -1)
