"""The embedded samples: a small English-French corpus that cad writes itself (see generate.py), and
an English-German one written by hand (en-de.*: 142 short documents in which *it* and *they* refer
to a masculine, feminine or neuter noun, so that German says *er*, *sie* or *es*), with which the
tests train and translate a third language pair by the same code as the first."""

from pathlib import Path

SAMPLE_PREFIX = Path(__file__).with_name("sample")
SAMPLE_EN_DE = Path(__file__).with_name("en-de")
