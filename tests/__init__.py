"""The tests, grouped by area (scalar, tensor, gpt, viz, ...); ROOT is the repository's folder, for the
tests that run its scripts or read its files."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
