"""The stages of `cad train`, in order (their own module: the command line names them without
loading the pipeline)."""

STAGES = ("prepare", "align", "lex", "phrases", "lm", "moses.ini")
