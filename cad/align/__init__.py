"""Word alignment: eflomal in both directions and symmetrization."""
