"""Spanish coreference for pronouns: CorZu's records, and the native resolver learned from them.

- corzu: the `corzu` backend, and a News Commentary split with CorZu's records (the reference);
- tokens: spaCy Docs from cad's lowercased tokens, read with their case restored;
- mentions: mentions (nouns, coordinations, relatives, demonstratives, elided subjects) and
  pronoun sites;
- entities: what a linked mention inherits, and which mentions share an entity;
- features: the native ranker's features;
- ranker: the `spanish` backend (its model, the walk through a document, the resolver);
- train: the ranker's training to imitate CorZu (`python -m coref.spanish.train`);
- evaluate: the ranker against CorZu, with baselines (`python -m coref.spanish.evaluate`).
"""
