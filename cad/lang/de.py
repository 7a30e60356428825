"""German as the target language of English→German pronoun translation: *it* is *er*, *sie* or
*es* by the gender of its antecedent's German noun (*der Hund … er*, *die Lampe … sie*, *das Buch
… es*), *they* is *sie* whatever the gender.

Classes: the subject pronouns er, sie, es; the object forms ihn (masculine accusative), ihm
(masculine and neuter dative), ihr (feminine dative), ihnen (plural dative); the demonstratives
das and dies/dieses (*das ist gut*, where English says *it*); man. *sie* is one class for the
feminine singular and the plural: German spells them alike, and the source pronoun (*it* or
*they*) tells them apart.

APT: the target list holds the subject forms and the demonstrative *das*; *es* and *das* are a
similar pair, as French's *il* and *ce* (*es ist wichtig / das ist wichtig*).

Morphology (`GermanMorphology`): no German tagger is installed with cad, and German needs less of
one than French. A noun's gender is the noun lexicon's below (`NOUNS`, the nouns of the English→
German sample and other everyday ones, written for cad), else the one left by the determiner
before it, each determiner read as the set of genders and numbers it may have in any case (*der*:
masculine singular, feminine singular, plural), intersected with the lexicon's; a capitalized word
after a determiner is a noun (German capitalizes every noun). A word the lexicon does not know
and no determiner decides has no gender, and the pronoun's bundle stays without one.
"""

from __future__ import annotations

from cad.lang import NONE, OTHER
from cad.lang.facts import Language, Morph, Morphology, gender_sources

# the coreference model's classes
CLASS_OF = {"er": "er", "sie": "sie", "es": "es", "ihn": "ihn", "ihm": "ihm", "ihr": "ihr", "ihnen": "ihnen",
            "das": "das", "dies": "dies", "dieses": "dies", "man": "man"}
TARGET_CLASSES = ("er", "sie", "es", "ihn", "ihm", "ihr", "ihnen", "das", "dies", "man", OTHER, NONE)
CLASS_GROUPS = {"er": ("er",), "sie": ("sie",), "es": ("es",), "demonstrative": ("das", "dies"),
                "object": ("ihn", "ihm", "ihr", "ihnen"), "man": ("man",), "other": (OTHER, NONE)}
# the gender each personal class shows alone (*sie* may be plural: no gender of its own)
PERSONAL_GENDER = {"er": "masc", "ihn": "masc", "es": "neut"}

# APT
TARGET_PRONOUNS = ["er", "sie", "es", "das", "man"]
EQUAL = [["dies", "dieses"]]
SIMILAR = [["es", "das"]]
PRONOUN_DICT = TARGET_PRONOUNS + ["ihn", "ihm", "ihr", "ihnen", "sich", "dies", "dieses", "ich", "du", "wir",
                                  "mich", "dich", "uns", "euch", "mir", "dir"]

# pronouns whose gender and number they say themselves
PRONOUN_MORPH = {"er": ("masc", "sing"), "ihn": ("masc", "sing"), "es": ("neut", "sing")}

_M, _F, _N, _P = ("masc", "sing"), ("fem", "sing"), ("neut", "sing"), (None, "plur")
_EIN = {"": {_M, _N}, "e": {_F, _P}, "en": {_M, _P}, "em": {_M, _N}, "er": {_F, _P}, "es": {_M, _N}}
# every determiner's readings in any case: (gender, number), None for the plural of any gender
DETERMINERS: dict[str, set] = {
    "der": {_M, _F, _P}, "die": {_F, _P}, "das": {_N}, "den": {_M, _P}, "dem": {_M, _N}, "des": {_M, _N},
    "dieser": {_M, _F, _P}, "diese": {_F, _P}, "dieses": {_N}, "diesen": {_M, _P}, "diesem": {_M, _N},
    "im": {_M, _N}, "am": {_M, _N}, "zum": {_M, _N}, "vom": {_M, _N}, "beim": {_M, _N}, "ins": {_N}, "zur": {_F},
}
for _stem in ("ein", "kein", "mein", "dein", "sein", "unser", "euer"):
    for _end, _readings in _EIN.items():
        if _stem == "ein" and _end == "e":
            DETERMINERS["eine"] = {_F}
        else:
            DETERMINERS[_stem + _end] = set(_readings)

# the noun lexicon: singular and plural, by gender; a form that is both (*Schlüssel*) has both numbers
NOUNS = {
    "masc": "Hund/Hunde Tisch/Tische Schlüssel/Schlüssel Computer/Computer Löffel/Löffel Zug/Züge "
            "Kuchen/Kuchen Mantel/Mäntel Garten/Gärten Ball/Bälle Film/Filme Baum/Bäume Koffer/Koffer "
            "Schrank/Schränke Teller/Teller Brief/Briefe Apfel/Äpfel Spiegel/Spiegel Stuhl/Stühle Fluss/Flüsse "
            "Bahnhof/Bahnhöfe Boden/Böden Vogel/Vögel Bus/Busse Lehrer/Lehrer Bruder/Brüder Vater/Väter "
            "Nachbar/Nachbarn Onkel/Onkel Großvater/Großväter Wald/Wälder Herd/Herde Käse/Käse Park/Parks "
            "Berg/Berge Tag/Tage Morgen/Morgen Student/Studenten Wagen/Wagen Hut/Hüte Schuh/Schuhe "
            "Kaffee/Kaffees Tee/Tees Wein/Weine Freund/Freunde Mann/Männer Sohn/Söhne Stein/Steine",
    "fem": "Katze/Katzen Lampe/Lampen Flasche/Flaschen Kamera/Kameras Tasse/Tassen Tür/Türen Suppe/Suppen "
           "Jacke/Jacken Kirche/Kirchen Tasche/Taschen Straße/Straßen Brücke/Brücken Uhr/Uhren Kiste/Kisten "
           "Zeitung/Zeitungen Blume/Blumen Maus/Mäuse Stadt/Städte Küche/Küchen Straßenbahn/Straßenbahnen "
           "Geschichte/Geschichten Birne/Birnen Schwester/Schwestern Mutter/Mütter Großmutter/Großmütter "
           "Ecke/Ecken Nähe/Nähen Nacht/Nächte Schule/Schulen Wohnung/Wohnungen Idee/Ideen Frage/Fragen "
           "Frau/Frauen Tochter/Töchter Freundin/Freundinnen Wand/Wände Hose/Hosen Milch/Milch",
    "neut": "Pferd/Pferde Bett/Betten Buch/Bücher Messer/Messer Fenster/Fenster Brot/Brote Kleid/Kleider "
            "Dorf/Dörfer Hemd/Hemden Fahrrad/Fahrräder Zimmer/Zimmer Glas/Gläser Auto/Autos Boot/Boote "
            "Haus/Häuser Bild/Bilder Telefon/Telefone Hotel/Hotels Restaurant/Restaurants Taxi/Taxis "
            "Lied/Lieder Geschenk/Geschenke Dach/Dächer Holz/Hölzer Zentrum/Zentren Wetter/Wetter "
            "Badezimmer/Badezimmer Meer/Meere Fleisch/Fleisch Gras/Gräser Kind/Kinder Jahr/Jahre "
            "Wasser/Wasser Geld/Gelder Spiel/Spiele Problem/Probleme Land/Länder Tier/Tiere",
}


def _lexicon() -> dict[str, set[tuple[str, str]]]:
    out: dict[str, set[tuple[str, str]]] = {}
    for gender, pairs in NOUNS.items():
        for entry in pairs.split():
            singular, plural = entry.split("/")
            out.setdefault(singular.lower(), set()).add((gender, "sing"))
            out.setdefault(plural.lower(), set()).add((gender, "plur"))
    return out


LEXICON = _lexicon()


def _one(values) -> str | None:
    found = set(values)
    return found.pop() if len(found) == 1 else None


def _agree(readings: set, lexicon: set) -> set:
    """The lexicon's analyses a determiner's readings allow (a plural reading allows any gender)."""
    return {(g, n) for g, n in lexicon if (g, n) in readings or (n == "plur" and _P in readings)}


class GermanMorphology(Morphology):
    """German's reader (cad.lang.facts.Morphology): the lexicon and the determiners, no tagger."""

    def noun_features(self, word: str) -> tuple[str | None, str | None]:
        found = LEXICON.get(word.lower(), set())
        return _one(g for g, _ in found), _one(n for _, n in found)

    def knows_noun(self, word: str) -> bool:
        return word.lower() in LEXICON

    def tag(self, sentences: list[list[str]]) -> list[list[Morph]]:
        sources = gender_sources()
        return [[self._word(s, i, sources) for i in range(len(s))] for s in sentences]

    def _word(self, sentence: list[str], i: int, sources: frozenset[str]) -> Morph:
        word = sentence[i]
        low = word.lower()
        det = DETERMINERS.get(sentence[i - 1].lower()) if i > 0 and "determiner" in sources else None
        lexicon = LEXICON.get(low, set()) if "lexicon" in sources else set()
        if low in PRONOUN_MORPH and det is None:
            return Morph("PRON", *PRONOUN_MORPH[low], "pronoun")
        if low in DETERMINERS and not lexicon:
            return Morph("DET", None, None)
        if not lexicon and not (det is not None and word[:1].isupper()):
            return Morph("X", None, None)
        readings = _agree(det, lexicon) if det is not None and lexicon else set()
        readings = readings or lexicon
        gender = _one(g for g, _ in readings)
        source = "lexicon"
        if gender is None and det is not None:
            gender, source = _one(g for g, _ in det), "determiner"     # a plural reading: any gender
        number = _one(n for _, n in readings) if readings else _one(n for _, n in det)
        return Morph("NOUN", gender, number, source if gender is not None else "tagger")


LANGUAGE = Language(
    "de", "German", class_of=CLASS_OF, classes=TARGET_CLASSES, class_groups=CLASS_GROUPS,
    personal_gender=PERSONAL_GENDER, marked=("er", "sie"), genders=("masc", "fem", "neut"),
    subject_forms={("masc", "sing"): "er", ("fem", "sing"): "sie", ("neut", "sing"): "es", ("masc", "plur"): "sie",
                   ("fem", "plur"): "sie", ("neut", "plur"): "sie"},
    apt_pronouns=tuple(TARGET_PRONOUNS), apt_equal=tuple(map(tuple, EQUAL)), apt_similar=tuple(map(tuple, SIMILAR)),
    apt_dictionary=tuple(PRONOUN_DICT), morphology_reader="cad.lang.de:GermanMorphology")
