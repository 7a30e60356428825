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


def format_alignment(d: Derivation) -> str:
    return " ".join(f"{s}-{t}" for s, t in d.word_alignment)


def nbest_lines(sent_id: int, tr: Translation, include_alignment: bool = False) -> list[str]:
    out = []
    for d in tr.nbest:
        line = f"{sent_id} ||| {d.text} ||| {format_features(tr, d)} ||| {_num(d.total)}"
        if include_alignment:
            line += f" ||| {format_alignment(d)}"
        out.append(line)
    return out
