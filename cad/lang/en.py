"""English as the target language of Spanish→English pronoun translation (seed 003), and as the
source of English→French (the pronouns studied there, and APT's dictionary for its heuristics).

Target classes: what the English words aligned to a Spanish 3rd-person pronoun amount to, for the
coreference model (mirrors `cad.cm.classes` for French). APT lists: the es→en counterparts of
fr.py's (cad.eval.apt_settings makes settings of both), laid out as in the original tool's
Spanish→English example
(github.com/idiap/APT, data_es-en/: config_1..3, list_es, list_en, es-en.pronouns.all).

Decisions (neither seed 000 nor 003 nor the tool settles them):
- *her* is one class, object and possessive determiner alike: the source pronoun tells them
  apart (la/le → object, su → possessive), so a second class would only split the counts.
- No "his own" classes. Seed 003 translates suyo/suya as his/her/its/their own, but *own* is an
  adjective the translation model supplies (from *propio* or the construction); what depends on
  the antecedent is the possessive before it, so *his own* is class his.
- *hers*, *theirs* stay classes of their own for the decoder (different surface forms), but APT
  counts her≡hers and their≡theirs as identical: otherwise suyo → *his own* vs *his* would be C1
  while suya → *her own* vs *hers* would be C3, a metric biased by the possessor's gender.
- No `similar` (C2) groups, as in the tool's es-en example and seed 003, whose tables have no C2:
  English 3rd-person forms differ exactly in the gender, number and humanness being evaluated.
- The target list holds 3rd-person forms only (the tool's list_en also has I/we/you/who/that,
  because its source list has yo, nosotros, que…); anything else is OTHER.
- The source list leaves out lo/la/los/las: by spelling they are articles far more often than
  pronouns, so they are evaluated only by position (CorZu's mentions), never by word search.
- The alignment heuristics (seed 000 §2.3), which the tool's es-en example leaves off (empty
  dictionaries), are on: step 3 picks only 3rd-person English forms, so that *we* for a verb
  ending next to an unaligned *su* is not taken as its translation.
"""

from __future__ import annotations

from typing import Iterable

from cad.lang import NONE, OTHER, es, first_class
from cad.lang.facts import Language


# coreference (coref/): the entity class of each 3rd-person personal pronoun
PRONOUN_CLASS = {
    "it": "it", "its": "it", "itself": "it",
    "they": "they", "them": "they", "their": "they", "theirs": "they", "themselves": "they",
    "he": "he", "him": "he", "his": "he", "himself": "he",
    "she": "she", "her": "she", "hers": "she", "herself": "she",
}
# first and second person: never the antecedent of a third-person pronoun outside quoted speech
SPEAKER_PRONOUNS = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
                              "you", "your", "yours", "yourself", "yourselves"})

# English→French: the source pronouns studied (seed 004), and the English pronouns APT's alignment
# heuristics know (seed 000 §2.3)
SOURCE_PRONOUNS = ["it", "they"]
CM_PRONOUNS = tuple(SOURCE_PRONOUNS)     # the English→French CM's pronouns (seed 004)
SOURCE_PRONOUN_DICT = ["it", "they", "he", "she", "him", "her", "them", "its", "their", "theirs", "his", "hers",
                       "this", "that", "these", "those", "i", "you", "we", "me", "us"]

SUBJECT = ("he", "she", "it", "they")
OBJECT = ("him", "her", "them")                        # *it* is both subject and object
POSSESSIVE = ("his", "hers", "its", "their", "theirs")  # determiners and pronouns; *her*: see above
REFLEXIVE = ("himself", "herself", "itself", "themselves")
PRONOUNS = SUBJECT + OBJECT + POSSESSIVE + REFLEXIVE
TARGET_CLASSES = PRONOUNS + (OTHER, NONE)
# heads that are no noun: a bilingual dictionary's translation of them is no antecedent's (*it* is
# also a noun there, IT, with a "gender"); a pronoun antecedent's gender comes from its chain
NOT_NOUN_HEADS = frozenset(PRONOUNS) | SPEAKER_PRONOUNS | frozenset(SOURCE_PRONOUN_DICT) | frozenset({
    "which", "who", "whom", "whose", "what", "one", "ones", "there", "here", "something", "anything",
    "everything", "nothing", "someone", "anyone", "everyone", "somebody", "anybody", "everybody", "all",
    "both", "each", "some", "many", "much", "few", "none"})
CLASS_OF = {w: w for w in PRONOUNS}


def pronoun_class(words: Iterable[str]) -> str:
    """The class of the English words aligned to one source pronoun (`first_class`: *to him* →
    him, *his own* → his)."""
    return first_class(words, CLASS_OF)



# --- APT lists for Spanish→English ---------------------------------------------------------------

# le/les are always pronouns, unlike lo/la/los/las (see the module docstring); the lists of the
# Spanish side are Spanish's facts (cad/lang/es.py)
ES_SOURCE_PRONOUNS = es.APT_SOURCE_PRONOUNS
EN_TARGET_PRONOUNS = list(PRONOUNS)
EN_EQUAL = [["her", "hers"], ["their", "theirs"]]
EN_SIMILAR: list[list[str]] = []
ES_PRONOUN_DICT = es.APT_PRONOUN_DICT
# Heuristics, steps 1 and 3: the words that can translate a Spanish 3rd-person pronoun.
EN_PRONOUN_DICT = list(PRONOUNS)

# the reference classes the reports count apart (the feminine forms)
FEMININE = ("she", "her", "hers", "herself")

LANGUAGE = Language(
    "en", "English",
    # as the target of Spanish→English
    class_of=CLASS_OF, classes=TARGET_CLASSES, marked=FEMININE, genders=("masc", "fem"),
    apt_pronouns=tuple(EN_TARGET_PRONOUNS), apt_equal=tuple(map(tuple, EN_EQUAL)),
    apt_similar=tuple(map(tuple, EN_SIMILAR)), apt_dictionary=tuple(EN_PRONOUN_DICT),
    # as the source of English→French and English→German
    cm_pronouns=CM_PRONOUNS, apt_source_pronouns=tuple(SOURCE_PRONOUNS),
    apt_source_dictionary=tuple(SOURCE_PRONOUN_DICT), not_noun_heads=NOT_NOUN_HEADS,
    third_person=frozenset(PRONOUN_CLASS), speaker_pronouns=SPEAKER_PRONOUNS,
    subject_pronouns=frozenset({"it", "they", "he", "she"}), noun_senses="cad.resources.wordnet:load")
