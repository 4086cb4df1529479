"""The GPT examples as the tests import them, and the words the tests train on.

examples/gpt holds scripts, not a package: they import one another by name (`import data`), so a test
imports them as running a script does, with their folder on sys.path (put there by example(), once).
"""
import importlib
import sys
from pathlib import Path
from types import ModuleType

from tests import ROOT

GPT_DIR = ROOT / 'examples' / 'gpt'
# 400 made-up words whose vowels and endings depend on the start of the word (data/make_words.py writes them).
WORDS = Path(__file__).resolve().parent / 'data' / 'made_up_words.txt'


def example(name: str) -> ModuleType:
    """The module examples/gpt/<name>.py, imported as the scripts import it."""
    if str(GPT_DIR) not in sys.path:
        sys.path.insert(0, str(GPT_DIR))
    return importlib.import_module(name)
