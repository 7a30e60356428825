"""Features of linking a Spanish pronoun site to a candidate mention, and of a clitic's
anaphoricity, for the Spanish ranker (coref.spanish.ranker).

Each feature is a string (binary indicator), also conjoined with the pronoun's class (pair
features) or word (anaphoricity). What a pronoun's form says: él/ella/ellos/ellas and
lo/la/los/las give the antecedent's gender and number, le/les its number. su/sus and
suyo/suya/suyos/suyas agree with the possessed noun and say nothing certain about the possessor
(seed 003 §3); their own gender and number enter the features only in conjunction with the
candidate's, so the ranker learns whatever correlation there is. Distances are bucketed as in
English (coref.features).
"""

from __future__ import annotations

from coref.features import bucket, dependency_path
from coref.spanish.mentions import MARKS_ANTECEDENT, EsMention, EsSite


def agrees(site: EsSite, m: EsMention) -> bool:
    """Nothing the pronoun's form says about its antecedent contradicts the mention's features."""
    if site.pclass not in MARKS_ANTECEDENT:
        return True
    if site.gender and m.gender and m.gender != site.gender:
        return False
    return not (site.number and m.number and m.number != site.number)


def pair_features(site: EsSite, m: EsMention, parsed, rank: int, head_count: int, entity_size: int = 1,
                  agree_rank: int = 0, nominal_rank: int = 0) -> list[str]:
    """Binary features of linking the pronoun at `site` to mention `m`. `rank`: how many candidates
    lie between them, `agree_rank` how many agreeing ones, `nominal_rank` how many nouns;
    `head_count`: the head word's occurrences in the document so far and `entity_size` the
    mention's entity's mentions, its salience. Each is also conjoined with the pronoun class."""
    pc = site.pclass
    sd = site.sentence - m.sentence
    tdist = sum(len(parsed[s]) for s in range(m.sentence, site.sentence)) + site.index - m.head
    f = [f"k={m.kind}", f"sd={sd}", f"k={m.kind}|sd={sd}", f"rank={bucket(rank)}", f"td={bucket(tdist // 3)}",
         f"crole={m.role}", f"prole={site.role}", f"roles={m.role}>{site.role}", f"sd={sd}|crole={m.role}",
         f"cgen={m.gender}", f"cnum={m.number}", f"hum={m.human}", f"ent={m.ent or '-'}",
         f"det={m.det}", f"hc={bucket(head_count)}", f"k={m.kind}|hum={m.human}",
         f"esize={bucket(entity_size)}", f"esize={bucket(entity_size)}|sd={sd}"]
    if agrees(site, m):
        f.append(f"arank={bucket(agree_rank)}")
    if not m.pronoun:
        f.append(f"nrank={bucket(nominal_rank)}")
    if pc in MARKS_ANTECEDENT:
        if site.gender:
            f.append("gen_unk" if m.gender is None else "gen_match" if m.gender == site.gender else "gen_clash")
        f.append("num_unk" if m.number is None else "num_match" if m.number == site.number else "num_clash")
    else:
        # the possessed noun's gender/number against the possessor's: correlations only
        f.append(f"pnum={site.number}|cnum={m.number}")
        if site.gender:
            f.append(f"pgen={site.gender}|cgen={m.gender}")
    if m.nested:
        f.append("nested")
    if m.coord:
        f.append("coord")
    if sd == 0:
        if m.start <= site.index < m.end:
            f.append("contains_pronoun")        # i-within-i: *[su perfecta antítesis]*
        if m.clause == site.clause:
            f += ["same_clause", f"same_clause|crole={m.role}"]
        f.append(f"path={dependency_path(parsed[site.sentence], m.head, site.index)}")
    if m.pronoun:
        f.append(f"cword={m.word}")
        if m.word == site.word:
            f.append("same_word")
        if m.kind == site.pclass:
            f.append("same_class")
    if m.head == 0 or m.start == 0:
        f.append("sentence_initial")
    if m.role == "subj" and parsed[m.sentence][m.clause].dep_ == "ROOT":
        f.append("main_subject")
    # no head-word features: trained on 400 documents they learned their topics (*hamas*,
    # *japón*) and did no better on unseen documents than without
    return [x for base in f for x in (base, f"{base}|{pc}")]


def anaphoricity_features(site: EsSite, doc) -> list[str]:
    """Does CorZu resolve this clitic at all? (neuter *lo*: *lo que*, *lo es*; *le* of *Le Pen*).
    Personal and possessive pronouns need no such model: CorZu resolves all but cataphoric ones
    (643 of 650 in dev)."""
    i = site.index
    tok = doc[i]
    nxt = doc[i + 1].lower_ if i + 1 < len(doc) else "</s>"
    prev = doc[i - 1].lower_ if i > 0 else "<s>"
    f = [f"w={site.word}", f"dep={tok.dep_}", f"pos={tok.pos_}", f"n1={nxt}", f"p1={prev}",
         f"role={site.role}", f"headpos={tok.head.pos_}"]
    if i == 0:
        f.append("first")
    return [x for base in f for x in (base, f"{base}|{site.word}")]
