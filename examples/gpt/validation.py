"""The validation loss while training: the model kept where it is lowest, and stopping early.

Training lowers the loss on the training documents step after step; past some step, a model
with many weights and few documents goes on lowering it by memorizing them, and predicts
unseen text worse (overfitting). The validation documents are unseen text: the copy kept is
the model that predicts them best, and it is the one saved. Once the validation loss has not
improved on its lowest for `patience` measurements in a row, the steps left would only be
memorizing: training stops there (early stopping), and the copy kept is still the best one.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

State = tuple[dict[str, Any], dict[str, Any], dict[str, Any], int]  # the weights, Adam's m and v, and its step count


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

    validation(step) is called after each step (train's after_step); validation.measure(step)
    measures now, whatever the step: at the start, and where training ends. validation.stop(step)
    says whether training should stop before that step: with patience > 0, once `patience`
    measurements in a row have not gone below the lowest (0: never).
    """

    def __init__(self, every: int, evaluate: Callable[[], float], state: Callable[[], State],
                 earlier: Sequence[tuple[int, float]] = (), start_step: int = 0, patience: int = 0):
        self.every, self.evaluate, self.state, self.patience = every, evaluate, state, patience
        self.points = [(s, v) for s, v in earlier if s < start_step]  # (step, validation loss), for the curve
        self.best: Kept | None = None
        self.since_best = 0  # measurements since the lowest
        self.stopped_early_at: int | None = None  # the step where training stopped early, if it did

    def __call__(self, step: int) -> None:
        if step % self.every == 0:
            self.measure(step)

    def measure(self, step: int) -> None:
        if self.points and self.points[-1][0] == step and self.best is not None:
            return  # measured at this step already
        loss = self.evaluate()
        self.points.append((step, loss))
        if self.best is None or loss < self.best.val_loss:  # (a NaN loss is never kept over a number)
            self.best, self.since_best = Kept(step, loss, *self.state()), 0
        else:
            self.since_best += 1
            if self.patience and self.since_best >= self.patience and self.stopped_early_at is None:
                self.stopped_early_at = step

    def stop(self, step: int) -> bool:
        """True once the validation loss has stopped improving (training's stop(step))."""
        return self.stopped_early_at is not None

    @property
    def kept(self) -> Kept:
        if self.best is None:
            raise RuntimeError("Validation: nothing measured yet")
        return self.best

    def why_stopped(self, num_steps: int) -> str:
        """One line on stopping early, naming the numbers; '' if training did not stop early."""
        if self.stopped_early_at is None:
            return ''
        kept = self.kept
        return (f"stopped early at step {self.stopped_early_at} of {num_steps}: the validation loss has not improved "
                f"on its lowest ({kept.val_loss:.4f}, at step {kept.step}) in the {self.since_best} measurements "
                f"since (--patience {self.patience}; --patience 0 trains to the last step)")
