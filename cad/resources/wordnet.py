"""WordNet 3.0's lexicographer class of an English noun (noun.animal, noun.artifact, noun.person, …)
and its animacy, from Debian's `wordnet-base` (/usr/share/wordnet, located by
cad/downloads/debian.py) read by NLTK's WordNetCorpusReader: nothing is downloaded at run time.

NLTK reads a folder laid out as `nltk_data/corpora/wordnet` that holds the database files and a
`lexnames` file, which wordnet-base lacks. So the first load lays out that folder in cad's cache
(~/.cache/cad/wordnet/<digest>/nltk_data/corpora/wordnet), with copies of the database files (NLTK
3.10 refuses to open a symlink that leaves its folder, and a hard link) and `lexnames` written from
LEXNAMES below; Debian files that change get a new folder beside it. wordnet-base has no
`index.sense` either, which NLTK reads only to map another WordNet version onto 3.0, for
multilingual data cad does not use: the reader skips that mapping.

Senses come from NLTK's lemmatizer (morphy: *mice* → mouse, *data* → data and datum) in the order of
index.noun, most frequently tagged first. `lexname` is the class of the first sense; `lexnames` the
distribution over the senses weighted by their SemCor tag counts (cntlist.rev), uniform when no
sense of the word was tagged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import warnings
import weakref
from pathlib import Path

from cad.core.errors import CadError
from cad.downloads import debian

# The lexicographer files, numbered from 00, as the table of the lexnames(5WN) man page lists them
# (wordnet-base 1:3.0-37, /usr/share/man/man5/lexnames.5WN.gz, "WordNet 3.0, Dec 2006").
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling",
    "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
    "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
    "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition",
    "verb.communication", "verb.competition", "verb.consumption", "verb.contact", "verb.creation",
    "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative",
    "verb.weather", "adj.ppl",
)
# lexnames(5WN): the third field, the syntactic category, "is also part of the lexicographer file's name"
CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
ANIMATE_CLASSES = frozenset({"noun.person", "noun.animal"})
# the heads of the two animate files sit in noun.Tops (person.n.01, animal.n.01)
ANIMATE_ROOTS = frozenset({"person.n.01", "animal.n.01"})
CORPUS_FILES = tuple(Path(f).name for f in debian.PACKAGES[debian.WORDNET])
_MANIFEST = ".cad-source.json"


def lexnames_text() -> str:
    """The `lexnames` file: number, name and syntactic category, tab-separated, one a line."""
    return "".join(f"{i:02d}\t{name}\t{CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def _source_state(source: Path) -> dict:
    state = {}
    for name in CORPUS_FILES:
        f = source / name
        if not f.is_file():
            raise CadError(f"the WordNet folder lacks {name}", str(source))
        st = f.stat()
        state[name] = [st.st_size, st.st_mtime_ns]
    return {"source": str(source.resolve()), "files": state, "lexnames": lexnames_text()}


def corpus_folder(source: str | os.PathLike, cache: str | os.PathLike) -> Path:
    """`cache`/wordnet/<digest>/nltk_data/corpora/wordnet, laid out from the database files in
    `source` unless it is already there. The digest names the source's path, sizes and times: a
    changed or other WordNet gets a folder of its own, and a folder once laid out is never
    replaced, since another process may be reading it (NLTK opens the files as it needs them;
    replacing the folder under a running `make` gave it a truncated read)."""
    source = Path(source)
    state = _source_state(source)
    digest = hashlib.sha256(json.dumps(state, sort_keys=True).encode("utf-8")).hexdigest()[:16]
    target = Path(cache) / "wordnet" / digest / "nltk_data" / "corpora" / "wordnet"
    if _complete(target, state):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=target.parent))
    try:
        for name in CORPUS_FILES:
            shutil.copyfile(source / name, tmp / name)
        (tmp / "lexnames").write_text(lexnames_text(), encoding="utf-8")
        (tmp / _MANIFEST).write_text(json.dumps(state), encoding="utf-8")
        try:
            os.rename(tmp, target)
        except OSError:
            # laid out meanwhile by another process (or a broken earlier copy): keep a whole one
            if not _complete(target, state):
                shutil.rmtree(target, ignore_errors=True)
                os.rename(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _complete(folder: Path, state: dict) -> bool:
    try:
        return json.loads((folder / _MANIFEST).read_text(encoding="utf-8")) == state
    except (OSError, ValueError):
        return False


def _reader(folder: Path):
    import nltk.data
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class DebianWordNet(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            # NLTK maps another WordNet's synsets onto 3.0 through index.sense, for the Open
            # Multilingual Wordnet; these files are 3.0 itself and cad reads no OMW data
            return None

    root = str(folder.parent.parent)        # nltk_data: NLTK opens files only under its data path
    if root not in nltk.data.path:
        nltk.data.path.append(root)
    with warnings.catch_warnings():
        # "The multilingual functions are not available": no OMW reader, on purpose
        warnings.simplefilter("ignore", UserWarning)
        try:
            return DebianWordNet(str(folder), None)
        except (OSError, ValueError, AssertionError) as exc:
            raise CadError(f"NLTK cannot read this WordNet folder: {exc}", str(folder)) from None


def _own_files_after_fork(reader) -> None:
    """NLTK's reader keeps its data files open and reads them by seek and readline. A process forked
    after it read (the pool of `cad cm experiment`'s decoding workers) would share those files'
    offsets with its siblings, and two workers reading at once get each other's lines: a synset
    that comes back None, or the wrong one. The child drops the parent's handles and opens its own."""
    ref = weakref.ref(reader)

    def reopen() -> None:
        r = ref()
        if r is not None:
            r._data_file_map = {}
            r._key_count_file = None
            r._key_synset_file = None
    os.register_at_fork(after_in_child=reopen)


class NounClasses:
    """The lexicographer classes and animacy of English nouns."""

    def __init__(self, reader):
        self.wordnet = reader
        self._animate: dict[str, bool] = {}
        _own_files_after_fork(reader)

    def _sense_animate(self, synset) -> bool:
        name = synset.name()
        if name not in self._animate:
            self._animate[name] = sense_is_animate(synset)
        return self._animate[name]

    def synsets(self, noun: str) -> list:
        """The noun senses of `noun` (any inflection morphy undoes; spaces as underscores)."""
        key = "_".join(noun.split())
        if not key:
            return []
        return self.wordnet.synsets(key, pos="n")

    def _weighted(self, noun: str) -> list[tuple[object, float]]:
        synsets = self.synsets(noun)
        if not synsets:
            return []
        # the base forms morphy finds (*data*: data and datum), whose tag counts each sense adds up
        forms = set(self.wordnet._morphy("_".join(noun.split()).lower(), "n"))
        counts = [sum(lemma.count() for lemma in s.lemmas() if lemma.name().lower() in forms) for s in synsets]
        total = sum(counts)
        if total == 0:
            return [(s, 1.0 / len(synsets)) for s in synsets]
        return [(s, c / total) for s, c in zip(synsets, counts)]

    def lexname(self, noun: str) -> str | None:
        """The class of the first (most frequently tagged) sense, None for no noun of WordNet."""
        synsets = self.synsets(noun)
        return synsets[0].lexname() if synsets else None

    def lexnames(self, noun: str) -> dict[str, float]:
        """The classes of every sense, weighted by tag counts, largest first; {} for no noun."""
        dist: dict[str, float] = {}
        for s, w in self._weighted(noun):
            dist[s.lexname()] = dist.get(s.lexname(), 0.0) + w
        return dict(sorted(dist.items(), key=lambda kv: (-kv[1], kv[0])))

    def is_animate(self, noun: str) -> bool | None:
        """Whether the first sense is animate; None for no noun of WordNet. A sense is animate when
        its class is noun.person or noun.animal, or when a chain of hypernyms (instance ones too:
        *Einstein* is an instance of physicist) leads to person.n.01 or animal.n.01, the heads of
        those classes, which WordNet files in noun.Tops (so *person* and *animal* themselves)."""
        synsets = self.synsets(noun)
        return self._sense_animate(synsets[0]) if synsets else None

    def animacy(self, noun: str) -> float | None:
        """The share of animate senses, weighted as `lexnames`; None for no noun of WordNet."""
        weighted = self._weighted(noun)
        if not weighted:
            return None
        return sum(w for s, w in weighted if self._sense_animate(s))


def sense_is_animate(synset) -> bool:
    """One sense's animacy (see NounClasses.is_animate)."""
    if synset.lexname() in ANIMATE_CLASSES or synset.name() in ANIMATE_ROOTS:
        return True
    up = synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms())
    return any(h.name() in ANIMATE_ROOTS for h in up)


def load(wordnet_dir: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None) -> NounClasses:
    """The noun classes of the WordNet database files in `wordnet_dir` (default: Debian's, found by
    cad.downloads.debian), through the NLTK folder laid out in `cache_dir` (default ~/.cache/cad)."""
    if wordnet_dir is None:
        wordnet_dir = debian.package_files(debian.WORDNET)["data.noun"].parent
    folder = corpus_folder(wordnet_dir, cache_dir if cache_dir is not None else debian.cache_root())
    return NounClasses(_reader(folder))
