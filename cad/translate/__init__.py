"""Coreference-aware document translation.

- systems: the translation systems by name (SYSTEMS: one class each, built from the decoder and
  its options; `cad translate --system`, `--cm-mode` for the CM's cm-MODE systems);
- translator: the built-in systems (baseline, PE, the CM as back-off table, as decoder feature, by
  reranking; English→French and Spanish→English) and the DocumentTranslator, one object for every
  system, used by `cad translate`, tuning and the experiments;
- backoff: seed 004's back-off passes; passes: the CoreferenceModel feature's two passes;
  source: the Spanish→English passes; morphology: the translations' French tags;
- postedit: seed 004's PE rule; rerank, source_rerank: the CM over n-best lists;
- trace: the pronoun trace; decoders: cad's decoder or a real Moses behind one interface;
- analysis: coreference and roles run ahead of the decoder in a worker process.
"""
