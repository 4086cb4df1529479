"""Karpathy's micrograd demo as a workload: two moons, MLP(2, [16, 16, 1]), max-margin loss, SGD.

The data and the weights are made here, once, by the process that runs the bench, and sent to
every engine as JSON (which carries a float's shortest repr, so they read back exactly).
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

SIZES = [2, 16, 16, 1]  # MLP(2, [16, 16, 1]), as in Karpathy's demo
SEED = 1337


def make_moons(n: int = 100, noise: float = 0.1, seed: int = SEED) -> tuple[list[list[float]], list[float]]:
    """Two interleaving half circles with Gaussian noise, labels -1 and +1 (scikit-learn's recipe, without it)."""
    rng = random.Random(seed)
    n_out = n // 2
    n_in = n - n_out
    X, Y = [], []
    for k in range(n_out):  # the upper moon, label -1
        t = math.pi * k / (n_out - 1)
        X.append([math.cos(t) + rng.gauss(0, noise), math.sin(t) + rng.gauss(0, noise)])
        Y.append(-1.0)
    for k in range(n_in):  # the lower moon, label +1
        t = math.pi * k / (n_in - 1)
        X.append([1 - math.cos(t) + rng.gauss(0, noise), 0.5 - math.sin(t) + rng.gauss(0, noise)])
        Y.append(1.0)
    return X, Y


def make_weights(sizes: Sequence[int] = SIZES, seed: int = SEED) -> list[float]:
    """Parameters in parameters() order (per neuron: its weights, then its bias 0), as both MLPs draw them."""
    rng = random.Random(seed)
    weights = []
    for nin, nout in zip(sizes, sizes[1:]):
        for _ in range(nout):
            weights += [rng.uniform(-1, 1) for _ in range(nin)] + [0.0]
    return weights


def loss(model: Callable[[list[Any]], Any], params: list[Any], X: list[list[float]], Y: list[float],
         Value: Callable[[float], Any]) -> Any:
    """Karpathy's demo loss: the SVM max-margin loss averaged, plus 1e-4 L2 on the parameters."""
    inputs = [[Value(a), Value(b)] for a, b in X]
    scores = [model(x) for x in inputs]
    losses = [(1 + -y * score).relu() for y, score in zip(Y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in params)
    return data_loss + reg_loss


def learning_rate(step: int) -> float:
    """The demo's decay: 1.0 down to 0.1 over 100 steps (repeated here, so a long run keeps moving)."""
    return 1.0 - 0.9 * (step % 100) / 100
