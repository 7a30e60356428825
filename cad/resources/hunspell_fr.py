"""The gender and number of French nouns from Grammalecte's Hunspell dictionary (Debian's
`hunspell-fr-comprehensive`: /usr/share/hunspell/fr.dic and fr.aff, located by cad/downloads/debian.py).

The .dic has one stem a line after a first line giving the entry count: `stem/FLAGS` and then the
morphological fields, `po:` (part of speech: nom, adj, npr, …) and `is:` (gender mas, fem or epi for
epicene; number sg, pl or inv). Flags are two characters each (`FLAG long` in the .aff). Most nouns
do not list their forms: `table/S.() po:nom is:fem` carries the suffix class S., whose rules in the
.aff (`SFX S. 0 0/L'D'Q' [^sxz] is:sg`, `SFX S. 0 s/D'Q' [^sxz] is:pl`) make *table* and *tables*,
and `()`, the NEEDAFFIX flag, says the bare stem is no word unless an affix applies. The gender too
may come from the rules only: `chat/F+() po:nom` gives chat, chats (is:mas) and chatte, chattes
(is:fem). So the reader applies the .aff's suffix rules, and those prefix rules that are no elision
(the unit prefixes of *kilomètre*): the elided articles (l', d', qu') are tokens of their own in
cad's text. Some forms are entries of their own (`yeux/D'Q' po:nom is:mas is:pl` beside `œil/S.()`),
and some nouns have two entries, one a gender (`souris` fem and mas, both is:inv).

The result maps a word form to its analyses, (gender, number) pairs with gender "masc", "fem" or
"epi" (one form for both genders, as *élève*) and number "sing", "plur" or "inv"; None where neither
the entry nor the rule says. Building it from the 86k-line .dic takes about 1.1 s and 68 MB at peak
(113,559 noun forms from 54,418 noun entries), so it is kept in a JSON cache (~/.cache/cad/lexicons,
1.7 MB, read in 0.1 s into 28 MB) keyed by the .dic's and .aff's size and mtime.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from cad.core.errors import CadError
from cad.core.textio import atomic_output
from cad.downloads import debian

# (gender, number): gender "masc" | "fem" | "epi" | None, number "sing" | "plur" | "inv" | None
Analysis = tuple[str | None, str | None]

GENDERS = {"mas": "masc", "fem": "fem", "epi": "epi"}
NUMBERS = {"sg": "sing", "pl": "plur", "inv": "inv"}
NOUN_PARTS = ("nom",)
CACHE_VERSION = 1

# Hunspell's names of the encodings SET may give, where Python spells them otherwise
_ENCODINGS = {"microsoft-cp1251": "cp1251", "iscii-devanagari": "iscii"}
# A space ends the word only before a morphological field (`po:`): "a lot" is one word (hunspell(5)).
_FIELDS_START = re.compile(r"\t| (?=[A-Za-z]{2}:)")
_FLAG_SLASH = re.compile(r"(?<!\\)/")


@dataclass(frozen=True)
class AffixRule:
    """One PFX or SFX line: strip `strip`, add `add`, where the stem matches `condition`."""
    strip: str
    add: str
    continuation: frozenset[str]
    condition: re.Pattern | None
    morph: tuple[str, ...]


@dataclass
class AffixClass:
    kind: str           # "PFX" | "SFX"
    flag: str
    cross_product: bool
    rules: list[AffixRule] = field(default_factory=list)


@dataclass
class Affixes:
    """What the reader uses of an .aff file."""
    encoding: str = "ISO8859-1"
    flag_mode: str = "char"          # char | long | num | UTF-8
    prefixes: dict[str, AffixClass] = field(default_factory=dict)
    suffixes: dict[str, AffixClass] = field(default_factory=dict)
    needaffix: str | None = None
    keepcase: str | None = None
    forbidden: str | None = None
    fullstrip: bool = False
    iconv: list[tuple[str, str]] = field(default_factory=list)

    def split_flags(self, text: str, path: str, lineno: int) -> tuple[str, ...]:
        """The flags of a `/FLAGS` string, in the .aff's FLAG mode."""
        if not text:
            return ()
        if self.flag_mode == "long":
            if len(text) % 2:
                raise CadError(f"flags {text!r}: an odd number of characters, where FLAG long "
                               "takes two a flag", path, lineno)
            return tuple(text[i:i + 2] for i in range(0, len(text), 2))
        if self.flag_mode == "num":
            flags = tuple(text.split(","))
            if not all(f.isascii() and f.isdigit() for f in flags):
                raise CadError(f"flags {text!r}: FLAG num takes numbers separated by commas", path, lineno)
            return flags
        return tuple(text)


def _decoded_lines(path: str, encoding: str) -> Iterator[tuple[int, str]]:
    try:
        with open(path, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                try:
                    yield lineno, raw.decode(encoding).rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    raise CadError(f"not {encoding} at byte {exc.start} of the line", path, lineno) from None
    except FileNotFoundError:
        raise CadError("file not found", path) from None


def _encoding_of(path: str) -> str:
    # SET names the encoding of both files; hunspell's default is ISO8859-1
    for _, line in _decoded_lines(path, "latin-1"):
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "SET":
            name = _ENCODINGS.get(parts[1].lower(), parts[1])
            try:
                "".encode(name)
            except LookupError:
                raise CadError(f"unknown encoding SET {parts[1]}", path) from None
            return name
    return "ISO8859-1"


def _condition(text: str, kind: str, path: str, lineno: int) -> re.Pattern | None:
    """A rule's condition (`.`, literal characters, `[abc]`, `[^abc]`) as a regex anchored at the
    stem's start (PFX) or end (SFX)."""
    if text == ".":
        return None
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "[":
            end = text.find("]", i + 1)
            if end < 0:
                raise CadError(f"condition {text!r}: '[' without ']'", path, lineno)
            body = text[i + 1:end]
            neg = body.startswith("^")
            chars = "".join(re.escape(c) for c in (body[1:] if neg else body))
            out.append(f"[{'^' if neg else ''}{chars}]")
            i = end + 1
        else:
            out.append("." if ch == "." else re.escape(ch))
            i += 1
    pattern = "".join(out)
    return re.compile(f"^(?:{pattern})" if kind == "PFX" else f"(?:{pattern})$")


def _affix_line(aff: Affixes, parts: list[str], pending: dict, path: str, lineno: int) -> None:
    kind, flag = parts[0], parts[1] if len(parts) > 1 else ""
    table = aff.prefixes if kind == "PFX" else aff.suffixes
    key = (kind, flag)
    if pending.get(key, 0) == 0:      # a class header: `SFX flag Y|N count`
        if len(parts) < 4 or parts[2] not in ("Y", "N") or not parts[3].isdigit():
            raise CadError(f"expected '{kind} FLAG Y|N COUNT', found {' '.join(parts)!r}", path, lineno)
        if flag in table:
            raise CadError(f"{kind} class {flag!r} defined twice", path, lineno)
        table[flag] = AffixClass(kind, flag, parts[2] == "Y")
        pending[key] = int(parts[3])
        pending[("line", key)] = lineno
        return
    if len(parts) < 4:
        raise CadError(f"expected '{kind} FLAG STRIP ADD[/FLAGS] CONDITION [MORPH]', found "
                       f"{' '.join(parts)!r}", path, lineno)
    add, _, cont = parts[3].partition("/")
    rule = AffixRule("" if parts[2] == "0" else parts[2], "" if add == "0" else add,
                     frozenset(aff.split_flags(cont, path, lineno)),
                     _condition(parts[4] if len(parts) > 4 else ".", kind, path, lineno), tuple(parts[5:]))
    table[flag].rules.append(rule)
    pending[key] -= 1


def read_aff(path: str | os.PathLike) -> Affixes:
    """The affix classes and the flags of an .aff file that the noun reader needs."""
    p = str(path)
    aff = Affixes(encoding=_encoding_of(p))
    pending: dict = {}
    iconv_left = 0
    for lineno, line in _decoded_lines(p, aff.encoding):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        head = parts[0]
        if head in ("PFX", "SFX"):
            _affix_line(aff, parts, pending, p, lineno)
        elif head in ("AF", "AM"):
            raise CadError(f"{head} (flag or morphology aliases) is not supported by this reader", p, lineno)
        elif head == "FLAG" and len(parts) > 1:
            if parts[1] not in ("long", "num", "UTF-8"):
                raise CadError(f"unknown FLAG mode {parts[1]!r}", p, lineno)
            aff.flag_mode = parts[1]
        elif head in ("NEEDAFFIX", "KEEPCASE", "FORBIDDENWORD") and len(parts) > 1:
            setattr(aff, {"NEEDAFFIX": "needaffix", "KEEPCASE": "keepcase", "FORBIDDENWORD": "forbidden"}[head],
                    parts[1])
        elif head == "FULLSTRIP":
            aff.fullstrip = True
        elif head == "ICONV":
            if iconv_left == 0 and len(parts) == 2 and parts[1].isdigit():
                iconv_left = int(parts[1])
            elif iconv_left > 0 and len(parts) >= 3:
                aff.iconv.append((parts[1], parts[2]))
                iconv_left -= 1
            else:
                raise CadError(f"unexpected ICONV line {line!r}", p, lineno)
    for key, left in pending.items():
        if key[0] != "line" and left:
            raise CadError(f"{key[0]} class {key[1]!r} announces {left} more rules than it has", p,
                           pending[("line", key)])
    # the elided articles and conjunctions (l', d', qu', jusqu', and l'exa… among the unit prefixes)
    # are tokens of their own in cad's text: their prefix rules make no form the reader wants, and
    # dropping them here spares trying their 34 rules on every noun
    for cls in aff.prefixes.values():
        cls.rules = [r for r in cls.rules if "'" not in r.add and "’" not in r.add]
    return aff


def read_dic(path: str | os.PathLike, aff: Affixes) -> Iterator[tuple[int, str, tuple[str, ...], tuple[str, ...]]]:
    """(line number, word, flags, morphological fields) of each .dic entry, streamed."""
    p = str(path)
    lines = _decoded_lines(p, aff.encoding)
    first = next(lines, None)
    if first is None or not first[1].strip().isdigit():
        raise CadError("the first line of a .dic must be its entry count", p, 1)
    for lineno, line in lines:
        if not line.strip():
            continue
        m = _FIELDS_START.search(line)
        head, morph = (line[:m.start()], tuple(line[m.end():].split())) if m else (line.rstrip(), ())
        parts = _FLAG_SLASH.split(head, maxsplit=1)
        word = parts[0].replace("\\/", "/")
        if not word or word != word.strip():
            raise CadError(f"empty or space-padded word in {line!r}", p, lineno)
        flags = aff.split_flags(parts[1].strip(), p, lineno) if len(parts) > 1 else ()
        yield lineno, word, flags, morph


def _fits(rule: AffixRule, stem: str, kind: str, fullstrip: bool) -> bool:
    if not (stem.endswith(rule.strip) if kind == "SFX" else stem.startswith(rule.strip)):
        return False
    if len(rule.strip) >= len(stem) and not (fullstrip and len(rule.strip) == len(stem)):
        return False
    if rule.condition is None:
        return True
    return rule.condition.search(stem) is not None


def expand(word: str, flags: Iterable[str], morph: tuple[str, ...],
           aff: Affixes) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Every form an entry stands for, with its morphological fields (the stem's, then the rules').

    Suffixes come from the entry's flags and from the continuation of a prefix rule; a prefix and
    a suffix from the entry combine when both classes allow the cross product. A form whose stem or
    affix carries NEEDAFFIX counts only with a further affix.
    """
    flags = set(flags)
    need = aff.needaffix
    if need is None or need not in flags:
        yield word, morph
    suffix_rules = []
    for flag in flags & aff.suffixes.keys():
        cls = aff.suffixes[flag]
        for rule in cls.rules:
            if _fits(rule, word, "SFX", aff.fullstrip):
                suffix_rules.append((cls, rule))
                if need is None or need not in rule.continuation:
                    yield word[:len(word) - len(rule.strip)] + rule.add, morph + rule.morph
    for flag in flags & aff.prefixes.keys():
        pcls = aff.prefixes[flag]
        for prule in pcls.rules:
            if not _fits(prule, word, "PFX", aff.fullstrip):
                continue
            stem = prule.add + word[len(prule.strip):]
            if need is None or need not in prule.continuation:
                yield stem, morph + prule.morph
            # the prefix's own continuation suffixes (*kilo* + mètre + s), then the entry's (cross product)
            combos = [(c, r) for f in prule.continuation & aff.suffixes.keys() for c in [aff.suffixes[f]]
                      for r in c.rules if _fits(r, word, "SFX", aff.fullstrip)]
            if pcls.cross_product:
                combos += [(c, r) for c, r in suffix_rules if c.cross_product]
            for _, srule in combos:
                if need is None or need not in srule.continuation:
                    yield stem[:len(stem) - len(srule.strip)] + srule.add, morph + prule.morph + srule.morph


def analysis_of(morph: Iterable[str]) -> tuple[set[str], str | None, str | None]:
    """(parts of speech, gender, number) of a form's fields; a later field (the rule's) overrides
    an earlier one (the stem's)."""
    parts, gender, number = set(), None, None
    for f in morph:
        name, _, value = f.partition(":")
        if name == "po":
            parts.add(value)
        elif name == "is":
            gender = GENDERS.get(value, gender)
            number = NUMBERS.get(value, number)
    return parts, gender, number


class FrenchNouns:
    """French word forms → their analyses as nouns, looked up as Hunspell would: the .aff's input
    conversion (ICONV: typographic apostrophe, decomposed accents) after NFC, then the word as
    given, lowercased (a capitalised or upper-case word), or capitalised (an upper-case word, and a
    lowercased one, as cad's lowercased corpora write *france*). KEEPCASE forms (units: *A*, *Hz*)
    match only as written."""

    def __init__(self, forms: dict[str, frozenset[Analysis]], keepcase: Iterable[str] = (),
                 iconv: Iterable[tuple[str, str]] = ()):
        self._forms = forms
        self._keepcase = frozenset(keepcase)
        # the longest ICONV pattern first, as hunspell matches them
        self._iconv = sorted(iconv, key=lambda pair: -len(pair[0]))

    def __len__(self) -> int:
        return len(self._forms)

    def __iter__(self) -> Iterator[str]:
        return iter(self._forms)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and bool(self.analyses(word))

    def normalize(self, word: str) -> str:
        """NFC, the .aff's ICONV pairs, and Unicode hyphens (U+2010, U+2011: FreeDict writes
        *rendez‐vous*) as the ASCII hyphen the .dic uses."""
        text = unicodedata.normalize("NFC", word).replace("\u2010", "-").replace("\u2011", "-")
        for src, dst in self._iconv:
            if src in text:
                text = text.replace(src, dst)
        return text

    def _candidates(self, word: str) -> list[str]:
        out = [word]
        lower = word.lower()
        if lower != word:
            out.append(lower)
        if (word.isupper() and len(word) > 1) or word == lower:
            out.append(lower[:1].upper() + lower[1:])
        return out

    def analyses(self, word: str) -> frozenset[Analysis]:
        """The (gender, number) analyses of a form, empty when it is no noun of the dictionary."""
        word = self.normalize(word.strip())
        tries = [word]
        if "oe" in word.lower():
            # the .dic writes the ligature (œil, cœur, sœur); text typed without it writes oe
            tries.append(word.replace("oe", "œ").replace("Oe", "Œ").replace("OE", "Œ"))
        for attempt in tries:
            for i, cand in enumerate(self._candidates(attempt)):
                found = self._forms.get(cand)
                if found and (i == 0 or cand not in self._keepcase):
                    return found
        return frozenset()

    def gender(self, word: str) -> str | None:
        """"masc", "fem", "epi" (epicene, or a form with a masculine and a feminine entry, as
        *souris*), or None for a word the dictionary lacks or gives no gender."""
        genders = {g for g, _ in self.analyses(word) if g is not None}
        if not genders:
            return None
        if "epi" in genders or len(genders) > 1:
            return "epi"
        return genders.pop()

    def phrase_gender(self, phrase: str) -> str | None:
        """The gender of a multiword translation (*peau de vache*, *océan Antarctique*): the whole
        phrase when the dictionary has it, else its first word that is a noun there (a French noun
        phrase's head comes first but for preposed adjectives)."""
        phrase = " ".join(phrase.split())
        whole = self.gender(phrase)
        if whole is not None or " " not in phrase:
            return whole
        for word in phrase.split():
            g = self.gender(word)
            if g is not None:
                return g
        return None


def _subsume(found: set[Analysis]) -> frozenset[Analysis]:
    # an entry read without its rules (*mètre* by the bare unit prefix) says less than the rules
    # do (*mètre* singular): drop an analysis another one refines
    return frozenset(a for a in found if not any(
        b != a and (a[0] is None or a[0] == b[0]) and (a[1] is None or a[1] == b[1]) for b in found))


def build(dic: str | os.PathLike, aff: str | os.PathLike, parts: tuple[str, ...] = NOUN_PARTS) -> FrenchNouns:
    """Read the .aff and stream the .dic, expanding each entry whose `po:` is one of `parts`."""
    affixes = read_aff(aff)
    wanted = set(parts)
    found: dict[str, set[Analysis]] = {}
    keep: dict[str, bool] = {}
    forbidden: set[str] = set()
    for _, word, flags, morph in read_dic(dic, affixes):
        if affixes.forbidden is not None and affixes.forbidden in flags:
            forbidden.add(word)
            continue
        if not analysis_of(morph)[0] & wanted:       # verbs' hundreds of rules are not expanded
            continue
        keepcase = affixes.keepcase is not None and affixes.keepcase in flags
        for form, fields in expand(word, flags, morph, affixes):
            pos, gender, number = analysis_of(fields)
            if pos & wanted:
                found.setdefault(form, set()).add((gender, number))
                keep[form] = keep.get(form, True) and keepcase
    shared: dict[frozenset, frozenset] = {}
    forms = {w: shared.setdefault(s, s) for w, a in found.items() if w not in forbidden
             for s in [_subsume(a)]}
    return FrenchNouns(forms, [w for w, k in keep.items() if k and w in forms], affixes.iconv)


def _cache_key(dic: Path, aff: Path, parts: tuple[str, ...]) -> dict:
    d, a = dic.stat(), aff.stat()
    return {"version": CACHE_VERSION, "dic": [d.st_size, d.st_mtime_ns], "aff": [a.st_size, a.st_mtime_ns],
            "parts": list(parts)}


def _cache_path(cache_dir: Path, dic: Path, parts: tuple[str, ...]) -> Path:
    tag = hashlib.sha1(f"{dic.resolve()}\0{','.join(parts)}".encode("utf-8")).hexdigest()[:12]
    return cache_dir / f"hunspell-{dic.stem}-{tag}.json"


def _write_cache(path: Path, key: dict, lex: FrenchNouns) -> None:
    table: dict[frozenset, int] = {}
    forms = {w: table.setdefault(a, len(table)) for w, a in lex._forms.items()}
    data = {"key": key, "analyses": [sorted(a, key=str) for a in table], "forms": forms,
            "keepcase": sorted(lex._keepcase), "iconv": lex._iconv}
    with atomic_output(path) as fh:
        json.dump(data, fh, ensure_ascii=False, separators=(",", ":"))


def _read_cache(path: Path, key: dict) -> FrenchNouns | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        sets = [frozenset((g, n) for g, n in a) for a in data["analyses"]]
        return FrenchNouns({w: sets[i] for w, i in data["forms"].items()}, data["keepcase"],
                           [tuple(p) for p in data["iconv"]])
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None        # no cache, or one from another version: rebuilt


def load(dic: str | os.PathLike | None = None, aff: str | os.PathLike | None = None,
         cache_dir: str | os.PathLike | None = None, use_cache: bool = True,
         parts: tuple[str, ...] = NOUN_PARTS) -> FrenchNouns:
    """The noun lexicon of `dic`/`aff` (default: Debian's fr.dic and fr.aff, found by
    cad.downloads.debian), from its JSON cache in `cache_dir` (default ~/.cache/cad/lexicons) when
    the files have not changed since it was written."""
    if dic is None or aff is None:
        files = debian.package_files(debian.HUNSPELL_FR)
        dic, aff = files["fr.dic"], files["fr.aff"]
    dic, aff = Path(dic), Path(aff)
    for f in (dic, aff):
        if not f.is_file():
            raise CadError("file not found", str(f))
    if not use_cache:
        return build(dic, aff, parts)
    key = _cache_key(dic, aff, parts)
    path = _cache_path(Path(cache_dir) if cache_dir is not None else debian.cache_root() / "lexicons", dic, parts)
    lex = _read_cache(path, key)
    if lex is None:
        lex = build(dic, aff, parts)
        try:
            _write_cache(path, key, lex)
        except OSError:
            pass       # a read-only cache folder: the next load builds it again
    return lex
