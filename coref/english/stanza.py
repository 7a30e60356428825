"""The stanza backend: stanza's neural English coreference chains, each pronoun's antecedent the
last mention of its chain before it (no probabilities: one candidate)."""

from __future__ import annotations

from cad.core.errors import CadError
from coref.backends import Backend, BackendOptions
from coref.records import Candidate, PronounResolution


class StanzaResolver(Backend):
    """stanza's neural coreference (optional extra: `pip install -e '.[stanza]'`, torch==2.13.0)."""

    @classmethod
    def from_options(cls, options: BackendOptions) -> StanzaResolver:
        return cls(options.pronouns)

    def __init__(self, pronouns=("it", "they")):
        try:
            import stanza      # an optional extra that brings torch: loaded only for this backend
        except ImportError:
            raise CadError("the stanza backend is an optional extra: pip install -e '.[stanza]' "
                           "(it needs torch==2.13.0)") from None
        try:
            self.nlp = stanza.Pipeline("en", processors="tokenize,pos,lemma,depparse,coref",
                                       tokenize_pretokenized=True, download_method=None, verbose=False)
        except Exception as exc:   # stanza raises several kinds for missing resources
            raise CadError(f"stanza's English coreference models are not installed ({exc}); download them "
                           "with stanza.download('en', processors='coref') where a network is available") from None
        self.pronouns = pronouns

    def resolve(self, doc_id: str, sentences: list[list[str]]) -> list[PronounResolution]:
        doc = self.nlp(sentences)
        out = []
        chains_of: dict[tuple[int, int], list] = {}
        for chain in doc.coref:
            for m in chain.mentions:
                for w in range(m.start_word, m.end_word):
                    chains_of.setdefault((m.sentence, w), []).append(chain)
        for k, s in enumerate(sentences):
            for i, t in enumerate(s):
                if t.lower() not in self.pronouns:
                    continue
                rec = PronounResolution(doc_id, k, i, t, referential=False)
                for chain in chains_of.get((k, i), []):
                    before = [m for m in chain.mentions if (m.sentence, m.end_word) <= (k, i)]
                    if before:
                        m = before[-1]
                        rec.referential = True
                        rec.candidates = [Candidate(m.sentence, m.start_word, m.end_word, m.end_word - 1,
                                                    " ".join(sentences[m.sentence][m.start_word:m.end_word]), 1.0)]
                out.append(rec)
        return out
