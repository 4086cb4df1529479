"""Did the GPT learn? Its validation loss against the baselines, said in one line, and the loss curve.

A GPT has learned something only if it predicts the validation text better than the simplest
models do: the bigram model (counting letter pairs), a uniform guess, counting how often each
token comes (unigram), and counting which token comes at each position (which learns how long
lines are: all there is to learn from lines of random letters). By a margin: those counts are a
little off from the true frequencies, and a GPT that learns only the frequencies beats them by a
few hundredths of a nat; that is not learning the text.

When the bigram and position baselines themselves do no better than the unigram one (or a
uniform guess), the text has nothing to learn: its characters look random. The verdict says so,
rather than advising more text.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from data import Corpus
from plan import Plan, picture_path
from validation import Validation

MARGIN = 0.05  # nats per token


def nothing_to_learn(bigram: float, uniform: float, by_position: float = math.inf,
                     unigram: float = math.inf) -> bool:
    """True if neither the letter before (bigram) nor the position tells more than how often each
    token comes (or a uniform guess): characters drawn at random, each on its own."""
    return min(bigram, by_position) > min(unigram, uniform) - MARGIN


def verdict(val_loss: float, bigram: float, uniform: float, train_loss: float,
            by_position: float = math.inf, unigram: float = math.inf) -> str:
    """One line: did the model learn, against the baselines; if not, why it may not have, and what to try."""
    if val_loss < min(bigram, uniform, by_position, unigram) - MARGIN:
        return f"learned: validation loss {val_loss:.2f}, below the bigram baseline's {bigram:.2f}"
    bar, name, note = min((bigram, "the bigram baseline's", ""), (uniform, "a uniform guess's", ""),
                          (by_position, "the position baseline's", "counting which token comes at each position; "),
                          (unigram, "the unigram baseline's", "counting how often each token comes; "))
    compared = f"not below {name} {bar:.2f}" + (f" by more than {MARGIN}" if val_loss < bar else '')
    if bar != bigram:
        compared += f" ({note}the bigram baseline: {bigram:.2f})"
    if not math.isfinite(val_loss):
        why = "training diverged: try a smaller --lr"
    elif nothing_to_learn(bigram, uniform, by_position, unigram):
        counted = (f"counting how often each comes ({unigram:.2f})" if unigram <= uniform else
                   f"a uniform guess ({uniform:.2f})")
        positions = f" or which comes at each position ({by_position:.2f})" if math.isfinite(by_position) else ''
        why = (f"there is nothing to learn: counting which character follows which (the bigram baseline, "
               f"{bigram:.2f}){positions} does not beat {counted} by more than {MARGIN}, as for characters drawn at "
               "random; more text, more steps or another model will not change that")
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
    bigram, uniform, by_position, unigram = corpus.bigram(), corpus.uniform(), corpus.by_position(), corpus.unigram()
    print(f"train loss {train_loss:.4f}{train_note} | val loss {val_loss:.4f} | bigram baseline val loss "
          f"{bigram:.4f} (uniform guess: {uniform:.4f})")
    kept = validation.kept if validation else None
    if kept is not None and validation is not None and not nothing_to_learn(bigram, uniform, by_position, unigram):
        later = [v for s, v in validation.points if s > kept.step]
        if later and later[-1] > kept.val_loss + MARGIN:
            print(f"overfitting: the validation loss was lowest at step {kept.step} ({kept.val_loss:.2f}) and "
                  f"rose to {later[-1]:.2f} by step {validation.points[-1][0]}: the model went on to memorize its "
                  f"training {corpus.kind}. The model of step {kept.step} is the one kept. To stop sooner: --steps "
                  f"{kept.step}; to learn more: more text, or a smaller model (--n-embd, --n-layer)")
    print(verdict(val_loss, bigram, uniform, train_loss, by_position, unigram))
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
