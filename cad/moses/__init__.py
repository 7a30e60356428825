"""Moses configuration files and model filtering."""
