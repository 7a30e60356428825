"""`cad contrastive make`: contrastive anaphora items in the manner of ContraPro (Müller et al.
2018), balanced in pairs as Bawden et al. (2018), from a word-aligned parallel corpus with
coreference of its source.

For each *it*/*they* of the coreference records whose antecedent is a noun phrase and whose
translation (the target words aligned to it, with APT's alignment improvement) is *il*, *elle*,
*ils* or *elles*, agreeing in gender with the antecedent's translation (the first noun aligned to
the antecedent, as cad/cm/projection.py projects antecedents; its gender from the French
lexicon), an item holds:
- the context: the sentences from the antecedent's up to the one before the pronoun's, with their
  reference translations (the antecedent is always in it, and nothing before it: a fixed window,
  as ContraPro's evaluation reads, would cut far antecedents off or add sentences that say
  nothing; `--max-distance` caps the distance, 3 by default);
- the source sentence and two candidates: the reference translation, and the same with the
  pronoun's gender flipped together with the words that agree with it (contrastive_french.py),
  and with every other it/they of the sentence that the records link to the same antecedent;
- `correct` and metadata: pronoun (the correct candidate's), gender and number, antecedent
  distance in sentences, variant, pair, the antecedent's source and translation, the corpus line.
Each such item has a twin (`variant` other-gender): the same sentences with the antecedent's
translation in the context replaced by a noun of the other gender (contrastive_nouns.py) with its
determiner and agreeing words, and the coreferent pronouns between it and the sentence flipped;
the flipped candidate is then the correct one. The twins share source and candidates, so a
system that does not read the context scores exactly one of the two (a tie: neither). `--pairs N`
adds N-1 more pairs per pronoun, each of a context with a noun of the antecedent's own gender
(`same-gender`, the reference candidate correct) and one of the other gender.
Antecedents in the pronoun's own sentence (`--same-sentence`) have no context to vary: their twin
replaces the noun in both candidates, so a sentence-level system may tell them apart.

A pronoun is skipped, and counted under its reason, wherever one of these steps cannot be done
cleanly (the report lists them).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from cad.cm.projection import HEAD_POS, aligned_targets
from cad.eval.apt import Side, classify, improve
from cad.eval.apt_settings import cached_settings
from cad.experiments.contrastive_french import PRONOUN_FLIP, PRONOUN_GENDER, Editor, apply_edits, merge
from cad.experiments.contrastive_nouns import ReplacementNouns
from cad.resources.hunspell_fr import FrenchNouns
from cad.lang.pairs import Pair, chosen

# French forms of a coreferent pronoun that show a gender the flip does not change
GENDERED = {"le", "la", "lui", "eux", "celui", "celle", "ceux", "celles", "lequel", "laquelle", "lesquels",
            "lesquelles", "celui-ci", "celle-ci", "ceux-ci", "celles-ci"}
SOURCE = ("it", "they")
DROPPED = "NONE"          # dev.fr's mark of a pronoun the reference drops (the DiscoMT release): not written
# il of an impersonal construction, whose gender cannot change (il y a, il faut, il s'agit)
IMPERSONAL = {("y",), ("faut",), ("fallait",), ("faudra",), ("faudrait",), ("s'", "agit"), ("s'", "agissait"),
              ("s'", "agira"), ("s'", "agirait"), ("s'", "avère"), ("s'", "avérait")}


@dataclass
class MakeSettings:
    max_distance: int = 3
    same_sentence: bool = False
    pairs: int = 1
    seed: int = 1


@dataclass
class Made:
    items: list[dict] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)      # reason -> pronouns
    examples: dict = field(default_factory=dict)           # reason -> a few (doc, line, token) of them
    pronouns: int = 0                                      # it/they records read
    kept: int = 0                                          # pronouns with at least one pair


def pronoun_positions(src: list[str], tgt: list[str], align: list[tuple[int, int]], i: int,
                      pair: Pair | None = None) -> list[int]:
    """The target positions that translate source token `i` (APT's aligned side, improved, with
    the pair's lists)."""
    s = cached_settings(chosen(pair))
    positions = sorted(j for a, j in align if a == i)
    side = Side(positions, [tgt[j] for j in positions], classify([tgt[j] for j in positions], s)) if positions else None
    side = improve(side, i, src, tgt, align, s)
    return list(side.positions) if side else []


class SuiteMaker:
    def __init__(self, nouns: FrenchNouns, editor: Editor, replacements: ReplacementNouns,
                 settings: MakeSettings = MakeSettings(), pair: Pair | None = None):
        """`pair`: the language pair (English→French: the editor's rules are French's)."""
        self.nouns, self.editor, self.replacements, self.settings = nouns, editor, replacements, settings
        self.pair = chosen(pair)
        self.morphology = self.pair.target.morphology()

    # ------------------------------------------------------------------ one document
    def document(self, doc: str, first_line: int, src, tgt, align, records, made: Made) -> None:
        """Add the items of one document (its sentences, alignments and coreference records) to `made`."""
        recs = [r for r in records if r.token.lower() in self.pair.source.cm_pronouns]
        made.pronouns += len(recs)
        same_ante = {}
        for r in recs:
            if r.referential and r.best is not None:
                c = r.best
                same_ante.setdefault((c.sentence, c.start, c.end), []).append(r)
        needed = sorted({r.sentence for r in recs} | {r.best.sentence for r in recs if r.best is not None})
        nlp = self.morphology.pipeline(lemmas=True)
        parsed = dict(zip(needed, nlp.pipe(_docs(nlp, tgt, needed))))
        morph = dict(zip(needed, self.morphology.tag([tgt[k] for k in needed])))
        for r in recs:
            got = self._pronoun(doc, first_line, src, tgt, align, r, same_ante, parsed, morph)
            if isinstance(got, str):
                made.skipped[got] += 1
                made.examples.setdefault(got, [])
                if len(made.examples[got]) < 5:
                    made.examples[got].append(f"{doc}:{first_line + r.sentence + 1}:{r.index}")
            else:
                made.items += got
                made.kept += 1

    def _checked(self, src, tgt, align, r, morph) -> tuple | str:
        """(antecedent, sentence, antecedent's sentence, distance, pronoun's target position, the
        antecedent noun's position, the noun, its gender and number) of a pronoun record that can
        give items, or the reason it cannot."""
        st = self.settings
        if not r.referential or r.best is None:
            return "not referential or no antecedent"
        c = r.best
        if c.kind != "np":
            return "antecedent is not a noun phrase"
        k, kc = r.sentence, c.sentence
        if kc > k or (kc == k and c.start > r.index):
            return "cataphora"
        dist = k - kc
        if dist == 0 and not st.same_sentence:
            return "antecedent in the same sentence"
        if dist > st.max_distance:
            return f"antecedent further than {st.max_distance} sentences"
        found = [p for p in pronoun_positions(src[k], tgt[k], align[k], r.index, self.pair) if tgt[k][p].lower() in PRONOUN_FLIP]
        if len(found) != 1:
            return "not translated as il, elle, ils or elles"
        p = found[0]
        after = tuple(w.lower() for w in tgt[k][p + 1:p + 3])
        if tgt[k][p].lower() == "il" and (after[:1] in IMPERSONAL or after in IMPERSONAL):
            return "impersonal il"
        # the first noun or pronoun aligned to the antecedent (cad/cm/projection.py's choice, but
        # for a noun whose gender the tagger leaves out: the lexicon gives it)
        q = next((t for t in sorted(aligned_targets(c.start, c.end, align[kc])) if morph[kc][t].pos in HEAD_POS), None)
        if q is None or morph[kc][q].pos != "NOUN":
            return "antecedent's translation is no common noun"
        noun = tgt[kc][q]
        gender = self.nouns.gender(noun)
        if gender not in ("masc", "fem"):
            return "antecedent noun's gender unclear (not in the lexicon, or of both genders)"
        pgender, number = PRONOUN_GENDER[tgt[k][p].lower()]
        if pgender != gender:
            return "pronoun's gender differs from its antecedent's translation"
        number_of = {n for g, n in self.nouns.analyses(noun) if n in ("sing", "plur")}
        nnumber = morph[kc][q].number or (number_of.pop() if len(number_of) == 1 else number)
        return c, k, kc, dist, p, q, noun, gender, nnumber

    def _pronoun(self, doc, first_line, src, tgt, align, r, same_ante, parsed, morph) -> list[dict] | str:
        """The items of one pronoun record, or the reason it gives none."""
        got = self._checked(src, tgt, align, r, morph)
        if isinstance(got, str):
            return got
        c, k, kc, dist, p, q, noun, gender, nnumber = got
        st = self.settings
        # the coreferent pronouns after the antecedent: in the context and in the sentence
        flips: dict[int, list[int]] = {}
        for o in same_ante.get((kc, c.start, c.end), []):
            if (o.sentence, o.index) <= (kc, c.start) or o.sentence > k:
                continue
            pos = pronoun_positions(src[o.sentence], tgt[o.sentence], align[o.sentence], o.index, self.pair)
            words = [tgt[o.sentence][j].lower() for j in pos]
            if any(w in GENDERED for w in words):
                return "a coreferent pronoun in a form the flip does not change"
            flips.setdefault(o.sentence, []).extend(j for j in pos if tgt[o.sentence][j].lower() in PRONOUN_FLIP)
        linked = {(o.sentence, o.index) for o in same_ante.get((kc, c.start, c.end), [])}
        for sj, j in _unlinked(src, tgt, align, (kc, q, c), k, (gender, PRONOUN_GENDER[tgt[k][p].lower()][1]), linked):
            flips.setdefault(sj, []).append(j)
        noun_at = [(sj, j) for sj in range(kc, k + 1) for j, w in enumerate(tgt[sj]) if w.lower() == noun.lower()
                   and (sj, j) != (kc, q)]
        if any(sj == k for sj, _ in noun_at):
            return "the antecedent's noun recurs in the pronoun's sentence"
        if any(t.dep_ == "conj" or any(x.dep_ == "conj" and x.pos_ in ("NOUN", "PROPN") for x in t.children)
               for t in [parsed[kc][q]] + [parsed[sj][j] for sj, j in noun_at]):
            return "antecedent noun in a coordination"
        flip_k, why = self.editor.flip_pronouns(parsed[k], sorted(set(flips.get(k, [])) | {p}))
        if flip_k is None:
            return f"candidate: {why}"
        context = list(range(kc, k)) if dist else ([k - 1] if k > 0 else [])
        head = _english_head(src[kc], c)
        key = f"{doc}:{first_line + k}:{r.index}"
        avoid = {w.lower() for j in range(kc, k + 1) for w in tgt[j]}
        base = {"source": " ".join(src[k]), "source_pronoun": r.token.lower(), "source_index": r.index,
                "distance": dist, "doc": doc,
                "line": first_line + k + 1, "antecedent": {"source": " ".join(src[kc][c.start:c.end]),
                                                          "head": head, "target": noun}}
        variants = [("original", None)]
        other = self.replacements.choose(head, _other(gender), nnumber, key + ":0", avoid, noun)
        if other is None:
            return "no replacement noun"
        variants.append(("other-gender", other))
        for j in range(1, st.pairs):
            same = self.replacements.choose(head, gender, nnumber, f"{key}:{j}s", avoid | {noun.lower()}, noun)
            diff = self.replacements.choose(head, _other(gender), nnumber, f"{key}:{j}", avoid, noun)
            if same and diff:
                variants += [("same-gender", same), ("other-gender", diff)]
        built = []
        for v, repl in variants:
            item = self._variant(v, repl, (src, tgt), parsed, context, (k, p), [(kc, q)] + noun_at, (gender, nnumber),
                                 flips, flip_k)
            if isinstance(item, str):
                if v == "original" or len(built) < 2:
                    return item
                built = built[:len(built) - len(built) % 2]      # drop the unfinished pair
                break
            built.append(item)
        out = []
        for n, item in enumerate(built[:len(built) - len(built) % 2]):
            pair = n // 2
            item.update(base)
            item["id"] = f"{key}:{pair}{'ab'[n % 2]}"
            item["pair"] = f"{key}:{pair}"
            out.append(dict(sorted(item.items(), key=lambda kv: _ORDER.get(kv[0], 99))))
        return out

    def _variant(self, variant, repl, text, parsed, context, at, nouns, gn, flips, flip_k):
        """One item: the context (and, for an antecedent in the sentence, the candidates) with the
        antecedent's noun at each (sentence, token) of `nouns` replaced by `repl` = (noun, how), or as
        it is for the original; the pronoun at `at` = (sentence, token), of (gender, number) `gn`."""
        (src, tgt), (k, p), (gender, number) = text, at, gn
        new_gender = gender if repl is None or variant == "same-gender" else _other(gender)
        edits: dict[int, dict] = {}
        kc = nouns[0][0]
        if repl is not None:
            for sj, j in nouns:
                e, why = self.editor.replace_noun(parsed[sj], j, repl[0], gender, new_gender, number)
                edits[sj] = merge(edits.get(sj, {}), e)
                if edits[sj] is None:
                    return f"twin: {why or 'two edits of one word'}"
            if new_gender != gender:
                for s, pos in flips.items():
                    if s == k:
                        continue
                    f, why = self.editor.flip_pronouns(parsed[s], sorted(set(pos)))
                    edits[s] = merge(edits.get(s, {}), f)
                    if edits[s] is None:
                        return f"twin's context: {why or 'two edits of one word'}"
        ctx = [{"source": " ".join(src[j]), "target": _text(apply_edits(tgt[j], edits.get(j, {})))} for j in context]
        same = edits.get(k, {}) if kc == k else {}
        plain, flipped = merge(same, {}), merge(same, flip_k)
        if plain is None or flipped is None:
            return "twin: the noun and the pronoun's agreement change one word"
        targets = [_text(apply_edits(tgt[k], plain)), _text(apply_edits(tgt[k], flipped))]
        correct = 0 if new_gender == gender else 1
        pronoun = tgt[k][p].lower() if correct == 0 else PRONOUN_FLIP[tgt[k][p].lower()]
        g, n = PRONOUN_GENDER[pronoun]
        item = {"context": ctx, "targets": targets, "correct": correct, "pronoun": pronoun, "gender": g, "number": n,
                "variant": variant}
        if repl is not None:
            item["replacement"] = {"target": repl[0], "how": repl[1]}
        return item


_ORDER = {k: i for i, k in enumerate(("id", "context", "source", "targets", "correct", "pronoun", "gender", "number",
                                      "distance", "variant", "pair", "source_pronoun", "source_index", "antecedent", "replacement",
                                      "doc", "line"))}


def _unlinked(src, tgt, align, ante, k: int, gn: tuple[str, str], linked: set) -> list[tuple[int, int]]:
    """French il/elle/ils/elles of the antecedent's gender and the pronoun's number, after the
    antecedent and up to the pronoun's sentence, that translate no source word but the antecedent
    itself (the reference adds them: *La variole : elle a tué…* for *Smallpox killed…*) and are no
    impersonal il: they refer to the antecedent too, and flip with it."""
    kc, q, c = ante
    out = []
    for s in range(kc, k + 1):
        for j, w in enumerate(tgt[s]):
            if (s == kc and j <= q) or w.lower() not in PRONOUN_FLIP or PRONOUN_GENDER[w.lower()] != gn:
                continue
            sources = [i for i, t in align[s] if t == j]
            if any((s, i) in linked for i in sources):
                continue                  # a record's pronoun: flipped by the records already
            if any(not (s == kc and c.start <= i < c.end) for i in sources):
                continue                  # the translation of another source word
            after = tuple(x.lower() for x in tgt[s][j + 1:j + 3])
            if w.lower() == "il" and (after[:1] in IMPERSONAL or after in IMPERSONAL):
                continue
            out.append((s, j))
    return out


def _text(words: list[str]) -> str:
    return " ".join(w for w in words if w != DROPPED)


def _other(gender: str) -> str:
    return "fem" if gender == "masc" else "masc"


def _english_head(words: list[str], c) -> str:
    return words[c.head] if c.start <= c.head < c.end else words[c.end - 1]


def _docs(nlp, tgt, needed):
    from spacy.tokens import Doc

    return (Doc(nlp.vocab, words=tgt[k]) for k in needed)


def write_items(items: list[dict], fh) -> None:
    for it in items:
        fh.write(json.dumps(it, ensure_ascii=False) + "\n")




# ---------------------------------------------------------------------- the whole corpus
def gold_matches(backend, sentences: list[list[str]], least: float = 0.8) -> bool:
    """Whether the gold backend holds this document: the gold resolver pairs any document with
    the gold one that shares most text, so a document without annotation (one of the eleven dev
    talks) would get another talk's chains."""
    import difflib

    from coref.gold.oracle import GoldResolver

    if not isinstance(backend, GoldResolver):
        return True
    gold = backend.match(sentences)
    ours = "".join(t for s in sentences for t in s).lower()[:3000]
    theirs = "".join(gold.tokens).lower()[:3000]
    return difflib.SequenceMatcher(None, ours, theirs, autojunk=False).ratio() >= least


def make_suite(corpus: tuple[str, str, str, str | None], coreference, settings: MakeSettings,
               nouns_from: str | None = None, lexicons: tuple | None = None, pair: Pair | None = None) -> Made:
    """Items from the corpus (source, target, alignment, docs paths). `coreference`: a backend
    (resolve(doc_id, sentences)) or a list of records per document; `nouns_from`: French text whose
    frequencies rank the replacement nouns (default: the corpus's target side); `lexicons`:
    (FrenchNouns, FrenchInflections, wordnet or None, freedict or None), loaded when not given."""
    from cad.core.aligned_docs import aligned_documents
    from cad.core.docs import read_docs
    from cad.core.textio import count_lines, read_lines

    source, target, align, docs = corpus
    documents = list(aligned_documents(source, target, align, docs))
    starts = [d.first_line for d in read_docs(docs, count_lines(source))] if docs else [0]
    nouns, inflections, wordnet, freedict = lexicons or load_lexicons()
    aligned: dict[str, Counter] = {}
    for _, src, tgt, al in documents:
        for s, t, a in zip(src, tgt, al):
            for i, j in a:
                aligned.setdefault(t[j].lower(), Counter())[s[i].lower()] += 1
    text = [t for _, _, tgt, _ in documents for t in tgt] if nouns_from is None else \
        [line.split() for line in read_lines(nouns_from) if line.strip()]
    pair = chosen(pair)
    counts = noun_counts(text, pair)
    replacements = ReplacementNouns(nouns, inflections, counts, aligned, wordnet, freedict, seed=settings.seed)
    maker = SuiteMaker(nouns, Editor(inflections), replacements, settings, pair)
    made = Made()
    for d, (doc_id, src, tgt, al) in enumerate(documents):
        if isinstance(coreference, list):
            records = coreference[d]
        elif not gold_matches(coreference, src):
            made.skipped["document without gold annotation"] += 1
            continue
        else:
            records = coreference.resolve(doc_id, src)
        maker.document(doc_id, starts[d], src, tgt, al, records, made)
    return made


def noun_counts(sentences: list[list[str]], pair: Pair | None = None) -> Counter:
    """How often each lowercased word is tagged a noun (the target's morphology: spaCy's French
    morphologizer)."""
    counts: Counter = Counter()
    for words, morph in zip(sentences, chosen(pair).target.morphology().tag(sentences)):
        counts.update(w.lower() for w, m in zip(words, morph) if m.pos == "NOUN" and w != DROPPED)
    return counts


def load_lexicons() -> tuple:
    from cad.resources import fr_inflection, freedict, hunspell_fr, wordnet

    return hunspell_fr.load(), fr_inflection.load(), wordnet.load(), freedict.load()


def summary(made: Made) -> dict:
    """Counts for the report: pronouns read, kept, skipped by reason, items by field."""
    by = {f: Counter(str(it[f]) for it in made.items) for f in ("variant", "pronoun", "gender", "distance")}
    how = Counter(it["replacement"]["how"] for it in made.items if "replacement" in it)
    return {"pronouns": made.pronouns, "kept": made.kept, "items": len(made.items),
            "pairs": len({it["pair"] for it in made.items}), "skipped": dict(made.skipped.most_common()),
            "items_by": {f: dict(sorted(c.items())) for f, c in by.items()}, "replacement": dict(how)}
