"""A search's output: the derivations (phrases in target order, feature values, total score) of
one translated sentence (cad/decoder/search.py; read by nbest, serialize and the translators)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Step:
    """One phrase of a translation, in target order."""

    src_start: int
    src_end: int
    tgt_start: int
    tgt_end: int
    words: tuple[str, ...]
    table: int
    alignment: tuple[tuple[int, int], ...]
    twin: bool = False      # a real phrase pair's scores under its words' other-gender twins (forced decoding)


@dataclass
class Derivation:
    words: list[str]
    total: float
    features: list[float]
    steps: list[Step]
    # a word alignment given whole (a real Moses's -alignment-output-file) instead of per phrase
    given_alignment: list[tuple[int, int]] | None = None

    @property
    def text(self) -> str:
        return " ".join(self.words)

    # the alignment computed once for the steps and given alignment it was computed from: the
    # translators read it once per pronoun candidate, which made a 4,000-word line quadratic
    _alignment: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def word_alignment(self) -> list[tuple[int, int]]:
        """Source-target word alignment from the phrase-internal alignments, in target order (by
        target, then source position: the phrases follow each other on the target side). One
        given whole (by a real Moses, which prints each phrase's points by source position) is
        put in the same order, so that either decoder's alignment reads the same. A new list
        each time (callers may change theirs)."""
        key = (id(self.given_alignment), id(self.steps), len(self.steps))
        if self._alignment is None or self._alignment[0] != key:
            self._alignment = (key, self._word_alignment())
        return list(self._alignment[1])

    def _word_alignment(self) -> list[tuple[int, int]]:
        if self.given_alignment is not None:
            return sorted(self.given_alignment, key=lambda p: (p[1], p[0]))
        out = []
        for st in self.steps:
            for s, t in sorted(st.alignment, key=lambda p: (p[1], p[0])):
                out.append((st.src_start + s, st.tgt_start + t))
        return out


@dataclass
class Translation:
    source: list[str]
    best: Derivation
    nbest: list[Derivation] = field(default_factory=list)
    feature_names: list[tuple[str, int, int]] = field(default_factory=list)   # (name, offset, size)

    @property
    def text(self) -> str:
        return self.best.text

    def feature_dict(self, d: Derivation | None = None) -> dict[str, list[float]]:
        d = d or self.best
        return {name: d.features[o:o + n] for name, o, n in self.feature_names}
