"""What tensor_gpt.py, scalar_gpt.py and sample.py share: the command line, the data, saving
and resuming, the report, and the look inside (--show).

Each engine's main() reads the same options, builds its own model, and hands the rest here.
"""
from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import checkpoint
import numpy as np
from checkpoint import MODEL_KEYS, Checkpoint, CheckpointError
from data import (
    SPLITS,
    DataError,
    Tokenizer,
    bigram_loss,
    blocks_of,
    lines_of,
    load_names,
    read_text,
    split,
    visible,
)

NAMES = 'the census first names'  # what --data defaults to
SPLIT_HELP = ("how to cut --data into documents: 'lines' (the default) reads one document per line, as microgpt "
              "reads names (blank lines skipped, spaces around a line dropped); a line longer than the context "
              "(block size - 1 characters) is refused with an error naming it, nothing is cut. 'blocks' reads the "
              "whole file as one text, newlines included, cut into pieces of block-size characters: the model "
              "learns to continue text, and a sample is one block")


CONFIG_HELP = {'n_embd': "the width of every position's vector", 'n_head': "attention heads per layer",
               'n_layer': "transformer blocks", 'block_size': "the context: positions the model can read"}
EPILOG = """\
what it writes (beside --out, default build/gpt.npz):
  build/gpt.npz                  the model, its vocabulary, its config, the loss of every step and Adam's
                                 state: resume it with --resume, sample from it with sample.py
  build/gpt-loss.png             the training curve, with the uniform-guess and bigram baselines as lines
  build/gpt-attention-WORD.png   with --show WORD: one heatmap per layer and head
  build/gpt-next-WORD.png        with --show WORD: the next-token probabilities at each position

Ctrl-C stops training after the current step and saves; --resume continues from there."""


class UsageError(ValueError):
    """An option that cannot be honoured; the message says why."""


def training_parser(prog: str, description: str, engine: str, steps: int, out: str,
                    config: dict[str, int], batch_size: int | None = None) -> argparse.ArgumentParser:
    """The options both training scripts take; batch_size=None: the engine trains on one document per step."""
    p = argparse.ArgumentParser(prog=prog, description=description, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    data = p.add_argument_group('data')
    data.add_argument('--data', metavar='FILE', help=f"a UTF-8 text file to learn from (default: {NAMES}, "
                      "one per line); the vocabulary is the file's characters")
    data.add_argument('--split', choices=SPLITS, default=None, help=SPLIT_HELP)
    model = p.add_argument_group('model (a resumed model keeps the config of its file)')
    for key, value in config.items():
        model.add_argument('--' + key.replace('_', '-'), type=_positive, default=None, metavar='N',
                           help=f"{CONFIG_HELP[key]} (default: {value})")
    run = p.add_argument_group('training')
    run.add_argument('--steps', type=_positive, default=None, metavar='N',
                     help=f"train until step N (default: {steps}; resuming: the file's planned total). "
                          "The learning rate decays linearly to 0 at step N")
    if batch_size is not None:
        run.add_argument('--batch-size', type=_positive, default=None, metavar='N',
                         help=f"documents per step (default: {batch_size})")
    run.add_argument('--lr', type=positive_float, default=None, help="the initial learning rate (default: 0.01)")
    run.add_argument('--seed', type=int, default=None, help="the seed of the weights, the split and the batches "
                                                            "(default: 42)")
    run.add_argument('--out', default=out, metavar='FILE.npz',
                     help=f"where to save the model, tokenizer, config and optimizer state; the pictures go beside "
                          f"it (default: {out}; with --resume: the resumed file)")
    run.add_argument('--resume', metavar='FILE.npz', help=f"continue training a model saved by {prog}: its weights, "
                     "Adam's moments, its step count and loss curve, on its data unless --data is given")
    look = p.add_argument_group('after training')
    look.add_argument('--samples', type=int, default=20, metavar='N', help="how many documents to make up "
                      "(default: 20)")
    look.add_argument('--temperature', type=positive_float, default=0.5, metavar='T',
                      help="below 1: safer samples, above 1: wilder (default: 0.5)")
    look.add_argument('--show', metavar='WORD', help="draw the attention of each head at each position of WORD and "
                      "print the next-token probabilities (PNGs beside --out)")
    p.set_defaults(engine=engine, default_out=out, default_steps=steps, default_batch_size=batch_size,
                   default_config=config)
    return p


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text}")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float('inf'):  # (not value > 0: nan fails too)
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


@contextmanager
def errors_reported(prog: str) -> Iterator[None]:
    """Bad data, a refused file, an impossible option: one line on stderr and exit status 1, no traceback."""
    try:
        yield
    except (DataError, CheckpointError, UsageError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        raise SystemExit(1) from None


# --- the plan: a new model, or a saved one to resume ---

@dataclass
class Plan:
    """What a training run will do: the model's config, the data, and the steps from start_step to num_steps."""
    engine: str
    config: dict[str, int]
    split: str
    data: str | None
    num_steps: int
    batch_size: int
    learning_rate: float
    seed: int
    out: Path
    checkpoint: Checkpoint | None = None
    start_step: int = 0
    losses: list[float] = field(default_factory=list)  # of the steps before start_step
    resumed_at: list[int] = field(default_factory=list)

    def training(self, step: int, losses: Sequence[float]) -> dict[str, Any]:
        """The 'training' record of a file saved after `step` steps."""
        return {'engine': self.engine, 'step': step, 'num_steps': self.num_steps, 'batch_size': self.batch_size,
                'learning_rate': self.learning_rate, 'seed': self.seed,
                'data': None if self.data is None else str(Path(self.data).resolve()),  # found again from anywhere
                'resumed_at': self.resumed_at}


def plan(args: argparse.Namespace) -> Plan:
    """The run the options ask for; with --resume, the saved file's config, data and schedule,
    refusing options that contradict the file."""
    asked = {key: getattr(args, key) for key in args.default_config}
    batch_size = getattr(args, 'batch_size', None)  # the scalar engine reads one document per step

    def given(value: Any, default: Any) -> Any:  # an option's value, or the default when it was left out
        return default if value is None else value
    if args.resume is None:
        return Plan(args.engine, {key: given(value, args.default_config[key]) for key, value in asked.items()},
                    split=given(args.split, 'lines'), data=args.data, num_steps=given(args.steps, args.default_steps),
                    batch_size=given(batch_size, args.default_batch_size or 1), learning_rate=given(args.lr, 0.01),
                    seed=given(args.seed, 42), out=Path(args.out))

    ck = checkpoint.load(args.resume)
    ck.check_config(args.resume, split=args.split, **asked)
    trained_by = ck.training.get('engine')
    if trained_by != args.engine:
        raise UsageError(f"{args.resume} was trained by the {trained_by} engine; resume it with {trained_by}_gpt.py "
                         f"(either engine can sample from it: sample.py --engine {args.engine})")
    if ck.adam_m is None:
        raise CheckpointError(f"{args.resume} has no optimizer state (Adam's moments) to resume from")
    num_steps = given(args.steps, ck.training.get('num_steps', 0))
    if num_steps <= ck.step:
        raise UsageError(f"the model in {args.resume} has taken {ck.step} steps already; pass --steps N with "
                         f"N > {ck.step} to train it further")
    saved = ck.training
    return Plan(args.engine, {key: ck.config[key] for key in args.default_config}, split=ck.config['split'],
                data=given(args.data, saved.get('data')), num_steps=num_steps,
                batch_size=given(batch_size, saved.get('batch_size', 1)),
                learning_rate=given(args.lr, saved.get('learning_rate', 0.01)),
                seed=given(args.seed, saved.get('seed', 42)),
                out=Path(args.resume if args.out == args.default_out else args.out),
                checkpoint=ck, start_step=ck.step, losses=ck.losses.tolist(),
                resumed_at=list(saved.get('resumed_at', [])) + [ck.step])


# --- the data ---

@dataclass
class Corpus:
    """The documents, split and encoded, with their tokenizer."""
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


def load_corpus(data: str | None, split_by: str, block_size: int, seed: int = 42,
                tokenizer: Tokenizer | None = None) -> Corpus:
    """Read the documents (the census names if data is None), split them, and encode them with
    tokenizer (a saved model's) or a new one made from the data."""
    source = NAMES if data is None else str(data)
    if data is None:
        text = '\n'.join(load_names())
    else:
        text = read_text(data)
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


def start(the_plan: Plan, model_class: Callable[..., Any], adam: Callable[[Any, float], Any],
          load_adam_state: Callable[..., None]) -> tuple[Corpus, Any, Any]:
    """The corpus, the model and its Adam optimizer: new, or as the plan's saved model left them."""
    ck = the_plan.checkpoint
    corpus = load_corpus(the_plan.data, the_plan.split, the_plan.config['block_size'], the_plan.seed,
                         tokenizer=Tokenizer(chars=ck.chars) if ck else None)
    model = model_class(corpus.tokenizer.vocab_size, seed=the_plan.seed, **the_plan.config)
    optimizer = adam(model, the_plan.learning_rate)
    if ck:
        model.load_microgpt(ck.weights)
        load_adam_state(model, optimizer, ck.adam_m or {}, ck.adam_v or {}, ck.adam_t)
    return corpus, model, optimizer


# --- stopping with Ctrl-C, saving, reporting ---

@contextmanager
def ctrl_c_stops_training() -> Iterator[Callable[[int], bool]]:
    """Yields stop(step): False until the user presses Ctrl-C, then True, so that training ends
    after the step it is in and the model is saved. A second Ctrl-C quits at once."""
    pressed = [False]
    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        yield lambda step: False
        return

    def handler(signum: int, frame: object) -> None:
        if pressed[0]:
            raise KeyboardInterrupt
        pressed[0] = True
        print("\nCtrl-C: saving after this step (Ctrl-C again quits without saving)", flush=True)
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield lambda step: pressed[0]
    finally:
        signal.signal(signal.SIGINT, previous)


def save(the_plan: Plan, tokenizer: Tokenizer, step: int, losses: Sequence[float], weights: dict[str, np.ndarray],
         adam_m: dict[str, np.ndarray], adam_v: dict[str, np.ndarray], adam_t: int) -> Path:
    """Write the model, its tokenizer, config, losses and Adam's state to the plan's --out file."""
    config = dict(the_plan.config, vocab_size=tokenizer.vocab_size, split=the_plan.split)
    ck = Checkpoint({key: config[key] for key in MODEL_KEYS + ('split',)}, tokenizer.chars, weights,
                    the_plan.training(step, losses), np.asarray(losses, dtype=np.float64), adam_m, adam_v, adam_t)
    checkpoint.save(the_plan.out, ck)
    return the_plan.out


def report(corpus: Corpus, train_loss: float, val_loss: float, losses: Sequence[float], the_plan: Plan,
           train_note: str = '') -> Path | None:
    """Print the losses beside their baselines and draw the training curve (PNG beside --out)."""
    bigram, uniform = corpus.bigram(), corpus.uniform()
    print(f"train loss {train_loss:.4f}{train_note} | val loss {val_loss:.4f} | bigram baseline val loss "
          f"{bigram:.4f} (uniform guess: {uniform:.4f})")
    try:
        import pictures
    except ImportError as e:
        print(f"(no loss curve: {e})")
        return None
    figure = pictures.loss_figure(losses, uniform, bigram, val_loss, the_plan.resumed_at,
                                  title=f"{the_plan.engine} GPT on {corpus.source}")
    path = pictures.save(figure, picture_path(the_plan.out, 'loss'))
    print(f"loss curve: {path}")
    return path


def picture_path(model_path: Path, what: str) -> Path:
    """build/gpt.npz -> build/gpt-loss.png, build/gpt-attention-emma.png, ..."""
    safe = ''.join(ch if ch.isalnum() or ch in '-_' else '_' for ch in what)
    return model_path.with_name(f"{model_path.stem}-{safe}.png")


def print_samples(samples: Sequence[str], kind: str, temperature: float) -> None:
    """One sample a line; in a block of text, a newline shows as \\n."""
    if not samples:
        return
    print(f"--- {len(samples)} {'blocks of text' if kind == 'blocks' else kind} the model made up "
          f"(temperature {temperature}) ---")
    for sample in samples:
        print(sample.replace('\n', '\\n'))


# --- the look inside ---

LookInside = Callable[[list[int]], tuple[np.ndarray, np.ndarray]]  # tokens -> (attention maps, next-token probs)


def show(word: str, tokenizer: Tokenizer, split_by: str, block_size: int, look_inside: LookInside,
         model_path: Path, top: int = 5) -> list[Path]:
    """The look inside the model reading `word`: print, for every position, the probability of the
    token that comes next and the model's top guesses; draw each head's attention map and the
    next-token probabilities as PNGs beside the model file. Returns the PNGs' paths.

    look_inside(tokens) gives the attention weights the forward pass used, (n_layer, n_head, T, T),
    and the next-token probabilities, (T, vocab_size), for the T input tokens [BOS, word...].
    """
    if not word:
        raise UsageError("--show needs a word of at least one character")
    unknown = sorted(set(word) - set(tokenizer.chars))
    if unknown:
        raise UsageError(f"--show {word!r}: the model has no token for {[visible(ch) for ch in unknown]} "
                         f"(its characters: {''.join(tokenizer.chars)!r})")
    if len(word) + 1 > block_size:
        raise UsageError(f"--show {word!r}: {len(word)} characters do not fit the context (block size {block_size} "
                         f"holds a BOS and {block_size - 1} characters)")
    inputs = tokenizer.encode(word, end=False)  # [BOS, w1, ..., wn]
    # What comes after each input: the next character, and after the last one the end (BOS) if
    # documents are lines; a block has no end, so nothing is marked there.
    targets: list[int | None] = inputs[1:] + ([tokenizer.bos] if split_by == 'lines' else [None])
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
    attention = pictures.save(pictures.attention_figure(maps, reading, title),
                              picture_path(model_path, f"attention-{word}"))
    nxt = pictures.save(pictures.next_token_figure(probs, reading, names, targets,
                                                   f"next-token probabilities while reading {word!r}"),
                        picture_path(model_path, f"next-{word}"))
    print(f"attention maps: {attention}\nnext-token probabilities: {nxt}")
    return [attention, nxt]
