"""Training of Moses-format models: lexical tables, phrase extraction (`extract`, in shards
`extract_shards`) and scoring into phrase and reordering tables (`phrase_scoring`, compiled in
`_phrases`), and `cad train`'s whole pipeline (`pipeline`)."""
