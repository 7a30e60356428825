"""One interface over the coreference backends: `resolve(doc_id, sentences) -> [PronounResolution]`."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from cad.core.errors import CadError
from coref.records import PronounResolution, read_jsonl

BACKENDS = ("ranker", "sieve", "coreferee", "gold", "stanza", "corzu", "spanish")
DEFAULT_BACKEND = "ranker"
log = logging.getLogger(__name__)


class GoldResolver:
    """Oracle links from gold annotation: an MMAX2 directory (ParCorFull) or CoNLL/brat files (LitBank).
    Each input document is matched with the gold document whose text it shares."""

    def __init__(self, gold: str | os.PathLike, pronouns=("it", "they")):
        from coref.gold.brat import read_brat
        from coref.gold.conll import read_conll
        from coref.gold.mmax import list_mmax, read_mmax

        g = Path(gold)
        if not g.exists():
            raise CadError("gold annotation not found", str(g))
        if g.is_dir() and list_mmax(g):
            self.docs = [read_mmax(g, n) for n in list_mmax(g)]
        elif g.is_dir():
            self.docs = [d for f in sorted(g.glob("*.conll")) for d in read_conll(f)]
            self.docs += [read_brat(f) for f in sorted(g.glob("*.ann"))]
        elif g.suffix == ".conll":
            self.docs = read_conll(g)
        elif g.suffix == ".ann":
            self.docs = [read_brat(g)]
        else:
            raise CadError("expected an MMAX2 directory, .conll or .ann files", str(g))
        if not self.docs:
            raise CadError("no gold document found", str(g))
        self.pronouns = pronouns

    def match(self, sentences: list[list[str]]):
        import difflib

        text = "".join(t for s in sentences[:3] for t in s).lower()
        return max(self.docs, key=lambda d: sum(b.size for b in difflib.SequenceMatcher(
            None, text, "".join(d.tokens[:len(text)]).lower(), autojunk=False).get_matching_blocks()))

    def resolve(self, doc_id: str, sentences: list[list[str]]) -> list[PronounResolution]:
        from coref.gold.oracle import resolve_with_gold

        return resolve_with_gold(self.match(sentences), sentences, doc_id, self.pronouns)


class StanzaResolver:
    """stanza's neural coreference (optional extra: `pip install -e '.[stanza]'`, torch==2.13.0)."""

    def __init__(self, pronouns=("it", "they")):
        try:
            import stanza
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
        from coref.records import Candidate

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


def get_backend(name: str, gold: str | None = None, pronouns=("it", "they"), model: str | None = None,
                corzu: str | None = None, docs: str | None = None, n_lines: int | None = None,
                human_lexicon: str | None = None, gender_lexicon: str | None = None):
    """A resolver by name; `model` is the ranker's model file (default: the one shipped with cad).
    `corzu` (Spanish): CorZu's records for a text of `n_lines` lines split into documents by `docs`;
    `human_lexicon`: a learned human-noun lexicon (cad/lang/humanness.py) for the candidates' humanness;
    `gender_lexicon`: the learned gender of person names (cad/lang/name_gender.py).
    `spanish`: the native Spanish resolver (coref/spanish/ranker.py) for text without CorZu's output."""
    if name == "spanish":
        from coref.spanish.ranker import SpanishResolver

        # the lexicon stored with the model unless another is named
        return SpanishResolver(model, lexicon=human_lexicon or "model", genders=gender_lexicon)
    if name == "corzu":
        from coref.spanish.corzu import CorzuResolver

        if not corzu or not docs or n_lines is None:
            raise CadError("the corzu backend needs --corzu RECORDS and --docs (the text's document boundaries)")
        from cad.lang.humanness import HumanLexicon
        from cad.lang.name_gender import GenderLexicon

        return CorzuResolver(corzu, docs, n_lines, lexicon=HumanLexicon.load(human_lexicon) if human_lexicon else None,
                             genders=GenderLexicon.load(gender_lexicon) if gender_lexicon else None)
    if name == "ranker":
        from coref.english.ranker import RankerResolver

        return RankerResolver(model, pronouns=pronouns)
    if name == "sieve":
        from coref.english.sieve import SieveResolver

        return SieveResolver(pronouns=pronouns)
    if name == "coreferee":
        from coref.english.coreferee import CorefereeResolver

        return CorefereeResolver(pronouns)
    if name == "gold":
        if not gold:
            raise CadError("the gold backend needs --gold (an MMAX2 directory, .conll or .ann files)")
        return GoldResolver(gold, pronouns)
    if name == "stanza":
        return StanzaResolver(pronouns)
    raise CadError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")


def documents(text: str | os.PathLike, docs: str | os.PathLike | None) -> list[tuple[str, list[list[str]]]]:
    """Split a tokenized text (one sentence a line) into documents by a .docs file."""
    from cad.core.docs import read_docs
    from cad.core.textio import read_lines

    lines = [line.split() for line in read_lines(text)]
    for lineno, toks in enumerate(lines, 1):
        if not toks:
            raise CadError("empty line: every line must be a sentence", str(text), lineno)
    if docs is None:
        return [("0", lines)]
    starts = read_docs(docs, len(lines))
    bounds = [d.first_line for d in starts] + [len(lines)]
    return [(str(k), lines[bounds[k]:bounds[k + 1]]) for k in range(len(starts))]


def resolve_documents(backend, docs) -> list[PronounResolution]:
    out = []
    for doc_id, sents in docs:
        out.extend(backend.resolve(doc_id, sents))
    return out


def records_by_doc(path: str, docs_list) -> list:
    """The records of `path` per document of `docs_list`, matched by document index (as `cad
    coref` and `cad coref-eval` name them); a document the file does not cover is resolved by the
    shipped ranker."""
    by_doc: dict[str, list] = {}
    for r in read_jsonl(path):
        by_doc.setdefault(r.doc, []).append(r)
    out = []
    shipped = None
    for d, (doc_id, sents) in enumerate(docs_list):
        recs = by_doc.get(str(d))
        if recs is None:
            log.info("document %s: no record in %s, resolved by the shipped ranker", doc_id, path)
            shipped = shipped or get_backend("ranker")
            recs = shipped.resolve(doc_id, sents)
        for r in recs:
            if r.sentence >= len(sents) or r.index >= len(sents[r.sentence]):
                raise CadError(f"record at sentence {r.sentence}, token {r.index} is outside document {doc_id}", path)
        out.append(recs)
    return out
