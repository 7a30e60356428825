"""Source-side coreference for pronouns: the antecedents a pronoun may have, with probabilities.

Positions always refer to cad's tokens (pre-tokenized sentences, tokens split on spaces). What
lives where:
- records: the pronoun records (PronounResolution, Candidate) and their JSON Lines format;
- backends: the backends' registry (BACKENDS: one class per backend, built from its options;
  get_backend), a text's documents resolved by one;
- corpus: `cad coref` over a corpus, in shards of whole documents;
- evaluate: scores against gold chains (`cad coref-eval`);
- softmax: the log-linear ranker that both languages' learned resolvers use, and model files;
- features: the feature helpers both languages share (distance buckets, dependency paths);
- gold/: gold coreference readers (ParCorFull MMAX2, LitBank CoNLL and brat) and the gold backend;
- english/, spanish/: each language's backends and their parts, with the same module names for
  the same jobs (tokens, mentions, entities, features, ranker, train);
- data/: the shipped ranker models.
"""
