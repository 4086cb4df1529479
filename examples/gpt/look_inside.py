"""After training: the documents the model makes up, and the look inside it (--show).

show() runs the model on one word and prints, at each position, the probability of the token that
comes next and the model's top guesses; it draws each head's attention and the next-token
probabilities as PNGs beside the model file (pictures.py). Both engines' models give what it
needs through their look_inside(tokens).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from data import Tokenizer, visible
from options import UsageError
from plan import picture_path


def print_samples(samples: Sequence[str], kind: str, temperature: float) -> None:
    """One sample a line; in a block of text, a newline shows as \\n."""
    if not samples:
        return
    print(f"--- {len(samples)} {'blocks of text' if kind == 'blocks' else kind} the model made up "
          f"(temperature {temperature}) ---")
    for sample in samples:
        print(sample.replace('\n', '\\n'))


LookInside = Callable[[list[int]], tuple[np.ndarray, np.ndarray]]  # tokens -> (attention maps, next-token probs)


def check_word(word: str, tokenizer: Tokenizer, block_size: int) -> None:
    """Refuse a --show word the model cannot read: empty, with a character it has no token for, too long."""
    if not word:
        raise UsageError("argument --show: needs a word of at least one character")
    unknown = sorted(set(word) - set(tokenizer.chars))
    if unknown:
        raise UsageError(f"argument --show: {word!r}: the model has no token for {[visible(ch) for ch in unknown]} "
                         f"(its characters: {''.join(tokenizer.chars)!r})")
    if len(word) + 1 > block_size:
        raise UsageError(f"argument --show: {word!r}: {len(word)} characters do not fit the context (block size "
                         f"{block_size} holds a BOS and {block_size - 1} characters)")


def show(word: str, tokenizer: Tokenizer, split_by: str, block_size: int, look_inside: LookInside,
         model_path: Path, top: int = 5) -> list[Path]:
    """The look inside the model reading `word`: print, for every position, the probability of the
    token that comes next and the model's top guesses; draw each head's attention map and the
    next-token probabilities as PNGs beside the model file. Returns the PNGs' paths.

    look_inside(tokens) gives the attention weights the forward pass used, (n_layer, n_head, T, T),
    and the next-token probabilities, (T, vocab_size), for the T input tokens [BOS, word...].
    """
    check_word(word, tokenizer, block_size)
    inputs = tokenizer.encode(word, end=False)  # [BOS, w1, ..., wn]
    # What comes after each input: the next character, and after the last one the end (BOS) if
    # documents are lines; a block has no end, so nothing is marked there.
    targets: list[int | None] = [*inputs[1:], tokenizer.bos if split_by == 'lines' else None]
    maps, probs = (np.asarray(a, dtype=np.float64) for a in look_inside(inputs))  # the scalar engine gives lists
    names = [visible(ch) for ch in tokenizer.chars] + ['BOS' if split_by == 'blocks' else 'end']
    reading = ['BOS'] + [visible(ch) for ch in word]

    print(f"--- the model reading {word!r}: the next token's probability at each position ---")
    print(f"{'reading':>8} {'next':>5} {'p(next)':>8}   the model's top {top}")
    for t, (token, target) in enumerate(zip(reading, targets)):
        order = np.argsort(-probs[t], kind='stable')[:top]
        guesses = '  '.join(f"{names[i]} {probs[t, i]:.3f}" for i in order)
        nxt, p = ('', '') if target is None else (names[target], f"{probs[t, target]:.3f}")
        print(f"{token:>8} {nxt:>5} {p:>8}   {guesses}")
    try:
        import pictures
    except ImportError as e:
        print(f"(no pictures: {e})")
        return []
    title = f"attention while reading {word!r} (grey: later positions, hidden by the causal mask)"
    attention_png = pictures.save(pictures.attention_figure(maps, reading, title),
                                  picture_path(model_path, f"attention-{word}"))
    next_png = pictures.save(pictures.next_token_figure(probs, reading, names, targets,
                                                        f"next-token probabilities while reading {word!r}"),
                             picture_path(model_path, f"next-{word}"))
    print(f"attention maps: {attention_png}\nnext-token probabilities: {next_png}")
    return [attention_png, next_png]
