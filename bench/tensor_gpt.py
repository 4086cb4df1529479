"""The tensor GPT's training step against the same model in PyTorch (CPU, float64, one thread).

One step is what `make gpt` repeats: a batch of names forward, cross-entropy, backward, Adam.
Both engines start from the same weights (the example's GPT, copied into PyTorch's modules),
see the same batches and take the same Adam steps; every step's loss must agree to 1e-9, which
proves they do the same work. Each engine runs in its own process with one thread (NumPy's
BLAS too); rounds alternate between them, so drifts in machine speed hit both alike. The
figures are medians over rounds, and the ratio is taken within each round before its median.

    python bench/tensor_gpt.py [--rounds 7] [--steps 20]

It measures at the batch size `make gpt` uses and at 4x that batch.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'examples' / 'gpt'))  # the example's GPT and data are scripts, not a package
ONE_THREAD = {name: '1' for name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')}


def batches(batch_size: int, steps: int) -> list[tuple[object, object]]:
    """The first `steps` batches of the training names, drawn as tensor_gpt.train draws them."""
    import numpy as np
    import tensor_gpt
    from data import Tokenizer, load_names, split

    names = load_names()
    tokenizer = Tokenizer(names)
    train_tokens = [tokenizer.encode(name) for name in split(names, seed=tensor_gpt.SEED)[0]]
    rng = np.random.default_rng(tensor_gpt.SEED)
    order, cursor, out = rng.permutation(len(train_tokens)), 0, []
    for _ in range(steps):
        if cursor + batch_size > len(order):
            order, cursor = rng.permutation(len(train_tokens)), 0
        picked = order[cursor:cursor + batch_size]
        cursor += batch_size
        out.append(tensor_gpt.batch([train_tokens[i] for i in picked], tensor_gpt.CONFIG['block_size']))
    return out


class Ours:
    """The example's tensor GPT and its training step, as `make gpt` runs it."""

    def __init__(self) -> None:
        import tensor_gpt

        from micrograd.optim import Adam
        self.model = tensor_gpt.GPT(27, seed=tensor_gpt.SEED, **tensor_gpt.CONFIG)
        self.optimizer = Adam(self.model.parameters(), lr=tensor_gpt.LEARNING_RATE, betas=(0.85, 0.99), eps=1e-8)

    def step(self, inputs: object, targets: object) -> float:
        loss = self.model.loss(inputs, targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


class Torch:
    """The same GPT written as one writes it in PyTorch, with the example's initial weights."""

    def __init__(self) -> None:
        import tensor_gpt
        import torch
        import torch.nn.functional as F
        from torch import nn
        torch.set_num_threads(1)
        self.torch = torch
        n_embd, n_head, n_layer, block_size = (tensor_gpt.CONFIG[k] for k in ('n_embd', 'n_head', 'n_layer',
                                                                                   'block_size'))

        class Block(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.q, self.k, self.v, self.o = (nn.Linear(n_embd, n_embd, bias=False) for _ in range(4))
                self.fc1 = nn.Linear(n_embd, 4 * n_embd, bias=False)
                self.fc2 = nn.Linear(4 * n_embd, n_embd, bias=False)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                B, T, C = x.shape
                h = F.rms_norm(x, (C,), eps=1e-5)
                q, k, v = (lin(h).view(B, T, n_head, C // n_head).transpose(1, 2) for lin in (self.q, self.k, self.v))
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
                x = x + self.o(y)
                return x + self.fc2(F.relu(self.fc1(F.rms_norm(x, (C,), eps=1e-5))))

        class GPT(nn.Module):
            def __init__(self, vocab_size: int) -> None:
                super().__init__()
                self.wte, self.wpe = nn.Embedding(vocab_size, n_embd), nn.Embedding(block_size, n_embd)
                self.blocks = nn.ModuleList(Block() for _ in range(n_layer))
                self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

            def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
                T = idx.shape[1]
                x = F.rms_norm(self.wte(idx) + self.wpe(torch.arange(T)), (n_embd,), eps=1e-5)
                for block in self.blocks:
                    x = block(x)
                logits = self.lm_head(x)
                return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1), ignore_index=-100)

        ours = tensor_gpt.GPT(27, seed=tensor_gpt.SEED, **tensor_gpt.CONFIG)
        self.model = GPT(27).double()
        theirs = {'wte': self.model.wte, 'wpe': self.model.wpe, 'lm_head': self.model.lm_head}
        for i, block in enumerate(self.model.blocks):
            theirs |= {f'layer{i}.attn_wq': block.q, f'layer{i}.attn_wk': block.k, f'layer{i}.attn_wv': block.v,
                       f'layer{i}.attn_wo': block.o, f'layer{i}.mlp_fc1': block.fc1, f'layer{i}.mlp_fc2': block.fc2}
        with torch.no_grad():
            for name, weight in ours.microgpt_names().items():  # our Linear keeps (in, out), PyTorch's (out, in)
                array = weight.data if name in ('wte', 'wpe') else weight.data.T
                theirs[name].weight.copy_(torch.from_numpy(array.copy()))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=tensor_gpt.LEARNING_RATE, betas=(0.85, 0.99),
                                          eps=1e-8)

    def step(self, inputs: object, targets: object) -> float:
        loss = self.model(self.torch.from_numpy(inputs), self.torch.from_numpy(targets))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def worker(engine: str, batch_size: int, total_steps: int) -> None:
    """Answer 'steps N' lines on stdin with the seconds per step and the losses of the next N batches."""
    runner = Ours() if engine == 'ours' else Torch()
    todo = iter(batches(batch_size, total_steps))
    print(json.dumps({'ready': True}), flush=True)
    for line in sys.stdin:
        n = int(line.split()[1])
        work = [next(todo) for _ in range(n)]
        start = time.perf_counter()
        losses = [runner.step(inputs, targets) for inputs, targets in work]
        print(json.dumps({'seconds_per_step': (time.perf_counter() - start) / n, 'losses': losses}), flush=True)


def measure(batch_size: int, rounds: int, steps: int) -> dict[str, list[float]]:
    """Per engine, its ms/step in each round (after one warm-up round), with every loss checked equal."""
    total = (rounds + 1) * steps
    procs = {engine: subprocess.Popen([sys.executable, __file__, '--worker', engine, str(batch_size), str(total)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                      env={**os.environ, **ONE_THREAD})
             for engine in ('ours', 'torch')}
    try:
        for engine, proc in procs.items():
            if not proc.stdout or 'ready' not in proc.stdout.readline():
                raise RuntimeError(f"the {engine} worker did not start (batch {batch_size}): see its error above")
        ms: dict[str, list[float]] = {'ours': [], 'torch': []}
        for r in range(rounds + 1):
            answers = {}
            for engine in (('ours', 'torch') if r % 2 == 0 else ('torch', 'ours')):  # alternate who goes first
                proc = procs[engine]
                assert proc.stdin and proc.stdout
                proc.stdin.write(f'steps {steps}\n')
                proc.stdin.flush()
                answers[engine] = json.loads(proc.stdout.readline())
            gap = max(abs(a - b) for a, b in zip(answers['ours']['losses'], answers['torch']['losses']))
            if gap > 1e-9:
                raise AssertionError(f"batch {batch_size}, round {r}: the losses differ by {gap:.3g}: "
                                     f"not the same computation")
            if r:  # round 0 warms up caches and allocators
                for engine in ms:
                    ms[engine].append(1000 * answers[engine]['seconds_per_step'])
        return ms
    finally:
        for proc in procs.values():
            if proc.stdin:
                proc.stdin.close()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--steps', type=int, default=20, help='training steps per engine per round')
    parser.add_argument('--worker', nargs=3, metavar=('ENGINE', 'BATCH', 'STEPS'), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), int(args.worker[2]))
        return

    import numpy as np
    import tensor_gpt
    import torch
    config = ', '.join(f'{k}={v}' for k, v in tensor_gpt.CONFIG.items())
    print(f"Tensor GPT training step ({config}; forward, cross-entropy, backward, Adam), float64, one thread")
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, PyTorch {torch.__version__}, "
          f"{args.rounds} rounds of {args.steps} steps, every loss equal to 1e-9\n")
    print("| engine | batch | ms/step | ratio |")
    print("|---|---:|---:|---:|")
    for batch_size in (tensor_gpt.BATCH_SIZE, 4 * tensor_gpt.BATCH_SIZE):
        ms = measure(batch_size, args.rounds, args.steps)
        ratio = statistics.median(o / t for o, t in zip(ms['ours'], ms['torch']))
        print(f"| micrograd.tensor | {batch_size} | {statistics.median(ms['ours']):.2f} | {ratio:.2f} |")
        print(f"| PyTorch | {batch_size} | {statistics.median(ms['torch']):.2f} | 1.00 |", flush=True)
    print("\nratio: micrograd.tensor's time over PyTorch's in the same round (median over rounds); below 1 is faster.")


if __name__ == '__main__':
    main()
