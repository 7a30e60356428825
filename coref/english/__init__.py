"""English coreference for pronouns, over spaCy parses of cad's tokens.

- tokens: spaCy Docs from Moses-tokenized English;
- mentions: noun phrases, named entities and pronouns with their number, gender and humanness;
- entities: the chains built while a document is read, and the pronoun classes they exclude;
- features: pronoun sites and the learned ranker's features;
- ranker: the `ranker` backend (its model, the walk through a document, the resolver);
- train: the ranker's training on gold coreference, and its cross-validation by talk;
- sieve: the rule-based `sieve` backend;
- coreferee: the `coreferee` backend; train_coreferee: training or installing coreferee's model;
- stanza: the `stanza` backend;
- roles: the grammatical role of source pronouns, which the translation models read;
- constructions: the construction a pronoun stands in (copula and its predicate, extraposition,
  cleft, object…), read from the same parse, for French's choice between il/elle, ce and ça.
"""
