"""One Translation for a line the decoder did not translate whole (cad/core/segments.py): the
pieces' translations joined in order (words, steps and alignments shifted, feature values and
totals added), or the line copied through as it is (each word aligned to itself, no score)."""

from __future__ import annotations

from cad.decoder.search import Derivation, Step, Translation


def joined(tokens: list[str], parts: list[Translation], spans: list[tuple[int, int]]) -> Translation:
    """The 1-best translations of the pieces `spans` of `tokens`, joined; its n-best list (when
    the pieces have one) is that joined 1-best alone."""
    words: list[str] = []
    steps: list[Step] = []
    features = [0.0] * len(parts[0].best.features)
    total = 0.0
    for tr, (start, _) in zip(parts, spans):
        d = tr.best
        for st in d.steps:
            steps.append(Step(st.src_start + start, st.src_end + start, st.tgt_start + len(words),
                              st.tgt_end + len(words), st.words, st.table, st.alignment, st.twin))
        words.extend(d.words)
        features = [a + b for a, b in zip(features, d.features)]
        total += d.total
    best = Derivation(words, total, features, steps)
    return Translation(list(tokens), best, [best] if any(tr.nbest for tr in parts) else [], parts[0].feature_names)


def copied(tokens: list[str], template: Translation, nbest: bool) -> Translation:
    """The line itself as its translation: each word aligned to itself, every feature 0."""
    size = sum(n for _, _, n in template.feature_names)
    best = Derivation(list(tokens), 0.0, [0.0] * size, [Step(i, i + 1, i, i + 1, (w,), -1, ((0, 0),))
                                                        for i, w in enumerate(tokens)])
    return Translation(list(tokens), best, [best] if nbest else [], template.feature_names)
