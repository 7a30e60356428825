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

import copy
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.errors import CadError
from cad.lm.kenlm_binary import write_kenlm_binary
from cad.moses.binarized import (BINARY_PHRASE_TABLE, KENLM_MAGIC, LM_SUFFIX, PHRASE_MAGIC, PHRASE_SUFFIX,
                                 REORDERING_MAGIC, REORDERING_SUFFIX, BinaryPhraseTable, BinaryReorderingTable,
                                 binarize_phrase_table, binarize_reordering_table, lm_twin, magic_of, source_stamp,
                                 twin_path)
from cad.moses.ini import MosesConfig, parse_config, write_config

log = logging.getLogger(__name__)

CAD_MAGICS = (PHRASE_MAGIC, REORDERING_MAGIC)


@dataclass
class Binarized:
    written: list[tuple[str, str]] = field(default_factory=list)     # (feature, binary file)
    current: list[tuple[str, str]] = field(default_factory=list)     # up to date already
    config: MosesConfig | None = None                                # the moses.ini written (--out-dir)


def _up_to_date(text: str, binary: Path, magic: bytes) -> bool:
    if magic_of(binary) != magic:
        return False
    if magic == KENLM_MAGIC:
        return binary.stat().st_mtime_ns >= os.stat(text).st_mtime_ns
    table = BinaryPhraseTable(binary) if magic == PHRASE_MAGIC else BinaryReorderingTable(binary)
    return table.stamp == source_stamp(text)


def _target(text: str, suffix: str, out_dir: Path | None, index: int) -> Path:
    twin = lm_twin(text) if suffix == LM_SUFFIX else twin_path(text, suffix)
    return twin if out_dir is None else out_dir / f"{index}.{twin.name}"


def binarize_model(config: str | os.PathLike, out_dir: str | os.PathLike | None = None, force: bool = False) -> Binarized:
    """Binarize every phrase table, reordering table and KenLM model `config` names; with
    `out_dir`, into it with a moses.ini of its own."""
    cfg = parse_config(config)
    out = Binarized()
    target_dir = Path(out_dir) if out_dir is not None else None
    if target_dir is not None:
        target_dir.mkdir(parents=True, exist_ok=True)
    new = copy.deepcopy(cfg)
    for k, f in enumerate(new.features):
        path = f.path
        if path is None:
            continue
        if not os.path.exists(path):
            raise CadError(f"{f.name} refers to a missing file {path}", cfg.source, f.line)
        if f.type == "PhraseDictionaryMemory":
            kind = (PHRASE_MAGIC, PHRASE_SUFFIX, lambda src, dst: binarize_phrase_table(src, dst, f.num_features,
                                                                                          f.name))
        elif f.type == "LexicalReordering":
            kind = (REORDERING_MAGIC, REORDERING_SUFFIX,
                    lambda src, dst: binarize_reordering_table(src, dst, f.num_features))
        elif f.type == "KENLM":
            kind = (KENLM_MAGIC, LM_SUFFIX, write_kenlm_binary)
        else:
            if target_dir is not None:
                f.args["path"] = str(Path(path).resolve())
            continue
        magic, suffix, write = kind
        if magic_of(path) in (magic,):           # already binary: nothing to do
            continue
        dst = _target(path, suffix, target_dir, k)
        if not force and _up_to_date(path, dst, magic):
            out.current.append((f.name, str(dst)))
        else:
            log.info("%s: writing %s", f.name, dst)
            write(path, dst)
            out.written.append((f.name, str(dst)))
        if target_dir is not None:
            f.args["path"] = str(dst.resolve())
            if f.type == "PhraseDictionaryMemory":
                f.type = BINARY_PHRASE_TABLE
    if target_dir is not None:
        new.source = str(target_dir / "moses.ini")
        write_config(new, new.source)
        out.config = new
    return out


def refuse_cad_binaries(cfg: MosesConfig) -> None:
    """A real Moses reads text tables (or its own binary ones), not cad's."""
    for f in cfg.features:
        if f.type == BINARY_PHRASE_TABLE or (f.path and magic_of(f.path) in CAD_MAGICS):
            raise CadError(f"{f.name} is one of cad's binary tables, which Moses cannot read: give Moses the "
                           "moses.ini of the text tables", cfg.source, f.line)
