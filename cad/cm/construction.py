"""What a CM bundle reads of the English sentence and of the coreference besides the antecedent's
gender: the construction the pronoun stands in, and the type of what it refers to.

French chooses between *il*/*elle*, *ce* and *ça* by both. A thing already mentioned is *il*/*elle*
as the subject of a verb or of a passive (*elle a été vendue*); *ce* stands before *être* and a noun
phrase, a clause or a cleft's focus (*c'est une bonne idée*, *c'est ce que je voulais*); *il* is
impersonal (*il est important de*, *il semble que*); *ça* is an event or a situation as the subject
of a verb (*ça marche*). So the bundle's role (its second part, `it-copa-fem-sing`) is the
construction read from spaCy's parse (coref/english/constructions.py), in the role's short names:
the parse's roles (coref/english/roles.py: copn, copa, cop, subj, obj, pobj, other) keep their
names where the construction is the same, and the constructions the roles lumped together get
their own: `copp` (*be* + past participle, the passive: *it was sold*, which the parse's roles
called a plain subject), `copc` (*be* + clause: *it is what I wanted*), `copm` (*be* after an
auxiliary or a modal, whatever follows: *it has been*, *it 's going to be*, where French cannot
write *ce*: *ça a été*, *ça va être*), `ext` (extraposition: *it is important to*, *it seems
that*, *it takes time to*), `cleft` (*it was John who*). On the training corpus (7,861
*it*/*they*) the class they are translated by parts as French does: *it* `ext` *il* 54%, `copn`
*ce* 63%, `cleft` *ce* 62%, `copp` *il*/*elle* 36% against *ce* 16%, `copa` *ce* 57%, `copm` *ça*
29% against *ce* 16%, `subj` *ça* 25%, *il*/*elle* 36%.

The referent (coref/referent.py: an entity, an event or proposition, or nothing) is what the
coreference's records say in `referent_probs` where the backend writes them (the ranker): the
mixture's shares of `nonref` (pleonastic), `event` and the entity bundles are those probabilities,
and the `map` reading takes the referent the coreference decides (coref's best_label) before the
likeliest bundle of that referent (cad/cm/class_model.py).

A candidate that is the demonstrative pronoun *this* or *that* on its own stands for a situation
or a proposition (*that leads to starvation. It leads to unrest*: *Cela conduit …*), and its
share goes to the `event` bundle, in training and in translation, instead of its translation's
gender or, in translation, the noun before it (`demonstrative`; cad/cm/class_model.py).

A plain subject *it* of a verb whose subject the corpus mostly translates *ça* (*it works*, *it
hurts*, *it took a lot of preparation*; cad/cm/governors.py) is `subs` (`governor`): French writes
*ça* there even where the *it* took up a noun (*comment ça marche*).

A noun phrase after *be* that names a person or an animal (WordNet's animacy of its head,
cad/cm/referent.py) is `coph` (`complement`): French writes the personal pronoun and a bare noun
there (*elles sont médecins*) about as often as *ce*, where a thing or an abstraction takes *ce*
(*c'étaient des cadeaux*).

`CAD_CM_PARTS` (comma-separated, from CM_PARTS; default all five) leaves a part out, for the
ablations: without `construction` the role is the parse's role as before, without `referent` the
mixture's event share is its clause candidates' and `map` the likeliest bundle alone, without
`demonstrative` *this*/*that* are read as any other pronoun, without `complement` a noun phrase
after *be* is `copn` whatever it names, without `governor` every plain subject is `subj`. The tables
and the decoder must be run with the same setting (`cad cm build` records it in provenance.json,
and the classifier CM in its meta).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Iterable, Sequence

from cad.cm.classes import pronoun_class
from cad.cm.governors import SHIPPED as SHIPPED_GOVERNORS, shipped as situation_governors
from cad.cm.projection import aligned_targets
from cad.cm.referent import head_animacy
from cad.core.envlist import env_choices
from cad.core.errors import CadError
from cad.lang.pairs import Pair, chosen
from coref.english.constructions import (CLEFT, COPULA_ADJECTIVE, COPULA_CLAUSE, COPULA_NOUN_PHRASE, COPULA_OTHER,
                                         EXTRAPOSITION, OBJECT, OTHER, PREPOSITIONAL_OBJECT, SUBJECT, Construction,
                                         pronoun_constructions)
from coref.english.roles import pronoun_roles
from coref.records import Candidate

log = logging.getLogger(__name__)

CM_PARTS = ("construction", "referent", "demonstrative", "complement", "governor")
ROLE_OF_CONSTRUCTION = {COPULA_ADJECTIVE: "copa", COPULA_NOUN_PHRASE: "copn", COPULA_CLAUSE: "copc",
                        COPULA_OTHER: "cop", EXTRAPOSITION: "ext", CLEFT: "cleft", SUBJECT: "subj", OBJECT: "obj",
                        PREPOSITIONAL_OBJECT: "pobj", OTHER: "other"}
# the passive and *be* + participle: a personal pronoun far more often than *be* + adjective
# (training corpus: il/elle 36% against 16%, ce 16% against 57%)
PARTICIPLE_ROLE = "copp"
# *be* after an auxiliary or a modal, before an adjective, a noun phrase, a clause or anything else:
# French cannot write *ce* there (*ça a été*, *ça va être*, *il peut être*; training corpus: *ça* 36%
# and *ce* 20% after *it has been*/*will be* + adjective, against 7% and 60% after *it is*)
AUXILIARY_ROLE = "copm"
# *be* + a noun phrase that names a person or an animal (*they are doctors*, *they're cousins*): French
# writes the personal pronoun and the bare noun there as often as *ce* (*elles sont médecins*, *ce sont
# des garçons*), where a thing or an abstraction after *be* takes *ce* (*c'étaient des cadeaux*). With
# `they`: on the 33k corpus a person after *they are* is *ils*/*elles* in 61% (28), a thing *ce* in 75%
# (8); in the Hansard's first 300,000 lines (sentences with one *they are/were* and one French copula)
# a person is *ce* in 55%, a thing or an abstraction in 78% (85). The parse alone lumped them.
PERSON_ROLE = "coph"
# a plain subject *it* of a verb whose subject French mostly writes *ça* (*ça marche*, *ça m'a
# frappé*; cad/cm/governors.py): its own role, so that the class table learns how often such a
# subject still follows its antecedent's gender
SITUATION_SUBJECT_ROLE = "subs"
COPULA_LABELS = frozenset({COPULA_ADJECTIVE, COPULA_NOUN_PHRASE, COPULA_CLAUSE, COPULA_OTHER, CLEFT})


def cm_parts() -> frozenset[str]:
    return env_choices("CAD_CM_PARTS", CM_PARTS, CM_PARTS, "part")


def construction_role(c: Construction) -> str:
    """The bundle's role for a construction."""
    if c.label == COPULA_ADJECTIVE and c.participle:
        return PARTICIPLE_ROLE
    if c.auxiliary and c.label in COPULA_LABELS:
        return AUXILIARY_ROLE
    return ROLE_OF_CONSTRUCTION[c.label]


def cm_roles(sentences: list[list[str]], positions: set[tuple[int, int]],
             parsed: list | None = None) -> dict[tuple[int, int], str]:
    """{(sentence, token): the bundle's role} for the CM's pronouns of a document: the construction's
    role, or the parse's role where CAD_CM_PARTS leaves the construction out. Training (cad cm
    build), translation and the experiments all read roles here, so that tables and decoding agree.
    `parsed`: a resolver's spaCy Docs of the sentences (coref/english/roles.py)."""
    parts = cm_parts()
    if "construction" not in parts:
        return pronoun_roles(sentences, positions, parsed)
    out = {}
    for (k, i), c in pronoun_constructions(sentences, positions, parsed).items():
        role = construction_role(c)
        if role == ROLE_OF_CONSTRUCTION[COPULA_NOUN_PHRASE] and "complement" in parts and c.predicate is not None \
                and 0 <= c.predicate < len(sentences[k]) and head_animacy(sentences[k][c.predicate]) == "anim":
            role = PERSON_ROLE
        elif role == ROLE_OF_CONSTRUCTION[SUBJECT] and "governor" in parts and c.governor is not None \
                and sentences[k][i].lower() == "it" and 0 <= c.governor < len(sentences[k]) \
                and sentences[k][c.governor] in situation_governors():
            role = SITUATION_SUBJECT_ROLE
        out[(k, i)] = role
    return out


def governors_read() -> list[str] | None:
    """The situation governors this run reads subjects under `subs` for (sorted), None without the
    `governor` part: recorded with the tables, which must be read with the same list."""
    return sorted(situation_governors().verbs) if "governor" in cm_parts() else None


def _recorded(path: str | os.PathLike, kind: str, model) -> dict | None:
    """The settings a pronoun model recorded: the classifier's meta, the class table's provenance.json."""
    if kind == "classifier":
        meta = getattr(model, "meta", None)
        return meta if isinstance(meta, dict) else None
    if kind != "table":
        return None
    provenance = Path(path).parent / "provenance.json"
    try:
        with open(provenance, encoding="utf-8") as fh:
            got = json.load(fh)
    except (OSError, ValueError):
        return None
    return got if isinstance(got, dict) else None


def built_with(path: str | os.PathLike, kind: str, model) -> list[str] | None:
    """The parts a pronoun model was built with: the classifier's meta, the provenance.json that
    `cad cm build` writes beside a class table (a model from before the parts were recorded was
    built with none); None where nothing says (a table written by hand, Spanish's source table)."""
    recorded = _recorded(path, kind, model)
    return None if recorded is None else list(recorded.get("cm_parts", []))


def check_parts(path: str | os.PathLike, kind: str, model) -> None:
    """Warn where a pronoun model was built with other parts than this run reads its bundles with:
    its bundles' roles or shares then mean something else, and the unseen ones back off."""
    built = built_with(path, kind, model)
    if built is not None and set(built) != cm_parts():
        log.warning("%s was built with the CM parts [%s] but this run reads [%s] (CAD_CM_PARTS): rebuild it "
                    "(make cm, cad cm build) or set CAD_CM_PARTS=%s", path, ", ".join(sorted(built)),
                    ", ".join(sorted(cm_parts())), ",".join(sorted(built)))
    elif built is not None and "governor" in built:
        recorded = (_recorded(path, kind, model) or {}).get("situation_governors")
        if recorded is not None and recorded != governors_read():
            log.warning("%s was built with another list of situation governors than %s: its `subs` bundles "
                        "mean other verbs; rebuild it (make cm, cad cm build)", path, SHIPPED_GOVERNORS)


# the demonstrative pronouns that stand for a situation or a proposition (is_demonstrative)
DEMONSTRATIVES = frozenset({"this", "that"})
# what a projection says instead of a gender and number of a pronoun candidate translated ça
# (situation_translation): the `event` bundle; the roles that are no subject's
SITUATION = "situation"
NON_SUBJECT_ROLES = frozenset({"obj", "pobj", "other"})


def is_demonstrative(c: Candidate) -> bool:
    """A candidate that is the demonstrative pronoun *this* or *that* on its own (*that leads to
    starvation. It leads to unrest*): it stands for a situation or a proposition, which French
    takes up with *ce*/*ça*/*cela* (on the dev talks' references, 28 of the 60 pronouns whose best
    candidate is one are *ce* or *ça*, 4 *il*, none *elle*), not for the noun before it."""
    return c.end - c.start == 1 and c.text.lower() in DEMONSTRATIVES


def reads_as_event(c: Candidate) -> bool:
    """A clause candidate, or with the demonstrative part *this*/*that* alone: the `event` bundle."""
    return c.kind == "event" or ("demonstrative" in cm_parts() and is_demonstrative(c))


def situation_translation(c: Candidate, words: Sequence[str], alignment: Iterable[tuple[int, int]],
                          role: str | None, pair: Pair | None = None) -> bool:
    """Whether candidate `c`, an *it* that was a subject (its bundle role `role`; not an object),
    was translated by one of the target's situation classes (`Language.situation_classes`:
    French *ça*/*cela*) in `words` aligned by `alignment` (its sentence's translation): the
    translation took it as a situation, and a pronoun that takes it up does too, as French chains
    do (training corpus: an *it* after a subject *it* translated *ça* is *ça* in 29% and
    *il*/*elle* in 16% as a subject, after one translated *il*, *il* in 60%). An object *ça* is
    a thing as often (*j'ai goûté ça … elle était délicieuse*). With the demonstrative part of
    CAD_CM_PARTS only, and for a target that has such a class (`pair`'s; default, the default
    pair); training reads the reference, translation the decoder's own words, so that a chain
    keeps the form its first pronoun took."""
    situation = chosen(pair).target.situation_classes
    if not situation or "demonstrative" not in cm_parts() or role is None or role in NON_SUBJECT_ROLES \
            or c.end - c.start != 1 or c.text.lower() != "it":
        return False
    return pronoun_class([words[t] for t in sorted(aligned_targets(c.start, c.end, alignment))], pair) in situation
