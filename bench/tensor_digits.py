"""micrograd.tensor against PyTorch (CPU), and against the scalar engine, in the same run.

1. One epoch of an MLP 64-128-10 on scikit-learn's handwritten digits (1437 training
   images, batches of 64, cross-entropy): micrograd.tensor and PyTorch start from the
   same weights, see the same batches and take the same optimizer steps, in float64
   (micrograd's default; --dtype float32 runs both in float32). At the end the two
   models must still agree, which proves they did the same work.
2. One training step of the moons task (100 points, MLP 2-16-16-1, max-margin loss +
   1e-4 L2, backward, SGD) with micrograd.tensor against the scalar engine, both from
   the same weights; their losses must agree at the end.

Timings are medians over interleaved repeats, so that drifts in machine speed hit both
sides alike. NumPy's BLAS and PyTorch get the same number of threads (--threads).

    python bench/tensor_digits.py [--quick] [--threads 1,2] [--dtype float32|float64]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np
import torch
from sklearn.datasets import load_digits, make_moons
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

import micrograd.nn as scalar_nn
import micrograd.tensor as mt
from micrograd.optim import SGD

BATCH = 64


def digits_train_set() -> tuple[np.ndarray, np.ndarray]:
    """The 80% training part of the fixed 80/20 split the tests use; pixels scaled to [0, 1]."""
    digits = load_digits()
    x_train, _, y_train, _ = train_test_split(digits.data / 16.0, digits.target, test_size=0.2, random_state=0)
    return x_train, y_train


def digits_benchmark(optimizer: str, dtype: str, repeats: int) -> tuple[float, float, float]:
    """Median seconds per epoch for micrograd.tensor and PyTorch, and how far apart the trained weights ended."""
    x, y = digits_train_set()
    x = x.astype(dtype)
    rng = np.random.default_rng(0)
    model = mt.MLP(64, [128, 10], rng=rng)
    for p in model.parameters():
        p.data = p.data.astype(dtype)
    # The same weights in PyTorch, whose Linear stores the transpose of ours.
    torch_model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    torch_model.to(getattr(torch, dtype))
    with torch.no_grad():
        for layer, torch_layer in zip(model.layers, (torch_model[0], torch_model[2])):
            torch_layer.weight.copy_(torch.from_numpy(layer.weight.data.T))
            torch_layer.bias.copy_(torch.from_numpy(layer.bias.data))
    if optimizer == 'sgd':
        opt = mt.SGD(model.parameters(), lr=0.05, momentum=0.9)
        torch_opt = torch.optim.SGD(torch_model.parameters(), lr=0.05, momentum=0.9)
    else:
        opt = mt.Adam(model.parameters(), lr=1e-3)
        torch_opt = torch.optim.Adam(torch_model.parameters(), lr=1e-3)

    # The same shuffled batches for both; each side indexes its own copy of the data.
    batches = [b for b in np.array_split(rng.permutation(len(x)), range(BATCH, len(x), BATCH))]
    torch_batches = [torch.from_numpy(b) for b in batches]
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def micrograd_epoch() -> None:
        for b in batches:
            loss = mt.cross_entropy(model(x[b]), y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()

    def torch_epoch() -> None:
        for b in torch_batches:
            loss = torch.nn.functional.cross_entropy(torch_model(xt[b]), yt[b])
            torch_opt.zero_grad()
            loss.backward()
            torch_opt.step()

    mg_times, torch_times = [], []
    for r in range(repeats):
        # Alternate which goes first, so neither always runs on a warmer cache.
        for fn, times in ((micrograd_epoch, mg_times), (torch_epoch, torch_times))[::1 if r % 2 else -1]:
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)

    gap = max(np.abs(layer.weight.data - torch_layer.weight.detach().numpy().T).max()
              for layer, torch_layer in zip(model.layers, (torch_model[0], torch_model[2])))
    return statistics.median(mg_times), statistics.median(torch_times), float(gap)


def moons_benchmark(repeats: int, steps: int) -> tuple[float, float, float]:
    """Median seconds per moons training step, scalar engine then micrograd.tensor, and how far apart
    the two losses ended (both start from the same weights and take the same steps)."""
    x, y = make_moons(n_samples=100, noise=0.1, random_state=1)
    y = y * 2 - 1  # labels -1 and +1 for the max-margin loss

    random.seed(1337)
    scalar_model = scalar_nn.MLP(2, [16, 16, 1])
    scalar_opt = SGD(scalar_model.parameters(), lr=0.05)
    rows, labels = [list(map(float, row)) for row in x], [float(label) for label in y]

    model = mt.MLP(2, [16, 16, 1])
    for layer, scalar_layer in zip(model.layers, scalar_model.layers):  # the scalar model's weights, as matrices
        layer.weight.data[...] = np.array([[w.data for w in n.w] for n in scalar_layer.neurons]).T  # (in, out)
        layer.bias.data[...] = [n.b.data for n in scalar_layer.neurons]
    opt = mt.SGD(model.parameters(), lr=0.05)
    xs, ys = mt.Tensor(x), mt.Tensor(y.reshape(-1, 1))
    losses = {}

    def scalar_step() -> None:
        scores = [scalar_model(row) for row in rows]
        data_loss = sum((1 - label * score).relu() for label, score in zip(labels, scores)) * (1 / len(rows))
        loss = data_loss + 1e-4 * sum(p * p for p in scalar_model.parameters())
        scalar_opt.zero_grad()
        loss.backward()
        scalar_opt.step()
        losses['scalar'] = loss.data

    def tensor_step() -> None:
        data_loss = (1 - ys * model(xs)).relu().mean()
        loss = data_loss + 1e-4 * sum((p * p).sum() for p in model.parameters())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses['tensor'] = loss.item()

    scalar_times, tensor_times = [], []
    for _ in range(repeats):
        for fn, times in ((scalar_step, scalar_times), (tensor_step, tensor_times)):
            start = time.perf_counter()
            for _ in range(steps):
                fn()
            times.append((time.perf_counter() - start) / steps)
    gap = abs(losses['scalar'] - losses['tensor']) / abs(losses['scalar'])
    return statistics.median(scalar_times), statistics.median(tensor_times), gap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='fewer repeats, one thread count (well under 20 s)')
    parser.add_argument('--threads', default=None,
                        help='comma-separated thread counts for NumPy BLAS and PyTorch alike (default 1,2; --quick: 1)')
    parser.add_argument('--dtype', choices=('float64', 'float32'), default='float64')
    args = parser.parse_args()
    thread_counts = [int(n) for n in (args.threads or ('1' if args.quick else '1,2')).split(',')]
    repeats, moons_repeats, moons_steps = (5, 3, 2) if args.quick else (21, 7, 5)

    torch.manual_seed(0)
    rows = []
    for threads in thread_counts:
        torch.set_num_threads(threads)
        with threadpool_limits(limits=threads):
            for optimizer, name in (('sgd', 'SGD(momentum=0.9)'), ('adam', 'Adam')):
                ours, ref, gap = digits_benchmark(optimizer, args.dtype, repeats)
                rows.append((f"digits epoch, {name}", threads, ours, ref, 'PyTorch', f"weights agree to {gap:.0e}"))
    with threadpool_limits(limits=1):  # the scalar engine is pure Python: threads only matter to the tensor side
        scalar, tensor, gap = moons_benchmark(moons_repeats, moons_steps)
    agreement = f"losses agree to {gap:.0e} (relative)" if gap else "losses agree to the last bit"
    rows.append(("moons step", 1, tensor, scalar, 'scalar engine', agreement))

    load = f", load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores" if hasattr(os, 'getloadavg') else ''
    print(f"torch {torch.__version__}, numpy {np.__version__}, {args.dtype}; medians of {repeats} interleaved "
          f"epochs (moons: {moons_repeats} runs of {moons_steps} steps){load}")
    print(f"{'task':<34}{'threads':>8}{'micrograd.tensor':>18}{'reference':>13}{'ratio':>9}")
    for task, threads, ours, ref, ref_name, note in rows:
        print(f"{task:<34}{threads:>8}{ours * 1e3:>15.2f} ms{ref * 1e3:>10.2f} ms{ref / ours:>8.1f}x"
              f"  = {ref_name} time / ours   {note}")
    digits = [ref / ours for _, _, ours, ref, name, _ in rows if name == 'PyTorch']
    print(f"summary: one digits epoch takes PyTorch {min(digits):.1f}x to {max(digits):.1f}x as long as "
          f"micrograd.tensor ({'no slower' if min(digits) >= 1 else 'SLOWER'} than PyTorch); "
          f"a moons step is {scalar / tensor:.0f}x faster with tensors than with the scalar engine")


if __name__ == '__main__':
    main()
