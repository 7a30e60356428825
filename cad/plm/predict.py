"""Pronoun prediction with the PLM and the grammar rules of seed 001 §5."""

from __future__ import annotations

from cad.lang.facts import Morph
from cad.downloads.spacy_models import load_spacy
from cad.plm.model import PLM
from cad.plm.sequences import History, PLM_PRONOUNS
from cad.plm.task import tag
from cad.plm.tsv import PLACEHOLDER, Item

MEMBERS = {"il": ["il"], "elle": ["elle"], "ils": ["ils"], "elles": ["elles"], "ce": ["ce", "c'"],
           "cela": ["cela", "ça", "ç'"], "ça": ["ça", "ç'"], "on": ["on"]}
WORD_FEATURES = {"il": "masc.sing", "elle": "fem.sing", "ils": "masc.plur", "elles": "fem.plur"}
ETRE = {"est", "sont", "était", "étaient", "été", "être", "sera", "seront", "serait", "seraient", "fut", "furent",
        "soit", "soient", "es", "suis", "sommes", "êtes", "étais", "étions", "étiez", "serai", "serons"}
BE_PASSIVE = [("are",), ("were",), ("'re",), ("have", "been"), ("'ve", "been"), ("had", "been"), ("has", "been")]
OTHER_NEXT_POS = {"NOUN", "PROPN", "ADJ", "PUNCT", "CCONJ", "SCONJ", "ADP", "ADV"}


def class_members(classes: list[str]) -> dict[str, list[str]]:
    out = {c: list(MEMBERS.get(c, [])) for c in classes if c != "OTHER"}
    if "ça" in classes:
        out["cela"] = ["cela"]
    used = {w for ws in out.values() for w in ws}
    out["OTHER"] = sorted(PLM_PRONOUNS - used)
    return out


# seed 001 §4.1: the PLM scores "all possible target candidates of each source pronoun"; on and
# OTHER do not depend on the preceding nouns and come from the rules of §5 only
CANDIDATES = {"it": {"il", "elle", "ce", "cela", "ça"}, "they": {"ils", "elles"}}


def plm_scores(plm: PLM, history: list[str], members: dict[str, list[str]]) -> dict[str, float]:
    return {c: max(plm.logprob(history, w) for w in ws) for c, ws in members.items()}


def best_class(scores: dict[str, float], source_pronoun: str) -> str:
    allowed = CANDIDATES.get(source_pronoun.lower())
    pool = {c: v for c, v in scores.items() if allowed is None or c in allowed} or scores
    return max(pool, key=pool.get)


def english_tags(sentences: list[list[str]]) -> list[list[str]]:
    from spacy.tokens import Doc

    nlp = _english()
    return [[t.tag_ for t in d] for d in nlp.pipe(Doc(nlp.vocab, words=s) for s in sentences)]


_EN = None


def _english():
    """The tagger alone: the tags read the shared tok2vec, not the parse, so leaving the parser,
    NER and lemmatizer out gives the same tags (checked on 1,500 dev sentences) in 37% of the time."""
    global _EN
    if _EN is None:
        _EN = load_spacy(exclude=("parser", "ner", "lemmatizer"))
    return _EN


def on_rule(item: Item, n: int, j: int, src_tags: list[str], tgt_morph: list[Morph]) -> bool:
    """They + are/were/'re/have been + past participle, translated by pronoun + a verb other than être."""
    src = [w.lower() for w in item.source]
    if src[n] != "they":
        return False
    passive = False
    for be in BE_PASSIVE:
        k = n + 1 + len(be)
        if tuple(src[n + 1:k]) == be and k < len(src) and src_tags[k] == "VBN":
            passive = True
    if not passive or j + 1 >= len(item.target):
        return False
    nxt = item.target[j + 1].lower()
    return tgt_morph[j + 1].pos in ("VERB", "AUX") and nxt not in ETRE


def other_rule(item: Item, j: int, tgt_morph: list[Morph]) -> bool:
    """The word after the placeholder is a noun, adjective, punctuation, conjunction, preposition or adverb."""
    if j + 1 >= len(item.target):
        return False
    if PLACEHOLDER.match(item.target[j + 1]):
        return False
    return tgt_morph[j + 1].pos in OTHER_NEXT_POS


def filled_target(item: Item) -> list[str]:
    # placeholders read as a neutral pronoun for tagging the context
    return ["ce" if PLACEHOLDER.match(w) else w for w in item.target]


def predict_document(plm: PLM, items: list[Item], classes: list[str], rules: bool = True,
                     history: int = 4) -> tuple[list[list[str]], list[list[dict]]]:
    """Predictions and, per placeholder, the PLM scores and rule flags (for the source-aware model)."""
    members = class_members(classes)
    morph = tag([filled_target(it) for it in items])
    src_tags = english_tags([it.source for it in items]) if rules else [[] for _ in items]
    h = History(history)
    preds, infos = [], []
    for it, tags, stags in zip(items, morph, src_tags):
        slots = {j: n for j, n in it.slots}
        row, info_row = [], []
        for j, (w, m) in enumerate(zip(it.target, tags)):
            if j in slots:
                n = slots[j]
                scores = plm_scores(plm, list(h.items), members)
                info = {"scores": scores, "history": list(h.items), "on": False, "other": False}
                best = best_class(scores, it.source[n])
                if rules:
                    info["on"] = on_rule(it, n, j, stags, tags)
                    info["other"] = other_rule(it, j, tags)
                    if info["on"] and "on" in classes:
                        best = "on"
                    elif info["other"]:
                        best = "OTHER"
                row.append(best)
                info_row.append(info)
                h.push(WORD_FEATURES.get(best))
                continue
            h.observe(m)
        preds.append(row)
        infos.append(info_row)
    return preds, infos
