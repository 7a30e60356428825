"""Every default cad chooses, in one place. The command line's options and their help, `cad cm config`
and the library's functions read them from here; the Makefile states the same values in its `?=`
lines (CM_READING, CM_OBJECTIVE, COREF_BACKEND), and tests/test_defaults.py fails when the Makefile,
an option, its help or a function's default says another value.

Two kinds of values live here, apart on purpose:

- the pipeline's choices: what `make` and every `cad` command use when they are not told otherwise;
- the CoreferenceModel's implicit values (CM_IMPLICIT_*): what a moses.ini `CoreferenceModel` line
  without the key means, and so a reranker or a score built without it. They are part of the file
  format: every configuration written so far leaves the key out where its value is the implicit one
  (`cad cm config --objective likelihood`, the Spanish→English source-table, `--reading mixture`),
  so they stay what those files were written with. `cad cm config` writes every value that is not
  implicit, the pipeline's choices included.
"""

# -- coreference -------------------------------------------------------------------------------------

# the backend of `cad coref`, `cm build`, `translate`, `postedit`, `score`, `tune`... (Makefile COREF_BACKEND)
COREF_BACKEND = "ranker"
# `cad cm experiment-source`: the Spanish antecedents the CM reads (make es-en builds its CM from CorZu's)
COREF_BACKEND_SPANISH = "corzu"
# `cad contrastive make`: the suites are built from gold chains
CONTRASTIVE_BACKEND = "gold"
# `cad contrastive probes`: nouns of each French gender in the generated agreement suite
PROBES_PER_GENDER = 8
# the pronouns a backend writes records for (`--pronouns`)
COREF_PRONOUNS = ("it", "they")
# the English ranker's training (`cad coref-train`, `coref-eval --cv-folds`, `coref-heldout`)
COREF_L2 = 3.0                  # L2 penalty of the anaphoricity and ranking models
COREF_WINDOW = 3                # previous sentences searched for antecedents
COREF_IN_DOMAIN_WEIGHT = 4      # how many times ParCorFull (news, TED) counts against LitBank
# the temperature that calibrated the held-out folds' ranked lists best (docs/results.md, Source-side
# coreference); a model file without one divides by 1
COREF_TEMPERATURE = 1.1

# -- the Coreference Model ---------------------------------------------------------------------------

# ln P(class), the probability that the pronoun is the class the reference writes (Makefile CM_OBJECTIVE);
# `credit`, ln of the expected C1+C2 credit, pays ce for il and ça (docs/results.md)
CM_OBJECTIVE = "likelihood"
# the likeliest antecedent bundle alone (Makefile CM_READING; the mixture hedges towards ce)
CM_READING = "map"
# what `cad cm experiment` chooses each CM weight by on the tuning folds (Makefile CM_TUNE): strict class
# agreement, the headline measure, which barely moves with the weight under the likelihood objective and
# chooses the low ones, where the phrase table's masculine il wins (docs/results.md); or APT's C1+C2
# accuracy (c1c2), which pays ce for il and ça and which a system told nothing of antecedents maximizes
CM_TUNE = "strict"
# how `cad cm build` estimates the class table (Makefile CM_CLASS_TABLE): joint (every class on the whole
# bundle) or factored (a gendered bundle's class as its form times its gender; cad/cm/factored.py)
CM_CLASS_TABLE = "joint"
# the class table (classes.gz); `classifier` is the classifier CM (classifier.json)
CM_MODEL = "table"
# `cad cm config --mode feature`'s weight: the one make pronoun-eval chose for the likelihood objective
# (grid 1 to 40, by C1+C2 on the other fold): 25 and 40, C1+C2 equal at both and BLEU higher at 25; seed
# 004's first *it* (*it was not dead*, an animal) is *elle* at 25 and *c'* at 3, where the LM's *c'était* wins.
# Measured on the model of branch forms3 (main as of 41608f5), without the PronounAgreement feature below,
# whose weights were chosen beside a CM weight of 10 and the credit objective (docs/results.md)
CM_FEATURE_WEIGHT = 25.0
# `cad cm config --mode feature`'s PronounAgreement weights (cad/decoder/agreement.py: predicates after être
# agree with the subject pronoun the decoder writes; Makefile CM_AGREEMENT): the agreeing predicates, and minus the
# disagreeing ones; 0: no such feature
CM_AGREEMENT_WEIGHTS = (1.0, 3.0)
# `cad cm config`'s back-off table weight (seed 004's second phrase table)
CM_BACKOFF_WEIGHT = 0.8
# lambda_CM of `cad translate --cm-mode rerank` (the class CM over the decoder's n-best lists)
CM_RERANK_WEIGHT = 1.0
# lambda_CM of `cad cm rerank` (the back-off table over any decoder's n-best list)
CM_TABLE_RERANK_WEIGHT = 0.1
# distinct n-best translations per sentence that CM-rerank chooses from
CM_RERANK_NBEST = 30
# a CM table's entries below this probability are dropped (cm.gz, the source-feature table)
CM_MIN_PROB = 1e-5

# what a CoreferenceModel line without objective=, reading= or model= means (see above)
CM_IMPLICIT_OBJECTIVE = "likelihood"
CM_IMPLICIT_READING = "mixture"
CM_IMPLICIT_MODEL = "table"

# -- the language pair -------------------------------------------------------------------------------

# the pair of every command that is not given --src/--tgt, and of a CoreferenceModel line without
# pair= (every configuration written before pairs were data was English→French)
SOURCE_LANGUAGE = "en"
TARGET_LANGUAGE = "fr"
# the pair of a source-marked CM table (cad/cm/source_table.py) when its caller or its
# CoreferenceModel line names none: every such table so far is Spanish→English's (make es-en)
SOURCE_MARKED_PAIR = ("es", "en")
