"""One training run, the same for both GPTs: what tensor_gpt.py and scalar_gpt.py do when run.

main(engine, argv) reads the options (options.py), plans the run (plan.py), reads the data
(data.py), builds the model and its Adam optimizer, trains it with the loop below while measuring
the validation loss (validation.py), saves the model where that loss was lowest, says whether it
learned (verdict.py), makes up documents and looks inside (look_inside.py).

The training loop is written once, here, for both engines: train(model, documents, settings, ...)
takes the run's settings whole (options.py's rows with `saved_as`: steps, lr, seed, ...), builds
the optimizer from them (adam) and decays the learning rate step by step. What differs between
the engines is one Engine record, which each model file fills in with its model and a few small
functions: what a step reads (batches), Adam's state in the file's layout, the loss over many
documents, sampling. None of them reads the learning rate.
"""
from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import options
from checkpoint import CheckpointError
from data import Corpus, DataError, Tokenizer, load_corpus
from look_inside import check_word, print_samples, show
from plan import Plan, plan
from schedule import adam, decayed_lr
from validation import Validation
from verdict import report

from micrograd.optim import Adam

Documents = Sequence[Sequence[int]]  # token ids, one list per document
# batches(documents, settings, start_step, block_size): the model.loss arguments of each step from start_step on
Batches = Callable[[Documents, Mapping[str, Any], int, int], Iterator[tuple[Any, ...]]]


@dataclass(frozen=True)
class Engine:
    """What one GPT brings to a run. name: 'tensor' or 'scalar' (its defaults in options.py's table)."""
    name: str
    prefix: str                  # its models are saved as build/{prefix}-DATA.npz
    description: str             # the top of --help
    title: str                   # 'GPT on micrograd.tensor'
    model: Callable[..., Any]    # GPT(vocab_size, seed=..., **config)
    batches: Batches             # what each step reads: one document in order, or a shuffled batch
    adam_state: Callable[[Any, Adam], tuple[dict[str, Any], dict[str, Any], int]]
    load_adam_state: Callable[..., None]
    evaluate: Callable[[Any, Documents], float]
    make_up: Callable[[Any, int, int, int, float], list[list[int]]]  # (model, n, bos, seed, temperature)
    parameters: Callable[[Any], int]   # how many numbers the model learns
    eval_docs: int | None = None       # measure the validation loss on the first N documents (None: all)
    train_docs: int | None = None      # the train loss reported: on the first N training documents
    step_digits: int = 5               # the width of the step number in the log ('step     1 / 1500')


def epilog(prefix: str) -> str:
    """The end of --help: the files a run writes, for an engine whose models are build/{prefix}-DATA.npz."""
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
Training stops early once it has not improved for --patience measurements in a row.
Ctrl-C stops training after the current step and saves; --resume continues from there."""


def train(model: Any, documents: Documents, settings: Mapping[str, Any], batches: Batches,
          optimizer: Adam | None = None, start_step: int = 0, stop: Callable[[int], bool] | None = None,
          after_step: Callable[[int], None] | None = None, log_every: int = 100, step_digits: int = 5) -> list[float]:
    """Steps start_step..settings['steps']-1 of Adam, the learning rate settings['lr'] decaying
    linearly to 0 at settings['steps']; each step's loss is model.loss of what batches gives
    (batches(documents, settings, start_step, model.block_size)). Returns the losses.

    optimizer: Adam's state to go on from (a resumed run's); None: a fresh adam(model, settings['lr']).
    stop(step), if given, is asked before each step; True ends training there (Ctrl-C, early
    stopping, a test stopping halfway). after_step(n), if given, is called after each step with
    the number of steps done (the validation loss is measured there). A loss that is not a
    number ends training (diverged): a step this far off would put NaNs in every weight.
    """
    if not documents:
        raise ValueError("train: the document list is empty: there is nothing to learn from")
    num_steps, lr = int(settings['steps']), float(settings['lr'])
    optimizer = optimizer or adam(model, lr)
    inputs = batches(documents, settings, start_step, model.block_size)
    losses: list[float] = []
    start = time.perf_counter()
    for step in range(start_step, num_steps):
        if stop is not None and stop(step):
            break
        loss = model.loss(*next(inputs))
        value = float(loss.data)
        if not math.isfinite(value):
            print(f"step {step + 1}: the loss is {value}: training diverged and stops here "
                  f"(a smaller learning rate may help)", flush=True)
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.lr = decayed_lr(lr, step, num_steps)
        optimizer.step()
        losses.append(value)
        if log_every and ((step + 1) % log_every == 0 or step in (start_step, num_steps - 1)):
            print(f"step {step + 1:{step_digits}d} / {num_steps} | loss {value:.4f} | "
                  f"{time.perf_counter() - start:4.1f}s", flush=True)
        if after_step is not None:
            after_step(step + 1)
    return losses


def parse_args(engine: Engine, argv: Sequence[str] | None = None) -> Any:
    """The command line, every option checked: a bad one exits with one line on stderr, before any work."""
    return options.parse_training(engine.name, engine.description, engine.prefix, epilog(engine.prefix), argv)


def start(the_plan: Plan, engine: Engine, show_word: str | None = None) -> tuple[Corpus, Any, Any]:
    """The corpus, the model and its Adam optimizer: new, or as the plan's saved model left them.
    A --show word the model will not be able to read is refused here, before any training."""
    ck, settings = the_plan.checkpoint, the_plan.settings
    try:
        corpus = load_corpus(the_plan.data, the_plan.split, the_plan.config['block_size'], settings['seed'],
                             tokenizer=Tokenizer(chars=ck.chars) if ck else None)
    except DataError as e:
        raise DataError(f"argument --data: {e}" if the_plan.data else str(e)) from None
    if show_word is not None:
        check_word(show_word, corpus.tokenizer, the_plan.config['block_size'])
    model = engine.model(corpus.tokenizer.vocab_size, seed=settings['seed'], **the_plan.config)
    optimizer = adam(model, settings['lr'])
    if ck:
        model.load_microgpt(ck.weights)
        engine.load_adam_state(model, optimizer, ck.adam_m or {}, ck.adam_v or {}, ck.adam_t)
    return corpus, model, optimizer


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


def save_kept(the_plan: Plan, tokenizer: Tokenizer, losses: Sequence[float], validation: Validation,
              last_step: int) -> None:
    """Save the model validation kept (its losses and validation points up to its step), and say so."""
    kept = validation.kept
    path = the_plan.save(tokenizer, kept.step, losses[:kept.step], kept.weights, kept.adam_m, kept.adam_v,
                         kept.adam_t, validation.points)
    why = f", where the validation loss was lowest ({kept.val_loss:.4f}; training went on to step {last_step})"
    interrupted = last_step < the_plan.num_steps and validation.stopped_early_at is None
    print(f"saved the model, its tokenizer and Adam's state after step {kept.step} to {path}"
          + (why if kept.step != last_step else '') + (f"; continue with --resume {path}" if interrupted else ''))


def main(engine: Engine, argv: Sequence[str] | None = None) -> None:
    """Train, save, report, sample and look inside, as the options say."""
    args = parse_args(engine, argv)
    with options.errors_reported(options.SCRIPTS[engine.name], DataError, CheckpointError):
        run = plan(args, engine.name, engine.prefix)
        corpus, model, optimizer = start(run, engine, show_word=args.show)
        print(corpus)
        steps_per_pass = len(corpus.train) // min(run.batch_size, len(corpus.train))
        every = args.eval_every if 'eval_every' in args.given else min(args.eval_every, max(1, steps_per_pass))
        val_docs = corpus.val[:engine.eval_docs]
        settings = ', '.join(f'{k}={v}' for k, v in run.config.items())
        per_step = (f"{min(run.batch_size, len(corpus.train))} {corpus.kind}" if 'batch_size' in run.settings
                    else "one document each")
        print(f"{engine.title}: {engine.parameters(model)} parameters ({settings}), {run.num_steps} steps of "
              f"{per_step}, the validation loss measured every {every} steps"
              + (f" (on the first {len(val_docs)} validation documents)" if len(val_docs) < len(corpus.val) else '')
              + (f", resuming {args.resume} at step {run.start_step + 1}" if run.checkpoint else ''))

        validation = Validation(every, lambda: engine.evaluate(model, val_docs),
                                lambda: (model.microgpt_state(), *engine.adam_state(model, optimizer)),
                                run.val_points, run.start_step, patience=args.patience)
        validation.measure(run.start_step)  # the model before this run's steps: kept if none does better
        with ctrl_c_stops_training() as ctrl_c:
            new_losses = train(model, corpus.train, run.settings, engine.batches, optimizer, run.start_step,
                               stop=lambda step: ctrl_c(step) or validation.stop(step), after_step=validation,
                               step_digits=engine.step_digits)
        last_step, losses = run.start_step + len(new_losses), run.losses + new_losses
        validation.measure(last_step)
        if validation.stopped_early_at is not None:
            print(validation.why_stopped(run.num_steps))
        save_kept(run, corpus.tokenizer, losses, validation, last_step)
        model.load_microgpt(validation.kept.weights)  # what follows uses the model saved

        train_docs = corpus.train[:engine.train_docs]
        val_loss = validation.kept.val_loss if len(val_docs) == len(corpus.val) else engine.evaluate(model, corpus.val)
        report(corpus, engine.evaluate(model, train_docs), val_loss, losses, run, validation=validation,
               train_note=f' (first {len(train_docs)} documents)' if len(train_docs) < len(corpus.train) else '')
        samples = engine.make_up(model, args.samples, corpus.tokenizer.bos, run.settings['seed'], args.temperature)
        print_samples([corpus.tokenizer.decode(ids) for ids in samples], corpus.kind, args.temperature)
        if args.show:
            show(args.show, corpus.tokenizer, run.split, run.config['block_size'], model.look_inside, run.out)
