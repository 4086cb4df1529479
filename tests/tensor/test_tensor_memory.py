"""micrograd.tensor leaves the host process alone at import; keep_freed_memory() is the explicit call that keeps the
memory NumPy frees for the next training step."""
import resource
import subprocess
import sys

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd.tensor.memory import keep_freed_memory
from tests import ROOT


def test_importing_micrograd_tensor_leaves_the_c_allocator_alone() -> None:
    spy = ("import ctypes\n"
           "calls = []\n"
           "ctypes.CDLL = lambda *a, **k: calls.append(a)\n"  # any look-up of the C library is seen here
           "import micrograd.tensor\n"
           "print(len(calls))\n")
    out = subprocess.run([sys.executable, '-c', spy], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == '0'


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason="glibc's malloc settings; elsewhere nothing changes")
def test_after_keep_freed_memory_freed_arrays_are_reused_without_page_faults() -> None:
    assert keep_freed_memory() is True
    assert keep_freed_memory() is True  # calling it again is harmless
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
