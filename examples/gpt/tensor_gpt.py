"""The GPT of scalar_gpt.py on micrograd.tensor: the same model, batched over names.

scalar_gpt.py walks one name one position at a time, appending each position's key and
value to a cache. Here a batch of names is one array of token ids, shape (B, T), and every
position of every name goes through each layer at once. Causal attention becomes a mask:
position t may look at positions 0..t of its own name and never later ones (see
CausalSelfAttention in micrograd.tensor). Names shorter than the batch's longest are padded
after their final BOS; their padded targets are `ignore_index`, so they add nothing to the
loss, and the mask keeps the padding from reaching the real positions.

`make gpt` runs this file (about a minute): it trains on the census first names, prints the
loss as it goes, compares train and validation loss with the letter-pair (bigram) model's,
and invents 20 names.
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from micrograd.engine import Value
from micrograd.optim import Adam
from micrograd.tensor import CausalSelfAttention, Embedding, Linear, Module, RMSNorm, Tensor, cross_entropy, no_grad

IGNORE = -100  # the target of a padded position: cross_entropy leaves it out of the mean

# What `make gpt` trains: wider and deeper than microgpt's defaults (n_embd=16, n_layer=1), on batches of names.
CONFIG = {'n_embd': 64, 'n_head': 4, 'n_layer': 2, 'block_size': 16}
NUM_STEPS, BATCH_SIZE, LEARNING_RATE, SEED = 1500, 32, 0.01, 42


class Block(Module):
    """x + attention(norm(x)), then x + mlp(norm(x)): scalar_gpt.py's layer, on (B, T, n_embd) arrays."""

    def __init__(self, n_embd: int, n_head: int, rng: np.random.Generator):
        self.attn_norm = RMSNorm(n_embd, elementwise_affine=False)
        self.attn = CausalSelfAttention(n_embd, n_head, rng=rng)
        self.mlp_norm = RMSNorm(n_embd, elementwise_affine=False)
        self.mlp_fc1 = Linear(n_embd, 4 * n_embd, bias=False, rng=rng)
        self.mlp_fc2 = Linear(4 * n_embd, n_embd, bias=False, rng=rng)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.attn(self.attn_norm(x))  # 1) gather from the positions so far
        x = x + self.mlp_fc2(self.mlp_fc1(self.mlp_norm(x)).relu())  # 2) think about it, position by position
        return x


class GPT(Module):
    """Token and position embeddings, RMSNorm, n_layer Blocks, and a language-model head.

    The arguments and defaults are scalar_gpt.GPT's (microgpt's). Every weight is drawn from
    gauss(0, 0.08), as microgpt draws them, with np.random.default_rng(seed).
    """

    def __init__(self, vocab_size: int, n_embd: int = 16, n_head: int = 4, n_layer: int = 1, block_size: int = 16,
                 seed: int = 42):
        rng = np.random.default_rng(seed)
        self.block_size = block_size
        self.wte = Embedding(vocab_size, n_embd, rng=rng)
        self.wpe = Embedding(block_size, n_embd, rng=rng)
        self.norm = RMSNorm(n_embd, elementwise_affine=False)
        self.blocks = [Block(n_embd, n_head, rng) for _ in range(n_layer)]
        self.lm_head = Linear(n_embd, vocab_size, bias=False, rng=rng)
        for p in self.parameters():
            p.data[...] = rng.normal(0.0, 0.08, p.data.shape)

    def forward(self, idx: np.ndarray) -> Tensor:
        """The logits (B, T, vocab_size) of the token after each position of idx (B, T)."""
        idx = np.asarray(idx)
        if idx.ndim != 2:
            raise ValueError(f"GPT: expected token ids of shape (batch, time), got shape {idx.shape}")
        T = idx.shape[1]
        if T > self.block_size:
            raise ValueError(f"GPT: a sequence of {T} positions is longer than the block size {self.block_size} "
                             f"(the model has no position embedding beyond it)")
        x = self.wte(idx) + self.wpe(np.arange(T))  # (B, T, C) + (T, C): each position's embedding, every name
        x = self.norm(x)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(x)

    def loss(self, inputs: np.ndarray, targets: np.ndarray) -> Tensor:
        """The mean cross-entropy of the next token over all positions whose target is not IGNORE."""
        logits = self.forward(inputs)
        B, T, V = logits.shape
        return cross_entropy(logits.reshape(B * T, V), np.asarray(targets).reshape(B * T), ignore_index=IGNORE)

    def microgpt_names(self) -> dict[str, Tensor]:
        """Each weight under its name in microgpt's (and scalar_gpt.GPT's) state_dict."""
        weights = {'wte': self.wte.weight, 'wpe': self.wpe.weight, 'lm_head': self.lm_head.weight}
        for i, block in enumerate(self.blocks):
            weights |= {f'layer{i}.attn_wq': block.attn.q.weight, f'layer{i}.attn_wk': block.attn.k.weight,
                        f'layer{i}.attn_wv': block.attn.v.weight, f'layer{i}.attn_wo': block.attn.o.weight,
                        f'layer{i}.mlp_fc1': block.mlp_fc1.weight, f'layer{i}.mlp_fc2': block.mlp_fc2.weight}
        return weights

    def load_microgpt(self, state_dict: dict[str, list[list[Value]]] | dict[str, list[list[float]]]) -> None:
        """Copy in microgpt's weights: scalar_gpt.GPT.state_dict, of Values or of numbers.

        microgpt keeps a weight matrix as nout rows of nin numbers and computes W x; our Linear
        keeps (nin, nout) and computes x @ W, hence the transposes. An embedding is a table of
        rows in both.
        """
        for name, weight in self.microgpt_names().items():
            rows = np.array([[getattr(w, 'data', w) for w in row] for row in state_dict[name]], dtype=np.float64)
            weight.data[...] = rows if name in ('wte', 'wpe') else rows.T

    @no_grad()
    def sample(self, num_samples: int, bos: int, rng: np.random.Generator, temperature: float = 0.5) -> list[list[int]]:
        """num_samples names at once, as token ids: each starts after BOS and draws its next token
        from softmax(logits / temperature) until it draws BOS or fills the block."""
        if temperature <= 0:
            raise ValueError(f"GPT.sample: temperature must be > 0, got {temperature}")
        idx = np.full((num_samples, 1), bos)
        done = np.zeros(num_samples, dtype=bool)  # names that have drawn their final BOS
        for _ in range(self.block_size):
            logits = self.forward(idx).data[:, -1, :] / temperature  # the last position's prediction
            probs = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs /= probs.sum(axis=1, keepdims=True)
            # One uniform draw per name, looked up in the cumulative distribution.
            drawn = (probs.cumsum(axis=1) < rng.random((num_samples, 1))).sum(axis=1)
            drawn = np.where(done, bos, np.minimum(drawn, probs.shape[1] - 1))  # min: rounding at the top
            done |= drawn == bos
            idx = np.concatenate([idx, drawn[:, None]], axis=1)
            if done.all():
                break
        samples = []
        for row in idx[:, 1:]:
            ends = np.flatnonzero(row == bos)
            samples.append(row[:ends[0]].tolist() if ends.size else row.tolist())
        return samples


def batch(token_lists: Sequence[Sequence[int]], block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets), each (B, T): target t is input t + 1, as scalar_gpt.GPT.loss pairs them.

    T is the longest name's number of positions. Shorter names are padded after their final
    BOS: inputs with that BOS (any valid id would do), targets with IGNORE.
    """
    if not token_lists:
        raise ValueError("batch: the name list is empty")
    T = max(len(tokens) for tokens in token_lists) - 1
    if T > block_size:
        raise ValueError(f"batch: a name of {T + 1} tokens makes {T} positions, more than the block size {block_size}")
    inputs = np.empty((len(token_lists), T), dtype=np.int64)
    targets = np.full((len(token_lists), T), IGNORE, dtype=np.int64)
    for i, tokens in enumerate(token_lists):
        n = len(tokens) - 1
        inputs[i, :n], inputs[i, n:] = tokens[:-1], tokens[-1]
        targets[i, :n] = tokens[1:]
    return inputs, targets


@no_grad()
def evaluate(model: GPT, token_lists: Sequence[Sequence[int]], batch_size: int = 1024) -> float:
    """The mean loss per predicted token over all the names (what bigram_loss reports)."""
    total, count = 0.0, 0
    for start in range(0, len(token_lists), batch_size):
        inputs, targets = batch(token_lists[start:start + batch_size], model.block_size)
        n = int((targets != IGNORE).sum())
        total += model.loss(inputs, targets).item() * n
        count += n
    return total / count


def train(model: GPT, token_lists: Sequence[Sequence[int]], num_steps: int, batch_size: int,
          learning_rate: float = 0.01, seed: int = 42, log_every: int = 100) -> list[float]:
    """Adam with microgpt's betas and linear decay of the learning rate to 0, on batches of
    names drawn without replacement (a new shuffle every pass). Returns the losses."""
    if not token_lists:
        raise ValueError("train: the name list is empty: there is nothing to learn from")
    rng = np.random.default_rng(seed)
    optimizer = Adam(model.parameters(), lr=learning_rate, betas=(0.85, 0.99), eps=1e-8)
    order, cursor, losses = rng.permutation(len(token_lists)), 0, []
    start = time.perf_counter()
    for step in range(num_steps):
        if cursor + batch_size > len(order):  # a new pass over the names
            order, cursor = rng.permutation(len(token_lists)), 0
        picked = order[cursor:cursor + batch_size]
        cursor += batch_size
        inputs, targets = batch([token_lists[i] for i in picked], model.block_size)
        loss = model.loss(inputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.lr = learning_rate * (1 - step / num_steps)
        optimizer.step()
        losses.append(loss.item())
        if log_every and ((step + 1) % log_every == 0 or step == 0):
            print(f"step {step + 1:5d} / {num_steps} | loss {loss.item():.4f} | "
                  f"{time.perf_counter() - start:4.1f}s", flush=True)
    return losses


def main() -> None:
    # data.py sits beside this script (Python puts a script's folder first on sys.path).
    from data import Tokenizer, bigram_loss, load_names, split

    names = load_names()
    train_names, val_names = split(names, seed=SEED)
    tokenizer = Tokenizer(names)
    train_tokens = [tokenizer.encode(name) for name in train_names]
    val_tokens = [tokenizer.encode(name) for name in val_names]
    model = GPT(tokenizer.vocab_size, seed=SEED, **CONFIG)
    n_params = sum(p.data.size for p in model.parameters())
    print(f"{len(train_names)} training names, {len(val_names)} validation names, {tokenizer}")
    print(f"GPT on micrograd.tensor: {n_params} parameters ({', '.join(f'{k}={v}' for k, v in CONFIG.items())}), "
          f"{NUM_STEPS} steps of {BATCH_SIZE} names")

    train(model, train_tokens, NUM_STEPS, BATCH_SIZE, LEARNING_RATE, seed=SEED, log_every=100)

    train_loss, val_loss = evaluate(model, train_tokens), evaluate(model, val_tokens)
    baseline = bigram_loss(train_names, val_names, tokenizer)
    print(f"train loss {train_loss:.4f} | val loss {val_loss:.4f} | bigram baseline val loss {baseline:.4f} "
          f"(uniform guess: {math.log(tokenizer.vocab_size):.4f})")
    print("--- 20 names the model made up (temperature 0.5) ---")
    for ids in model.sample(20, tokenizer.bos, np.random.default_rng(SEED)):
        print(tokenizer.decode(ids))


if __name__ == '__main__':
    main()
