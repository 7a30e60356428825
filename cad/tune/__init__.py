"""Weight tuning: MERT (Och 2003) and the grid search of the CM weight."""
