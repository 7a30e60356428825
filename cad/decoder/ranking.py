"""The table limit's ranking of a text phrase table's entries in the compiled core.

Moses keeps the `table-limit` best entries of each source phrase by their context-free future
score: the table's weighted scores, the word and phrase penalties, and each LM's estimate of the
target words. cad does so the first time a phrase is asked for (cad/decoder/options.py,
`_limit_entries`), and with a large table a common phrase has thousands of entries, each of which
Python parsed, scored and LM-estimated to keep twenty: most of a sentence's time.

Here the core (`Core.limit_candidates`, cad/decoder/_core.cpp) reads the phrase's entries as the
table keeps them and computes the same sums, and only the entries within a hair (MARGIN, relative)
of the limit-th best reach Python, which scores and sorts them as before. Whatever the rounding of
the core's sums, they are the entries the Python sort keeps, in the same order: each is within
MARGIN of its Python score, so every entry Python keeps is among them, and the ones left out score
below the limit-th in Python too. The result is the same options, floats and order.

The core makes the LM estimates best stateless sum first and word by word, and leaves an entry
once it cannot reach the limit-th best so far: an LM score is a log probability, at most 0, so
under LM weights of at least 0 the words left can only lower an entry's future (with a negative
weight every word is estimated; a score above 0, which no normalized LM gives, leaves the phrase
to Python). On the large model this skips most of a common phrase's LM calls.

The ranking is used where the core runs and knows every term of the future score: the stateless
features below (PhraseScores, WordPenalty, PhrasePenalty, UnknownWordPenalty) and stateful ones
whose estimate is nothing or a KENLM feature's (the core reads the same LMs). Any other feature,
a binary table (read one phrase at a time already) or the Python engine scores every entry in
Python.
"""

from __future__ import annotations

from cad.decoder.features import PhrasePenalty, PhraseScores, UnknownWordPenalty, WordPenalty
from cad.decoder.model import DecoderModel
from cad.decoder.registry import native_kind
from cad.decoder.stateful import NATIVE_LM, KenLMFeature, StatefulFeature
from cad.decoder.tables import _TextEntries

# the core's sums are within about 1e-15 of Python's (the same operations, in the same order):
# far above that, far below any difference of scores that matters
MARGIN = 1e-9
TABLE, WORDS, ONE = 0, 1, 2         # Core.limit_candidates's stateless terms


class Ranking:
    """The table limit's candidates of a model's text tables, computed by `core`."""

    def __init__(self, core, model: DecoderModel):
        self.core, self.model = core, model
        self._terms: dict[tuple, tuple[list, list] | None] = {}

    def entries(self, t: int, src: str) -> list | None:
        """Table `t`'s entries for `src` that its table limit may keep (tables.py's entries, as
        `table.entries.get(src)` gives them, without the ones no ranking would keep), or None."""
        table = self.model.tables[t]
        entries = table.entries
        text = entries.text(src) if isinstance(entries, _TextEntries) else None
        terms = self.terms(t) if text is not None else None
        if terms is None:
            return entries.get(src)
        lines = self.core.limit_candidates(text, table.num_scores, terms[0], terms[1], table.table_limit, MARGIN)
        return entries.get(src) if lines is None else entries.parse(lines)

    def terms(self, t: int) -> tuple[list, list] | None:
        """(stateless terms, LM terms) of table `t`'s future scores under the current weights, in
        options.py's _score order, or None where a feature is not one the core computes."""
        m = self.model
        key = (t, tuple(m.weights()), tuple(tuple(f.weights) for f in m.stateful))
        if key not in self._terms:
            if len(self._terms) >= 16:
                self._terms.clear()
            self._terms[key] = _terms_of(m, t)
        return self._terms[key]


def _terms_of(m: DecoderModel, t: int) -> tuple[list, list] | None:
    stateless = []
    for f in m.stateless:
        if f.reads_context:
            continue            # not in a template's score (options.py, with_context=False)
        kind = type(f)
        if kind is PhraseScores:
            if f.table_index == t:
                stateless.append((TABLE, list(f.slot.weights)))
        elif kind is WordPenalty:
            stateless.append((WORDS, list(f.slot.weights)))
        elif kind is PhrasePenalty:
            stateless.append((ONE, list(f.slot.weights)))
        elif kind is not UnknownWordPenalty:         # nothing for a table's entry
            return None
    lms = []
    k = 0               # the core's k-th LM is the k-th LM feature's
    for f in m.stateful:
        if native_kind(f) == NATIVE_LM:
            if type(f).estimate is not KenLMFeature.estimate:
                return None
            lms.append((k, f.weights[0]))
            k += 1
        elif type(f).estimate is not StatefulFeature.estimate:
            return None
    return stateless, lms
