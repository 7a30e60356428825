"""Mentions and their grammatical features from a spaCy parse of cad's tokens."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PRONOUN_FEATURES = {
    # number, gender, human
    "it": ("sing", "neut", False), "its": ("sing", "neut", False), "itself": ("sing", "neut", False),
    "they": ("plur", None, None), "them": ("plur", None, None), "their": ("plur", None, None),
    "themselves": ("plur", None, None),
    "he": ("sing", "masc", True), "him": ("sing", "masc", True), "his": ("sing", "masc", True),
    "she": ("sing", "fem", True), "her": ("sing", "fem", True),
    "i": ("sing", None, True), "me": ("sing", None, True), "my": ("sing", None, True),
    "we": ("plur", None, True), "us": ("plur", None, True), "our": ("plur", None, True),
    "you": (None, None, True), "your": (None, None, True),
    "this": ("sing", "neut", None), "that": ("sing", "neut", None),
    "these": ("plur", "neut", None), "those": ("plur", "neut", None),
}
HUMAN_ENTS = {"PERSON", "NORP"}
NON_REFERENTIAL_ENTS = {"DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY"}
# heads that are seldom the antecedent of a pronoun
LIGHT_HEADS = {"lot", "kind", "sort", "bit", "couple", "number", "way", "thing", "things", "time", "times",
               "one", "ones", "something", "anything", "everything", "nothing", "all", "lots", "part", "deal",
               "years", "year", "day", "days", "minute", "minutes", "moment", "percent", "%", "example", "fact"}
EXTRA_PERSON_WORDS = {"people", "person", "man", "men", "woman", "women", "child", "children", "kid", "kids",
                      "guy", "guys", "friend", "friends", "student", "students", "family", "parents", "mother",
                      "father", "teacher", "doctor", "scientist", "scientists", "researchers", "girl", "boy",
                      "girls", "boys", "baby", "audience", "colleagues", "someone", "somebody", "everybody",
                      "everyone", "anybody", "anyone", "nobody", "citizens", "patients", "users", "workers"}


@lru_cache(maxsize=1)
def person_words() -> frozenset[str]:
    """Nouns that denote only people: coreferee's exclusively-person list when installed, plus cad's own."""
    words = set(EXTRA_PERSON_WORDS)
    try:
        import coreferee      # optional, and it loads spaCy: only for its word list, once

        data = Path(coreferee.__file__).parent / "lang" / "en" / "data"
        for name in ("exclusively_person_words.dat",):
            f = data / name
            if f.exists():
                words.update(w.strip().lower() for w in f.read_text(encoding="utf-8").splitlines() if w.strip())
    except ImportError:
        pass
    return frozenset(words)


@dataclass
class Mention:
    sentence: int
    start: int               # token span in the sentence, end exclusive
    end: int
    head: int
    text: str
    number: str | None       # "sing" | "plur" | None
    gender: str | None       # "masc" | "fem" | "neut" | None
    human: bool | None
    role: str                # "subj" | "obj" | "pobj" | "other"
    pronoun: bool
    ent: str = ""
    governor: int = -1       # index of the head's syntactic head, for binding constraints
    kind: str = "np"         # "np" | "event" (a clause, which *it* may refer to)
    dep: str = ""            # for an event: the dependency label of the clause's head


def _role(tok) -> str:
    if tok.dep_ in ("nsubj", "nsubjpass", "csubj", "expl"):
        return "subj"
    if tok.dep_ in ("dobj", "obj", "attr", "dative"):
        return "obj"
    if tok.dep_ == "pobj":
        return "pobj"
    return "other"


def _number(head, span_tokens) -> str | None:
    low = head.lower_
    if low in PRONOUN_FEATURES:
        return PRONOUN_FEATURES[low][0]
    if any(t.dep_ == "conj" and t.head == head for t in span_tokens) or any(t.lower_ == "and" for t in span_tokens[1:-1]):
        return "plur"
    num = head.morph.get("Number")
    if num:
        return "plur" if num[0] == "Plur" else "sing"
    if head.tag_ in ("NNS", "NNPS"):
        return "plur"
    if head.tag_ in ("NN", "NNP"):
        return "sing"
    return None


def mentions_of_sentence(doc, sentence: int) -> list[Mention]:
    """Noun chunks, named entities and pronouns of one parsed sentence (a spaCy Doc)."""
    out: dict[tuple[int, int], Mention] = {}
    persons = person_words()

    def add(start: int, end: int, head) -> None:
        tokens = list(doc[start:end])
        low = head.lower_
        pron = head.pos_ == "PRON" or low in PRONOUN_FEATURES
        if pron and low in PRONOUN_FEATURES:
            number, gender, human = PRONOUN_FEATURES[low]
        else:
            number = _number(head, tokens)
            gender, human = None, None
            ent = head.ent_type_
            if ent in HUMAN_ENTS or (head.pos_ != "PROPN" and head.lemma_.lower() in persons) or low in persons:
                human = True
            elif ent in ("ORG", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"):
                human = False
            if human is False or (human is None and ent not in HUMAN_ENTS and head.pos_ == "NOUN"):
                gender = "neut"
        out[(start, end)] = Mention(sentence, start, end, head.i, doc[start:end].text, number, gender, human,
                                    _role(head), pron, head.ent_type_, head.head.i if head.head is not head else -1)

    try:
        chunks = list(doc.noun_chunks)
    except ValueError:      # no parse
        chunks = []
    for chunk in chunks:
        add(chunk.start, chunk.end, chunk.root)
    for ent in doc.ents:
        if (ent.start, ent.end) not in out:
            add(ent.start, ent.end, ent.root)
    # coordinations ("the remembering self and the experiencing self") are plural mentions
    for chunk in chunks:
        conjs = [c for c in chunk.root.children if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN")]
        if conjs:
            end = max(c.i for c in conjs[-1].subtree) + 1
            if (chunk.start, end) not in out:
                add(chunk.start, end, chunk.root)
                out[(chunk.start, end)].number = "plur"
    for tok in doc:
        if (tok.i, tok.i + 1) not in out and tok.lower_ in PRONOUN_FEATURES and tok.pos_ in ("PRON", "DET"):
            if tok.pos_ == "DET" and tok.lower_ in ("this", "that", "these", "those"):
                continue
            add(tok.i, tok.i + 1, tok)
    # relative pronouns ("a trick that I teach") are not mentions
    for key in [k for k, m in out.items() if m.pronoun and doc[m.head].tag_ in ("WDT", "WP")]:
        del out[key]
    return sorted(out.values(), key=lambda m: (m.start, m.end))
