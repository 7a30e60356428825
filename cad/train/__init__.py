"""Training of Moses-format models: lexical tables, phrase and reordering tables."""
