"""Seed 002: learning to rank translations against a reference with tree kernels."""
