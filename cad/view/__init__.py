"""`cad view`: one self-contained HTML page of a translated document set, its coreference chains
and every pronoun decision (the antecedent chosen, its translation, the CM's bundles and classes,
what the pronoun became, the reference's word and APT's category), read from what `cad translate
--trace`, `cad coref` and `cad eval report` write. The page holds its CSS, script and data inline
(no request at view time) and renders each document when it scrolls near.

A room of its own above `cad.cm` (it reads the class CM to give the classes' distribution), beside
`cad.translate` and `cad.plm`, of which it imports nothing: a trace is read as the JSON it is."""
