"""The coreferee backend: coreferee's own candidate scores, not only its chosen chains.

coreferee scores every (anaphor, candidate) pair with its neural ensemble, sorts the candidates
and then keeps one. cad wraps the scoring step to read those scores before they are discarded,
and turns them into probabilities with seed 003's rule.
"""

from __future__ import annotations

from cad.core.errors import CadError
from cad.downloads.spacy_models import load_spacy
from coref.backends import Backend, BackendOptions
from coref.english.train_coreferee import installed, make_importable
from coref.records import Candidate, PronounResolution, keep_likely


class CorefereeResolver(Backend):
    @classmethod
    def from_options(cls, options: BackendOptions) -> CorefereeResolver:
        return cls(options.pronouns)

    def __init__(self, pronouns: tuple[str, ...] = ("it", "they")):
        make_importable()
        if not installed():
            raise CadError("no coreferee English model installed: run `make coref-model` (trains it from "
                           "../shared/data/coref) or `python -m coref.english.train_coreferee --install PATH`")
        import coreferee  # noqa: F401  -- registers the pipeline factory; optional, so loaded here

        self.nlp = load_spacy()
        broker = self.nlp.add_pipe("coreferee")
        self.pronouns = pronouns
        self._scores: dict[int, list[tuple[list[int], int, float]]] = {}
        analyzer = broker.annotator.tendencies_analyzer
        original = analyzer.score

        def capture(doc, ensemble):
            original(doc, ensemble)
            self._scores = {}
            for tok in doc:
                holder = tok._.coref_chains
                refs = getattr(holder, "temp_potential_referreds", None) if holder is not None else None
                if refs:
                    self._scores[tok.i] = [(list(m.token_indexes), m.root_index, float(getattr(m, "temp_score", 0.0)))
                                           for m in refs]

        analyzer.score = capture

    def resolve(self, doc_id: str, sentences: list[list[str]]) -> list[PronounResolution]:
        from spacy.tokens import Doc      # spaCy, like coreferee, loads only when this backend is built

        words = [t for s in sentences for t in s]
        starts = []
        where = []
        for k, s in enumerate(sentences):
            starts.extend([True] + [False] * (len(s) - 1))
            where.extend((k, i) for i in range(len(s)))
        if not words:
            return []
        doc = Doc(self.nlp.vocab, words=words, sent_starts=starts)
        self._scores = {}
        for _, proc in self.nlp.pipeline:
            doc = proc(doc)
        out = []
        for tok in doc:
            if tok.lower_ not in self.pronouns:
                continue
            k, i = where[tok.i]
            rec = PronounResolution(doc_id, k, i, tok.text, referential=False)
            scored = []
            for token_indexes, root, score in self._scores.get(tok.i, []):
                cs, ci = where[min(token_indexes)]
                ce = where[max(token_indexes)][1] + 1 if where[max(token_indexes)][0] == cs else len(sentences[cs])
                head = doc[root]
                number = "plur" if (head.tag_ in ("NNS", "NNPS") or len(token_indexes) > 1) else "sing"
                human = True if head.ent_type_ == "PERSON" else None
                scored.append((Candidate(cs, ci, ce, where[root][1], " ".join(words[x] for x in token_indexes),
                                         score, number, human), max(score, 0.0)))
            if scored:
                rec.candidates = keep_likely(scored)
                rec.referential = True
            out.append(rec)
        return out
