"""`cad binarize`: a model's tables in binary form, memory-mapped and read on demand by cad's
decoder: the phrase and reordering tables in cad's format (cad/moses/binarized.py), the language
model in KenLM's (cad/lm/kenlm_binary.py).

Beside the text tables by default, under the names cad's decoder looks for (phrase-table.gz →
phrase-table.cadphr, reordering-table….gz → reordering-table….cadlexr, lm.arpa → lm.binlm), so
that every moses.ini naming those text tables (the model's own, the CM's configurations) is
decoded from them; or into a directory of their own with a moses.ini naming them
(PhraseDictionaryCadBinary, LexicalReordering and KENLM with the binary paths). A table whose
binary form is up to date is not written again.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.errors import CadError
from cad.moses import binarize_native
from cad.moses.binarized import (BINARY_PHRASE_TABLE, KENLM_MAGIC, LM_SUFFIX, PHRASE_MAGIC, PHRASE_SUFFIX,
                                 REORDERING_MAGIC, REORDERING_SUFFIX, BinaryPhraseTable, BinaryReorderingTable,
                                 KeptPairs, Pruner, binarize_phrase_table, binarize_reordering_table, lm_twin,
                                 magic_of, open_kept_pairs, source_stamp, twin_path)
from cad.moses.ini import MosesConfig, parse_config, write_config

log = logging.getLogger(__name__)

CAD_MAGICS = (PHRASE_MAGIC, REORDERING_MAGIC)


@dataclass
class Binarized:
    written: list[tuple[str, str]] = field(default_factory=list)     # (feature, binary file)
    current: list[tuple[str, str]] = field(default_factory=list)     # up to date already
    config: MosesConfig | None = None                                # the moses.ini written (--out-dir)


def _up_to_date(text: str, binary: Path, magic: bytes, prune: int) -> bool:
    if magic_of(binary) != magic:
        return False
    if magic == KENLM_MAGIC:
        return binary.stat().st_mtime_ns >= os.stat(text).st_mtime_ns
    table = BinaryPhraseTable(binary) if magic == PHRASE_MAGIC else BinaryReorderingTable(binary)
    return table.stamp == source_stamp(text) and table.prune == prune


def _target(text: str, suffix: str, out_dir: Path | None, index: int) -> Path:
    twin = lm_twin(text) if suffix == LM_SUFFIX else twin_path(text, suffix)
    return twin if out_dir is None else out_dir / f"{index}.{twin.name}"


def binarize_model(config: str | os.PathLike, out_dir: str | os.PathLike | None = None, force: bool = False,
                   prune: int = 0, engine: str = "native") -> Binarized:
    """Binarize every phrase table, reordering table and KenLM model `config` names; with
    `out_dir`, into it with a moses.ini of its own. `prune` N > 0: keep the N entries of each source
    phrase with the highest p(e|f) (Moses's filter-pt -n N), in the reordering table too. `engine`:
    the phrase and reordering tables written by the compiled writer ("native") or the Python one
    ("python", the reference), the same bytes."""
    binarize_native.check_engine(engine)
    cfg = parse_config(config)
    out = Binarized()
    target_dir = Path(out_dir) if out_dir is not None else None
    if target_dir is not None:
        target_dir.mkdir(parents=True, exist_ok=True)
    new = copy.deepcopy(cfg)
    if prune < 0:
        raise CadError(f"--prune takes a number of entries, not {prune}")
    tables = [f for f in new.features if f.type == "PhraseDictionaryMemory"]
    if prune and len(tables) != 1:
        raise CadError(f"--prune needs one phrase table to prune the reordering table by; {len(tables)} here",
                       cfg.source)
    # the phrase table first: a pruned one tells the reordering table which pairs it kept
    order = sorted(range(len(new.features)), key=lambda k: new.features[k].type != "PhraseDictionaryMemory")
    pt_binary = _target(tables[0].path, PHRASE_SUFFIX, target_dir, new.features.index(tables[0])) if prune else None
    kept_file = None
    # each temporary named before it is created: one the writer fails in (or Ctrl-C stops) is
    # removed too, although no kept_file came back to name it
    temporaries: list[str] = []
    try:
        for k in order:
            kept_file = _binarize_feature(cfg, new.features[k], k, target_dir, force, prune, kept_file, out,
                                          pt_binary, engine, temporaries)
    finally:
        for tmp in temporaries:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    if target_dir is not None:
        new.source = str(target_dir / "moses.ini")
        write_config(new, new.source)
        out.config = new
    return out


def _binarize_feature(cfg: MosesConfig, f, k: int, target_dir: Path | None, force: bool, prune: int,
                      kept_file: str | None, out: Binarized, pt_binary: Path | None, engine: str,
                      temporaries: list[str]) -> str | None:
    """One feature's file in binary form (when it has one); the pruned phrase table's kept pairs
    (their file's name also added to `temporaries`, for the caller to remove)."""
    path = f.path
    if path is None:
        return kept_file
    if not os.path.exists(path):
        raise CadError(f"{f.name} refers to a missing file {path}", cfg.source, f.line)
    if f.type == "PhraseDictionaryMemory":
        magic, suffix = PHRASE_MAGIC, PHRASE_SUFFIX
    elif f.type == "LexicalReordering":
        magic, suffix = REORDERING_MAGIC, REORDERING_SUFFIX
    elif f.type == "KENLM":
        magic, suffix = KENLM_MAGIC, LM_SUFFIX
    else:
        if target_dir is not None:
            f.args["path"] = str(Path(path).resolve())
        return kept_file
    if magic_of(path) == magic:           # already binary: nothing to do
        return kept_file
    dst = _target(path, suffix, target_dir, k)
    table_prune = prune if magic in CAD_MAGICS else 0
    # a reordering table is pruned by the phrase table's pairs: written again whenever that was
    stale = magic == REORDERING_MAGIC and kept_file is not None
    if not force and not stale and _up_to_date(path, dst, magic, table_prune):
        out.current.append((f.name, str(dst)))
    else:
        log.info("%s: writing %s%s", f.name, dst, f" (pruned to {prune} entries a source phrase)" if table_prune
                 else "")
        if magic == PHRASE_MAGIC:
            if prune:
                # gzipped: beside a large model's tables this temporary set the disk's peak
                kept_file = f"{dst}.kept.tmp.gz"
                temporaries.append(kept_file)
            lines, pruned = _phrase_table(engine, path, dst, f, prune, kept_file)
            if prune:
                log.info("%s: %d of %d entries kept", f.name, lines - pruned, lines)
        elif magic == REORDERING_MAGIC:
            if prune and kept_file is None:       # the phrase table was up to date: its pairs again
                kept_file = str(dst) + ".kept.tmp.gz"
                temporaries.append(kept_file)
                _kept_pairs_of(pt_binary, kept_file)
            _reordering_table(engine, path, dst, f, kept_file if prune else None, str(pt_binary), prune)
        else:
            # imported here: the LM's writer needs numpy, which `cad decode` and `cad translate`
            # (importing this module for refuse_cad_binaries) would otherwise load, and with it
            # OpenBLAS's threads, spinning beside the search on a machine of few cores
            from cad.lm.kenlm_binary import write_kenlm_binary

            write_kenlm_binary(path, dst)
        out.written.append((f.name, str(dst)))
    if target_dir is not None:
        f.args["path"] = str(dst.resolve())
        if f.type == "PhraseDictionaryMemory":
            f.type = BINARY_PHRASE_TABLE
    return kept_file


def _phrase_table(engine: str, path: str, dst: Path, f, prune: int, kept_file: str | None) -> tuple[int, int]:
    """The binary phrase table by either engine (pruned: the kept pairs to `kept_file`); (lines, entries
    pruned)."""
    if engine == "native":
        return binarize_native.binarize_phrase_table(path, dst, f.num_features, f.name, prune, kept_file)
    if not prune:
        return binarize_phrase_table(path, dst, f.num_features, f.name), 0
    pruner = Pruner(prune, kept_file)
    try:
        lines = binarize_phrase_table(path, dst, f.num_features, f.name, pruner)
    finally:
        pruner.close()
    return lines, pruner.pruned


def _reordering_table(engine: str, path: str, dst: Path, f, kept_file: str | None, phrase_table: str,
                      prune: int) -> None:
    """The binary reordering table by either engine; `kept_file`: only the pruned phrase table's pairs."""
    if engine == "native":
        binarize_native.binarize_reordering_table(path, dst, f.num_features, kept_file, phrase_table, prune)
    else:
        binarize_reordering_table(path, dst, f.num_features,
                                  KeptPairs(kept_file, phrase_table) if kept_file is not None else None, prune)


def _kept_pairs_of(pt_binary: Path, kept_file: str) -> None:
    """The pairs of an up-to-date pruned binary phrase table, as Pruner writes them."""
    table = BinaryPhraseTable(pt_binary)
    with open_kept_pairs(kept_file) as out:
        for key, body in table.keys():
            out.write(key.decode("utf-8") + " ||| " + "\t".join(" ".join(w) for w, _, _ in table.entries(body)) + "\n")


def refuse_cad_binaries(cfg: MosesConfig) -> None:
    """A real Moses reads text tables (or its own binary ones), not cad's."""
    for f in cfg.features:
        if f.type == BINARY_PHRASE_TABLE or (f.path and magic_of(f.path) in CAD_MAGICS):
            raise CadError(f"{f.name} is one of cad's binary tables, which Moses cannot read: give Moses the "
                           "moses.ini of the text tables", cfg.source, f.line)
