"""The Pronoun Language Model (seed 001) and cross-lingual pronoun prediction: the task's TSV
format (tsv), the PLM (sequences, model, predict), the LM baseline (lm_baseline), the
source-aware classifiers (classifier, pronoun_classifier with its ablation) and scoring (score,
make_data)."""
