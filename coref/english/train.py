"""Training the `ranker` backend from gold coreference, and cross-validating it by talk.

Training data (`../shared/data/coref`): LitBank (CoNLL; entities of a few ACE types only, so its
unmarked pronouns are not evidence of non-reference: it trains the ranker, not anaphoricity),
ParCorFull news and ParCorFull TED (MMAX2; full coreference with pleonastic pronouns marked: both
models). Chains used for the chain-level features are the gold ones while training (teacher
forcing) and the model's own at test time. `train_ranker` is `cad coref-train`; `fold_resolvers`
gives `cad coref-eval --cv-folds` one ranker per fold of TED talks.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.errors import CadError
from cad.core.progress import progress
from cad.defaults import COREF_IN_DOMAIN_WEIGHT, COREF_L2, COREF_PRONOUNS, COREF_TEMPERATURE, COREF_WINDOW
from cad.downloads.spacy_models import load_spacy
from coref.english.entities import THIRD_PERSON
from coref.english.ranker import PAIR_SOURCES, Decision, RankerModel, RankerResolver, walk
from coref.english.mentions import mentions_of_sentence
from coref.english.referent import TypeModel, event_features, type_features
from coref.english.tokens import moses_doc
from coref.evaluate import gold_pronouns, own_mention
from coref.gold.conll import read_conll
from coref.gold.gum import read_gum_dir
from coref.gold.mmax import list_mmax, read_mmax
from coref.gold.model import GoldDocument
from coref.referent import gold_referent, parsed_words
from coref.softmax import SoftmaxRanker

log = logging.getLogger(__name__)
# what `cad coref-train` and `cad coref-eval` report, under the command's name as before this
# module held their work
cli_log = logging.getLogger("cad.coref")

CORPORA = ("litbank", "news", "ted", "gum")
# corpora whose unmarked pronouns are non-referential: LitBank marks a few entity types only
ANAPHORICITY_CORPORA = ("news", "ted", "gum")
# ParCorFull (the TED and news domain) counts `in_domain_weight` times; the others once
IN_DOMAIN = ("news", "ted")


@dataclass
class DocInstances:
    corpus: str
    name: str
    rank_groups: list = field(default_factory=list)
    rank_gold: list = field(default_factory=list)
    ana_groups: list = field(default_factory=list)
    ana_gold: list = field(default_factory=list)
    type_feats: list = field(default_factory=list)     # GUM's typed mentions: (features, entity type)
    event_groups: list = field(default_factory=list)   # referring it/they: a clause, or not
    event_gold: list = field(default_factory=list)


def read_gold_corpora(root: str | os.PathLike, corpora=CORPORA) -> list[tuple[str, GoldDocument]]:
    """(corpus, document) pairs from ../shared/data/coref."""
    root = Path(root)
    out = []
    for corpus in corpora:
        if corpus == "litbank":
            d = root / "litbank" / "coref" / "conll"
            files = sorted(d.glob("*.conll"))
            if not files:
                raise CadError("no LitBank CoNLL files", str(d))
            out += [("litbank", doc) for f in files for doc in read_conll(f)]
        elif corpus == "gum":
            out += [("gum", doc) for doc in read_gum_dir(root / "gum" / "conll")]
        elif corpus in ("news", "ted"):
            d = root / "parcorfull" / "corpus" / ("news" if corpus == "news" else "TED") / "EN"
            names = list_mmax(d)
            if not names:
                raise CadError("no ParCorFull MMAX2 documents", str(d))
            out += [(corpus, read_mmax(d, n)) for n in names]
        else:
            raise CadError(f"unknown gold corpus {corpus!r} (choose from {', '.join(CORPORA)})")
    return out


def instances(corpus: str, gold: GoldDocument, parsed, window: int = 3, external: dict | None = None) -> DocInstances:
    """Ranking groups (one per pronoun with a right candidate) and anaphoricity examples of one document
    (`external`: pretrained scorers' pair scores of the document by source, for a ranker that reads them)."""
    sentences = gold.sentences()
    gp = {(g.sentence, g.index): g for g in gold_pronouns(gold, sentences, gold.doc_id, tuple(sorted(THIRD_PERSON)))}
    inst = DocInstances(corpus, gold.doc_id)

    word = parsed_words(gold, parsed) if corpus == "gum" else None

    def choose(dec: Decision):
        g = gp.get((dec.site.sentence, dec.site.index))
        ref = bool(g and g.referential)
        if g is not None and dec.site.pclass in ("it", "they"):
            label = gold_referent(gold, own_mention(gold, g.gold_token), word) if word and g.gold_token is not None \
                else g.referent
            if label != "pleonastic":
                inst.event_groups.append([event_features(dec.site, dec.ana_feats), []])
                inst.event_gold.append([label == "event", label != "event"])
        if corpus in ANAPHORICITY_CORPORA:
            inst.ana_groups.append([dec.ana_feats, []])
            inst.ana_gold.append([ref, not ref])
        if not ref:
            return None, None, None
        right = [(c.sentence, c.head) in g.chain_tokens for c in dec.candidates]
        if any(right):
            inst.rank_groups.append(dec.pair_feats)
            inst.rank_gold.append(right)
        nominal = [j for j, ok in enumerate(right) if ok and dec.candidates[j].kind == "np"]
        events = [j for j, ok in enumerate(right) if ok]
        return (nominal[0] if nominal else events[0] if events else None), None, None

    walk(parsed, window, choose, external)
    if corpus == "gum":
        inst.type_feats = typed_mentions(gold, parsed)
    return inst


def typed_mentions(gold: GoldDocument, parsed) -> list[tuple[list[str], str]]:
    """The type model's examples from a GUM document parsed as its own sentences: every mention
    the resolver finds (noun phrases, and *it*/*they*), typed as the smallest gold mention that
    holds its head."""
    cover: dict[int, object] = {}
    for m in sorted(gold.mentions, key=lambda m: -len(m.tokens)):
        for t in m.tokens:
            cover[t] = m        # the smallest mention over each token wins
    out = []
    for k, doc in enumerate(parsed):
        for m in mentions_of_sentence(doc, k):
            g = cover.get(gold.sentence_starts[k] + m.head)
            if g is None or "etype" not in g.attrs:
                continue
            if m.pronoun and m.text.lower() not in ("it", "they", "them"):
                continue
            out.append((type_features(m, doc), g.attrs["etype"]))
    return out


def parse_gold(nlp, docs: list[tuple[str, GoldDocument]], cache: str | os.PathLike | None = None) -> list:
    """Each gold document's sentences as spaCy Docs, parsed as the resolver parses cad's tokens.
    With `cache` (a folder), parses are kept there by the text and the pipeline's name and
    version, so that experiments over the same corpora parse once."""
    out = []
    for corpus, gold in progress(docs, total=len(docs), desc="parse", unit="doc"):
        cached = _cached_parse(nlp, gold, cache) if cache else None
        if cached is None:
            cached = list(nlp.pipe(moses_doc(nlp.vocab, s) for s in gold.sentences()))
            if cache:
                _store_parse(nlp, gold, cache, cached)
        out.append(cached)
    return out


def _parse_key(nlp, gold: GoldDocument, cache) -> Path:
    import hashlib

    text = "\n".join(" ".join(s) for s in gold.sentences())
    meta = f"{nlp.meta.get('name')}-{nlp.meta.get('version')}"
    return Path(cache) / (hashlib.sha1((meta + "\n" + text).encode("utf-8")).hexdigest() + ".spacy")


def _cached_parse(nlp, gold: GoldDocument, cache) -> list | None:
    from spacy.tokens import DocBin

    f = _parse_key(nlp, gold, cache)
    if not f.exists():
        return None
    return list(DocBin().from_bytes(f.read_bytes()).get_docs(nlp.vocab))


def _store_parse(nlp, gold: GoldDocument, cache, parsed: list) -> None:
    from spacy.tokens import DocBin

    f = _parse_key(nlp, gold, cache)
    f.parent.mkdir(parents=True, exist_ok=True)
    tmp = f.with_suffix(".tmp")
    tmp.write_bytes(DocBin(docs=parsed).to_bytes())
    os.replace(tmp, f)


def load_scorers(sources: tuple[str, ...] = (), window: int = 3) -> dict[str, object]:
    """The pretrained scorers of `sources` (coref.english.ranker's PAIR_SOURCES), loaded before the
    corpora are parsed, so that a missing model file fails at once rather than minutes later."""
    return {name: PAIR_SOURCES[name].load(window) for name in sources}


def external_scores(parsed: list, scorers: dict[str, object]) -> list[dict | None]:
    """The scorers' pair scores of each parsed document, by source (None each without any)."""
    if not scorers:
        return [None] * len(parsed)
    out: list[dict] = [{} for _ in parsed]
    for name, scorer in scorers.items():
        t = time.time()
        for d, p in zip(out, progress(parsed, total=len(parsed), desc=name, unit="doc")):
            d[name] = scorer.pair_scores(p)
        log.info("%s scored %d documents in %.0fs", name, len(parsed), time.time() - t)
    return out


def fit(data: list[DocInstances], l2: float = COREF_L2, window: int = COREF_WINDOW, info: dict | None = None,
        in_domain_weight: int = COREF_IN_DOMAIN_WEIGHT, sources: tuple[str, ...] = ()) -> RankerModel:
    """Both models from the instances of `data`; ParCorFull's documents (the TED and news domain)
    count `in_domain_weight` times, LitBank's once."""
    data = [d for d in data for _ in range(max(1, in_domain_weight) if d.corpus in IN_DOMAIN else 1)]
    rg = [g for d in data for g in d.rank_groups]
    ry = [y for d in data for y in d.rank_gold]
    ag = [g for d in data for g in d.ana_groups]
    ay = [y for d in data for y in d.ana_gold]
    if not rg or not ag:
        raise CadError("not enough training data: the ranker needs gold chains and anaphoricity needs ParCorFull")
    t = time.time()
    ranker = SoftmaxRanker.fit(rg, ry, l2=l2)
    ana = SoftmaxRanker.fit(ag, ay, l2=l2)
    typed = [x for d in data if d.corpus == "gum" for x in d.type_feats]
    types = fit_types(typed) if typed else None
    eg = [g for d in data for g in d.event_groups]
    events = SoftmaxRanker.fit(eg, [y for d in data for y in d.event_gold], l2=l2) if types and eg else None
    log.info("trained on %d ranking groups, %d anaphoricity examples and %d typed mentions in %.1fs",
             len(rg), len(ag), len(typed), time.time() - t)
    info = dict(info or {})
    info.update({"ranking_groups": len(rg), "anaphoricity_examples": len(ag), "l2": l2, "typed_mentions": len(typed)})
    info["neuralcoref"] = "neuralcoref" in sources
    if "attention" in sources:
        info["attention"] = True
    return RankerModel(ranker, ana, window, 0.5, info, types, events=events, neuralcoref="neuralcoref" in sources,
                       attention="attention" in sources)


def fit_types(typed: list[tuple[list[str], str]], l2: float = 1.0) -> TypeModel:
    """The entity-type model (coref.english.referent) from (features, type) examples."""
    return TypeModel.fit(typed, l2=l2)


def talk_folds(names: list[str], k: int) -> list[list[str]]:
    """Talks into k folds, round-robin over the sorted names (every talk in exactly one fold)."""
    if k < 2 or k > len(names):
        raise CadError(f"--folds must be between 2 and the number of talks ({len(names)})")
    names = sorted(names)
    return [names[i::k] for i in range(k)]


def train_ranker(root: str | os.PathLike, corpora: tuple[str, ...], out: str | os.PathLike, l2: float = COREF_L2,
                 window: int = COREF_WINDOW, in_domain_weight: int = COREF_IN_DOMAIN_WEIGHT,
                 temperature: float = COREF_TEMPERATURE,
                 cache: str | os.PathLike | None = None, sources: tuple[str, ...] = ()) -> RankerModel:
    """Train both models (and the entity-type model, with GUM) on the gold `corpora` under `root`
    and write them to `out`; `temperature` divides the ranker's scores (chosen on held-out folds:
    coref.english.heldout)."""
    docs = read_gold_corpora(root, corpora)
    nlp = load_spacy()
    t = time.time()
    scorers = load_scorers(sources, window)
    parsed = parse_gold(nlp, docs, cache)
    ext = external_scores(parsed, scorers)
    data = [instances(c, g, p, window, e) for (c, g), p, e in zip(docs, parsed, ext)]
    model = fit(data, l2, window, {"corpora": list(corpora), "documents": len(docs),
                                   "in_domain_weight": in_domain_weight}, in_domain_weight, sources)
    model.temperature = temperature
    model.save(out)
    cli_log.info("ranker trained on %d documents in %.0fs: %s", len(docs), time.time() - t, out)
    return model


def fold_resolvers(root: str | os.PathLike, corpora: tuple[str, ...], pairs, k: int,
                   pronouns: tuple[str, ...] = COREF_PRONOUNS, l2: float = COREF_L2, window: int = COREF_WINDOW,
                   in_domain_weight: int = COREF_IN_DOMAIN_WEIGHT, sources: tuple[str, ...] = ()
                   ) -> tuple[dict[str, RankerResolver], str]:
    """One ranker per fold of the talks in `pairs` (coref.evaluate.pair_documents), each trained on
    the gold `corpora` under `root` without the talks it resolves: {talk's name in `pairs`:
    resolver}, and the protocol in words."""
    docs = read_gold_corpora(root, corpora)
    talks = {gdoc.doc_id: name for name, gdoc, _, _ in pairs}
    folds = talk_folds(sorted(talks), k)
    nlp = load_spacy()
    scorers = load_scorers(sources, window)
    parsed = parse_gold(nlp, docs)
    ext = external_scores(parsed, scorers)
    data = [instances(c, g, p, window, e) for (c, g), p, e in zip(docs, parsed, ext)]
    resolvers = {}
    for i, fold in enumerate(folds, 1):
        held = set(fold)
        train = [d for d, (c, g) in zip(data, docs) if not (c == "ted" and g.doc_id in held)]
        seen = sorted({d.name for d in train if d.corpus == "ted" and d.name in held})
        if seen:
            raise AssertionError(f"fold {i} would train on its own talks {seen}")
        model = fit(train, l2, window, None, in_domain_weight, sources)
        resolver = RankerResolver(model, nlp=nlp, pronouns=pronouns)
        for talk in fold:
            resolvers[talks[talk]] = resolver
        cli_log.info("fold %d: talks %s held out, trained on %d documents", i, ",".join(fold), len(train))
    protocol = (f"{k} folds by talk (round-robin over sorted talk ids: "
                + "; ".join(",".join(f) for f in folds)
                + f"); each fold's talks resolved by a ranker trained on {'+'.join(corpora)} without them")
    return resolvers, protocol
