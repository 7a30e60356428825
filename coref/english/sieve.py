"""A deterministic pronoun sieve in the style of Lee et al. (2011) over spaCy parses.

Passes, most precise first: mention detection (noun chunks, named entities, pronouns); a
pleonastic-*it* filter (extraposition, raising verbs, weather, clefts); string and head matching
to link nominal mentions into chains; then the pronoun pass, which keeps candidates that agree
in number, gender, animacy and named-entity type, obey the binding constraint (not a co-argument
of the same predicate) and lie within the current and three previous sentences. Candidates are
ranked by sentence distance, grammatical role and parallelism; the scores become probabilities
with seed 003's rule (every candidate above 1% of the best, at least two).
"""

from __future__ import annotations

from cad.downloads.spacy_models import load_spacy
from coref.backends import Backend, BackendOptions
from coref.english.entities import pronoun_class
from coref.english.mentions import LIGHT_HEADS, NON_REFERENTIAL_ENTS, Mention, mentions_of_sentence
from coref.english.tokens import moses_doc
from coref.records import Candidate, PronounResolution, keep_likely

RAISING = {"seem", "appear", "happen", "turn", "look", "sound", "feel", "matter", "help", "pay", "take",
           "occur", "strike", "remain", "follow", "mean"}
WEATHER = {"rain", "snow", "hail", "drizzle", "pour", "thunder", "freeze", "raining", "snowing"}
WEATHER_ADJ = {"cold", "hot", "warm", "sunny", "dark", "windy", "cloudy", "late", "early", "light", "noon",
               "midnight", "time", "hard", "difficult", "easy", "possible", "impossible", "important", "clear",
               "true", "obvious", "likely", "unlikely", "necessary", "interesting", "amazing", "surprising",
               "worth", "fun", "great", "nice", "good", "bad", "better", "best", "okay", "ok", "enough"}
COMPLEMENTIZERS = {"that", "to", "whether", "if", "how", "what", "when", "why", "who", "where", "which"}
BE = {"be", "'s", "is", "was", "were", "are", "been", "being"}


def is_pleonastic(doc, i: int) -> bool:
    """`doc[i]` is an *it* that refers to nothing (seed 004: such pronouns get no antecedent)."""
    tok = doc[i]
    if tok.lower_ != "it":
        return False
    if tok.dep_ == "expl":
        return True
    nxt = [t for t in doc[i + 1:i + 6]]
    words = [t.lower_ for t in nxt]
    lemmas = [t.lemma_.lower() for t in nxt]
    # weather and time: "it is raining", "it rains", "it's late"
    if lemmas and (lemmas[0] in WEATHER or (len(lemmas) > 1 and lemmas[0] == "be" and lemmas[1] in WEATHER)):
        return True
    head = tok.head
    if tok.dep_ in ("nsubj", "nsubjpass"):
        # extraposition: "it is important that/to ...", "it seems that", "it takes years to"
        later = [c for c in head.children if c.i > i and c.dep_ in ("ccomp", "xcomp", "csubj", "advcl")]
        comp_start = any(any(t.lower_ in COMPLEMENTIZERS for t in c.subtree if t.i <= c.i) for c in later)
        if head.lemma_ in RAISING and (later or any(w in ("that", "like", "as") for w in words[:3])):
            return True
        if head.lemma_ == "be" or head.pos_ in ("ADJ", "NOUN"):
            adj_or_noun = head if head.pos_ in ("ADJ", "NOUN") else next(
                (c for c in head.children if c.dep_ in ("acomp", "attr") and c.i > i), None)
            if adj_or_noun is not None and later and comp_start:
                return True
            if adj_or_noun is not None and adj_or_noun.lower_ in WEATHER_ADJ and later:
                return True
    if _idiom(words):
        return True
    # "it is X that ..." with the complementizer right after a short predicate
    if words and words[0] in BE | {"'s"} and len(words) > 2 and words[1] in WEATHER_ADJ and words[2] in COMPLEMENTIZERS:
        return True
    if words[:1] and words[0] in BE and words[1:2] and words[1] in WEATHER_ADJ and len(words) == 2:
        return True
    return False


INDEFINITE_PERSONS = {"everybody", "everyone", "somebody", "someone", "nobody", "anybody", "anyone", "no one"}
SKIP = {"not", "n't", "'t", "even", "only", "just", "really", "actually", "also", "all", "never", "does", "did",
        "doesn", "didn", "do", "won", "will", "would", "can", "could", "might", "may", "has", "had", "have"}


def _idiom(words: list[str]) -> bool:
    """Fixed expressions with an empty *it*: "it turns out", "it doesn't matter", "it makes sense",
    "it's about (time)", "it's like", "it gets interesting", "it struck me"."""
    w = [x for x in words if x not in SKIP]
    if not w:
        return False
    first = w[0]
    if first in ("turns", "turned", "seems", "seemed", "appears", "appeared", "struck", "strikes", "matter",
                 "matters", "mattered", "occurred", "occurs"):
        return True
    if first in ("makes", "made", "make") and "sense" in w[1:4]:
        return True
    if first in ("gets", "got") and len(w) > 1 and w[1] in WEATHER_ADJ | {"interesting", "worse", "better"}:
        return True
    if first in BE | {"'s"} and len(w) > 1 and w[1] in ("about", "like", "as", "time"):
        return True
    return False


def _agrees(pron: str, m: Mention) -> bool:
    if m.ent in NON_REFERENTIAL_ENTS:
        return False
    if pron in ("he", "she"):
        # people, and animals (*my cat ... he*); never a plural, a thing or another pronoun class
        if m.number == "plur" or m.human is False:
            return False
        if m.pronoun:
            return pronoun_class(m.text) == pron
        return m.ent in ("", "PERSON", "NORP") or m.human is True
    if pron == "it":
        if m.number == "plur" or m.human is True or m.gender in ("masc", "fem"):
            return False
        if m.pronoun and m.text.lower() not in ("it", "its", "this", "that"):
            return False
    else:   # they: plural, an organisation, or singular "they" for an indefinite person
        text = m.text.lower()
        if m.number == "sing" and m.ent not in ("ORG", "NORP") and text not in INDEFINITE_PERSONS:
            return False
        if m.pronoun and text not in ("they", "them", "their", "these", "those") and text not in INDEFINITE_PERSONS:
            return False
    return True


class SieveResolver(Backend):
    @classmethod
    def from_options(cls, options: BackendOptions) -> SieveResolver:
        return cls(pronouns=options.pronouns)

    def __init__(self, nlp=None, pronouns: tuple[str, ...] = ("it", "they"), window: int = 3):
        self.nlp = load_spacy() if nlp is None else nlp
        self.pronouns = pronouns
        self.window = window

    def parse(self, sentences: list[list[str]]) -> list:
        return list(self.nlp.pipe(moses_doc(self.nlp.vocab, s) for s in sentences))

    def resolve(self, doc_id: str, sentences: list[list[str]], parsed=None) -> list[PronounResolution]:
        parsed = parsed if parsed is not None else self.parse(sentences)
        mentions = [mentions_of_sentence(d, k) for k, d in enumerate(parsed)]
        resolved: dict[tuple[int, int], Mention] = {}     # pronoun (sentence, head) -> nominal antecedent
        # chain-level constraint: the pronoun classes each mention's chain holds so far (shared sets)
        chains: dict[tuple[int, int], set[str]] = {}
        out = []
        for k, doc in enumerate(parsed):
            for tok in doc:
                low = tok.lower_
                pclass = pronoun_class(low)
                if low not in self.pronouns and pclass not in ("he", "she"):
                    continue
                rec = PronounResolution(doc_id, k, tok.i, tok.text, referential=True)
                if low == "it" and is_pleonastic(doc, tok.i):
                    rec.referential = False
                    out.append(rec)
                    continue
                scored = self._candidates(low, tok, k, mentions, parsed, resolved, chains)
                rec.candidates = keep_likely([(c, sc) for _, c, sc in scored])
                if rec.candidates:
                    best = rec.candidates[0]
                    m = next(m for m, c, _ in scored if (c.sentence, c.head) == (best.sentence, best.head))
                    if low in self.pronouns:
                        resolved[(k, tok.i)] = m
                    chain = chains.setdefault((m.sentence, m.head), set())
                    chain.add(pclass or low)
                    chains[(k, tok.i)] = chain
                else:
                    rec.referential = False
                if low in self.pronouns:
                    out.append(rec)
        return out

    def _candidates(self, pron: str, tok, k: int, mentions, parsed, resolved,
                    chains: dict | None = None) -> list[tuple[Mention, Candidate, float]]:
        pclass = pronoun_class(pron) or pron
        chains = chains or {}
        role = "subj" if tok.dep_ in ("nsubj", "nsubjpass") else "obj" if tok.dep_ in ("dobj", "obj") else "other"
        best: dict[tuple[int, int], tuple[Mention, float]] = {}
        for s in range(max(0, k - self.window), k + 1):
            for m in mentions[s]:
                if s == k and (m.end > tok.i or m.start <= tok.i < m.end):
                    continue
                if s == k and m.governor == tok.head.i and m.governor >= 0 and m.head != tok.head.i:
                    continue   # co-argument of the same predicate: binding forbids coreference
                if not _agrees(pclass, m):
                    continue
                held = chains.get((m.sentence, m.head), set())
                if pclass in ("it", "they") and held & {"he", "she"}:
                    continue   # *he* already refers to it: an *it* cannot (seed 004's cat and mouse)
                if pclass in ("he", "she") and held & {"it", "they", "she" if pclass == "he" else "he"}:
                    continue
                if m.pronoun:
                    # a linked pronoun continues its chain; its antecedent must agree too
                    target = resolved.get((m.sentence, m.head))
                    if target is not None and not _agrees(pclass, target):
                        continue
                weight = 0.2 if parsed[m.sentence][m.head].lower_ in LIGHT_HEADS else 1.0
                score = DISTANCE[k - s] * weight * ROLE[m.role]
                if m.role == role:
                    score *= 1.3
                if s == k:
                    score *= 1.0 + SAME * (m.start / max(1, tok.i))
                if m.pronoun and m.text.lower() in CHAIN_PRONOUNS:
                    score *= CHAIN
                if m.ent:
                    score *= 1.1
                key = (m.sentence, m.head)
                old = best.get(key)
                # same head: keep the better score, and the fuller span (a coordination) on a tie
                if old is None or old[1] < score or (old[1] == score and m.end - m.start > old[0].end - old[0].start):
                    best[key] = (m, score)
        out = []
        for m, score in best.values():
            sent = parsed[m.sentence]
            target = resolved.get((m.sentence, m.head)) if m.pronoun else m
            number = (target or m).number
            human = (target or m).human
            out.append((m, Candidate(m.sentence, m.start, m.end, m.head, sent[m.start:m.end].text, score,
                                     number, human), score))
        return out


DISTANCE = {0: 1.0, 1: 0.3, 2: 0.135, 3: 0.06}
CHAIN_PRONOUNS = {"it", "its", "they", "them", "their"}
CHAIN = 1.5       # bonus of a previous it/they, which continues a chain
SAME = 0.25       # same-sentence bonus growing towards the pronoun
ROLE = {"subj": 1.2, "obj": 1.2, "pobj": 0.8, "other": 0.6}
