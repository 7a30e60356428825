"""The Coreference Model (seeds 004 and 003): the model only, learned from a word-aligned parallel
corpus with source coreference.

- bundles: the feature tokens (`it-fem-sing`) of seed 004's back-off table;
- projection: an antecedent projected through an alignment (the first noun or pronoun aligned to
  it), which every stage that reads an antecedent's translation uses;
- classes: what the target words aligned to a pronoun amount to (il, elle, ce, ...);
- collect: the evidence of a corpus, document by document, in shards (triples, class instances);
- backoff_table: seed 004's cm.gz, P(target words | bundle); build: `cad cm build`'s tables;
- models: the pronoun models by name (CM_MODELS: one class each, read from its file);
- class_model: the class CM, P(class | bundle), with EM and Witten-Bell; class_classifier: the
  classifier CM, P(class | source words, antecedent features);
- source_table: the tables of a pair whose source states the antecedents' features (Spanish→English,
  seed 003), which build writes as it writes the others;
- feature: the CM as a decoder feature (`CoreferenceModel` in moses.ini, registered with the
  decoder); config: the moses.ini files with the CM as back-off table or feature.
"""
