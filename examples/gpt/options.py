"""The command line of the three GPT scripts: one table of options, each with its default, type and help.

Every option of tensor_gpt.py, scalar_gpt.py and sample.py is one row of OPTIONS below, as nanoGPT
keeps its defaults in one block: each default is written there and nowhere else. Where the scripts
differ (the tensor GPT is wider and trains longer than microgpt's), the row's default or help is a
dict keyed by script ('tensor', 'scalar', 'sample'; 'train' for both training scripts).

Adding an option touches two places: its row here, and the code that reads it: `settings['<name>']`
in training.train, the loop both GPTs share, for a row with `saved_as`; `args.<name>` otherwise. The
parser, --help, the check of its value and, with `saved_as`, saving it in the model's file, taking it
back on --resume and handing it to the loop (plan.Plan.settings, or settings() from Python) all come
from the row.

Every value is checked by its type before any work starts; a bad one is refused on one line
naming the option ('tensor_gpt.py: error: argument --seed: ...', exit status 2).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from data import NAMES, SPLITS  # data.py sits beside this file

SCRIPTS = {'tensor': 'tensor_gpt.py', 'scalar': 'scalar_gpt.py', 'sample': 'sample.py'}
TRAIN, SAMPLE, EVERY = ('tensor', 'scalar'), ('sample',), ('tensor', 'scalar', 'sample')
MAX_SAMPLES = 10_000


class UsageError(ValueError):
    """An option that cannot be honoured; the message says why."""


# --- the types: each checks one value and says what is wrong with it ---

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
                                         f"{default('lr')} is the default), got {text}")
    return value


def word(text: str) -> str:
    """An option's type: a word of at least one character (--show)."""
    if not text:
        raise argparse.ArgumentTypeError("needs a word of at least one character")
    return text


def existing_file(text: str) -> str:
    """An option's type: something that can be read as a file: a file, or a pipe or device such as
    /dev/stdin or the <(...) of a shell. A folder, nothing there, or no permission to read is refused."""
    path = Path(text)
    if not text:
        raise argparse.ArgumentTypeError("needs a file name, got ''")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if not path.exists():
        broken = path.is_symlink()
        raise argparse.ArgumentTypeError(f"{text}: no such file" + (f" (it is a link to {os.readlink(path)}, "
                                                                     "which does not exist)" if broken else ''))
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"{text} cannot be read (no read permission)")
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


# --- the table ---

@dataclass(frozen=True)
class Option:
    """One option. default and help may be dicts keyed by script ('train': both training scripts).

    help may say {default}. saved_as: the key under which the model's file keeps the value, so that
    --resume takes it from there unless it is given again. model: part of the model's config, which a
    resumed model keeps (an option that contradicts its file is refused)."""
    name: str                           # args.<name>; the flag is --name with '-' for '_'
    default: Any
    type: Callable[[str], Any] | None
    help: str | dict[str, str]
    group: str
    scripts: tuple[str, ...]
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    saved_as: str | None = None
    model: bool = False
    flag: str | None = None             # when it is not --name ('FILE.npz': a positional argument)

    def default_for(self, script: str) -> Any:
        return _pick(self.default, script)

    @property
    def option(self) -> str:
        return self.flag or '--' + self.name.replace('_', '-')


def _pick(value: Any, script: str) -> Any:
    """value, or its entry for script if it is a dict by script."""
    if not isinstance(value, dict):
        return value
    return value[script] if script in value else value['train']


SPLIT_HELP = ("how to cut --data into documents: 'lines' (the default) reads one document per line, as microgpt "
              "reads names (blank lines skipped, spaces around a line dropped); a line longer than the context "
              "(block size - 1 characters) is refused with an error naming it, nothing is cut. 'blocks' reads the "
              "whole file as one text, newlines included, cut into pieces of block-size characters: the model "
              "learns to continue text, and a sample is one block")
MODEL = 'model (a resumed model keeps the config of its file)'

OPTIONS = [
    Option('data', None, existing_file, f"a UTF-8 text file to learn from (default: {NAMES}, one per line); the "
           "vocabulary is the file's characters. A pipe is read too: --data /dev/stdin, --data <(grep ...)",
           'data', TRAIN, metavar='FILE', saved_as='data'),
    Option('split', 'lines', None, SPLIT_HELP, 'data', TRAIN, choices=SPLITS, saved_as='split'),
    # the model: microgpt's for the scalar GPT, wider and deeper for the tensor GPT
    Option('n_embd', {'tensor': 64, 'scalar': 16}, whole(1), "the width of every position's vector "
           "(default: {default})", MODEL, TRAIN, metavar='N', model=True),
    Option('n_head', 4, whole(1), "attention heads per layer (default: {default})", MODEL, TRAIN, metavar='N',
           model=True),
    Option('n_layer', {'tensor': 2, 'scalar': 1}, whole(1), "transformer blocks (default: {default})", MODEL, TRAIN,
           metavar='N', model=True),
    Option('block_size', 16, whole(1), "the context: positions the model can read (default: {default})", MODEL,
           TRAIN, metavar='N', model=True),
    # training
    Option('steps', {'tensor': 1500, 'scalar': 1000}, whole(1), "train until step N (default: {default}; resuming: "
           "the file's planned total). The learning rate decays linearly to 0 at step N", 'training', TRAIN,
           metavar='N', saved_as='num_steps'),
    Option('batch_size', {'tensor': 32, 'scalar': 1}, whole(1), "documents per step (default: {default})",
           'training', ('tensor',), metavar='N', saved_as='batch_size'),
    Option('lr', 0.01, learning_rate, "the initial learning rate, at most 1 (default: {default})", 'training', TRAIN,
           saved_as='learning_rate'),
    Option('seed', 42, whole(0), {
        'train': "the seed of the weights, the split and the batches, a whole number >= 0 (default: {default})",
        'sample': "the sampling seed, a whole number >= 0 (default: {default}, training's)"},
        'training', EVERY, saved_as='seed'),
    Option('eval_every', {'tensor': 100, 'scalar': 200}, whole(1), "measure the validation loss every N steps and "
           "keep the model where it is lowest (default: {default}, or once per pass over the training documents if "
           "that comes sooner: a small text is overfitted within a few passes)", 'training', TRAIN, metavar='N'),
    Option('patience', 5, whole(0), "stop early when the validation loss has not improved on its lowest for N "
           "measurements in a row; the model kept is still the one where it was lowest (default: {default}; 0: "
           "never stop early)", 'training', TRAIN, metavar='N'),
    Option('out', None, new_file, "where to save the model, tokenizer, config and optimizer state; the pictures go "
           "beside it (default: build/{prefix}-DATA.npz, named after the data: build/{prefix}-names.npz for the "
           "census names; with --resume: the resumed file)", 'training', TRAIN, metavar='FILE.npz'),
    Option('resume', None, existing_file, "continue training a model saved by {prog}: its weights, Adam's moments, "
           "its step count and loss curve, on its data unless --data is given", 'training', TRAIN,
           metavar='FILE.npz'),
    # sampling and looking inside
    Option('trained_on', None, None, "sample the model trained on FILE: build/gpt-NAME.npz, named after FILE as "
           "tensor_gpt.py names it (the file itself is not read)", 'after training', SAMPLE, metavar='FILE',
           flag='--data'),
    Option('model', None, existing_file, "the saved model (default: build/gpt-names.npz, the census names model; "
           "with --data FILE: the model make gpt DATA=FILE saved)", 'after training', SAMPLE, metavar='FILE.npz',
           flag='FILE.npz'),
    Option('samples', 20, whole(0, MAX_SAMPLES), f"how many documents to make up, at most {MAX_SAMPLES} "
           "(default: {default})", 'after training', EVERY, metavar='N'),
    Option('temperature', 0.5, positive_float, "below 1: safer samples, above 1: wilder, near 0: always the "
           "likeliest token (default: {default})", 'after training', EVERY, metavar='T'),
    Option('engine', 'tensor', None, "run the model on micrograd.tensor (default) or on scalar Values",
           'after training', SAMPLE, choices=TRAIN),
    Option('show', None, word, "draw the attention of each head at each position of WORD and print the next-token "
           "probabilities (PNGs beside {beside})", 'after training', EVERY, metavar='WORD'),
]
ROWS = {option.name: option for option in OPTIONS}
MODEL_OPTIONS = [option.name for option in OPTIONS if option.model]
FLAGS = {'sample': {'samples': '--n'}}  # sample.py's name for an option the training scripts call otherwise


def default(name: str, script: str = 'tensor') -> Any:
    """The default of an option for a script, as the table has it: default('steps', 'scalar')."""
    return ROWS[name].default_for(script)


def config(script: str) -> dict[str, int]:
    """The model a training script builds unless told otherwise: {'n_embd': 64, 'n_head': 4, ...}."""
    return {name: default(name, script) for name in MODEL_OPTIONS}


def settings(script: str, **given: Any) -> dict[str, Any]:
    """The settings of a training script's run (every row with saved_as: steps, lr, seed, ...), at the
    table's defaults unless given: what plan.Plan.settings holds and training.train reads, for a run
    made from Python (the notebook, the tests): settings('tensor', steps=40)."""
    return {option.name: option.default_for(script) for option in OPTIONS
            if option.saved_as and script in option.scripts} | given


# --- the parser, built from the table ---

class OptionParser(argparse.ArgumentParser):
    """argparse, with every refusal on one line: 'prog: error: argument --seed: ...', exit status 2.

    (argparse prints its whole usage first, a dozen lines in which the one that matters is lost.)
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def parser(script: str, description: str, prefix: str = 'gpt', epilog: str = '') -> OptionParser:
    """The parser of a script ('tensor', 'scalar' or 'sample'): its rows of the table, in groups.

    Every option's parsed default is None, so that the code can tell what was given (args.given);
    parse() then fills in the table's defaults."""
    p = OptionParser(prog=SCRIPTS[script], description=description, epilog=epilog,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    groups: dict[str, Any] = {}
    for option in OPTIONS:
        if script not in option.scripts:
            continue
        group = p if script == 'sample' else groups.setdefault(option.group, p.add_argument_group(option.group))
        text = _pick(option.help, script).format(
            default=option.default_for(script), prefix=prefix, prog=SCRIPTS[script],
            beside='the model file' if script == 'sample' else '--out')
        flag = FLAGS.get(script, {}).get(option.name, option.option)
        how: dict[str, Any] = {'metavar': option.metavar, 'default': None, 'help': text}
        if option.type is not None:
            how['type'] = option.type
        if flag.startswith('--'):
            group.add_argument(flag, dest=option.name, choices=option.choices, **how)
        else:
            group.add_argument(option.name, nargs='?', **how)
    return p


def parse(p: argparse.ArgumentParser, script: str, argv: Sequence[str] | None) -> argparse.Namespace:
    """The options of argv, each checked by its type; args.given names those given, and every other
    one has its default from the table (except the ones a resumed model takes from its file)."""
    args = p.parse_args(argv)
    args.given = {name for name, value in vars(args).items() if value is not None}
    for option in OPTIONS:
        if script in option.scripts and getattr(args, option.name) is None:
            if not (getattr(args, 'resume', None) and (option.saved_as or option.model)):
                setattr(args, option.name, option.default_for(script))
    return args


def parse_training(script: str, description: str, prefix: str, epilog: str,
                   argv: Sequence[str] | None) -> argparse.Namespace:
    """A training script's options, each checked on its own. The checks of options taken together are
    TOGETHER's, which plan.plan runs once the run's values are settled, a resumed file's included."""
    return parse(parser(script, description, prefix, epilog), script, argv)


# --- options checked together ---
# A check of one option against another is one function in TOGETHER below, and nowhere else. It reads the run
# as plan.plan settles it (the model's config, the settings and the options given, with --resume after the
# file's have been taken back) and says what is wrong, naming the options, or None. plan.plan runs them all on
# every run, fresh or resumed, before the data is read: a run that cannot be made is refused there.

# Models larger than this would not fit in memory, or train for days, on a laptop: refused before anything starts.
MAX_PARAMETERS = {'tensor': 20_000_000, 'scalar': 1_000_000}
MAX_BLOCK_SIZE = 1024  # the attention weights of a batch grow with the square of the context


def heads_split_the_width(run: Mapping[str, Any], engine: str) -> str | None:
    n_embd, n_head = run['n_embd'], run['n_head']
    if n_embd % n_head:
        fits = [h for h in range(1, min(n_embd, 16) + 1) if n_embd % h == 0]
        return (f"argument --n-head: {n_head} heads do not split --n-embd {n_embd} into equal parts (each head "
                f"reads n_embd / n_head numbers); with --n-embd {n_embd}, --n-head can be {fits}")
    return None


def model_fits(run: Mapping[str, Any], engine: str) -> str | None:
    n_embd, n_layer, block_size = run['n_embd'], run['n_layer'], run['block_size']
    if block_size > MAX_BLOCK_SIZE:
        return (f"argument --block-size: {block_size} is too large (at most {MAX_BLOCK_SIZE}: a batch's attention "
                f"weights grow with the square of the context)")
    size = n_layer * 12 * n_embd ** 2 + block_size * n_embd  # the weights that do not depend on the vocabulary
    if size > MAX_PARAMETERS[engine]:
        return (f"argument --n-embd/--n-layer: --n-embd {n_embd} --n-layer {n_layer} make a model of over "
                f"{size:,} parameters, more than the {engine} engine can train here (at most "
                f"{MAX_PARAMETERS[engine]:,})")
    return None


def shown_word_fits_the_context(run: Mapping[str, Any], engine: str) -> str | None:
    show, block_size = run.get('show'), run['block_size']
    if show is not None and len(show) + 1 > block_size:
        return (f"argument --show: {show!r} has {len(show)} characters, more than the context (block size "
                f"{block_size}) holds after its BOS")
    return None


TOGETHER: list[Callable[[Mapping[str, Any], str], str | None]] = [
    heads_split_the_width, model_fits, shown_word_fits_the_context]


def check_together(run: Mapping[str, Any], engine: str) -> None:
    """Every check of TOGETHER on a run's values: the first problem is refused (UsageError)."""
    for check in TOGETHER:
        problem = check(run, engine)
        if problem:
            raise UsageError(problem)


@contextmanager
def errors_reported(prog: str, *errors: type[Exception]) -> Iterator[None]:
    """Bad data, a refused file, an impossible option: one line on stderr and exit status 1, no traceback."""
    refused: tuple[type[Exception], ...] = (UsageError, *errors)
    try:
        yield
    except refused as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        raise SystemExit(1) from None
