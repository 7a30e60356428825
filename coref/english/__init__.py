"""English coreference for pronouns: spaCy parses of cad's tokens, mentions, entities, the
rule-based sieve, the learned ranker and its training, the coreferee backend, pronoun roles."""
