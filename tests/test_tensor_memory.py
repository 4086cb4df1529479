"""micrograd.tensor keeps the memory NumPy frees, for the next training step (numeric.keep_freed_memory)."""
import resource
import sys

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd.tensor.numeric import keep_freed_memory


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason="glibc's malloc settings; elsewhere nothing changes")
def test_freed_arrays_are_reused_without_page_faults() -> None:
    assert keep_freed_memory() is True  # importing micrograd.tensor already did it; doing it again is harmless
    w = mt.Tensor(np.random.default_rng(0).normal(size=(256, 512)), requires_grad=True)
    x = np.random.default_rng(1).normal(size=(2048, 256))

    def step() -> None:  # MB-sized temporaries, all freed at the end, as in a training step
        loss = (mt.Tensor(x) @ w).relu().sum()
        loss.backward()
    for _ in range(3):
        step()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        step()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 200, f"{faults} page faults in 10 steps: freed memory went back to the system"
