"""Evaluation of pronoun translation. The metrics by name, one interface (`metrics`: METRICS, sequences
in, a result with its signature out; `bleu`, `apt_metric`: the built-in ones). APT (`apt`; its settings
per language pair, `apt_settings`;
the original tool's configuration and list files, `apt_config`, `lists`; its confusion tables,
`confusion`), pronoun precision/recall, BLEU/chrF, correlation with human judgments,
significance, reports; `rank`: seed 002's learned tree-kernel metric."""
