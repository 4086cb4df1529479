"""The tensor workloads, each run by a worker (worker.py) on micrograd.tensor or on PyTorch, one thread: a digits
epoch, `make gpt`'s training step, and that step's bare matrix products, its floor (bench/README.md says what each
measures). Every task returns its losses, which the driver checks equal between the two engines.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from timing import GCWatch, timed


def gpt_products(B: int, T: int, n_embd: int, n_head: int, n_layer: int, vocab: int) -> list[tuple[int, ...]]:
    """The forward matrix products of the GPT on a (B, T) batch, as (*stack, M, K, N): (M, K) @ (K, N)."""
    rows, C, hd = B * T, n_embd, n_embd // n_head
    layer = [(rows, C, C)] * 4 + [(B, n_head, T, hd, T), (B, n_head, T, T, hd), (rows, C, 4 * C), (rows, 4 * C, C)]
    return layer * n_layer + [(rows, C, vocab)]  # q, k, v, o, scores, weights @ values, MLP; the head


class TensorEngine:
    """The tasks the driver asks of micrograd.tensor (kind 'ours') or of PyTorch (kind 'torch')."""

    def __init__(self, kind: str, checkout: Path, watch: GCWatch) -> None:
        # the worker imported our micrograd already: the GPT example builds both models' weights
        self.kind, self.checkout, self.watch = kind, checkout, watch
        sys.path.insert(0, str(checkout / 'examples' / 'gpt'))  # the example's modules are scripts, not a package
        if kind == 'torch':
            import torch
            torch.set_num_threads(1)
            self.torch = torch

    def array(self, x: np.ndarray) -> Any:
        return self.torch.from_numpy(x) if self.kind == 'torch' else x

    # ---------------------------------------------------------------- digits
    def digits_setup(self, dtype: str) -> None:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split

        import micrograd.tensor as mt
        digits = load_digits()
        x, _, y, _ = train_test_split(digits.data / 16.0, digits.target, test_size=0.2, random_state=0)
        rng = np.random.default_rng(0)
        ours = mt.MLP(64, [128, 10], rng=rng)
        batches = np.split(rng.permutation(len(x)), range(64, len(x), 64))
        self.batches = [(self.array(x[b].astype(dtype)), self.array(y[b])) for b in batches]
        if self.kind == 'ours':
            for p in ours.parameters():
                p.data = p.data.astype(dtype)
            self.model, self.optimizer = ours, mt.SGD(ours.parameters(), lr=0.05, momentum=0.9)
            self.loss_of = lambda x, y: mt.cross_entropy(self.model(x), y)
            return
        torch, nn = self.torch, self.torch.nn
        self.model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(getattr(torch, dtype))
        with torch.no_grad():  # our Linear keeps (in, out), PyTorch's (out, in)
            for layer, theirs in zip(ours.layers, (self.model[0], self.model[2])):
                theirs.weight.copy_(torch.from_numpy(layer.weight.data.T.copy()))
                theirs.bias.copy_(torch.from_numpy(layer.bias.data))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05, momentum=0.9)
        self.loss_of = lambda x, y: nn.functional.cross_entropy(self.model(x), y)

    def train_step(self, x: Any, y: Any) -> float:
        loss = self.loss_of(x, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return float(loss.item())

    def digits_epochs(self, steps: int) -> dict[str, list[Any]]:
        """`steps` epochs, each timed; returns the loss of every batch."""
        out = timed(steps, lambda: [self.train_step(x, y) for x, y in self.batches], self.watch)
        out['returned'] = [loss for epoch in out['returned'] for loss in epoch]
        return out

    # ---------------------------------------------------------------- the GPT step and its floor
    def gpt_setup(self, batch_size: int, dtype: str, steps: int) -> float:
        """The example's GPT and Adam (or the same in PyTorch), and the first `steps` batches of names.
        Returns the loss on the first batch before any step."""
        import schedule
        import tensor_gpt
        from data import Tokenizer, load_names
        from options import default
        names = load_names()
        tokenizer = Tokenizer(names)
        token_lists = [tokenizer.encode(name) for name in names]
        ours = tensor_gpt.GPT(tokenizer.vocab_size, seed=tensor_gpt.SEED, **tensor_gpt.CONFIG)
        rng, block = np.random.default_rng(tensor_gpt.SEED), tensor_gpt.CONFIG['block_size']
        picks = [rng.permutation(len(names))[:batch_size] for _ in range(steps)]
        batches = [tensor_gpt.batch([token_lists[i] for i in picked], block) for picked in picks]
        self.batches, self.next = [(self.array(x), self.array(y)) for x, y in batches], 0
        vocab = tokenizer.vocab_size
        shape = {key: n for key, n in tensor_gpt.CONFIG.items() if key != 'block_size'} | {'vocab': vocab}
        self.floors: dict[int, list[tuple[Any, ...]]] = {}  # T -> the operands of every product of a step
        for T in {x.shape[1] for x, _ in batches}:
            self.floors[T] = []
            for *stack, M, K, N in gpt_products(batch_size, T, **shape):
                a, b, dy = (self.array(rng.standard_normal((*stack, *dims)).astype(dtype))
                            for dims in ((M, K), (K, N), (M, N)))
                # forward a @ b, then backward: da = dy @ b^T and db = a^T @ dy (transposed views, as engines use)
                self.floors[T] += [(a, b), (dy, b.swapaxes(-1, -2)), (a.swapaxes(-1, -2), dy)]
        if self.kind == 'ours':
            for p in ours.parameters():
                p.data = p.data.astype(dtype)
            self.model, self.optimizer = ours, schedule.adam(ours, default('lr'))
            self.loss_of = self.model.loss
            return float(self.loss_of(*self.batches[0]).item())
        self.model = torch_gpt(self.torch, ours, tensor_gpt.CONFIG, getattr(self.torch, dtype))
        self.optimizer = self.torch.optim.Adam(self.model.parameters(), lr=default('lr'), betas=schedule.BETAS,
                                               eps=schedule.EPS)
        self.loss_of = self.model
        return float(self.loss_of(*self.batches[0]).item())

    def gpt_steps(self, steps: int) -> dict[str, list[Any]]:
        """The next `steps` training steps, then the floor of each: the same steps' bare products."""
        work = self.batches[self.next:self.next + steps]
        self.next += steps
        if len(work) < steps:
            raise ValueError(f"gpt_steps: asked for more steps than gpt_setup prepared ({self.next})")
        steps_done = iter(work)
        out = timed(steps, lambda: self.train_step(*next(steps_done)), self.watch)
        floors = iter([self.floors[x.shape[1]] for x, _ in work])
        out['floor_seconds'] = timed(steps, lambda: products(next(floors)), self.watch)['seconds']
        return out


def products(operands: list[tuple[Any, Any]]) -> None:
    for a, b in operands:
        a @ b


def torch_gpt(torch: Any, ours: Any, config: dict[str, int], dtype: Any) -> Any:
    """The example's GPT written as one writes it in PyTorch, with the example's weights (ours)."""
    F, nn = torch.nn.functional, torch.nn
    n_embd, n_head = config['n_embd'], config['n_head']

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(n_embd, n_embd, bias=False) for _ in range(4))
            self.fc1, self.fc2 = nn.Linear(n_embd, 4 * n_embd, bias=False), nn.Linear(4 * n_embd, n_embd, bias=False)

        def forward(self, x: Any) -> Any:
            B, T, C = x.shape
            h = F.rms_norm(x, (C,), eps=1e-5)
            q, k, v = (lin(h).view(B, T, n_head, C // n_head).transpose(1, 2) for lin in (self.q, self.k, self.v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
            x = x + self.o(y)
            return x + self.fc2(F.relu(self.fc1(F.rms_norm(x, (C,), eps=1e-5))))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            vocab = ours.wte.weight.shape[0]
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(config['block_size'], n_embd)
            self.blocks = nn.ModuleList(Block() for _ in range(config['n_layer']))
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx: Any, targets: Any) -> Any:
            x = F.rms_norm(self.wte(idx) + self.wpe(torch.arange(idx.shape[1])), (n_embd,), eps=1e-5)
            for block in self.blocks:
                x = block(x)
            logits = self.lm_head(x)
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1), ignore_index=-100)

    model = GPT().to(dtype)  # before the weights are copied in, so that float64 ones stay float64
    theirs = {'wte': model.wte, 'wpe': model.wpe, 'lm_head': model.lm_head}
    for i, block in enumerate(model.blocks):
        theirs |= {f'layer{i}.attn_wq': block.q, f'layer{i}.attn_wk': block.k, f'layer{i}.attn_wv': block.v,
                   f'layer{i}.attn_wo': block.o, f'layer{i}.mlp_fc1': block.fc1, f'layer{i}.mlp_fc2': block.fc2}
    with torch.no_grad():
        for name, weight in ours.microgpt_names().items():  # our Linear keeps (in, out), PyTorch's (out, in)
            array = weight.data if name in ('wte', 'wpe') else weight.data.T
            theirs[name].weight.copy_(torch.from_numpy(array.copy()))
    return model
