"""What tensor_gpt.py, scalar_gpt.py and sample.py share: the command line, the data, saving
and resuming, the report, and the look inside (--show).

Each engine's main() reads the same options, builds its own model, and hands the rest here.
"""
from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

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
    position_loss,
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
def epilog(prefix: str) -> str:
    """The end of --help: the files a run writes, for the script whose models are build/{prefix}-DATA.npz."""
    model = f"build/{prefix}-names"
    files = [(f"{model}.npz", "the model, its vocabulary, config, losses and Adam's",
              "state: --resume it, or sample.py"),
             (f"{model}-loss.png", "the training and validation losses, and the uniform-",
              "guess and bigram baselines"),
             (f"{model}-attention-WORD.png", "with --show WORD: one heatmap per layer and head", ""),
             (f"{model}-next-WORD.png", "with --show WORD: the next-token probabilities", "")]
    width = max(len(name) for name, _, _ in files) + 3
    lines = [f"what it writes (beside --out; by default the model is named after its data: {model}.npz for",
             f"the census names, build/{prefix}-cities.npz for --data cities.txt):"]
    for name, first, second in files:
        lines.append(f"  {name:<{width}}{first}")
        if second:
            lines.append(f"  {'':<{width}}{second}")
    return '\n'.join(lines) + """

The validation loss is measured every --eval-every steps, and the model saved is the one whose
validation loss was lowest (said at the end, with a verdict against the bigram baseline).
Ctrl-C stops training after the current step and saves; --resume continues from there."""


# Models larger than this would not fit in memory, or train for days, on a laptop: refused before anything starts.
MAX_PARAMETERS = {'tensor': 20_000_000, 'scalar': 1_000_000}
MAX_BLOCK_SIZE = 1024  # the attention weights of a batch grow with the square of the context
MAX_SAMPLES = 10_000


class UsageError(ValueError):
    """An option that cannot be honoured; the message says why."""


class OptionParser(argparse.ArgumentParser):
    """argparse, with every refusal on one line: 'prog: error: argument --seed: ...', exit status 2.

    (argparse prints its whole usage first, a dozen lines in which the one that matters is lost.)
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def model_path(prefix: str, data: str | None) -> str:
    """Where a model is saved unless --out says otherwise: named after its data, so that training on
    another text never overwrites the names model. build/gpt-names.npz for the census names,
    build/gpt-cities.npz for cities.txt (a file called names.txt: build/gpt-names_txt.npz)."""
    if data is None:
        name = 'names'
    else:
        name = _safe(Path(data).stem) or 'data'
        if name == 'names':  # the census names' model keeps its name
            name = _safe(Path(data).name)
    return f"build/{prefix}-{name}.npz"


def _safe(text: str) -> str:
    """text with every character but letters, digits, '-' and '_' replaced by '_' (a file name part)."""
    return ''.join(ch if ch.isalnum() or ch in '-_' else '_' for ch in text)


def training_parser(prog: str, description: str, engine: str, steps: int, prefix: str,
                    config: dict[str, int], batch_size: int | None = None,
                    eval_every: int = 100) -> argparse.ArgumentParser:
    """The options both training scripts take; batch_size=None: the engine trains on one document per step.
    The model is saved to build/{prefix}-{the data's name}.npz unless --out says otherwise."""
    p = OptionParser(prog=prog, description=description, epilog=epilog(prefix),
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    data = p.add_argument_group('data')
    data.add_argument('--data', metavar='FILE', type=existing_file, help=f"a UTF-8 text file to learn from "
                      f"(default: {NAMES}, one per line); the vocabulary is the file's characters")
    data.add_argument('--split', choices=SPLITS, default=None, help=SPLIT_HELP)
    model = p.add_argument_group('model (a resumed model keeps the config of its file)')
    for key, value in config.items():
        model.add_argument('--' + key.replace('_', '-'), type=whole(1), default=None, metavar='N',
                           help=f"{CONFIG_HELP[key]} (default: {value})")
    run = p.add_argument_group('training')
    run.add_argument('--steps', type=whole(1), default=None, metavar='N',
                     help=f"train until step N (default: {steps}; resuming: the file's planned total). "
                          "The learning rate decays linearly to 0 at step N")
    if batch_size is not None:
        run.add_argument('--batch-size', type=whole(1), default=None, metavar='N',
                         help=f"documents per step (default: {batch_size})")
    run.add_argument('--lr', type=learning_rate, default=None, help="the initial learning rate, at most 1 "
                     "(default: 0.01)")
    run.add_argument('--seed', type=whole(0), default=None, help="the seed of the weights, the split and the "
                     "batches, a whole number >= 0 (default: 42)")
    run.add_argument('--eval-every', type=whole(1), default=None, metavar='N',
                     help=f"measure the validation loss every N steps and keep the model where it is lowest "
                          f"(default: {eval_every}, or once per pass over the training documents if that comes "
                          f"sooner: a small text is overfitted within a few passes)")
    run.add_argument('--out', type=new_file, default=None, metavar='FILE.npz',
                     help=f"where to save the model, tokenizer, config and optimizer state; the pictures go beside "
                          f"it (default: build/{prefix}-DATA.npz, named after the data: build/{prefix}-names.npz "
                          f"for the census names; with --resume: the resumed file)")
    run.add_argument('--resume', type=existing_file, metavar='FILE.npz', help=f"continue training a model saved "
                     f"by {prog}: its weights, Adam's moments, its step count and loss curve, on its data unless "
                     "--data is given")
    look = p.add_argument_group('after training')
    look.add_argument('--samples', type=whole(0, MAX_SAMPLES), default=20, metavar='N',
                      help=f"how many documents to make up, at most {MAX_SAMPLES} (default: 20)")
    look.add_argument('--temperature', type=positive_float, default=0.5, metavar='T',
                      help="below 1: safer samples, above 1: wilder, near 0: always the likeliest token "
                           "(default: 0.5)")
    look.add_argument('--show', metavar='WORD', type=word, help="draw the attention of each head at each position "
                      "of WORD and print the next-token probabilities (PNGs beside --out)")
    p.set_defaults(engine=engine, prefix=prefix, default_steps=steps, default_eval_every=eval_every,
                   default_batch_size=batch_size, default_config=config)
    return p


def parse_training_options(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The options, each checked on its own by its type, then together: a model that cannot be built
    is refused here, before any data is read or any step taken."""
    args = parser.parse_args(argv)
    asked = {key: getattr(args, key) for key in args.default_config}
    if args.resume is None:  # (a resumed model takes its config from its file, checked against these there)
        config = {key: asked[key] or value for key, value in args.default_config.items()}
        problem = model_problem(config, args.engine)
        if problem:
            parser.error(problem)
    block_size = asked['block_size'] or (None if args.resume else args.default_config['block_size'])
    if args.show is not None and block_size is not None and len(args.show) + 1 > block_size:
        parser.error(f"argument --show: {args.show!r} has {len(args.show)} characters, more than the context "
                     f"(block size {block_size}) holds after its BOS")
    return args


def model_problem(config: dict[str, int], engine: str) -> str | None:
    """What is wrong with a model config, naming the options to change; None if it can be built and trained."""
    n_embd, n_head, n_layer, block_size = (config[key] for key in ('n_embd', 'n_head', 'n_layer', 'block_size'))
    if n_embd % n_head:
        fits = [h for h in range(1, min(n_embd, 16) + 1) if n_embd % h == 0]
        return (f"argument --n-head: {n_head} heads do not split --n-embd {n_embd} into equal parts (each head "
                f"reads n_embd / n_head numbers); with --n-embd {n_embd}, --n-head can be {fits}")
    if block_size > MAX_BLOCK_SIZE:
        return (f"argument --block-size: {block_size} is too large (at most {MAX_BLOCK_SIZE}: a batch's attention "
                f"weights grow with the square of the context)")
    size = n_layer * 12 * n_embd ** 2 + block_size * n_embd  # the weights that do not depend on the vocabulary
    if size > MAX_PARAMETERS[engine]:
        return (f"argument --n-embd/--n-layer: --n-embd {n_embd} --n-layer {n_layer} make a model of over "
                f"{size:,} parameters, more than the {engine} engine can train here (at most "
                f"{MAX_PARAMETERS[engine]:,})")
    return None


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """An option's type: a whole number from low to high (no upper bound if None)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {low}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bounds = f">= {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"must be a whole number {bounds}, got {text}")
        return value
    parse.__name__ = 'whole number'  # what argparse calls the type if it fails another way
    return parse


def positive_float(text: str) -> float:
    """An option's type: a finite number > 0 (NaN, inf, 0 and negatives refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}") from None
    if not 0 < value < math.inf:  # (NaN fails every comparison)
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def learning_rate(text: str) -> float:
    """An option's type: a learning rate, > 0 and at most 1 (Adam's steps are about lr in size)."""
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be at most 1 (each Adam step moves a weight by about this much; "
                                         f"0.01 is the default), got {text}")
    return value


def word(text: str) -> str:
    """An option's type: a word of at least one character (--show)."""
    if not text:
        raise argparse.ArgumentTypeError("needs a word of at least one character")
    return text


def existing_file(text: str) -> str:
    """An option's type: a file that exists (a folder, or nothing there, is refused)."""
    path = Path(text)
    if not text:
        raise argparse.ArgumentTypeError("needs a file name, got ''")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    return text


def new_file(text: str) -> str:
    """An option's type: a file that can be written (its folder made if need be): not a folder, not
    inside a file, not somewhere this user cannot write. Checked now, not after training."""
    if not text:
        raise argparse.ArgumentTypeError("needs a file name, got ''")
    path = Path(text)
    if path.is_dir() or text.endswith(('/', os.sep)):
        raise argparse.ArgumentTypeError(f"{text} is a folder; name a file in it, e.g. {path / 'gpt.npz'}")
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text} cannot be overwritten (no write permission)")
    folder = path.absolute().parent
    while not folder.exists():  # the nearest folder that exists: the rest will be made in it
        folder = folder.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot write in {folder} (no permission)")
    return text


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
    val_points: list[tuple[int, float]] = field(default_factory=list)  # (step, validation loss) before start_step

    def training(self, step: int, losses: Sequence[float],
                 val_points: Sequence[tuple[int, float]] = ()) -> dict[str, Any]:
        """The 'training' record of a file saved after `step` steps."""
        return {'engine': self.engine, 'step': step, 'num_steps': self.num_steps, 'batch_size': self.batch_size,
                'learning_rate': self.learning_rate, 'seed': self.seed,
                'data': None if self.data is None else str(Path(self.data).resolve()),  # found again from anywhere
                'resumed_at': self.resumed_at,
                'val_losses': [[s, v] for s, v in val_points if s <= step]}  # (step, validation loss) measured


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
                    seed=given(args.seed, 42), out=Path(args.out or model_path(args.prefix, args.data)))

    try:
        ck = checkpoint.load(args.resume)
        ck.check_config(args.resume, split=args.split, **asked)
    except CheckpointError as e:
        raise UsageError(f"argument --resume: {e}") from None
    trained_by = ck.training.get('engine')
    if trained_by != args.engine:
        raise UsageError(f"argument --resume: {args.resume} was trained by the {trained_by} engine; resume it with "
                         f"{trained_by}_gpt.py "
                         f"(either engine can sample from it: sample.py --engine {args.engine})")
    if ck.adam_m is None:
        raise UsageError(f"argument --resume: {args.resume} has no optimizer state (Adam's moments) to resume from")
    num_steps = given(args.steps, ck.training.get('num_steps', 0))
    if num_steps <= ck.step:
        raise UsageError(f"argument --steps: the model in {args.resume} has taken {ck.step} steps already; pass "
                         f"--steps N with N > {ck.step} to train it further")
    saved = ck.training
    return Plan(args.engine, {key: ck.config[key] for key in args.default_config}, split=ck.config['split'],
                data=given(args.data, saved.get('data')), num_steps=num_steps,
                batch_size=given(batch_size, saved.get('batch_size', 1)),
                learning_rate=given(args.lr, saved.get('learning_rate', 0.01)),
                seed=given(args.seed, saved.get('seed', 42)),
                out=Path(args.out or args.resume),
                checkpoint=ck, start_step=ck.step, losses=ck.losses.tolist(),
                resumed_at=list(saved.get('resumed_at', [])) + [ck.step],
                val_points=[(int(s), float(v)) for s, v in saved.get('val_losses', [])])


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

    def by_position(self) -> float:
        """The validation loss of counting which token comes at each position (data.position_loss)."""
        return position_loss(self.train, self.val, self.tokenizer.vocab_size)

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
          load_adam_state: Callable[..., None], show: str | None = None) -> tuple[Corpus, Any, Any]:
    """The corpus, the model and its Adam optimizer: new, or as the plan's saved model left them.
    A --show word the model will not be able to read is refused here, before any training."""
    ck = the_plan.checkpoint
    try:
        corpus = load_corpus(the_plan.data, the_plan.split, the_plan.config['block_size'], the_plan.seed,
                             tokenizer=Tokenizer(chars=ck.chars) if ck else None)
    except DataError as e:
        raise DataError(f"argument --data: {e}" if the_plan.data else str(e)) from None
    if show is not None:
        check_word(show, corpus.tokenizer, the_plan.config['block_size'])
    model = model_class(corpus.tokenizer.vocab_size, seed=the_plan.seed, **the_plan.config)
    optimizer = adam(model, the_plan.learning_rate)
    if ck:
        model.load_microgpt(ck.weights)
        load_adam_state(model, optimizer, ck.adam_m or {}, ck.adam_v or {}, ck.adam_t)
    return corpus, model, optimizer


# --- the validation loss while training, and the model kept ---

@dataclass
class Kept:
    """A copy of the model, and of Adam's state, after `step` steps: what is saved at the end."""
    step: int
    val_loss: float
    weights: dict[str, Any]
    adam_m: dict[str, Any]
    adam_v: dict[str, Any]
    adam_t: int


class Validation:
    """Measures the validation loss every `every` steps, and keeps a copy of the model where it is lowest.

    Training lowers the loss on the training documents step after step; past some step, a model
    with many weights and few documents goes on lowering it by memorizing them, and predicts
    unseen text worse (overfitting). The validation documents are unseen text: the copy kept is
    the model that predicts it best, and it is the one saved.

    validation(step) is called after each step (train's after_step); validation.measure(step)
    measures now, whatever the step: at the start, and where training ends.
    """

    def __init__(self, every: int, evaluate: Callable[[], float],
                 state: Callable[[], tuple[dict[str, Any], dict[str, Any], dict[str, Any], int]],
                 earlier: Sequence[tuple[int, float]] = (), start_step: int = 0):
        self.every, self.evaluate, self.state = every, evaluate, state
        self.points = [(s, v) for s, v in earlier if s < start_step]  # (step, validation loss), for the curve
        self.best: Kept | None = None

    @staticmethod
    def interval(args: argparse.Namespace, steps_per_pass: int) -> int:
        """--eval-every, or by default every default_eval_every steps or every pass over the data if sooner."""
        return int(args.eval_every or min(args.default_eval_every, max(1, steps_per_pass)))

    def __call__(self, step: int) -> None:
        if step % self.every == 0:
            self.measure(step)

    def measure(self, step: int) -> None:
        if self.points and self.points[-1][0] == step and self.best is not None:
            return  # measured at this step already
        loss = self.evaluate()
        self.points.append((step, loss))
        if self.best is None or loss < self.best.val_loss:  # (a NaN loss is never kept over a number)
            self.best = Kept(step, loss, *self.state())

    @property
    def kept(self) -> Kept:
        if self.best is None:
            raise RuntimeError("Validation: nothing measured yet")
        return self.best

    def measured_since(self, step: int) -> list[tuple[int, float]]:
        return [(s, v) for s, v in self.points if s >= step]


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
         adam_m: dict[str, np.ndarray], adam_v: dict[str, np.ndarray], adam_t: int,
         val_points: Sequence[tuple[int, float]] = ()) -> Path:
    """Write the model, its tokenizer, config, losses and Adam's state to the plan's --out file."""
    config = dict(the_plan.config, vocab_size=tokenizer.vocab_size, split=the_plan.split)
    ck = Checkpoint({key: config[key] for key in MODEL_KEYS + ('split',)}, tokenizer.chars, weights,
                    the_plan.training(step, losses, val_points), np.asarray(losses, dtype=np.float64),
                    adam_m, adam_v, adam_t)
    checkpoint.save(the_plan.out, ck)
    return the_plan.out


def save_kept(the_plan: Plan, tokenizer: Tokenizer, losses: Sequence[float], validation: Validation,
              last_step: int) -> Path:
    """Save the model validation kept (its losses and validation points up to its step), and say so."""
    kept = validation.kept
    path = save(the_plan, tokenizer, kept.step, losses[:kept.step], kept.weights, kept.adam_m, kept.adam_v,
                kept.adam_t, validation.points)
    why = f", where the validation loss was lowest ({kept.val_loss:.4f}; training went on to step {last_step})"
    stopped = last_step < the_plan.num_steps
    print(f"saved the model, its tokenizer and Adam's state after step {kept.step} to {path}"
          + (why if kept.step != last_step else '') + (f"; continue with --resume {path}" if stopped else ''))
    return path


# A GPT has learned something only if it predicts the validation text better than the simplest models do: the
# bigram model (counting letter pairs), a uniform guess, and counting which token comes at each position (which
# learns how long lines are: all there is to learn from lines of random letters). By a margin: those counts are
# a little off from the true frequencies, and a GPT that learns only the frequencies beats them by a few
# hundredths of a nat; that is not learning the text.
MARGIN = 0.05  # nats per token


def verdict(val_loss: float, bigram: float, uniform: float, train_loss: float,
            by_position: float = math.inf) -> str:
    """One line: did the model learn, against the bigram baseline; if not, why it may not have, and what to try."""
    if val_loss < min(bigram, uniform, by_position) - MARGIN:
        return f"learned: validation loss {val_loss:.2f}, below the bigram baseline's {bigram:.2f}"
    bar, name, note = min((bigram, "the bigram baseline's", ""), (uniform, "a uniform guess's", ""),
                          (by_position, "the position baseline's", "counting which token comes at each position; "))
    compared = f"not below {name} {bar:.2f}" + (f" by more than {MARGIN}" if val_loss < bar else '')
    if bar != bigram:
        compared += f" ({note}the bigram baseline: {bigram:.2f})"
    if not math.isfinite(val_loss):
        why = "training diverged: try a smaller --lr"
    elif train_loss < val_loss - 0.3:
        why = (f"it fits its training documents (train loss {train_loss:.2f}) but not unseen ones: more text, "
               "fewer steps (--steps) or a smaller model (--n-embd, --n-layer) may help")
    else:
        why = ("it predicts its training documents no better: if the text has a pattern, more text or more steps "
               "may find it; a text without one (random letters) cannot be learned")
    return f"did not learn: validation loss {val_loss:.2f} is {compared}; {why}"


def report(corpus: Corpus, train_loss: float, val_loss: float, losses: Sequence[float], the_plan: Plan,
           train_note: str = '', validation: Validation | None = None) -> Path | None:
    """Print the losses beside their baselines, the verdict (and a warning if the model overfitted),
    and draw the training curve with the validation points (PNG beside --out)."""
    bigram, uniform = corpus.bigram(), corpus.uniform()
    print(f"train loss {train_loss:.4f}{train_note} | val loss {val_loss:.4f} | bigram baseline val loss "
          f"{bigram:.4f} (uniform guess: {uniform:.4f})")
    kept = validation.kept if validation else None
    if kept is not None and validation is not None:
        later = [v for s, v in validation.points if s > kept.step]
        if later and later[-1] > kept.val_loss + MARGIN:
            print(f"overfitting: the validation loss was lowest at step {kept.step} ({kept.val_loss:.2f}) and "
                  f"rose to {later[-1]:.2f} by step {validation.points[-1][0]}: the model went on to memorize its "
                  f"training {corpus.kind}. The model of step {kept.step} is the one kept. To stop sooner: --steps "
                  f"{kept.step}; to learn more: more text, or a smaller model (--n-embd, --n-layer)")
    print(verdict(val_loss, bigram, uniform, train_loss, corpus.by_position()))
    try:
        import pictures
    except ImportError as e:
        print(f"(no loss curve: {e})")
        return None
    figure = pictures.loss_figure(losses, uniform, bigram, val_loss, the_plan.resumed_at,
                                  title=f"{the_plan.engine} GPT on {corpus.source}",
                                  val_points=validation.points if validation else (),
                                  kept_step=kept.step if kept else None)
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
