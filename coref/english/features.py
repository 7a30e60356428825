"""Features of a pronoun, and of a (pronoun, candidate antecedent) pair, for the learned backend.

Each feature is a string (binary indicator); every pair feature is also conjoined with the
pronoun's class (it / they / he / she) so that one model serves all third-person pronouns.
"""

from __future__ import annotations

from dataclasses import dataclass

from coref.english.entities import Entity, pronoun_class
from coref.english.lexicon import head_class, selection
from coref.english.mentions import LIGHT_HEADS, NON_REFERENTIAL_ENTS, Mention, _role
from coref.english.sieve import COMPLEMENTIZERS, INDEFINITE_PERSONS, RAISING, WEATHER, WEATHER_ADJ, _idiom, is_pleonastic
from coref.features import bucket, dependency_path

DETERMINER_TYPES = {"the": "def", "a": "indef", "an": "indef", "this": "dem", "that": "dem", "these": "dem",
                    "those": "dem", "some": "quant", "any": "quant", "every": "quant", "each": "quant",
                    "all": "quant", "no": "quant", "many": "quant", "most": "quant"}
PRONOUN_NUMBER = {"it": "sing", "he": "sing", "she": "sing", "they": "plur"}
CLAUSE_DEPS = {"ROOT", "ccomp", "advcl", "conj", "xcomp", "csubj", "parataxis", "acl", "relcl"}


@dataclass
class PronounSite:
    sentence: int
    index: int
    word: str           # lowercased
    pclass: str         # it | they | he | she
    dep: str
    role: str           # subj | obj | pobj | other
    gov_lemma: str
    gov_pos: str
    pred: str = ""      # the predicate of *be* that the pronoun is the subject of (*it was [dead]*)


def role_of(tok) -> str:
    """The mention roles of coref.english.mentions, with possessives apart (*its* price)."""
    return "poss" if tok.dep_ == "poss" else _role(tok)


def site_of(doc, sentence: int, i: int) -> PronounSite:
    tok = doc[i]
    gov = tok.head
    if tok.dep_ == "pobj" and gov.head is not gov:
        gov = gov.head          # "of it": the preposition's head says more than the preposition
    pred = ""
    if tok.head.lemma_ == "be":
        attr = [c for c in tok.head.children if c.dep_ in ("attr", "acomp") and c.i > i]
        pred = attr[0].lemma_.lower() if attr else ""
    return PronounSite(sentence, i, tok.lower_, pronoun_class(tok.lower_) or "other", tok.dep_, role_of(tok),
                       gov.lemma_.lower(), gov.pos_, pred)


def event_candidates(doc, sentence: int, before: int | None = None) -> list[Mention]:
    """Clauses that an *it* may refer to: each clause head (a verb) with its subtree's span.
    With `before`, only clauses that end before that token (the pronoun's own sentence)."""
    out = []
    for tok in doc:
        if tok.pos_ not in ("VERB", "AUX") or tok.dep_ not in CLAUSE_DEPS:
            continue
        if tok.pos_ == "AUX" and tok.dep_ != "ROOT":
            continue
        start, end = tok.left_edge.i, tok.right_edge.i + 1
        if tok.dep_ == "ROOT":
            start, end = 0, len(doc)
        if before is not None and (end > before or tok.i >= before):
            continue
        out.append(Mention(sentence, start, end, tok.i, doc[start:end].text, "sing", "neut", False, "event", False,
                           kind="event", dep=tok.dep_))
    return out


def anaphoricity_features(doc, site: PronounSite) -> list[str]:
    """Is this pronoun referential? Cues of pleonastic *it* and of reference to a clause."""
    i = site.index
    tok = doc[i]
    nxt = [t for t in doc[i + 1:i + 6]]
    words = [t.lower_ for t in nxt]
    lemmas = [t.lemma_.lower() for t in nxt]
    pc = site.pclass
    f = [f"w={site.word}", f"dep={site.dep}", f"gov={site.gov_lemma}", f"govpos={site.gov_pos}",
         f"n1={words[0] if words else '</s>'}", f"n1n2={'_'.join(words[:2])}", f"l1={lemmas[0] if lemmas else ''}"]
    prev = doc[i - 1].lower_ if i > 0 else "<s>"
    f.append(f"p1={prev}")
    if i == 0:
        f.append("first")
    if is_pleonastic(doc, i):
        f.append("sieve_pleonastic")
    if _idiom(words):
        f.append("idiom")
    if lemmas and (lemmas[0] in WEATHER or (lemmas[0] == "be" and lemmas[1:2] and lemmas[1] in WEATHER)):
        f.append("weather")
    if tok.head.lemma_ in RAISING:
        f.append("raising")
    later = [c for c in tok.head.children if c.i > i and c.dep_ in ("ccomp", "xcomp", "csubj", "advcl")]
    if later:
        f.append("gov_has_clause")
        if any(any(t.lower_ in COMPLEMENTIZERS for t in c.subtree if t.i <= c.i) for c in later):
            f.append("gov_has_comp_clause")
    acomp = [c for c in tok.head.children if c.dep_ in ("acomp", "attr") and c.i > i]
    if acomp:
        f.append(f"acomp={acomp[0].lemma_.lower()}")
        if acomp[0].lower_ in WEATHER_ADJ:
            f.append("acomp_eval_adj")
    if any(w in COMPLEMENTIZERS for w in words[1:4]):
        f.append("comp_ahead")
    if tok.head.dep_ == "ROOT":
        f.append("gov_root")
    return [x for base in f for x in (base, f"{base}|{pc}")]


def pair_features(site: PronounSite, m: Mention, parsed, rank: int, entity: Entity | None,
                  head_count: int) -> list[str]:
    """Features of linking the pronoun at `site` to candidate `m` (`rank`: how many candidates of
    the same kind lie between them; `entity`: the candidate's chain so far)."""
    pc = site.pclass
    sd = site.sentence - m.sentence
    kind = m.kind
    cdoc = parsed[m.sentence]
    head = cdoc[m.head]
    f = [f"kind={kind}", f"sd={sd}", f"rank={bucket(rank)}", f"kind={kind}|sd={sd}"]
    if kind == "event":
        f += [f"ev_dep={m.dep}", f"ev_gov={site.gov_lemma}", f"ev_pdep={site.dep}",
              f"ev_head={head.lemma_.lower()}", f"ev_rank={bucket(rank)}|sd={sd}"]
        if sd == 0:
            f.append("ev_same_sentence")
        sel = selection(site.gov_lemma, site.role, site.pred)
        f.append(f"ev_sel={sel}")
        return [x for base in f for x in (base, f"{base}|{pc}")]
    tdist = (sum(len(parsed[s]) for s in range(m.sentence, site.sentence)) + site.index - m.head)
    f += [f"td={bucket(tdist // 3)}", f"crole={m.role}", f"prole={site.role}", f"roles={m.role}>{site.role}",
          f"cdep={head.dep_}", f"cpos={head.pos_}", f"num={m.number}", f"hum={m.human}", f"gen={m.gender}",
          f"ent={m.ent or '-'}", f"sd={sd}|crole={m.role}", f"hc={bucket(head_count)}",
          f"head={head.lemma_.lower()}"]
    want = PRONOUN_NUMBER.get(pc)
    if m.number and want:
        f.append("num_match" if m.number == want else "num_clash")
    else:
        f.append("num_unknown")
    if m.role == site.role:
        f.append("parallel")
    if m.pronoun:
        cpc = pronoun_class(m.text)
        f.append(f"cpron={cpc or m.text.lower()}")
        if cpc == pc:
            f.append("same_pronoun_class")
        if cpc and (entity is None or len(entity.members) == 1):
            f.append("pron_unlinked")       # a pleonastic or unresolved pronoun starts no chain
        if cpc == "it" and is_pleonastic(cdoc, m.head):
            f.append("cand_pleonastic")     # an earlier *it* that the sieve's rules call pleonastic
    else:
        f.append("nominal")
    if head.lower_ in LIGHT_HEADS or head.lemma_.lower() in LIGHT_HEADS:
        f.append("light_head")
    if m.ent in NON_REFERENTIAL_ENTS:
        f.append("nonref_ent")
    if m.text.lower() in INDEFINITE_PERSONS:
        f.append("indefinite_person")
    if m.end - m.start > 1 and any(t.dep_ == "conj" for t in cdoc[m.start:m.end]):
        f.append("coordination")
    if sd == 0 and m.governor >= 0 and m.governor == parsed[site.sentence][site.index].head.i:
        f.append("coargument")
    if sd == 0 and _dominates(parsed[site.sentence], m.head, site.index):
        f.append("dominates_pronoun")
    if sd == 0:
        f.append(f"path={dependency_path(cdoc, m.head, site.index)}")
    if m.start == 0:
        f.append("sentence_initial")
    first = cdoc[m.start].lower_
    det = first if first in DETERMINER_TYPES else ("poss" if cdoc[m.start].dep_ == "poss" else "bare")
    f.append(f"det={DETERMINER_TYPES.get(det, det)}")
    f.append(f"det={DETERMINER_TYPES.get(det, det)}|num={m.number}")
    if head.head is not head and head.head.pos_ in ("NOUN", "PROPN") or (head.dep_ == "pobj" and head.head.head.pos_ == "NOUN"):
        f.append("nested")
    if site.role == "subj" and parsed[site.sentence][site.index].head.lemma_ == "be":
        attr = [c for c in parsed[site.sentence][site.index].head.children if c.dep_ in ("attr", "acomp")]
        if attr:
            f.append(f"copula_{attr[0].pos_}")
            if attr[0].lemma_.lower() == head.lemma_.lower():
                f.append("copula_same_head")
    f += semantic_features(site, m, head, entity)
    if entity is not None:
        f.append(f"esize={bucket(len(entity.members))}")
        f.append("chain_ok" if entity.compatible(pc) else "chain_clash")
        for c in sorted(entity.classes):
            f.append(f"chain_has={c}")
        if entity.human:
            f.append("chain_human")
        f.append(f"chain_last={min(site.sentence - entity.last_sentence, 4)}")
    return [x for base in f for x in (base, f"{base}|{pc}")]


def semantic_features(site: PronounSite, m: Mention, head, entity: Entity | None) -> list[str]:
    """WordNet's class and animacy of the candidate's head (a pronoun's: its chain's first noun),
    and their fit with what the pronoun's governor wants (coref.english.lexicon.selection)."""
    lex, anim = head_class(head)
    if m.pronoun and entity is not None:
        lex, anim = entity.lexname, entity.animate
    if anim is None and m.human is not None:
        anim = m.human or None
    f = [f"lex={lex}", f"anim={anim}"]
    if m.pronoun and entity is not None and entity.event:
        f.append("chain_event")
    sel = selection(site.gov_lemma, site.role, site.pred)
    if sel:
        f += [f"sel={sel}|anim={anim}", f"sel={sel}|lex={lex}"]
    if site.role in ("subj", "obj") and lex:
        f.append(f"gov={site.role}:{site.gov_lemma}|lex={lex}")
    if site.pred and lex:
        f.append(f"pred={site.pred}|lex={lex}")
    return f


def _dominates(doc, head: int, target: int) -> bool:
    """The candidate's head governs the pronoun (\"the man who said he\" aside, a weak cue)."""
    t = doc[target]
    seen = 0
    while t.head is not t and seen < 50:
        t = t.head
        seen += 1
        if t.i == head:
            return True
    return False
