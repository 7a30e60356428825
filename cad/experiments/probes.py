"""`cad contrastive probes`: a generated agreement suite. Concrete nouns of the dev vocabulary, of
both genders and numbers, each in a few natural frames that French translates with a pronoun the
construction decides: *il*/*elle*/*ils*/*elles* as the subject of a verb or of *être* with an
adjective or a participle (whose predicate then agrees with it), *le*/*la* as an object, *ce*
before a noun phrase, and *ça* for an event. Each block is two sentences, the one that introduces
the noun and the one with the pronoun; `cad contrastive translate` (probe_report.py) translates
the blocks and counts what the pronoun and its predicate became.

The nouns (`probe_nouns`): English words of the vocabulary whose first WordNet sense is an
artifact one can buy and own (a device, container, implement, equipment, covering, commodity,
decoration, picture, furnishing or conveyance), used more as a noun than as a verb or an adjective
(WordNet's tagged counts), whose plural WordNet reads back to them, and whose French translation in
the English-French dictionary has one gender in the French lexicon and a plural form; the most
frequent `per_gender` of each gender, so that the suite is balanced. The gender is the
dictionary's guess; the report reads the gender of the translation the decoder actually wrote.

The frames are English sentences with the noun's slot; each says which construction its pronoun
stands in (coref/english/constructions.py reads the same from the parse: tests check it) and what
French requires there.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from typing import Iterable

from cad.defaults import PROBES_PER_GENDER as DEFAULT_PER_GENDER

PERSONAL, CE, CLITIC, EVENT = "personal", "ce", "clitic", "event"
# where a noun may be bought and owned: hypernyms of its first sense
PORTABLE = {"device.n.01", "container.n.01", "implement.n.01", "equipment.n.01", "covering.n.02", "commodity.n.01",
            "decoration.n.01", "representation.n.02", "furnishing.n.02", "conveyance.n.03"}


@dataclass(frozen=True)
class Frame:
    name: str
    construction: str           # the construction of the pronoun (coref/english/constructions.py)
    requires: str               # PERSONAL, CE, CLITIC or EVENT
    context: str                # the first sentence; {np}: the noun phrase
    sentence: dict              # number -> the pronoun's sentence (a number it lacks: no block)
    predicate: bool = False     # a predicate after *être* that agrees with the pronoun


FRAMES = (
    Frame("subject", "subject", PERSONAL, "We bought {np} yesterday .",
          {"sing": "It belongs to my father .", "plur": "They belong to my father ."}),
    Frame("copula_adjective", "copula_adjective", PERSONAL, "We bought {np} yesterday .",
          {"sing": "It was very old .", "plur": "They were very old ."}, predicate=True),
    Frame("copula_participle", "copula_adjective", PERSONAL, "We bought {np} yesterday .",
          {"sing": "It was stolen last week .", "plur": "They were stolen last week ."}, predicate=True),
    Frame("object", "object", CLITIC, "We bought {np} yesterday .",
          {"sing": "My father will repair it ."}),
    Frame("copula_noun_phrase", "copula_noun_phrase", CE, "We bought {np} yesterday .",
          {"sing": "It was a gift from my father .", "plur": "They were gifts from my father ."}),
    Frame("event", "subject", EVENT, "My brother broke {np} this morning .",
          {"sing": "It made my mother very angry ."}),
)
PRONOUNS = {"it", "they"}


@dataclass(frozen=True)
class ProbeNoun:
    english: dict               # number -> English form
    french: str                 # the dictionary's translation (singular)
    gender: str                 # its gender in the French lexicon
    count: int                  # occurrences in the vocabulary's text


def _indefinite(frame: Frame, noun: str, number: str) -> str:
    if frame.name == "event":
        return f"the {noun}"
    if number == "plur":
        return f"some {noun}"
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _noun_count(wn, word: str, pos: str) -> int:
    return sum(lemma.count() for s in wn.synsets(word, pos=pos) for lemma in s.lemmas() if lemma.name().lower() == word)


def _mostly_noun(wn, word: str) -> bool:
    """Used more as a noun than as a verb or an adjective, by WordNet's tagged counts (a word
    untagged in every part: one with no verb or adjective sense)."""
    noun = _noun_count(wn, word, "n")
    other = max(_noun_count(wn, word, p) for p in ("v", "a", "s", "r"))
    if noun == 0 and other == 0:
        return not any(wn.synsets(word, pos=p) for p in ("v", "a", "s", "r"))
    return noun > other


def _plural(wn, word: str, vocabulary: Counter) -> str | None:
    """The plural WordNet reads back to `word`: the vocabulary's most frequent (*cameras*, where
    WordNet's exception list also has the Latin *camerae*), else an irregular one of that list
    (*knives*), else the regular one."""
    irregular = sorted(form for form, bases in wn._exception_map["n"].items() if word in bases and form != word)
    regular = [word + "s", word + "es", word[:-1] + "ies" if word.endswith("y") else None]
    readable = [c for c in irregular + regular if c and wn.morphy(c, "n") == word]
    seen = sorted((c for c in readable if c in vocabulary), key=lambda c: -vocabulary[c])
    return (seen or readable or [None])[0]


def probe_nouns(vocabulary: Counter, wordnet, gender_of, inflections, per_gender: int = DEFAULT_PER_GENDER
                ) -> list[ProbeNoun]:
    """The suite's nouns from a vocabulary (word -> count, lowercased): see the module's doc.
    `wordnet`: cad.resources.wordnet's NounClasses; `gender_of(english)`: (gender, French word) or
    None (cad.cm.projection.dictionary_gender); `inflections`: the French paradigms."""
    wn = wordnet.wordnet
    found: list[ProbeNoun] = []
    for word, count in sorted(vocabulary.items(), key=lambda kv: (-kv[1], kv[0])):
        if not word.isalpha() or len(word) < 3 or not word.islower() or wn.morphy(word, "n") != word:
            continue
        senses = wordnet.synsets(word)
        if not senses or senses[0].lexname() != "noun.artifact" or not _mostly_noun(wn, word):
            continue
        if not {h.name() for h in senses[0].closure(lambda s: s.hypernyms())} & PORTABLE:
            continue
        plural = _plural(wn, word, vocabulary)
        got = gender_of(word)
        if plural is None or got is None or inflections.noun_form(got[1], "plur") is None:
            continue
        found.append(ProbeNoun({"sing": word, "plur": plural}, got[1], got[0], count))
    out = []
    for gender in ("masc", "fem"):
        out += [n for n in found if n.gender == gender][:per_gender]
    return out


def blocks(nouns: Iterable[ProbeNoun], frames: Iterable[Frame] = FRAMES) -> list[dict]:
    """One block per noun, frame and number the frame has: the two tokenized sentences, where the
    antecedent and the pronoun are, and what French requires."""
    out = []
    for frame in frames:
        for noun in nouns:
            for number, text in frame.sentence.items():
                np = _indefinite(frame, noun.english[number], number)
                context = frame.context.format(np=np).split()
                head = context.index(noun.english[number])
                start = head - len(np.split()) + 1
                sentence = text.split()
                pronoun = next(i for i, w in enumerate(sentence) if w.lower() in PRONOUNS)
                out.append({"id": f"{frame.name}:{noun.english['sing']}:{number}", "frame": frame.name,
                            "construction": frame.construction, "requires": frame.requires,
                            "predicate": frame.predicate, "noun": noun.english["sing"], "number": number,
                            "french": noun.french, "gender": noun.gender, "sentences": [context, sentence],
                            "antecedent": {"sentence": 0, "start": start, "end": head + 1, "head": head},
                            "pronoun": {"sentence": 1, "index": pronoun}})
    return out


def vocabulary_of(lines: Iterable[str]) -> Counter:
    """Lowercased token counts of a tokenized text."""
    counts: Counter = Counter()
    for line in lines:
        counts.update(w.lower() for w in line.split())
    return counts


def summary(nouns: list[ProbeNoun], made: list[dict]) -> dict:
    return {"nouns": [asdict(n) for n in nouns], "blocks": len(made),
            "by_frame": dict(Counter(b["frame"] for b in made)),
            "by_gender": dict(Counter(n.gender for n in nouns))}
