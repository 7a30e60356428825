"""The lexical-resource readers (cad/resources/hunspell_fr.py, freedict.py, wordnet.py, debian.py) on
small files written here in the real formats, and on Debian's files where they are installed."""

import gzip
import struct
import zlib
from pathlib import Path

import pytest

from cad.core.errors import CadError
from cad.resources import freedict, hunspell_fr, wordnet
from cad.downloads import debian

from conftest import write


def need(package: str) -> dict[str, Path]:
    try:
        return debian.package_files(package)
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

PFX Um Y 3
PFX Um 0 0/S. .
PFX Um 0 kilo/S.() .
PFX Um 0 l'kilo/S.() . dp:le|la+

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
    assert "l'kilomètre" not in french and "kilomètre" in french             # elisions are tokens apart
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
    files = need(debian.HUNSPELL_FR)
    fr = hunspell_fr.load(files["fr.dic"], files["fr.aff"], cache_dir=tmp_path)
    assert len(fr) > 100_000
    assert fr.analyses("souris") == {("fem", "inv"), ("masc", "inv")}
    assert fr.analyses("chat") == {("masc", "sing")} and fr.gender("chatte") == "fem"
    assert fr.analyses("yeux") == {("masc", "plur")} and fr.analyses("œil") == {("masc", "sing")}
    assert fr.gender("idée") == "fem" and fr.gender("maisons") == "fem" and fr.gender("chevaux") == "masc"
    assert fr.gender("porte-monnaie") == "masc" and fr.gender("kilomètres") == "masc"


# ---- FreeDict: an .index and a dictzip .dict.dz written here ----

ENTRIES = [
    ("00databaseinfo", "00-database-info\nEnglish-French FreeDict Dictionary\n"),
    ("00databaseutf8", "\n"),
    ("anglosaxon", "Anglo‐Saxon /ˈaŋɡləʊ sˈaksən/\n1. anglo‐saxon\n2. Anglo‐Saxon\n"),
    ("cat", "cat /kæt/\n1. mégère, peau de vache, rosse\n2. chat\n"),
    ("mouse", "mouse /maus/\nsouris <n, fem>\n"),
    ("occurrence", "occurrence /əkjeərəns/ <n>\noccasion\n"),
    ("teacher", "teacher /tiːtʃər/\n1. institutrice <f>\n2. instituteur <masc>\n"),
    (" ago", "... ago /ɐɡˈəʊ/\nil y a ...\n"),
]


def dictzip(text: bytes, chunk: int) -> bytes:
    """The dictzip layout: a gzip member whose FEXTRA RA subfield lists the compressed chunks."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    parts = [comp.compress(text[i:i + chunk]) + comp.flush(zlib.Z_FULL_FLUSH) for i in range(0, len(text), chunk)]
    ra = struct.pack("<HHH", 1, chunk, len(parts)) + struct.pack(f"<{len(parts)}H", *map(len, parts))
    extra = b"RA" + struct.pack("<H", len(ra)) + ra
    head = b"\x1f\x8b\x08\x04" + struct.pack("<I", 0) + b"\x02\x03" + struct.pack("<H", len(extra)) + extra
    tail = comp.flush(zlib.Z_FINISH) + struct.pack("<II", zlib.crc32(text), len(text) & 0xFFFFFFFF)
    return head + b"".join(parts) + tail


def write_dictd(folder: Path, entries=ENTRIES, chunk: int = 40, plain_gzip: bool = False) -> tuple[Path, Path]:
    text, index = b"", []
    for key, body in entries:
        raw = body.encode("utf-8")
        index.append(f"{key}\t{freedict.b64_text(len(text))}\t{freedict.b64_text(len(raw))}\n")
        text += raw
    dz = gzip.compress(text) if plain_gzip else dictzip(text, chunk)
    assert gzip.decompress(dz) == text              # a valid gzip file as well
    return write(folder / "eng-fra.index", "".join(index)), write(folder / "eng-fra.dict.dz", dz)


def test_dictd_base64_numbers():
    assert freedict.b64_number("LOB") == 11 * 64 ** 2 + 14 * 64 + 1 == 45953
    assert freedict.b64_number("A") == 0 and freedict.b64_number("B") == 1 and freedict.b64_number("BA") == 64
    assert freedict.b64_number("/") == 63 and freedict.b64_number("+/") == 62 * 64 + 63
    assert all(freedict.b64_number(freedict.b64_text(n)) == n for n in (0, 1, 63, 64, 4095, 4096, 10 ** 9))
    with pytest.raises(ValueError):
        freedict.b64_number("A=")


@pytest.mark.parametrize("plain_gzip", [False, True])
def test_freedict_entries_through_the_index(tmp_path, plain_gzip):
    fd = freedict.load(*write_dictd(tmp_path, plain_gzip=plain_gzip))
    assert len(fd) == 6 and "00databaseinfo" not in fd.headwords()
    assert fd.french("mouse") == ["souris"] and fd.french("Mouse") == ["souris"]
    cat = fd.translations("cat")
    assert [(t.text, t.sense) for t in cat] == [("mégère", 1), ("peau de vache", 1), ("rosse", 1), ("chat", 2)]
    teacher = fd.translations("teacher")
    assert [(t.text, t.gender) for t in teacher] == [("institutrice", "fem"), ("instituteur", "masc")]
    assert fd.translations("mouse")[0].gender == "fem" and fd.translations("cat")[0].gender is None
    entry = fd.entries("Anglo-Saxon")[0]        # folded as dictd folds: anglosaxon
    assert (entry.headword, entry.pronunciation) == ("Anglo‐Saxon", "ˈaŋɡləʊ sˈaksən")
    assert fd.entries("occurrence")[0].pos == "n" and fd.french("ago") == ["il y a ..."]
    assert fd.french("dog") == [] and "dog" not in fd


def test_dictzip_reads_only_the_chunks_an_entry_spans(tmp_path):
    index, dz = write_dictd(tmp_path, chunk=16)
    reader = freedict.DictzipFile(dz)
    assert len(reader._chunks) > 5
    whole = gzip.decompress(dz.read_bytes())
    for e in freedict.read_index(index):
        assert reader.read(e.offset, e.length) == whole[e.offset:e.offset + e.length]
    with pytest.raises(CadError, match="past"):
        reader.read(len(whole) - 2, 10)


@pytest.mark.parametrize("line, message", [
    ("cat\tA\n", "columns"), ("cat\tA=\tB\n", "bad offset"), ("cat\tBAAA\tB\n", "past"),
])
def test_freedict_malformed_index_names_file_and_line(tmp_path, line, message):
    index, dz = write_dictd(tmp_path)
    write(index, index.read_text(encoding="utf-8") + line)
    with pytest.raises(CadError, match=message) as err:
        fd = freedict.load(index, dz)
        fd.entries("cat")
    assert err.value.path in (str(index), str(dz))
    if message != "past":
        assert err.value.line == len(ENTRIES) + 1


def test_dictzip_rejects_what_is_no_gzip(tmp_path):
    with pytest.raises(CadError, match="not a gzip file"):
        freedict.DictzipFile(write(tmp_path / "x.dict.dz", b"plain text, not compressed"))


def test_freedict_on_debians_dictionary():
    files = need(debian.FREEDICT_ENG_FRA)
    fd = freedict.load(files["freedict-eng-fra.index"], files["freedict-eng-fra.dict.dz"])
    assert len(fd) > 8000
    assert fd.french("mouse") == ["souris"] and "chat" in fd.french("cat") and "idée" in fd.french("idea")
    assert fd.french("teacher") == ["institutrice", "instituteur"]


# ---- WordNet: a tiny database in the wndb(5WN) format, and Debian's ----

# name, lexicographer file, [(word, lex_id)], hypernym (a name above), gloss
SYNSETS = [
    ("entity", 3, [("entity", 0)], None, "that which exists"),
    ("animal", 3, [("animal", 0)], "entity", "a living organism"),
    ("person", 3, [("person", 0)], "entity", "a human being"),
    ("beast", 3, [("beast", 0)], "animal", "filed in noun.Tops, below animal"),
    ("rodent", 5, [("rodent", 0)], "animal", "a gnawing mammal"),
    ("mouse1", 5, [("mouse", 0)], "rodent", "a small rodent"),
    ("mouse2", 6, [("mouse", 1), ("computer_mouse", 0)], "entity", "a hand-operated pointing device"),
    ("idea", 9, [("idea", 0)], "entity", "the content of cognition"),
    ("teacher", 18, [("teacher", 0)], "person", "a person whose job is teaching"),
    ("explosion", 11, [("explosion", 0)], "entity", "a violent release of energy"),
]
# sense key (lemma%1:lexfile:lex_id::) → SemCor tag count
COUNTS = {"mouse%1:05:00::": 6, "mouse%1:06:01::": 2, "idea%1:09:00::": 3}


def write_wordnet(folder: Path) -> Path:
    """data.noun with byte offsets that NLTK seeks to, index.noun, noun.exc, cntlist.rev, and the
    other parts of speech empty."""
    def line(name, lexfile, words, hyper, gloss, offsets):
        ptrs = [] if hyper is None else [f"@ {offsets[hyper]:08d} n 0000"]
        return (f"{offsets.get(name, 0):08d} {lexfile:02d} n {len(words):02x} "
                + " ".join(f"{w} {lex_id:x}" for w, lex_id in words)
                + f" {len(ptrs):03d}" + "".join(" " + p for p in ptrs) + f" | {gloss}  \n")

    header = "  1 This is a test database in the format of WordNet 3.0 Copyright 2006 by Princeton University.  \n"
    offsets, pos = {}, len(header.encode())
    for s in SYNSETS:       # a line's length does not depend on the offsets it writes (8 digits)
        offsets[s[0]] = pos
        pos += len(line(*s, {k: 0 for k, *_ in SYNSETS}).encode())
    write(folder / "data.noun", header + "".join(line(*s, offsets) for s in SYNSETS))
    senses: dict[str, list[int]] = {}
    for name, _, words, _, _ in SYNSETS:
        for w, _ in words:
            senses.setdefault(w, []).append(offsets[name])
    write(folder / "index.noun", header + "".join(
        f"{w} n {len(o)} 0 {len(o)} 0 {' '.join(f'{x:08d}' for x in o)}  \n" for w, o in sorted(senses.items())))
    write(folder / "noun.exc", "mice mouse\n")
    write(folder / "cntlist.rev", "".join(f"{k} 1 {n}\n" for k, n in sorted(COUNTS.items())))
    for pos_name in ("verb", "adj", "adv"):
        write(folder / f"data.{pos_name}", header)
        write(folder / f"index.{pos_name}", header)
        write(folder / f"{pos_name}.exc", "")
    write(folder / "adj.exc", "")
    return folder


def test_lexnames_file_from_the_man_page_table():
    text = wordnet.lexnames_text().splitlines()
    assert len(text) == 45 and text[0] == "00\tadj.all\t3" and text[5] == "05\tnoun.animal\t1"
    assert text[18] == "18\tnoun.person\t1" and text[29] == "29\tverb.body\t2" and text[44] == "44\tadj.ppl\t3"


def test_lexnames_match_the_man_page_when_it_is_there():
    man = next((r / "usr/share/man/man5/lexnames.5WN.gz" for r in debian.search_roots()
                if (r / "usr/share/man/man5/lexnames.5WN.gz").is_file()), None)
    if man is None:
        pytest.skip("lexnames(5WN) is not installed (wordnet-base's man page; Debian images may leave man pages out)")
    rows = [ln.split("\t") for ln in gzip.decompress(man.read_bytes()).decode().splitlines()
            if ln[:2].isdigit() and "\t" in ln]
    assert [(int(r[0]), r[1].strip()) for r in rows] == list(enumerate(wordnet.LEXNAMES))


def test_wordnet_classes_of_a_tiny_database(tmp_path):
    nouns = wordnet.load(write_wordnet(tmp_path / "wn"), cache_dir=tmp_path / "cache")
    (folder,) = (tmp_path / "cache/wordnet").glob("*/nltk_data/corpora/wordnet")
    assert (folder / "lexnames").read_text() == wordnet.lexnames_text()
    assert nouns.lexname("mouse") == "noun.animal" and nouns.lexname("mice") == "noun.animal"
    assert nouns.lexnames("mouse") == {"noun.animal": 0.75, "noun.artifact": 0.25}
    assert nouns.lexnames("teacher") == {"noun.person": 1.0}
    assert nouns.lexname("explosion") == "noun.event" and nouns.lexname("ideas") == "noun.cognition"
    assert nouns.lexname("computer mouse") == "noun.artifact"
    assert nouns.lexname("xyzzy") is None and nouns.lexnames("xyzzy") == {} and nouns.is_animate("xyzzy") is None
    assert nouns.is_animate("mouse") is True and nouns.animacy("mouse") == 0.75
    assert nouns.is_animate("teacher") is True and nouns.is_animate("idea") is False
    # animate through the hypernyms though filed in noun.Tops, as WordNet files *person* and *animal*
    assert nouns.lexname("beast") == "noun.Tops" and nouns.is_animate("beast") is True
    assert nouns.is_animate("person") is True and nouns.is_animate("entity") is False


_FORKED_NOUNS = None


def _forked_reading() -> tuple[int, str | None]:
    files = len(_FORKED_NOUNS.wordnet._data_file_map)
    return files, _FORKED_NOUNS.lexname("mouse")


def test_a_forked_process_reads_wordnet_through_its_own_files(tmp_path):
    """NLTK reads its data files by seek and readline: forked workers sharing the parent's open files
    would read each other's lines (a synset that comes back None). A child opens its own."""
    import multiprocessing

    global _FORKED_NOUNS
    _FORKED_NOUNS = wordnet.load(write_wordnet(tmp_path / "wn"), cache_dir=tmp_path / "cache")
    assert _FORKED_NOUNS.lexname("teacher") == "noun.person"        # the parent has opened data.noun
    assert _FORKED_NOUNS.wordnet._data_file_map
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            assert pool.apply(_forked_reading) == (0, "noun.animal")
    finally:
        _FORKED_NOUNS = None
    assert _FORKED_NOUNS is None


def test_wordnet_folder_is_laid_out_once_and_again_when_the_files_change(tmp_path):
    source = write_wordnet(tmp_path / "wn")
    folder = wordnet.corpus_folder(source, tmp_path / "cache")
    stamp = (folder / "data.noun").stat().st_mtime_ns
    assert wordnet.corpus_folder(source, tmp_path / "cache") == folder
    assert (folder / "data.noun").stat().st_mtime_ns == stamp
    write(source / "noun.exc", "mice mouse\ngeese goose\n")
    changed = wordnet.corpus_folder(source, tmp_path / "cache")
    assert changed != folder and "geese" in (changed / "noun.exc").read_text()
    # the folder laid out before is left whole for a process that may still be reading it
    assert "geese" not in (folder / "noun.exc").read_text() and (folder / "data.noun").stat().st_mtime_ns == stamp
    assert wordnet.corpus_folder(source, tmp_path / "cache") == changed
    (source / "cntlist.rev").unlink()
    with pytest.raises(CadError, match="cntlist.rev"):
        wordnet.corpus_folder(source, tmp_path / "cache")


@pytest.fixture(scope="module")
def debian_wordnet(tmp_path_factory):
    files = need(debian.WORDNET)
    return wordnet.load(files["data.noun"].parent, cache_dir=tmp_path_factory.mktemp("wordnet-cache"))


@pytest.mark.parametrize("noun, lexname", [
    ("mouse", "noun.animal"), ("mice", "noun.animal"), ("cat", "noun.animal"), ("idea", "noun.cognition"),
    ("explosion", "noun.event"), ("teacher", "noun.person"), ("children", "noun.person"),
    ("computer", "noun.artifact"), ("ice cream", "noun.food"),
    # WordNet's first sense of *table* is the tabular array (noun.group); the furniture comes second
    ("table", "noun.group"),
])
def test_wordnet_classes_of_debians_database(debian_wordnet, noun, lexname):
    assert debian_wordnet.lexname(noun) == lexname


def test_wordnet_distributions_and_animacy_on_debians_database(debian_wordnet):
    table = debian_wordnet.lexnames("table")
    assert table["noun.artifact"] > 0.3 and abs(sum(table.values()) - 1) < 1e-9
    assert set(debian_wordnet.lexnames("explosion")) >= {"noun.event", "noun.act"}
    assert debian_wordnet.is_animate("teacher") and debian_wordnet.is_animate("person")
    assert debian_wordnet.is_animate("Einstein") and debian_wordnet.is_animate("dog")
    assert debian_wordnet.is_animate("table") is False and debian_wordnet.is_animate("idea") is False
    assert debian_wordnet.is_animate("people") is False          # noun.group
    assert debian_wordnet.is_animate("qwzx") is None


# ---- where the resources are found, and make resources ----

def test_missing_resources_name_the_package_and_the_make_target(tmp_path, monkeypatch):
    monkeypatch.setenv(debian.ENV, str(tmp_path))
    with pytest.raises(CadError) as err:
        debian.package_files(debian.HUNSPELL_FR)
    assert "hunspell-fr-comprehensive" in str(err.value) and "make resources" in str(err.value)
    assert "/usr/share/hunspell/fr.dic" in str(err.value)
    for load in (hunspell_fr.load, freedict.load, wordnet.load):
        with pytest.raises(CadError, match="make resources"):
            load()


def test_resources_found_under_the_roots_cad_resources_names(tmp_path, monkeypatch):
    for f in debian.PACKAGES[debian.FREEDICT_ENG_FRA]:
        write(tmp_path / "b" / f, "")
    monkeypatch.setenv(debian.ENV, f"{tmp_path / 'a'}:{tmp_path / 'b'}")
    files = debian.package_files(debian.FREEDICT_ENG_FRA)
    assert files["freedict-eng-fra.index"] == tmp_path / "b/usr/share/dictd/freedict-eng-fra.index"
    monkeypatch.delenv(debian.ENV)
    assert debian.search_roots()[0] == Path("/")


FAKE_APT = """#!/bin/sh
# apt-get: `install` fails; `download` leaves a .deb that lists the package's files
case "$1" in
  install|update) echo "E: no network here" >&2; exit 100;;
  download) shift; for a in "$@"; do case "$a" in -*) ;; *)
      grep -h "^$a " "{table}" | cut -d' ' -f2- | tr ' ' '\\n' > "${a}_1.0_all.deb";; esac; done;;
esac
"""
FAKE_DPKG_DEB = """#!/bin/sh
# dpkg-deb -x DEB DIR: creates the files the .deb lists
while read -r f; do mkdir -p "$3/$(dirname "$f")"; echo data > "$3/$f"; done < "$2"
"""


def test_make_resources_extracts_once_and_then_does_nothing(tmp_path, monkeypatch):
    table = write(tmp_path / "table", "".join(f"{p} {' '.join(fs)}\n" for p, fs in debian.PACKAGES.items()))
    bin_dir = tmp_path / "bin"
    for name, text in (("apt-get", FAKE_APT.replace("{table}", str(table))), ("dpkg-deb", FAKE_DPKG_DEB)):
        write(bin_dir / name, text).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv(debian.ENV, str(tmp_path / "cache"))
    said = []
    got = debian.install(tmp_path / "cache", use_apt=True, say=said.append, system_root=tmp_path / "root")
    assert got == list(debian.PACKAGES)
    assert any("apt-get install failed" in s for s in said) and any("falling back" in s for s in said)
    assert sum("extracted" in s for s in said) == 3
    assert debian.package_files(debian.WORDNET)["data.noun"] == tmp_path / "cache/usr/share/wordnet/data.noun"
    said.clear()
    assert debian.install(tmp_path / "cache", use_apt=True, say=said.append, system_root=tmp_path / "root") == []
    assert said == []
    assert not list((tmp_path / "cache").glob(".download-*"))
