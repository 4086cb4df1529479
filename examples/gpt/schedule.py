"""How microgpt's training steps, written once for both GPTs and for the bench: Adam with microgpt's betas,
and the learning rate decaying linearly from lr to 0 over the run's steps.

It needs micrograd alone (no NumPy), so the bench's workers import it on any Python.
"""
from __future__ import annotations

from typing import Any

from micrograd.optim import Adam

BETAS, EPS = (0.85, 0.99), 1e-8  # microgpt's Adam


def adam(model: Any, lr: float) -> Adam:
    """microgpt's optimizer: Adam with betas (0.85, 0.99), over either engine's weights."""
    return Adam(model.parameters(), lr=lr, betas=BETAS, eps=EPS)


def decayed_lr(lr: float, step: int, num_steps: int) -> float:
    """The learning rate of step `step` (counted from 0) of a run of num_steps: lr decaying linearly to 0."""
    return lr * (1 - step / num_steps)
