"""The grammatical role of source pronouns, from spaCy's English parse: *it* as subject goes to
*il/elle/ce*, as subject of *be* often to *c'*, as object to *le/la/l'*, after a preposition to
*lui/y/en/cela*, so the role is part of the coreference model's bundle whatever backend resolved
the antecedent."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, TypeVar

from cad.downloads.spacy_models import ENGLISH, load_spacy
from coref.english.tokens import moses_doc

T = TypeVar("T")

ROLES = ("copn", "copa", "cop", "subj", "obj", "pobj", "other")
BE = {"be", "is", "'s", "’s", "s", "was", "are", "'re", "’re", "were", "been", "being", "am", "'m", "isn't", "wasn't"}
_ROLE_OF_DEP = {"nsubj": "subj", "nsubjpass": "subj", "csubj": "subj", "expl": "subj",
                "dobj": "obj", "obj": "obj", "attr": "obj", "dative": "obj", "pobj": "pobj"}


@lru_cache(maxsize=1)
def _parser():
    import spacy      # loads with the first parse: the classifiers import this module for pleonastic_cues

    load_spacy(ENGLISH)          # makes the alias package if needed
    return spacy.load(ENGLISH, exclude=["ner", "lemmatizer"])


def role_of(tok) -> str:
    """The subject of *be* apart, by its predicate: a noun phrase (`copn`: *it's a mouse* → *c'est
    une souris*) takes *c'* whatever the antecedent, an adjective (`copa`: *it was dead* → *elle
    était morte*, but *it is important that* → *il est important*) much less often, and any
    other subject (*it hunted*) takes *il/elle*; `cop` for *be* with neither."""
    role = _ROLE_OF_DEP.get(tok.dep_, "other")
    if role == "subj" and tok.head.lower_ in BE:
        deps = {c.dep_ for c in tok.head.children}
        return "copn" if "attr" in deps else "copa" if "acomp" in deps else "cop"
    return role


def pronoun_roles(sentences: list[list[str]], positions: set[tuple[int, int]],
                  parsed: list | None = None) -> dict[tuple[int, int], str]:
    """{(sentence, token): role} for the given positions of a document's tokenized sentences;
    only the sentences holding one are parsed. `parsed`: the sentences already parsed, one spaCy
    Doc each, by the English pipeline (a resolver's parse): its tagger and parser are the ones
    used here, so the roles are the same and the parse is not paid twice."""
    return read_pronouns(sentences, positions, role_of, parsed)


def read_pronouns(sentences: list[list[str]], positions: set[tuple[int, int]], read: Callable[[Any], T],
                  parsed: list | None = None) -> dict[tuple[int, int], T]:
    """{(sentence, token): read(token)} over the parses of the sentences holding a position (see
    pronoun_roles): the role here, the construction in coref/english/constructions.py."""
    wanted = sorted({k for k, _ in positions})
    if not wanted:
        return {}
    if parsed is not None:
        docs = (parsed[k] for k in wanted)
    else:
        nlp = _parser()
        docs = nlp.pipe(moses_doc(nlp.vocab, list(sentences[k])) for k in wanted)
    out = {}
    for k, doc in zip(wanted, docs):
        for kk, i in positions:
            if kk == k:
                out[(k, i)] = read(doc[i])
    return out


PLEONASTIC_CUES = ("that", "to", "how", "what", "when", "if", "whether")


def pleonastic_cues(src: list[str], n: int) -> list[str]:
    """The clause markers after *it is/was/seems/makes …* within five words (*it is important
    that*, *it makes sense to*): the pronoun likely points forward to a clause or to nothing,
    and French says *il* or *c'*/*ce* there whatever came before. `src` is lowercased."""
    rest = src[n + 1:n + 6]
    if src[n] != "it" or not rest or rest[0] not in ("is", "'s", "was", "seems", "makes"):
        return []
    return [cue for cue in PLEONASTIC_CUES if cue in rest[1:]]
