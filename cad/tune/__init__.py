"""Weight tuning: MERT (Och 2003; mert: the line search and optimizer, run: the loop over the
decoder's n-best lists, in document context for the CM) and the grid search of the back-off
CM's weight (cm_weight)."""
