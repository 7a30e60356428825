"""Moses n-best list and alignment output lines."""

from __future__ import annotations

from cad.decoder.search import Derivation, Translation


def _num(v: float) -> str:
    # enough digits that the printed features add up to the printed total
    s = f"{v:.10g}"
    return "0" if s == "-0" else s


def format_features(tr: Translation, d: Derivation) -> str:
    parts = []
    for name, off, size in tr.feature_names:
        parts.append(f"{name}= " + " ".join(_num(v) for v in d.features[off:off + size]))
    return " ".join(parts)


def moses_alignment(d: Derivation) -> list[tuple[int, int]]:
    """The word alignment in the order Moses prints it (-alignment-output-file, the n-best
    lists, -print-alignment-info): phrase by phrase in target order, each phrase's points by
    source then target position (Moses keeps a phrase's alignment as a set of (source, target)
    pairs). A derivation given whole by a real Moses keeps its order."""
    if d.given_alignment is not None:
        return list(d.given_alignment)
    return [(st.src_start + s, st.tgt_start + t) for st in d.steps for s, t in sorted(set(st.alignment))]


def format_alignment(d: Derivation) -> str:
    return " ".join(f"{s}-{t}" for s, t in moses_alignment(d))


def segmented_text(d: Derivation) -> str:
    """The words with each phrase's source span after it, `le chat |0-1| dort |2-2|`, as Moses
    writes its 1-best and n-best translations with -report-segmentation."""
    return " ".join(" ".join((*st.words, f"|{st.src_start}-{st.src_end - 1}|")) for st in d.steps)


def nbest_lines(sent_id: int, tr: Translation, include_alignment: bool = False,
                segmentation: bool = False) -> list[str]:
    out = []
    for d in tr.nbest:
        text = segmented_text(d) if segmentation and d.steps else d.text
        line = f"{sent_id} ||| {text} ||| {format_features(tr, d)} ||| {_num(d.total)}"
        if include_alignment:
            line += f" ||| {format_alignment(d)}"
        out.append(line)
    return out
