"""Seed 004's coreference-aware translation with the CM as back-off table (§4): per document,
sentences are translated in order. A pronoun whose antecedent lies in an earlier sentence is
replaced by the feature token read from that sentence's translation (decoder word alignment +
the target's morphology of the antecedent's translation, from the language pair); for an antecedent
in the same sentence, the sentence is translated once, the antecedent's translation read, the token substituted, and the
sentence translated again. Pronouns without a nominal antecedent go through the default table.
Feature tokens are unknown to the default table, so the decoder's back-off path sends them to
the CM.

Where the pair's source states the antecedents' features itself (Spanish→English, seed 003), each
pronoun with an antecedent becomes the bundle of its best candidate's own features
(`su-fem-sing-hum`, cad/cm/bundles.py): nothing is read from a translation, and one pass suffices.
"""

from __future__ import annotations

from collections import defaultdict

from cad.cm.bundles import Bundle, parse_token, source_bundle
from cad.cm.projection import aligned_targets, project, unread_translation
from cad.decoder.search import Decoder, Translation
from cad.lang.pairs import Pair, chosen
from cad.translate.trace import TraceRecord, resolution_fields, target_of
from coref.records import PronounResolution


def antecedent_features(tr: Translation, c, pronoun: str, human: bool | None,
                        with_human: bool, pair: Pair | None = None) -> tuple[str | None, str | None]:
    """(feature token, antecedent's target word) of candidate `c` from a translation of its
    sentence; no token but the word where the word's gender was not read (`unread_translation`)."""
    if not tr.best.words:
        return None, None
    aligned = aligned_targets(c.start, c.end, tr.best.word_alignment)
    # nothing aligned: only the dictionary can say something, and it needs no tags
    pair = chosen(pair)
    morph = pair.target.morphology().tag([tr.best.words])[0] if aligned else []
    m = project(c, tr.source, tr.best.words, tr.best.word_alignment, morph, pair)
    if m is None:
        unread = unread_translation(c, tr.best.words, tr.best.word_alignment, pair)
        return None, None if unread is None else unread.word
    return Bundle(pronoun.lower(), m.gender, m.number, human).token(with_human), m.word


def translate_document(decoder: Decoder, doc_id: str, sentences: list[list[str]],
                       resolutions: list[PronounResolution], with_human: bool = False,
                       baseline: Decoder | None = None, pair: Pair | None = None
                       ) -> tuple[list[Translation], list[TraceRecord]]:
    """Translate one document; `baseline` (optional) decodes the first pass of intra-sentential cases."""
    pair = chosen(pair)
    if pair.source_features:
        return translate_source_marked(decoder, doc_id, sentences, resolutions)
    by_sentence: dict[int, list[PronounResolution]] = {}
    for r in resolutions:
        by_sentence.setdefault(r.sentence, []).append(r)
    done: list[Translation] = []
    traces: list[TraceRecord] = []
    # a pronoun whose antecedent is an earlier, already featured pronoun inherits its features
    featured: dict[tuple[int, int], tuple[str, str]] = {}
    for k, sent in enumerate(sentences):
        tokens = list(sent)
        recs = by_sentence.get(k, [])
        intra = []
        sent_traces = []
        for r in recs:
            tr = TraceRecord(doc_id, k, r.index, r.token,
                             **resolution_fields(r))
            sent_traces.append(tr)
            if not r.referential or not r.candidates:
                continue
            c = r.best
            tr.antecedent, tr.antecedent_sentence = c.text, c.sentence
            if c.kind != "np":
                continue      # a clause has no gender or number to carry: the default table translates

            inherited = featured.get((c.sentence, c.head))
            if inherited is not None:
                feat = Bundle(r.token.lower(), inherited[0], inherited[1], c.human).token(with_human)
                tokens[r.index] = feat
                tr.features, tr.antecedent_translation, tr.pass_ = feat, inherited[2], "inter" if c.sentence < k else "intra"
                featured[(k, r.index)] = inherited
            elif c.sentence < k:
                feat, word = antecedent_features(done[c.sentence], c, r.token, c.human, with_human, pair)
                tr.antecedent_translation = word
                if feat:
                    tokens[r.index] = feat
                    tr.features, tr.antecedent_translation, tr.pass_ = feat, word, "inter"
                    b = parse_token(feat)
                    featured[(k, r.index)] = (b.gender, b.number, word)
            elif c.sentence == k:
                intra.append((r, c, tr))
        if intra:
            first = (baseline or decoder).translate(" ".join(tokens))
            for r, c, tr in intra:
                inherited = featured.get((c.sentence, c.head))
                if inherited is not None:
                    feat, word = Bundle(r.token.lower(), inherited[0], inherited[1], c.human).token(with_human), inherited[2]
                else:
                    feat, word = antecedent_features(first, c, r.token, c.human, with_human, pair)
                tr.antecedent_translation = word
                if feat:
                    tokens[r.index] = feat
                    tr.features, tr.antecedent_translation, tr.pass_ = feat, word, "intra"
                    b = parse_token(feat)
                    featured[(k, r.index)] = (b.gender, b.number, word)
        result = decoder.translate(" ".join(tokens))
        for tr in sent_traces:
            tr.target = target_of(result, tr.index)
        done.append(result)
        traces.extend(sent_traces)
    return done, traces


def translate_source_marked(decoder, doc_id: str, sentences: list[list[str]], resolutions: list[PronounResolution]
                            ) -> tuple[list[Translation], list[TraceRecord]]:
    """Seed 003's decoding: each pronoun with an antecedent becomes the bundle of its best
    candidate (`su` → `su-fem-sing-hum`), which the main table cannot translate, so the decoder
    backs off to the CM table; one pass, as the features are the source's own."""
    by_sentence: dict[int, list[PronounResolution]] = defaultdict(list)
    for r in resolutions:
        by_sentence[r.sentence].append(r)
    done, traces = [], []
    for k, sent in enumerate(sentences):
        tokens = list(sent)
        sent_traces = []
        for r in by_sentence.get(k, []):
            tr = TraceRecord(doc_id, k, r.index, r.token, **resolution_fields(r))
            if r.candidates:
                c = r.best
                tr.antecedent, tr.antecedent_sentence = c.text, c.sentence
                tr.features = tokens[r.index] = source_bundle(r.token, c)
                tr.pass_ = "inter" if c.sentence < k else "intra"
            sent_traces.append(tr)
        result = decoder.translate(" ".join(tokens))
        for tr in sent_traces:
            tr.target = target_of(result, tr.index)
        done.append(result)
        traces.extend(sent_traces)
    return done, traces
