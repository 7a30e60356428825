"""A small English-French sample corpus that cad writes itself (see generate.py)."""

from pathlib import Path

SAMPLE_PREFIX = Path(__file__).with_name("sample")
