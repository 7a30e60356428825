"""`cad cm experiment-source` (make es-en-eval): the baseline against seed 003's back-off CM on a
Spanish→English dev split, tuned on one half of the documents and reported on the other, swapped
and pooled.

The CM's one weight (its table's) is chosen from a grid on the tuning half by C1 accuracy on the
pronouns with antecedents (ties: BLEU, then the smaller weight); every other weight is the base
moses.ini's, or, with MERT, the base weights MERT tuned on the same tuning half, for every system
(so each has the same tuning budget but the CM's one extra weight). A sentence without a resolved pronoun decodes the same with and
without the CM (no bundle token reaches the back-off table), so it is decoded once, by BL.

Reported, pooled over the folds: APT C1..C6 over the pronouns with antecedents and over every
studied pronoun, the net number of pronouns improved (seed 003's "+41": BL wrong and CM identical,
minus the reverse), McNemar on C1, BLEU and chrF, and confusion matrices (reference × candidate)
for su/sus and él/ella, as seed 003's Table 2.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import time
from pathlib import Path

from sacrebleu.metrics import BLEU, CHRF

# registers the CoreferenceModel feature that the configurations loaded here may name
import cad.cm.feature  # noqa: F401
from cad.cm.config import CM_NAME, FEATURE_NAME, cm_config, feature_config
from cad.cm.source_table import SourceClassTable, bundle_vocabulary
from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, read_lines
from cad.decoder import Decoder, DecoderModel, SearchSettings
from cad.eval.apt import evaluate
from cad.eval.confusion import confusion, to_markdown as confusion_markdown
from cad.eval.significance import mcnemar
from cad.lang.pairs import pair
from cad.moses.ini import parse_config
from cad.translate.rerank import Hypothesis
from cad.translate.rerank import SourceReranker, pronoun_mixtures
from cad.translate.translator import DocumentTranslator
from cad.tune.run import mert

log = logging.getLogger(__name__)
DEFAULT_GRID = (0.3, 0.8, 2.0)
DEFAULT_FEATURE_GRID = (0.3, 1.0, 3.0)
DEFAULT_RERANK_GRID = (0.3, 1.0, 3.0, 10.0)


def studied_positions(sentences: list[list[str]], records, unambiguous) -> tuple[list, list]:
    """(pronouns with antecedents, every studied pronoun) as sorted (line, token) lists: the
    resolver's pronouns, plus every token spelled as an unambiguous pronoun (not *la*, *lo*: articles)."""
    with_ante = sorted({(line, r.index) for line, r in records if r.candidates})
    every = set((line, r.index) for line, r in records)
    for k, toks in enumerate(sentences):
        every.update((k, i) for i, t in enumerate(toks) if t.lower() in unambiguous)
    return with_ante, sorted(every)


def _decoders(cfg, sentences: list[str], slot_name: str | None, grid):
    """One loaded model, one shallow copy per weight of `slot_name` (weights live on the slots)."""
    # the bundle tokens that replace the pronouns must pass the tables' filter too (back-off mode)
    wanted = sentences + [" ".join(bundle_vocabulary(pair("es", "en").source.cm_pronouns))]
    model = DecoderModel.from_config(cfg, wanted, SearchSettings(search_algorithm=1))
    if slot_name is None:
        return {w: Decoder(model) for w in grid}
    return {w: Decoder(model.with_weights(slot_name, [w])) for w in grid}


def _apt(source, reference, align_ref, cand, align_cand, settings, positions, work: Path, tag: str):
    paths = {}
    for name, lines in (("cand", cand), ("acand", align_cand)):
        paths[name] = str(work / f"{tag}.{name}")
        with atomic_output(paths[name]) as fh:
            fh.writelines(x + "\n" for x in lines)
    return evaluate(source, reference, paths["cand"], align_ref, paths["acand"], settings, positions)


def _bleu(cand: list[str], ref: list[str], keep: list[int]) -> dict:
    h, r = [cand[k] for k in keep], [ref[k] for k in keep]
    # force: the texts are tokenized and lowercased on purpose (no "forgot to detokenize" warning)
    bleu, chrf = BLEU(force=True), CHRF()
    return {"bleu": bleu.corpus_score(h, [r]).score, "chrf": chrf.corpus_score(h, [r]).score,
            "bleu_signature": str(bleu.get_signature()), "chrf_signature": str(chrf.get_signature())}


def _key(*parts) -> str:
    h = hashlib.sha1()
    for p in parts:
        path = Path(str(p))
        try:
            stat = path.stat() if path.is_file() else None
        except OSError:         # not a path at all (e.g. a long list of line numbers)
            stat = None
        h.update((f"{p}:{stat.st_size}:{stat.st_mtime_ns}" if stat else str(p)).encode())
    return h.hexdigest()[:16]


def run_source_experiment(config: str, cm_table: str, source: str, reference: str, align_ref: str, docs: str,
                          resolver, settings, unambiguous, out: str, grid=DEFAULT_GRID, folds: int = 2,
                          classes: str | None = None, feature_grid=DEFAULT_FEATURE_GRID, scored=None,
                          rerank_grid=DEFAULT_RERANK_GRID, nbest: int = 100, mert_iterations: int = 0,
                          mert_nbest: int = 100, workers: int = 1) -> dict:
    """`classes` (the class table of cm build --src es) adds CM-feature, the CoreferenceModel
    decoder feature over the whole phrase table, its weight chosen from `feature_grid` as the
    back-off table's from `grid`, and CM-rerank, BL's `nbest` distinct translations of every
    sentence with a resolved pronoun reranked with the same table (weights `rerank_grid`).
    `mert_iterations` > 0: each fold is translated with the base weights MERT tuned (`mert_nbest`,
    `workers` decoding processes) on the other folds, the same for every system. Decodings and
    MERT runs are cached in OUT.work/ by their inputs. `scored`: the resolver whose pronouns are
    scored (default: `resolver`'s), so that CMs fed by different resolvers are measured on the same
    pronouns."""
    t0 = time.time()
    src = [line.split() for line in read_lines(source)]
    ref = list(read_lines(reference))
    if len(ref) != len(src):
        raise CadError(f"{len(ref)} lines, the source has {len(src)}", reference)
    starts = read_docs(docs, len(src))
    bounds = [d.first_line for d in starts] + [len(src)]
    doc_lines = [list(range(bounds[k], bounds[k + 1])) for k in range(len(starts))]
    records = _records_of(resolver, src, doc_lines)
    with_ante, every = studied_positions(src, records if scored is None else _records_of(scored, src, doc_lines),
                                         unambiguous)
    sentences = [" ".join(s) for s in src]
    work = Path(out + ".work")
    work.mkdir(parents=True, exist_ok=True)
    has_record = {line for line, r in records if r.candidates}
    seconds: dict[str, float] = {}
    cache = work / "decodes.json"
    cached = json.loads(cache.read_text(encoding="utf-8")) if cache.exists() else {}

    # folds by document: each fold's weights are chosen on the other documents
    fold_of_line = {i: k % folds for k, lines in enumerate(doc_lines) for i in lines}
    fold_configs, scales, mert_report = [str(config)] * folds, [1.0] * folds, {}
    if mert_iterations:
        for f in range(folds):
            tune_lines = [i for i in range(len(src)) if fold_of_line[i] != f]
            fold_configs[f], mert_report[str(f)] = _mert_fold(config, source, reference, tune_lines,
                                                              work / f"mert.fold{f}", mert_iterations,
                                                              mert_nbest, workers, seconds)
            # MERT's weights sum to 1 in |.|, the base's need not: the CM grids keep their meaning
            # relative to the other weights
            scales[f] = _l1(fold_configs[f]) / _l1(config)
    decodes: dict[str, tuple] = {}
    for f in range(folds):
        if fold_configs[f] in decodes:
            continue
        tag = "" if fold_configs[f] == str(config) else f"fold{f}/"
        decodes[fold_configs[f]] = _decode_systems(
            fold_configs[f], tag, scales[f], cm_table, classes, grid, feature_grid, rerank_grid, nbest, source, docs,
            resolver, src, sentences, doc_lines, records, has_record, cached, cache, seconds)
    apt_of = functools.partial(_apt, source, reference, align_ref, settings=settings, work=work)
    finals, chosen, grid_c1 = _choose_weights(decodes, fold_configs, str(config), fold_of_line, folds, ref, with_ante,
                                              apt_of, bool(mert_iterations))
    names = list(decodes[fold_configs[0]][2])
    grids = {name: {str(f): sorted(decodes[fold_configs[f]][2][name]) for f in range(folds)} for name in names}
    report = {"pair": "es-en", "resolver": type(resolver).__name__, "grid": grids,
              "tuning": ({"method": "MERT of the baseline's weights on the other folds, shared by every system; "
                                    "the CM's one weight from its grid, scaled by the tuned weights' L1 norm",
                          "iterations": mert_iterations, "nbest": mert_nbest, "folds": mert_report}
                         if mert_iterations else {"method": "none: the base moses.ini's weights; the CM's one "
                                                            "weight from its grid on the other folds"}),
              "chosen_weight": {n: {str(f): w for f, w in c.items()} for n, c in chosen.items()},
              "nbest": nbest if classes and rerank_grid else None,
              "grid_c1_whole_split": grid_c1,
              "folds": folds, "documents": len(doc_lines), "sentences": len(src),
              "pronouns_with_antecedent": len(with_ante), "pronouns_studied": len(every),
              "seconds": seconds, "systems": {}}
    results = _system_rows(report, finals, ref, with_ante, every, apt_of)
    _write_report(report, results, finals, out, t0)
    return report


def _records_of(resolver, src: list[list[str]], doc_lines: list[list[int]]) -> list:
    """(line, record) of every pronoun the resolver gives, document by document."""
    out = []
    for k, lines in enumerate(doc_lines):
        for r in resolver.resolve(str(k), [src[i] for i in lines]):
            out.append((lines[0] + r.sentence, r))
    return out


def _choose_weights(decodes: dict, fold_configs: list[str], config: str, fold_of_line: dict, folds: int,
                    ref: list[str], with_ante: list, apt_of, per_fold_tuning: bool):
    """({system: (outputs, alignments)} each fold at the weight the other folds chose, by C1 on
    the pronouns with antecedents, then BLEU, then the smaller weight; {system: {fold: weight}};
    every weight's C1 on the whole split)."""
    n = len(fold_of_line)
    finals = {"BL": ([decodes[fold_configs[fold_of_line[i]]][0][i] for i in range(n)],
                     [decodes[fold_configs[fold_of_line[i]]][1][i] for i in range(n)])}
    chosen: dict[str, dict[int, float]] = {}
    apt_cache: dict[tuple[str, str], dict] = {}
    grid_c1: dict[str, dict[str, dict[str, float]]] = {}
    for name in list(decodes[fold_configs[0]][2]):
        final_out, final_align = list(finals["BL"][0]), list(finals["BL"][1])
        chosen[name] = {}
        for f in range(folds):
            wruns = decodes[fold_configs[f]][2][name]
            ckey = fold_configs[f]
            res = apt_cache.setdefault((ckey, name), {})
            for w, (o, a) in wruns.items():
                if w not in res:
                    res[w] = apt_of(o, a, positions=with_ante,
                                    tag=f"{name}.{'' if ckey == config else f'fold{f}.'}{w:g}")
            # every weight on the whole split: what a configuration shipped for new text should take
            grid_c1.setdefault(name, {})[str(f) if per_fold_tuning else "all"] = {
                f"{w:g}": sum(o.case == 1 for o in r.occurrences) / max(1, len(r.occurrences)) for w, r in res.items()}
            tune_lines = [i for i in range(n) if fold_of_line[i] != f]

            def score(w):
                occ = [o for o in res[w].occurrences if fold_of_line[o.sentence] != f]
                acc = sum(o.case == 1 for o in occ) / len(occ) if occ else math.nan
                return acc, _bleu(wruns[w][0], ref, tune_lines)["bleu"], -w
            w = chosen[name][f] = max(wruns, key=score)
            for i in range(n):
                if fold_of_line[i] == f:
                    final_out[i], final_align[i] = wruns[w][0][i], wruns[w][1][i]
        finals[name] = (final_out, final_align)
    return finals, chosen, grid_c1


def _system_rows(report: dict, finals: dict, ref: list[str], with_ante: list, every: list, apt_of) -> dict:
    """Each system's APT counts on both pronoun scopes, with McNemar against BL, and its BLEU,
    into report["systems"]; returns the APT results by (system, scope)."""
    results = {}
    for name, (outs, aligns) in finals.items():
        row = {}
        for scope, pos in (("with antecedent", with_ante), ("studied", every)):
            res = apt_of(outs, aligns, positions=pos, tag=f"{name}.{scope[:4]}")
            results[(name, scope)] = res
            total = sum(res.counts.values())
            row[scope] = {"cases": {f"C{c}": res.counts[c] for c in range(1, 7)}, "pronouns": total,
                          "c1": res.counts[1] / total if total else math.nan, "apt": res.score}
            if name != "BL":
                a = [o.case == 1 for o in results[("BL", scope)].occurrences]
                b = [o.case == 1 for o in res.occurrences]
                improved = sum(1 for x, y in zip(a, b) if y and not x)
                degraded = sum(1 for x, y in zip(a, b) if x and not y)
                row[scope].update({"improved": improved, "degraded": degraded, "net": improved - degraded,
                                   "mcnemar_p": mcnemar(a, b).p_value})
        row.update(_bleu(outs, ref, list(range(len(ref)))))
        report["systems"][name] = row
    return results


def _write_report(report: dict, results: dict, finals: dict, out: str, t0: float) -> None:
    """OUT.json, OUT.md (with seed 003's confusion matrices) and each system's OUT.<system>.txt."""
    groups = {"su/sus": {"su", "sus"}, "él/ella": {"él", "ella"}}
    matrices = {name: {g: confusion(results[(name, "with antecedent")], p).trimmed() for g, p in groups.items()}
                for name in finals}
    report["confusion"] = {name: {g: {"labels": m.labels, "counts": m.counts} for g, m in gs.items()}
                           for name, gs in matrices.items()}
    report["seconds"]["total (this run)"] = round(time.time() - t0, 1)
    with atomic_output(out + ".json") as fh:
        json.dump(_plain(report), fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")
    with atomic_output(out + ".md") as fh:
        fh.write(to_markdown(report, {name: {g: confusion_markdown(m, g) for g, m in gs.items()}
                                      for name, gs in matrices.items()}))
    for name, (outs, _) in finals.items():
        with atomic_output(f"{out}.{name}.txt") as fh:
            fh.writelines(x + "\n" for x in outs)


def _l1(config) -> float:
    """Sum of |weight| over the tuned weights (all but UnknownWordPenalty, which MERT leaves alone)."""
    cfg = parse_config(config)
    types = {f.name: f.type for f in cfg.features}
    return sum(abs(x) for name, ws in cfg.weights.items() if types.get(name) != "UnknownWordPenalty" for x in ws) or 1.0


def _mert_fold(config, source, reference, lines: list[int], prefix: Path, iterations: int, nbest: int,
               workers: int, seconds: dict) -> tuple[str, dict]:
    """MERT of `config` on the given lines of the split: (the tuned moses.ini, its report). Cached
    by its inputs, as the decodes are."""
    ini, meta = Path(f"{prefix}.ini"), Path(f"{prefix}.json")
    key = _key(config, source, reference, iterations, nbest, ",".join(map(str, lines)))
    done = json.loads(meta.read_text(encoding="utf-8")) if meta.exists() else {}
    name = f"MERT {prefix.name}"
    if done.get("key") == key and ini.exists():
        seconds[name] = done["report"]["seconds"]
        return str(ini), done["report"]
    t = time.time()
    src_lines, ref_lines = list(read_lines(source)), list(read_lines(reference))
    for path, text in ((f"{prefix}.src", src_lines), (f"{prefix}.ref", ref_lines)):
        with atomic_output(path) as fh:
            fh.writelines(text[i] + "\n" for i in lines)
    res = mert(str(config), f"{prefix}.src", f"{prefix}.ref", str(ini), nbest=nbest, iterations=iterations,
               workers=workers)
    report = {"sentences": len(lines), "decoded_bleu": [round(100 * b, 2) for _, b in res.history],
              "best_bleu": round(100 * res.bleu, 2), "seconds": round(time.time() - t, 1)}
    seconds[name] = report["seconds"]
    _save(meta, {"key": key, "report": report})
    return str(ini), report


def _decode_systems(config: str, tag: str, scale: float, cm_table, classes, grid, feature_grid, rerank_grid,
                    nbest: int, source, docs, resolver, src, sentences, doc_lines, records, has_record,
                    cached: dict, cache: Path, seconds: dict):
    """(BL's outputs, BL's alignments, {system: {weight: (outputs, alignments)}}) of the whole split
    under one set of base weights; the CM grids are multiplied by `scale`. Cached under `tag`."""
    grid = tuple(round(w * scale, 6) for w in grid)
    feature_grid = tuple(round(w * scale, 6) for w in feature_grid)
    rerank_grid = tuple(round(w * scale, 6) for w in rerank_grid)
    specs = [("CM-backoff", cm_config(config, cm_table, grid[0]), CM_NAME, grid, "backoff",
              _key(config, cm_table, source, docs, type(resolver).__name__, *grid))]
    if classes:
        specs.append(("CM-feature", feature_config(config, classes, feature_grid[0], "likelihood", "source-table"),
                      FEATURE_NAME, feature_grid, "feature",
                      _key(config, classes, source, docs, type(resolver).__name__, *feature_grid)))
    bl_key = _key(config, source)
    runs: dict[str, dict[float, tuple[list[str], list[str]]]] = {}
    if cached.get(tag + "BL", {}).get("key") == bl_key:
        bl_out, bl_align = cached[tag + "BL"]["out"], cached[tag + "BL"]["align"]
        seconds[tag + "BL"] = cached[tag + "BL"]["seconds"]
    else:
        t = time.time()
        bl_dec = _decoders(parse_config(config), sentences, None, (0.0,))[0.0]
        trs = [bl_dec.translate(x) for x in progress(sentences, desc=tag + "BL", unit="sent")]
        bl_out = [tr.text for tr in trs]
        bl_align = [" ".join(f"{i}-{j}" for i, j in tr.best.word_alignment) for tr in trs]
        seconds[tag + "BL"] = round(time.time() - t, 1)
        del bl_dec, trs
        cached[tag + "BL"] = {"key": bl_key, "out": bl_out, "align": bl_align, "seconds": seconds[tag + "BL"]}
        _save(cache, cached)
    for name, cfg, slot, wgrid, mode, key in specs:
        if cached.get(tag + name, {}).get("key") == key:
            runs[name] = {float(w): tuple(v) for w, v in cached[tag + name]["runs"].items()}
            seconds[tag + name] = cached[tag + name]["seconds"]
            continue
        t = time.time()
        decoders = _decoders(cfg, sentences, slot, wgrid)
        runs[name] = {}
        for w in wgrid:
            outs, aligns = list(bl_out), list(bl_align)
            # a sentence without a resolved pronoun gets no bundle and no context: BL's translation
            for k, lines in enumerate(progress(doc_lines, desc=f"{tag}{name} {w:g}", unit="doc")):
                if not any(i in has_record for i in lines):
                    continue
                recs = [r for line, r in records if line in set(lines)]
                trs = DocumentTranslator(decoders[w], "cm", mode, pair=pair("es", "en")).translate_document(
                    str(k), [src[i] for i in lines], recs).translations
                for i, tr in zip(lines, trs):
                    outs[i] = tr.text
                    aligns[i] = " ".join(f"{a}-{b}" for a, b in tr.best.word_alignment)
            runs[name][w] = (outs, aligns)
        del decoders
        seconds[tag + name] = round(time.time() - t, 1)
        cached[tag + name] = {"key": key, "runs": {str(w): list(v) for w, v in runs[name].items()},
                              "seconds": seconds[tag + name]}
        _save(cache, cached)
    if classes and rerank_grid:
        runs["CM-rerank"] = _rerank_runs(config, classes, sentences, records, has_record, bl_out, bl_align,
                                         rerank_grid, nbest, cached, cache, seconds, source, tag)
    return bl_out, bl_align, runs


def _rerank_runs(config, classes, sentences, records, has_record, bl_out, bl_align, wgrid,
                 nbest, cached, cache, seconds, source, tag: str = "") -> dict:
    """{weight: (outputs, alignments)}: BL's n-best lists of the sentences with a resolved pronoun
    (decoded once, cached), reranked per weight; the other sentences keep BL's translation."""
    key = _key(config, source, "nbest", nbest)
    lines = sorted(has_record)
    if cached.get(tag + "BL-nbest", {}).get("key") == key:
        lists = {int(i): v for i, v in cached[tag + "BL-nbest"]["lists"].items()}
        seconds[tag + "BL n-best"] = cached[tag + "BL-nbest"]["seconds"]
    else:
        t = time.time()
        dec = _decoders(parse_config(config), [sentences[i] for i in lines], None, (0.0,))[0.0]
        lists = {}
        for i in progress(lines, desc=f"{tag}BL {nbest}-best", unit="sent"):
            tr = dec.translate(sentences[i], nbest=nbest, distinct=True)
            lists[i] = [[list(d.words), d.total, [list(p) for p in d.word_alignment]] for d in (tr.nbest or [tr.best])]
        del dec
        seconds[tag + "BL n-best"] = round(time.time() - t, 1)
        cached[tag + "BL-nbest"] = {"key": key, "lists": {str(i): v for i, v in lists.items()},
                                    "seconds": seconds[tag + "BL n-best"]}
        _save(cache, cached)
    table = SourceClassTable.read(classes)
    t = time.time()
    # the source's features do not depend on other sentences' translations: each sentence alone
    by_line: dict[int, dict[int, dict[str, float]]] = {}
    for line, r in records:
        by_line.setdefault(line, {}).update(pronoun_mixtures([r]).get(r.sentence, {}))
    hyps = {i: [Hypothesis(words, total, [tuple(p) for p in al]) for words, total, al in lists[i]] for i in lists}
    out = {}
    for w in wgrid:
        reranker = SourceReranker(table, w)
        outs, aligns = list(bl_out), list(bl_align)
        for i, hs in hyps.items():
            h = hs[reranker.best(hs, by_line.get(i))[0]]
            outs[i] = " ".join(h.words)
            aligns[i] = " ".join(f"{a}-{b}" for a, b in h.alignment)
        out[float(w)] = (outs, aligns)
    seconds[tag + "CM-rerank"] = round(time.time() - t, 1)
    return out


def _save(path: Path, obj: dict) -> None:
    with atomic_output(path) as fh:
        json.dump(obj, fh, ensure_ascii=False)


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, float) and math.isnan(x):
        return None
    return x


def to_markdown(report: dict, tables: dict[str, dict[str, str]]) -> str:
    lines = [f"# Spanish→English pronouns: BL vs the CM ({report['documents']} documents, "
             f"{report['sentences']} sentences, {report['folds']} folds by document)", ""]
    for scope in ("with antecedent", "studied"):
        n = report["systems"]["BL"][scope]["pronouns"]
        lines += [f"## Pronouns {scope} ({n})", "",
                  "| system | C1 | C2 | C3 | C4 | C5 | C6 | C1 acc. | APT | improved | degraded | net | McNemar p | BLEU | chrF |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, row in report["systems"].items():
            r = row[scope]
            c = r["cases"]
            extra = [str(r.get("improved", "")), str(r.get("degraded", "")), str(r.get("net", "")),
                     f"{r['mcnemar_p']:.3g}" if "mcnemar_p" in r else ""]
            lines.append(f"| {name} | " + " | ".join(str(c[f"C{i}"]) for i in range(1, 7))
                         + f" | {r['c1']:.3f} | {r['apt']:.3f} | " + " | ".join(extra)
                         + f" | {row['bleu']:.2f} | {row['chrf']:.2f} |")
        lines.append("")
    lines += [f"CM weight per fold (chosen on the other fold): {report['chosen_weight']}; grids {report['grid']}.", ""]
    tuning = report.get("tuning", {})
    lines += [f"Tuning: {tuning.get('method', 'none')}.", ""]
    for f, m in sorted(tuning.get("folds", {}).items()):
        lines.append(f"- MERT for fold {f} on the other folds' {m['sentences']} sentences: decoded BLEU per "
                     f"iteration {', '.join(f'{b:.2f}' for b in m['decoded_bleu'])}; best {m['best_bleu']:.2f} "
                     f"({m['seconds']:.0f} s)")
    if tuning.get("folds"):
        lines.append("")
    if "grid_c1_whole_split" in report:
        per = "; ".join((f"{n} " if f == "all" else f"{n} (fold {f}'s base weights) ") + ", ".join(f"{w}: {a:.3f}" for w, a in ws.items())
                        for n, folds in report["grid_c1_whole_split"].items() for f, ws in folds.items())
        lines += [f"C1 accuracy of each weight on the whole split (pronouns with antecedent): {per}.", ""]
    for name, groups in tables.items():
        for g, table in groups.items():
            lines += [f"### {name}: {g} (rows: reference, columns: candidate)", "", table]
    lines.append("Times (s): " + ", ".join(f"{k} {v}" for k, v in report["seconds"].items()))
    return "\n".join(lines) + "\n"
