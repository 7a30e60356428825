"""`cad coref` and `cad coref-eval`."""

from __future__ import annotations

import argparse
import sys
import time

from coref.backends import BACKENDS


def _coref(a: argparse.Namespace) -> None:
    from coref.backends import documents, get_backend, resolve_documents
    from coref.records import write_jsonl

    backend = get_backend(a.backend, a.gold, tuple(a.pronouns.split(",")))
    docs = documents(a.input, a.docs)
    t = time.time()
    recs = resolve_documents(backend, docs)
    write_jsonl(recs, a.out)
    print(f"{len(recs)} pronouns in {len(docs)} documents, {len(docs) / max(time.time() - t, 1e-9):.2f} documents/s",
          file=sys.stderr)


def _coref_eval(a: argparse.Namespace) -> None:
    from coref.backends import get_backend
    from coref.evaluate import CorefScores, gold_pronouns, pair_documents, score

    backend = get_backend(a.backend, a.gold, tuple(a.pronouns.split(",")))
    pairs = pair_documents(a.gold, a.input, a.docs)
    total = CorefScores()
    t = time.time()
    for name, gdoc, k, sents in pairs:
        sc = score(backend.resolve(str(k), sents), gold_pronouns(gdoc, sents, str(k), tuple(a.pronouns.split(","))))
        for f in ("total", "correct", "tp", "fp", "fn"):
            setattr(total, f, getattr(total, f) + getattr(sc, f))
        for p, (ok, n) in sc.per_pronoun.items():
            cur = total.per_pronoun.setdefault(p, [0, 0])
            cur[0] += ok
            cur[1] += n
    secs = time.time() - t
    print(f"backend\t{a.backend}\ndocuments\t{len(pairs)}\npronouns\t{total.total}")
    print(f"anaphoricity precision\t{total.precision:.3f}\nanaphoricity recall\t{total.recall:.3f}")
    print(f"antecedent accuracy\t{total.accuracy:.3f} ({total.correct}/{total.total})")
    for p, (ok, n) in sorted(total.per_pronoun.items()):
        print(f"accuracy {p}\t{ok / n:.3f} ({ok}/{n})")
    print(f"documents/s\t{len(pairs) / secs:.2f}")


def add_coref_parsers(sub) -> None:
    s = sub.add_parser("coref", help="resolve the antecedents of pronouns (JSON Lines)")
    s.add_argument("--backend", choices=BACKENDS, default="sieve")
    s.add_argument("--input", required=True, help="tokenized text, one sentence per line")
    s.add_argument("--docs", help="document boundaries (first line<TAB>doc id)")
    s.add_argument("--gold", help="gold annotation for --backend gold")
    s.add_argument("--pronouns", default="it,they")
    s.add_argument("--out", required=True)
    s.set_defaults(func=_coref)

    s = sub.add_parser("coref-eval", help="evaluate a backend on gold chains (ParCorFull MMAX2)")
    s.add_argument("--backend", choices=BACKENDS, default="sieve")
    s.add_argument("--gold", required=True, help="MMAX2 directory, e.g. ParCorFull TED/EN")
    s.add_argument("--input", required=True, help="the same talks as tokenized text")
    s.add_argument("--docs", required=True)
    s.add_argument("--pronouns", default="it,they")
    s.set_defaults(func=_coref_eval)
