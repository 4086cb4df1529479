"""The data both GPTs learn from: first names, a character tokenizer, and the bigram baseline.

The names are the first names of the 1990 US census, as shipped in the `names` package
(MIT licence; `pip install micrograd[gpt]`): its files `dist.female.first` and
`dist.male.first` hold one upper-case name per line, followed by frequency columns.
Nothing is downloaded at run time.

As in microgpt, a name becomes tokens between two BOS ("beginning of sequence") tokens:
"emma" -> [BOS, e, m, m, a, BOS]. The first BOS is what the model sees before the first
letter; predicting the last BOS means "the name ends here".
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from importlib import resources

CENSUS_FILES = ('dist.female.first', 'dist.male.first')


def load_names() -> list[str]:
    """The census first names, lower-cased and de-duplicated, in alphabetical order (about 5,000)."""
    try:
        package = resources.files('names')
    except ModuleNotFoundError:
        raise ImportError("the GPT examples read the census names of the `names` package: "
                          "pip install 'micrograd[gpt]'") from None
    unique: set[str] = set()
    for filename in CENSUS_FILES:
        for line in (package / filename).read_text(encoding='ascii').splitlines():
            if line.strip():
                unique.add(line.split()[0].lower())  # "MARY  2.629  2.629  1" -> "mary"
    return sorted(unique)


def split(names: Sequence[str], val_fraction: float = 0.1, seed: int = 42) -> tuple[list[str], list[str]]:
    """Shuffle with a fixed seed and cut into (train, validation): the same split on every run."""
    if not names:
        raise ValueError("split: the name list is empty: there is nothing to train or validate on")
    if not 0 < val_fraction < 1:
        raise ValueError(f"split: val_fraction must lie strictly between 0 and 1, got {val_fraction}")
    shuffled = list(names)
    random.Random(seed).shuffle(shuffled)
    n_val = max(1, round(len(shuffled) * val_fraction))
    return shuffled[n_val:], shuffled[:n_val]


class Tokenizer:
    """One token per character of the training names, plus BOS, as in microgpt.

    The characters get ids 0..len(chars)-1 in sorted order; BOS is the last id.
    """

    def __init__(self, names: Sequence[str]):
        if not names:
            raise ValueError("Tokenizer: the name list is empty: there is no alphabet to learn")
        self.chars = sorted(set(''.join(names)))
        self.bos = len(self.chars)
        self.vocab_size = len(self.chars) + 1
        self._ids = {ch: i for i, ch in enumerate(self.chars)}

    def encode(self, name: str) -> list[int]:
        """[BOS, the name's characters' ids..., BOS]."""
        unknown = sorted(set(name) - self._ids.keys())
        if unknown:
            raise ValueError(f"Tokenizer.encode: {name!r} has characters outside the training alphabet: {unknown}")
        return [self.bos] + [self._ids[ch] for ch in name] + [self.bos]

    def decode(self, ids: Sequence[int]) -> str:
        """The characters of ids, leaving out BOS."""
        return ''.join(self.chars[i] for i in ids if i != self.bos)

    def __repr__(self) -> str:
        return f"Tokenizer({''.join(self.chars)!r} + BOS, vocab_size={self.vocab_size})"


def bigram_loss(train: Sequence[str], val: Sequence[str], tokenizer: Tokenizer, smoothing: float = 1.0) -> float:
    """The validation loss of the model that only counts letter pairs: the bar a GPT must clear.

    P(next | current) = (count(current, next) + smoothing) / (count(current) + smoothing * vocab_size),
    counted on train; the result is the mean of -log P over every next token of val, the same
    quantity as the GPTs' cross-entropy loss.
    """
    if not train or not val:
        raise ValueError(f"bigram_loss: needs training and validation names, got {len(train)} and {len(val)}")
    v = tokenizer.vocab_size
    counts = [[0] * v for _ in range(v)]
    for name in train:
        tokens = tokenizer.encode(name)
        for current, following in zip(tokens, tokens[1:]):
            counts[current][following] += 1
    total, n = 0.0, 0
    for name in val:
        tokens = tokenizer.encode(name)
        for current, following in zip(tokens, tokens[1:]):
            p = (counts[current][following] + smoothing) / (sum(counts[current]) + smoothing * v)
            total -= math.log(p)
            n += 1
    return total / n
