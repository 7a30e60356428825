"""What `cad serve` translates with: everything `cad translate` loads for a run (the decoder's
model, the coreference resolver and its spaCy pipeline, the French tagger the CM feature reads,
the tokenizer, truecaser and detokenizer), loaded once, and one document translated at a time
exactly as `cad translate` translates it.

One lock around a whole document: the decoder, the resolver and the tagger keep state between
calls (caches, spaCy's pipelines), and a document's passes read each other's translations, so two
documents never interleave; the decoder is CPU-bound under the interpreter's lock anyway, so
translating two at once would not be faster.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from cad.core.errors import CadError
from cad.translate.stream import DocumentLines, InputDocument, document_lines, document_of

log = logging.getLogger(__name__)

# the warm-up document: a pronoun whose antecedent is in the sentence before, so that the first
# request pays for no pipeline loaded lazily (the resolver's spaCy, the French tagger)
WARM_UP = {"en": ["The mouse ran away .", "It was very fast ."], "es": ["La casa es grande .", "Es muy bonita ."]}
# backends that read their records from files made for one input, which a server has not
UNSERVED_BACKENDS = ("corzu", "gold")


@dataclass
class EngineSettings:
    """What `cad serve` was started with: the `cad translate` options a run would be given."""

    config: str
    system: str = "cm"
    mode: str = "feature"                   # the CM's mode as cad translate decides it (backoff | feature)
    src: str = "en"
    tgt: str = "fr"
    backend: str = "ranker"
    coref_model: str | None = None
    human_lexicon: str | None = None
    gender_lexicon: str | None = None
    humanness: bool = False
    truecase_model: str | None = None       # a file, or None: lowercase (unless `lowercase` is off)
    lowercase: bool = True                  # False: the decoder reads the input's case as it is
    engine: str = "native"
    search_algorithm: int = 1
    max_sentence_length: int = 0
    long_sentences: str = "split"
    source_features: bool = False           # Spanish: the CM's bundles come from the source side


@dataclass
class Served:
    """One document's translation, line for line with the input: the output lines, the decoder's
    tokens, the word alignments (Moses i-j), the trace records (as `cad translate --trace` writes
    them) and the source tokens the alignments and the trace index."""

    lines: DocumentLines
    source_tokens: list[list[str]]
    seconds: float
    # per line, its phrases as mosesserver's "align" gives them: (target start, source start, source
    # end inclusive), numbered within the line
    phrases: list[list[tuple[int, int, int]]] = field(default_factory=list)


class Engine:
    """The loaded configuration; `translate` is safe to call from any thread."""

    def __init__(self, settings: EngineSettings):
        if settings.backend in UNSERVED_BACKENDS:
            raise CadError(f"--backend {settings.backend} reads records made for one input file: a server "
                           f"resolves each document itself (use ranker, sieve or coreferee)")
        self.settings = settings
        self._lock = threading.Lock()
        t = time.time()
        self._tokenize = _tokenizer(settings.src)
        self._truecase = _truecaser(settings)
        self._finish_raw = _finisher(settings)
        self.resolver = _resolver(settings)
        self.feature_mode = settings.system == "cm" and settings.mode == "feature" and not settings.source_features
        from cad.lang.pairs import pair

        self.pair = pair(settings.src, settings.tgt)
        if self.feature_mode:
            self.pair.target.morphology().load()
        self.decoder = _decoder(settings)
        self.translate(WARM_UP.get(settings.src, WARM_UP["en"]), raw=False)
        log.info("%s loaded in %.1f s", settings.config, time.time() - t)

    def translate(self, lines: list[str], raw: bool) -> Served:
        """One document, one sentence a line (`raw`: text to tokenize, output detokenized), as
        `cad translate [--raw]` translates it."""
        doc = document_of(0, "0", lines, 0, self._tokenize if raw else None, self.settings.max_sentence_length,
                          self.settings.long_sentences, "request")
        with self._lock:
            t = time.time()
            outputs, alignments, traces, translations = self._translate(doc)
            seconds = time.time() - t
        got = document_lines(doc, outputs, alignments, traces, self._finish_raw if raw else " ".join)
        return Served(got, [line.tokens for line in doc.lines], seconds, line_phrases(doc, translations))

    def close(self) -> None:
        """Nothing to end: the engine lives in this process (cad/serve/workers.py's do not)."""

    def _translate(self, doc: InputDocument):
        from cad.translate.analysis import Analysis, analyse, onto_tokens
        from cad.translate.morphology import TranslationMorphology
        from cad.translate.translator import DocumentTranslator

        if not doc.segments:
            return [], [], [], []
        sents = [self._truecase(s) for s in doc.segments] if self._truecase else doc.segments
        # coreference reads the segments as written, the decoder in its model's case (cad translate)
        an = analyse(self.resolver, doc.key, doc.segments, self.feature_mode, self.pair) \
            if self.resolver is not None else Analysis([])
        s = self.settings
        # a translator per document: its morphology caches this document's translations only
        translator = DocumentTranslator(self.decoder, s.system, s.mode,
                                        with_human=s.humanness, trace=True,
                                        morphology=TranslationMorphology(None, self.pair), pair=self.pair)
        result = translator.translate_document(doc.key, sents, onto_tokens(an.records, sents, doc.key), an.roles)
        return result.outputs, result.alignments, result.traces, result.translations or []


def line_phrases(doc: InputDocument, translations) -> list[list[tuple[int, int, int]]]:
    """Each line's phrases from its segments' derivations, shifted as document_lines shifts the
    segments' words (a line passed through is one phrase a word)."""
    out: list[list[tuple[int, int, int]]] = [[] for _ in doc.lines]
    shift = [0] * len(doc.lines)
    for (line, start), tr in zip(doc.origin, translations):
        for st in tr.best.steps:
            out[line].append((st.tgt_start + shift[line], st.src_start + start, st.src_end - 1 + start))
        shift[line] += len(tr.best.words)
    for k, line in enumerate(doc.lines):
        if line.pieces == []:
            out[k] = [(i, i, i) for i in range(len(line.tokens))]
    return out


def _tokenizer(src: str):
    from cad.corpus.prepare import Tokenizer, clean_tokens

    tok = Tokenizer(src)
    return lambda line: clean_tokens(tok(line))


def _truecaser(s: EngineSettings):
    if not s.lowercase:
        return None
    if s.truecase_model is None:
        return lambda sent: [t.lower() for t in sent]
    from cad.corpus.truecase import Truecaser

    return Truecaser(s.truecase_model).truecase


def _finisher(s: EngineSettings):
    """--raw's post-processing of an output line's words, as cad translate's."""
    from sacremoses import MosesDetokenizer

    from cad.corpus.truecase import detruecase

    md = MosesDetokenizer(lang=s.tgt)
    return (lambda w: md.detokenize(detruecase(w))) if s.truecase_model is not None and s.lowercase \
        else md.detokenize


def _resolver(s: EngineSettings):
    """The backend's resolver, made once; every system traces its pronouns (the page's cards), so
    even the baseline has one, as `cad translate --system baseline --trace` does."""
    from coref.backends import get_backend

    return get_backend(s.backend, model=s.coref_model, human_lexicon=s.human_lexicon,
                       gender_lexicon=s.gender_lexicon)


def _decoder(s: EngineSettings):
    """cad's decoder on the whole model: a server does not know its input in advance, so nothing is
    filtered (binary tables are read on demand; text tables are read whole, once). Filtering
    leaves the output as it is: the table limit is applied per source phrase either way."""
    import cad.cm.feature  # noqa: F401  (registers the CoreferenceModel feature the configuration may name)
    from cad.decoder import Decoder, DecoderModel, SearchSettings
    from cad.decoder.native import engine_is_native

    model = DecoderModel.load(s.config, settings=SearchSettings(search_algorithm=s.search_algorithm))
    return Decoder(model, native=engine_is_native(s.engine))
