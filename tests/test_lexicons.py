"""The lexical-resource readers (cad/lang/hunspell_fr.py, freedict.py, wordnet.py, resources.py) on
small files written here in the real formats, and on Debian's files where they are installed."""

from pathlib import Path

import pytest

from cad.core.errors import CadError
from cad.lang import hunspell_fr, resources

from conftest import write


def need(package: str) -> dict[str, Path]:
    try:
        return resources.package_files(package)
    except CadError:
        pytest.skip(f"the Debian package {package} is not installed or extracted (`make resources`)")


# ---- Hunspell: a .dic/.aff pair written as Grammalecte's fr.dic and fr.aff are ----

AFF = """# as Grammalecte's fr.aff: two-character flags, NEEDAFFIX, elision prefixes
SET UTF-8
FLAG long
NEEDAFFIX ()
KEEPCASE ||
FORBIDDENWORD {}

ICONV 2
ICONV ’ '
ICONV e\u0301 é

PFX L' Y 2
PFX L' 0 l' . dp:le|la+
PFX L' e l'E e dp:le|la+

PFX Um Y 2
PFX Um 0 0/S. .
PFX Um 0 kilo/S.() .

SFX S. Y 2
SFX S. 0 0/L'D'Q' [^sxz] is:sg
SFX S. 0 s/D'Q' [^sxz] is:pl

SFX X. Y 4
SFX X. 0 0/L'D'Q' [ul] is:sg
SFX X. 0 x/D'Q' [aeoœ]u is:pl
SFX X. l ux/D'Q' al is:pl
SFX X. il ux/D'Q' ail is:pl

SFX F+ Y 4
SFX F+ 0 0/L'D'Q' [^sxz] is:mas is:sg
SFX F+ 0 s/D'Q' [^sxz] is:mas is:pl
SFX F+ 0 te/L'D'Q' t is:fem is:sg
SFX F+ 0 tes/D'Q' t is:fem is:pl
"""

DIC = """18
souris/L'D'Q' po:nom is:fem is:inv
souris/L'D'Q' po:nom is:mas is:inv
chat/F+() po:nom
table/S.() po:nom is:fem
œil/S.() po:nom is:mas
œils/{}
yeux/D'Q' po:nom is:mas is:pl
cheval/X.() po:nom is:mas
travail/X.() po:nom is:mas
après-midi/L'D'Q' po:nom is:epi is:inv
France/L'D'Q' po:nom is:fem is:inv
mètre/Um() po:nom is:mas
Hz/||-- po:nom is:mas is:inv
élève/S.() po:nom is:epi
chef-d'œuvre/L'D'Q' po:nom is:mas is:sg
rendez-vous/L'D'Q' po:nom is:mas is:inv
rapide/S.() po:adj is:epi
chemin de fer/D'Q' po:nom is:mas is:sg
km\\/h po:nom is:mas is:inv
"""


@pytest.fixture
def french(tmp_path):
    dic, aff = write(tmp_path / "fr.dic", DIC), write(tmp_path / "fr.aff", AFF)
    return hunspell_fr.load(dic, aff, cache_dir=tmp_path / "cache")


def test_hunspell_entries_and_the_plurals_their_flags_make(french):
    a = french.analyses
    assert a("souris") == {("fem", "inv"), ("masc", "inv")} and french.gender("souris") == "epi"
    assert a("chat") == {("masc", "sing")} and a("chats") == {("masc", "plur")}
    assert a("chatte") == {("fem", "sing")} and a("chattes") == {("fem", "plur")}
    assert a("table") == {("fem", "sing")} and a("tables") == {("fem", "plur")}
    assert a("œil") == {("masc", "sing")} and a("yeux") == {("masc", "plur")}
    assert a("chevaux") == {("masc", "plur")} and a("travaux") == {("masc", "plur")}
    assert a("chevals") == frozenset() and a("cheval") == {("masc", "sing")}
    # the unit prefix and its continuation class: kilo + mètre + s; the bare stem by the empty prefix
    assert a("kilomètres") == {("masc", "plur")} and a("mètre") == {("masc", "sing")}
    assert a("kilomètre") == {("masc", "sing")} and a("kilo") == frozenset()
    assert a("élève") == {("epi", "sing")} and french.gender("élèves") == "epi"
    assert a("après-midi") == {("epi", "inv")}
    assert a("km/h") == {("masc", "inv")} and a("chemin de fer") == {("masc", "sing")}


def test_hunspell_what_is_no_noun_form(french):
    assert french.analyses("rapide") == frozenset() and "rapide" not in french     # an adjective
    assert "œils" not in french                          # FORBIDDENWORD
    assert "table" in french and "l'table" not in french and "ltable" not in french
    assert french.gender("xyzzy") is None
    assert len(french) == len(set(french))


def test_hunspell_case_accents_apostrophes_and_hyphens(french):
    assert french.gender("Souris") == "epi" and french.gender("CHAT") == "masc"
    assert french.gender("France") == "fem" and french.gender("france") == "fem"
    assert french.gender("FRANCE") == "fem"
    # KEEPCASE: the unit only as written
    assert french.gender("Hz") == "masc" and french.gender("hz") is None and french.gender("HZ") is None
    assert french.gender("e\u0301le\u0300ve") == "epi"          # decomposed accents: NFC
    assert french.gender("chef-d’œuvre") == "masc"               # ICONV: the typographic apostrophe
    assert french.gender("rendez\u2010vous") == "masc"           # FreeDict's U+2010 hyphen
    assert french.gender("oeil") == "masc"                       # typed without the ligature
    assert french.phrase_gender("table de chevet") == "fem"      # the first noun heads the phrase
    assert french.phrase_gender("chemin de fer") == "masc"
    assert french.phrase_gender("rapide") is None


def test_hunspell_cache_is_read_and_renewed(tmp_path, monkeypatch):
    dic, aff = write(tmp_path / "fr.dic", DIC), write(tmp_path / "fr.aff", AFF)
    first = hunspell_fr.load(dic, aff, cache_dir=tmp_path / "cache")
    assert len(list((tmp_path / "cache").glob("hunspell-fr-*.json"))) == 1

    def no_build(*a, **kw):
        raise AssertionError("rebuilt although the cache is fresh")

    monkeypatch.setattr(hunspell_fr, "build", no_build)
    again = hunspell_fr.load(dic, aff, cache_dir=tmp_path / "cache")
    assert again._forms == first._forms and again.gender("hz") is None and again.gender("chef-d’œuvre") == "masc"
    monkeypatch.undo()
    write(dic, DIC.replace("18\n", "19\n") + "souriceau/S.() po:nom is:mas\n")
    assert hunspell_fr.load(dic, aff, cache_dir=tmp_path / "cache").gender("souriceaux") is None
    assert hunspell_fr.load(dic, aff, cache_dir=tmp_path / "cache").gender("souriceaus") == "masc"


def line_of(text: str, marker: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if marker in line)


@pytest.mark.parametrize("dic, aff, marker, message", [
    ("chat/F+() po:nom\n", AFF, None, "entry count"),
    ("2\nchat/F+( po:nom\n", AFF, "chat", "odd number"),
    ("1\n/S. po:nom\n", AFF, "/S. po:nom", "empty"),
    ("1\nchat/F+() po:nom\n", AFF.replace("SFX S. Y 2", "SFX S. Y 3"), "SFX S. Y 3", "announces 1 more"),
    ("1\nchat/F+() po:nom\n", AFF.replace("SFX X. Y 4", "SFX X. Q 4"), "SFX X. Q 4", "Y|N"),
    ("1\nchat/F+() po:nom\n", AFF.replace("FLAG long", "FLAG hex"), "FLAG hex", "FLAG"),
    ("1\nchat/F+() po:nom\n", AFF + "AF 1\n", "AF 1", "not supported"),
    ("1\nchat/F+() po:nom\n", AFF.replace("[^sxz] is:sg", "[^sxz is:sg"), "[^sxz is:sg", "without"),
])
def test_hunspell_malformed_files_name_file_and_line(tmp_path, dic, aff, marker, message):
    d, a = write(tmp_path / "x.dic", dic), write(tmp_path / "x.aff", aff)
    with pytest.raises(CadError, match=message) as err:
        hunspell_fr.load(d, a, use_cache=False)
    if marker is None:
        assert (err.value.path, err.value.line) == (str(d), 1)
    elif marker in aff:
        assert (err.value.path, err.value.line) == (str(a), line_of(aff, marker))
    else:
        assert (err.value.path, err.value.line) == (str(d), line_of(dic, marker))


def test_hunspell_other_encodings_and_flag_modes(tmp_path):
    aff = "SET ISO8859-1\nFLAG num\nSFX 7 Y 1\nSFX 7 0 s . is:pl\n"
    dic = "1\ndélice/7 po:nom is:mas\n"
    d, a = tmp_path / "l.dic", tmp_path / "l.aff"
    d.write_bytes(dic.encode("latin-1"))
    a.write_bytes(aff.encode("latin-1"))
    lex = hunspell_fr.load(d, a, use_cache=False)
    assert lex.analyses("délices") == {("masc", "plur")} and lex.analyses("délice") == {("masc", None)}


def test_hunspell_on_debians_dictionary(tmp_path):
    files = need(resources.HUNSPELL_FR)
    fr = hunspell_fr.load(files["fr.dic"], files["fr.aff"], cache_dir=tmp_path)
    assert len(fr) > 100_000
    assert fr.analyses("souris") == {("fem", "inv"), ("masc", "inv")}
    assert fr.analyses("chat") == {("masc", "sing")} and fr.gender("chatte") == "fem"
    assert fr.analyses("yeux") == {("masc", "plur")} and fr.analyses("œil") == {("masc", "sing")}
    assert fr.gender("idée") == "fem" and fr.gender("maisons") == "fem" and fr.gender("chevaux") == "masc"
    assert fr.gender("porte-monnaie") == "masc" and fr.gender("kilomètres") == "masc"
