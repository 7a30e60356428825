"""The experiments that compare pronoun systems.

- pronoun_eval: every English→French system on the dev talks (`cad cm experiment`, make
  pronoun-eval), with folds (folds: weights chosen on the other folds, pooled), stages (the work
  directory's kept outputs), decoding (documents as jobs for forked workers) and mert_systems;
- es_en: Spanish→English, seed 003 (`cad cm experiment-source`);
- contrastive: contrastive suites scored in context (`cad score`); contrastive_make, with
  contrastive_french (the gender edits) and contrastive_nouns (the replacement nouns): suites
  built from a word-aligned corpus with coreference (`cad contrastive make`).
"""
