"""Seed 002's shallow syntactic trees from spaCy's English parse, and the REL marker.

A tree is ROOT → one S per sentence → chunks → PTB part-of-speech tags → words (lowercased, so
that case alone does not break a match). The paper chunks with the Illinois chunker (CoNLL-2000
labels); spaCy has no chunker, so the chunks are read off the parse: its noun chunks are NPs, and
the other tokens are grouped by their part of speech as CoNLL-2000 groups them (a verb group with
its auxiliaries, negation and inner adverbs is one VP; each preposition is a PP; punctuation and
conjunctions are O, one token each).

Seed 002's discourse layer came from an RST parser (Joty et al.); none is on the registries here
(isanlp-rst, dplp, discopy, rstfinder: not available), so the discourse-like layer is what the
parse gives: the sentence cut into clauses (elementary-discourse-unit-like segments, one per
finite clause: the root's, and each adverbial, complement, relative, conjoined or paratactic
clause's), each labelled with the relation its connective signals (but → CONTRAST, because →
CAUSE, if → CONDITION, when → TEMPORAL, ...) or, without one, with the relation its dependency
implies (a relative clause ELABORATION, a complement ATTRIBUTION, a conjunct JOINT, an adverbial
clause BACKGROUND; the main clause NUCLEUS)."""

from __future__ import annotations

import html
from typing import Iterable, Iterator

from cad.eval.rank.tree import Tree
from cad.downloads.spacy_models import load_spacy

REL = "-REL"
# chunks made of one token each (CoNLL-2000 keeps them apart)
_SINGLE = {"PP", "O", "SBAR", "PRT", "INTJ"}


def _base_type(tok) -> str:
    pos, tag = tok.pos_, tok.tag_
    if pos in ("VERB", "AUX") or tag == "MD":
        return "VP"
    if tag == "TO":
        return "VP" if tok.i + 1 < len(tok.doc) and tok.doc[tok.i + 1].pos_ in ("VERB", "AUX") else "PP"
    if tag == "RP":
        return "PRT"
    if pos == "ADP":
        return "PP"
    if pos == "ADV" or (pos == "PART" and tag == "RB"):
        return "ADVP"
    if pos == "ADJ":
        return "ADJP"
    if pos == "SCONJ":
        return "SBAR"
    if pos == "INTJ":
        return "INTJ"
    if pos in ("NOUN", "PROPN", "PRON", "NUM", "DET"):
        return "NP"
    return "O"


def chunks(sent) -> list[tuple[str, list]]:
    """(label, tokens) of one spaCy sentence, in order."""
    in_np: dict[int, int] = {}
    for k, np_ in enumerate(sent.noun_chunks):
        for t in np_:
            in_np[t.i] = k
    types = [("NP", in_np[t.i]) if t.i in in_np else (_base_type(t), None) for t in sent]
    # adverbs and negation inside a verb group belong to its VP ("has not yet gone", "to not go")
    for k in range(1, len(types) - 1):
        if types[k][0] == "ADVP" and types[k - 1][0] == "VP" and types[k + 1][0] == "VP":
            types[k] = ("VP", None)
    toks = list(sent)
    for k, t in enumerate(toks):
        if types[k][0] == "ADVP" and t.lower_ in ("not", "n't") and k and types[k - 1][0] == "VP":
            types[k] = ("VP", None)
    out: list[tuple[str, list]] = []
    prev = None
    for t, ty in zip(toks, types):
        if out and ty == prev and ty[0] not in _SINGLE:
            out[-1][1].append(t)
        else:
            out.append((ty[0], [t]))
        prev = ty
    return out


CLAUSAL = {"advcl": "BACKGROUND", "ccomp": "ATTRIBUTION", "csubj": "ATTRIBUTION", "relcl": "ELABORATION",
           "acl": "ELABORATION", "conj": "JOINT", "parataxis": "JOINT"}
CONNECTIVES = {
    "CONTRAST": ("but", "however", "although", "though", "whereas", "yet", "nevertheless", "despite",
                 "instead", "nonetheless"),
    "CAUSE": ("because", "since", "so", "therefore", "thus", "hence", "consequently", "as"),
    "CONDITION": ("if", "unless", "provided", "otherwise"),
    "TEMPORAL": ("when", "after", "before", "until", "once", "then", "meanwhile", "while", "whenever"),
    "JOINT": ("and", "also", "moreover", "furthermore", "besides", "or", "nor"),
    "PURPOSE": ("to", "order"),
}
_CONNECTIVE = {w: rel for rel, ws in CONNECTIVES.items() for w in ws}
EDU = "EDU:"


def _clause_of(tok, sent_root) -> object:
    """The innermost finite-ish clause (its head token) that a token belongs to."""
    if tok.dep_ == "cc":        # "but" opens the conjunct it precedes, not the clause it hangs on
        for r in tok.head.rights:
            if r.dep_ == "conj" and r.i > tok.i:
                return _clause_of(r, sent_root)
    t = tok
    while t.i != sent_root.i:
        if t.dep_ in CLAUSAL and t.pos_ in ("VERB", "AUX"):
            return t
        t = t.head
    return sent_root


def _relation(head, toks, sent_root) -> str:
    if head.i == sent_root.i:
        return "NUCLEUS"
    for t in toks[:2]:
        if t.lower_ in _CONNECTIVE and t.dep_ in ("mark", "cc", "advmod", "aux"):
            return _CONNECTIVE[t.lower_]
    return CLAUSAL[head.dep_]


def shallow_tree(doc) -> Tree:
    """ROOT → S (per sentence) → EDU:<relation> (clauses) → chunk → POS → word; `syntax_only`
    takes the clause layer out again (seed 002's SYN)."""
    root = Tree("ROOT")
    for sent in doc.sents:
        s = Tree("S")
        edus: list[tuple[object, list, list[Tree]]] = []      # (clause head, tokens, chunks)
        for label, toks in chunks(sent):
            toks = [t for t in toks if t.lower_.strip()]
            if not toks:
                continue
            chunk = Tree(label, [Tree(t.tag_ or "X", [Tree(t.lower_)]) for t in toks])
            head = _clause_of(toks[0], sent.root)
            # punctuation closes the clause before it instead of opening a clause of its own
            if edus and (edus[-1][0].i == head.i or all(t.is_punct for t in toks)):
                edus[-1][1].extend(toks)
                edus[-1][2].append(chunk)
            else:
                edus.append((head, list(toks), [chunk]))
        s.children = [Tree(EDU + _relation(h, toks, sent.root), kids) for h, toks, kids in edus]
        if s.children:
            root.children.append(s)
    if not root.children:           # an empty output: one empty sentence, so kernels see a tree
        root.children.append(Tree("S"))
    return root


def syntax_only(tree: Tree) -> Tree:
    """The tree without its clause (EDU) layer: each EDU node replaced by its children."""
    if tree.is_leaf():
        return Tree(tree.label)
    kids: list[Tree] = []
    for c in tree.children:
        if c.label.startswith(EDU):
            kids.extend(syntax_only(g) for g in c.children)
        else:
            kids.append(syntax_only(c))
    return Tree(tree.label, kids)


def mark_relations(tree: Tree, other_words: Iterable[str]) -> Tree:
    """A copy of `tree` with -REL on every pre-terminal whose word occurs anywhere in the other text
    (position-independent matching) and, bottom up, on every node whose children are all marked."""
    words = set(other_words)

    def walk(t: Tree) -> tuple[Tree, bool]:
        if t.is_leaf():
            return Tree(t.label), t.label in words
        if t.is_preterminal():
            linked = all(c.label in words for c in t.children)
            return Tree(t.label + REL if linked else t.label, [Tree(c.label) for c in t.children]), linked
        kids = [walk(c) for c in t.children]
        linked = bool(kids) and all(k[1] for k in kids)
        return Tree(t.label + REL if linked else t.label, [k[0] for k in kids]), linked

    return walk(tree)[0]


def clean(text: str) -> str:
    """Outputs as released: some hold HTML character references (&#39;)."""
    return " ".join(html.unescape(text).split())


def parse_texts(nlp, texts: list[str], batch_size: int = 256) -> Iterator[Tree]:
    for doc in nlp.pipe((clean(t) for t in texts), batch_size=batch_size):
        yield shallow_tree(doc)


def load_parser():
    """spaCy's English pipeline without the parts the trees do not read."""
    nlp = load_spacy()
    for name in ("ner", "lemmatizer"):
        if name in nlp.pipe_names:
            nlp.disable_pipe(name)
    return nlp
