"""The data both GPTs learn from: documents, a character tokenizer, and the baselines to beat.

load_corpus() gives a run all of it at once: the documents split and encoded (a Corpus), with the
bigram, position and unigram baselines a GPT must beat to have learned anything.

Without a file of your own, the documents are the first names of the 1990 US census, as
shipped in the `names` package (MIT licence; `pip install names`, or the clone's `gpt` extra): its files
`dist.female.first` and `dist.male.first` hold one upper-case name per line, followed by
frequency columns. Nothing is downloaded at run time.

With a text file (`--data file.txt`) there are two ways to make documents of it:

- 'lines' (the default): one document per line, as microgpt reads its names. Blank lines
  are skipped and the spaces around a line are dropped. A line must fit the model's context:
  a document of n characters takes n + 1 positions ([BOS, c1..cn] predicts [c1..cn, BOS]),
  so with block_size 16 a line holds at most 15 characters. A longer line is refused, with
  an error naming it: nothing is cut or dropped behind your back.
- 'blocks': the whole text, newlines included, cut into consecutive pieces of block_size
  characters. Each is read after a BOS, and none has an end to predict: the model learns to
  continue text, and a sample is one block of it.

As in microgpt, a document becomes tokens after a BOS ("beginning of sequence") token, and
in 'lines' a second BOS marks its end: "emma" -> [BOS, e, m, m, a, BOS]. The first BOS is
what the model sees before the first letter; predicting the last one means "the name ends here".
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

CENSUS_FILES = ('dist.female.first', 'dist.male.first')
NAMES = 'the census first names'  # what the documents are without a file of your own
SPLITS = ('lines', 'blocks')  # the two ways to cut a text file into documents


class DataError(ValueError):
    """A data file the GPTs cannot learn from; the message says why and what to do."""


def load_names() -> list[str]:
    """The census first names, lower-cased and de-duplicated, in alphabetical order (about 5,000)."""
    try:
        package = resources.files('names')
    except ModuleNotFoundError:
        raise ImportError("the GPT examples read the census names of the `names` package: "
                          "pip install names (or, in the clone's folder, pip install -e '.[gpt]')") from None
    unique: set[str] = set()
    for filename in CENSUS_FILES:
        for line in (package / filename).read_text(encoding='ascii').splitlines():
            if line.strip():
                unique.add(line.split()[0].lower())  # "MARY  2.629  2.629  1" -> "mary"
    return sorted(unique)


def read_text(path: str | Path) -> str:
    """The text of a UTF-8 file, refusing what cannot be learned from: an empty file, text in UTF-16
    or UTF-32 (the error says which, and how to convert it), a binary file (one with NUL bytes:
    images, archives, executables) or one that is not UTF-8.

    A pipe is read as a file: /dev/stdin, or a shell's <(...). Every line end becomes '\\n': Windows'
    '\\r\\n' and the old Mac's lone '\\r' alike."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror or e}") from None
    if not raw.strip():
        raise DataError(f"{path} is empty: there is nothing to learn from" if not raw else
                        f"{path} holds only whitespace: there is nothing to learn from")
    unicode = _wide_unicode(raw)
    if unicode:
        raise DataError(f"{path} is {unicode} text, not UTF-8: convert it first, e.g. iconv -f {unicode} -t UTF-8 "
                        f"'{path}' > '{path.with_name(path.stem + '-utf8' + path.suffix)}', or in Python: "
                        f"Path(out).write_text(Path(in).read_text(encoding='{unicode.lower()}'), encoding='utf-8')")
    nul = raw.find(b'\0')
    if nul >= 0:
        raise DataError(f"{path} is not a text file: it has NUL bytes (the first at byte {nul}), "
                        f"as images, archives and programs do")
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as e:
        raise DataError(f"{path} is not UTF-8 text: the bytes at {e.start} ({raw[e.start:e.start + 4]!r}) "
                        f"do not decode; save it as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
    # a byte-order mark is not text; Windows' line ends (\r\n) and the old Mac's (\r) are line ends
    return text.removeprefix('\ufeff').replace('\r\n', '\n').replace('\r', '\n')


# A byte-order mark says which encoding a file is in; UTF-32's must be tested before UTF-16's, which begin it.
BOMS = ((b'\xff\xfe\x00\x00', 'UTF-32'), (b'\x00\x00\xfe\xff', 'UTF-32'), (b'\xff\xfe', 'UTF-16'),
        (b'\xfe\xff', 'UTF-16'))


def _wide_unicode(raw: bytes) -> str | None:
    """'UTF-16' or 'UTF-32' if raw is text in one of them, by its byte-order mark or, without one, by
    its NUL bytes: ASCII text in UTF-16 has a NUL beside every character, in UTF-32 three. None otherwise."""
    for bom, name in BOMS:
        if raw.startswith(bom):
            return name
    head = raw[:4096]
    if len(head) >= 8 and head.count(0) >= len(head) // 2:
        for name, width in (('UTF-32', 4), ('UTF-16', 2)):
            name += 'LE' if head[0] else 'BE'  # without a mark, say which byte comes first: iconv needs it
            if len(head) % width == 0:
                try:
                    head.decode(name)
                    return name
                except UnicodeDecodeError:
                    pass
    return None


def lines_of(text: str, block_size: int, source: str = 'the text') -> list[str]:
    """The 'lines' documents: every non-blank line, without the spaces around it.

    Refuses a line that does not fit the context: n characters need n + 1 <= block_size positions.
    """
    documents, too_long = [], []
    for number, line in enumerate(text.split('\n'), start=1):
        line = line.strip()
        if line:
            documents.append(line)
            if len(line) + 1 > block_size:
                too_long.append((number, line))
    if not documents:
        raise DataError(f"{source} has no non-blank line: there is nothing to learn from")
    if too_long:
        number, line = too_long[0]
        longest = max(len(line) for _, line in too_long)
        shown = line if len(line) <= 40 else line[:37] + '...'
        raise DataError(f"{source}: line {number} ({shown!r}) has {len(line)} characters, but with block size "
                        f"{block_size} a line holds at most {block_size - 1} (one position goes to the BOS before it); "
                        f"{len(too_long)} line(s) are too long, the longest has {longest}. Pass --block-size "
                        f"{longest + 1} (or more), or --split blocks to read the file as one text cut into blocks")
    return documents


def blocks_of(text: str, block_size: int, source: str = 'the text') -> list[str]:
    """The 'blocks' documents: the whole text, newlines included, in pieces of block_size characters
    (the last one may be shorter)."""
    text = text.strip()
    if not text:
        raise DataError(f"{source} holds only whitespace: there is nothing to learn from")
    return [text[i:i + block_size] for i in range(0, len(text), block_size)]


def split(documents: Sequence[str], seed: int, val_fraction: float = 0.1) -> tuple[list[str], list[str]]:
    """Shuffle with a fixed seed and cut into (train, validation): the same split on every run."""
    if not documents:
        raise ValueError("split: the document list is empty: there is nothing to train or validate on")
    if len(documents) < 2:
        raise DataError(f"split: needs at least 2 documents (one to train on, one to validate), got "
                        f"{len(documents)}: {documents[0][:40]!r}")
    if not 0 < val_fraction < 1:
        raise ValueError(f"split: val_fraction must lie strictly between 0 and 1, got {val_fraction}")
    shuffled = list(documents)
    random.Random(seed).shuffle(shuffled)
    n_val = max(1, round(len(shuffled) * val_fraction))
    return shuffled[n_val:], shuffled[:n_val]


def visible(ch: str) -> str:
    """A character as it can be read on an axis or in a table: a space, a newline or a tab made visible."""
    return {' ': '␣', '\n': '\\n', '\t': '\\t'}.get(ch, ch)


class Tokenizer:
    """One token per character of the training documents, plus BOS, as in microgpt.

    The characters get ids 0..len(chars)-1 in sorted order; BOS is the last id. `Tokenizer(chars=...)`
    rebuilds a saved one from its characters.
    """

    def __init__(self, documents: Sequence[str] = (), chars: Sequence[str] | None = None):
        if chars is None:
            if not documents:
                raise ValueError("Tokenizer: the document list is empty: there is no alphabet to learn")
            chars = sorted(set(''.join(documents)))
        if any(len(ch) != 1 for ch in chars) or len(set(chars)) != len(chars) or not chars:
            raise ValueError(f"Tokenizer: chars must be distinct single characters, got {list(chars)[:10]!r}")
        self.chars = list(chars)
        self.bos = len(self.chars)
        self.vocab_size = len(self.chars) + 1
        self._ids = {ch: i for i, ch in enumerate(self.chars)}

    def encode(self, document: str, end: bool = True) -> list[int]:
        """[BOS, the characters' ids..., BOS]; without the final BOS if end=False (a block of text)."""
        unknown = sorted(set(document) - self._ids.keys())
        if unknown:
            raise ValueError(f"Tokenizer.encode: {document!r} has characters outside the training alphabet: "
                             f"{unknown}")
        return [self.bos] + [self._ids[ch] for ch in document] + ([self.bos] if end else [])

    def decode(self, ids: Sequence[int]) -> str:
        """The characters of ids, leaving out BOS."""
        return ''.join(self.chars[i] for i in ids if i != self.bos)

    def __repr__(self) -> str:
        shown = ''.join(self.chars)
        shown = shown if len(shown) <= 60 else shown[:57] + '...'
        return f"Tokenizer({shown!r} + BOS, vocab_size={self.vocab_size})"


def bigram_loss(train: Sequence[Sequence[int]], val: Sequence[Sequence[int]], vocab_size: int,
                smoothing: float = 1.0) -> float:
    """The validation loss of the model that only counts token pairs: the bar a GPT must clear.

    train and val are encoded documents. P(next | current) = (count(current, next) + smoothing) /
    (count(current) + smoothing * vocab_size), counted on train; the result is the mean of -log P
    over every next token of val, the same quantity as the GPTs' cross-entropy loss.
    """
    if not train or not val:
        raise ValueError(f"bigram_loss: needs training and validation documents, got {len(train)} and {len(val)}")
    counts = [[0] * vocab_size for _ in range(vocab_size)]
    for tokens in train:
        for current, following in zip(tokens, tokens[1:]):
            counts[current][following] += 1
    row_totals = [sum(row) for row in counts]
    total, n = 0.0, 0
    for tokens in val:
        for current, following in zip(tokens, tokens[1:]):
            p = (counts[current][following] + smoothing) / (row_totals[current] + smoothing * vocab_size)
            total -= math.log(p)
            n += 1
    return total / n


def position_loss(train: Sequence[Sequence[int]], val: Sequence[Sequence[int]], vocab_size: int,
                  smoothing: float = 1.0) -> float:
    """The validation loss of the model that only counts which token comes at each position.

    It knows nothing of the letters before, only how far into the document it is: on lines of
    random letters it still learns how long lines are (where the end comes) and how often each
    letter is, which is all there is to learn there. A GPT that does no better than this, or
    than the bigram model, has learned nothing more. P(next | position t) = (count(t, next) +
    smoothing) / (count(t) + smoothing * vocab_size), counted on train.
    """
    if not train or not val:
        raise ValueError(f"position_loss: needs training and validation documents, got {len(train)} and {len(val)}")
    length = max(len(tokens) for tokens in list(train) + list(val))
    counts = [[0] * vocab_size for _ in range(length)]
    for tokens in train:
        for t, following in enumerate(tokens[1:]):
            counts[t][following] += 1
    row_totals = [sum(row) for row in counts]
    total, n = 0.0, 0
    for tokens in val:
        for t, following in enumerate(tokens[1:]):
            total -= math.log((counts[t][following] + smoothing) / (row_totals[t] + smoothing * vocab_size))
            n += 1
    return total / n


def unigram_loss(train: Sequence[Sequence[int]], val: Sequence[Sequence[int]], vocab_size: int,
                 smoothing: float = 1.0) -> float:
    """The validation loss of the model that only counts how often each token comes, wherever it is.

    It is what a text of characters drawn at random, each on its own, allows: a bigram or position
    model that does no better than this finds nothing in the text beyond how often each character
    comes. P(next) = (count(next) + smoothing) / (count + smoothing * vocab_size), counted on train.
    """
    if not train or not val:
        raise ValueError(f"unigram_loss: needs training and validation documents, got {len(train)} and {len(val)}")
    counts = [0] * vocab_size
    for tokens in train:
        for following in tokens[1:]:
            counts[following] += 1
    total_count = sum(counts)
    total, n = 0.0, 0
    for tokens in val:
        for following in tokens[1:]:
            total -= math.log((counts[following] + smoothing) / (total_count + smoothing * vocab_size))
            n += 1
    return total / n


@dataclass
class Corpus:
    """The documents, split and encoded, with their tokenizer, and the baselines a GPT must beat."""
    source: str
    split: str
    tokenizer: Tokenizer
    train_docs: list[str]
    val_docs: list[str]
    train: list[list[int]]
    val: list[list[int]]

    def bigram(self) -> float:
        """The validation loss of counting token pairs on the training documents."""
        return bigram_loss(self.train, self.val, self.tokenizer.vocab_size)

    def by_position(self) -> float:
        """The validation loss of counting which token comes at each position (position_loss)."""
        return position_loss(self.train, self.val, self.tokenizer.vocab_size)

    def unigram(self) -> float:
        """The validation loss of counting how often each token comes (unigram_loss)."""
        return unigram_loss(self.train, self.val, self.tokenizer.vocab_size)

    def uniform(self) -> float:
        """The loss of a uniform guess over the vocabulary."""
        return math.log(self.tokenizer.vocab_size)

    @property
    def kind(self) -> str:
        """What a document is, in words: names, lines or blocks."""
        return 'names' if self.source == NAMES else self.split

    def __str__(self) -> str:
        return (f"{len(self.train)} training {self.kind}, {len(self.val)} validation {self.kind} ({self.source}), "
                f"{self.tokenizer}")


def load_corpus(data: str | None, split_by: str, block_size: int, seed: int,
                tokenizer: Tokenizer | None = None) -> Corpus:
    """Read the documents (the census names if data is None), split them with the seed, and encode
    them with tokenizer (a saved model's) or a new one made from the data."""
    source = NAMES if data is None else str(data)
    text = '\n'.join(load_names()) if data is None else read_text(data)
    documents = lines_of(text, block_size, source) if split_by == 'lines' else blocks_of(text, block_size, source)
    if tokenizer is None:
        tokenizer = Tokenizer(documents)
    else:
        unknown = sorted(set(''.join(documents)) - set(tokenizer.chars))
        if unknown:
            raise DataError(f"{source} has characters the saved model has no token for: "
                            f"{[visible(ch) for ch in unknown[:20]]}")
    train_docs, val_docs = split(documents, seed=seed)
    end = split_by == 'lines'
    return Corpus(source, split_by, tokenizer, train_docs, val_docs,
                  [tokenizer.encode(d, end) for d in train_docs], [tokenizer.encode(d, end) for d in val_docs])
