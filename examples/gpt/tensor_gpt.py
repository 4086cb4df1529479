"""The GPT of scalar_gpt.py on micrograd.tensor: the same model, batched over documents.

scalar_gpt.py walks one name one position at a time, appending each position's key and
value to a cache. Here a batch of names is one array of token ids, shape (B, T), and every
position of every name goes through each layer at once. Causal attention becomes a mask:
position t may look at positions 0..t of its own name and never later ones (see
CausalSelfAttention in micrograd.tensor). Names shorter than the batch's longest are padded
after their final BOS; their padded targets are `ignore_index`, so they add nothing to the
loss, and the mask keeps the padding from reaching the real positions.

`make gpt` runs this file (well under a minute): it trains on the census first names (or on
your text: --data file.txt), prints the loss as it goes, compares train and validation loss
with the letter-pair (bigram) model's, says whether it learned, saves the model to
build/gpt-names.npz (named after its data), draws the loss curve, invents 20 names and, with
--show emma, shows what the attention heads look at.
`python examples/gpt/tensor_gpt.py --help` lists the options. The run itself (options, data,
the training loop, validation, saving, the verdict) is training.py's, shared with scalar_gpt.py;
this file keeps the model, and what a training step reads: a shuffled batch of documents.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import checkpoint
import numpy as np
import options

from micrograd.engine import Value
from micrograd.optim import Adam
from micrograd.tensor import (
    CausalSelfAttention,
    Embedding,
    Linear,
    Module,
    RMSNorm,
    Tensor,
    causal_mask,
    cross_entropy,
    no_grad,
)

IGNORE = -100  # the target of a padded position: cross_entropy leaves it out of the mean

# What `make gpt` trains, as options.py's table has it: wider and deeper than microgpt's defaults (n_embd=16,
# n_layer=1), on batches of names; the seed and temperature are the command line's defaults too.
CONFIG = options.config('tensor')
SEED, TEMPERATURE = options.default('seed'), options.default('temperature')
EMBEDDINGS = ('wte', 'wpe')  # tables of rows in both engines; every other matrix is stored transposed here


class Block(Module):
    """x + attention(norm(x)), then x + mlp(norm(x)): scalar_gpt.py's layer, on (B, T, n_embd) arrays."""

    def __init__(self, n_embd: int, n_head: int, rng: np.random.Generator):
        self.attn_norm = RMSNorm(n_embd, elementwise_affine=False)
        self.attn = CausalSelfAttention(n_embd, n_head, rng=rng)
        self.mlp_norm = RMSNorm(n_embd, elementwise_affine=False)
        self.mlp_fc1 = Linear(n_embd, 4 * n_embd, bias=False, rng=rng)
        self.mlp_fc2 = Linear(4 * n_embd, n_embd, bias=False, rng=rng)

    def forward(self, x: Tensor, attention: list[np.ndarray] | None = None) -> Tensor:
        x = x + self.attend(self.attn_norm(x), attention)  # 1) gather from the positions so far
        x = x + self.mlp_fc2(self.mlp_fc1(self.mlp_norm(x)).relu())  # 2) think about it, position by position
        return x

    def attend(self, x: Tensor, attention: list[np.ndarray] | None = None) -> Tensor:
        """self.attn(x). Given a list, the same attention step by step, appending to the list the
        weights it multiplies the values by: (B, n_head, T, T), row t summing to 1 over s <= t.

        The fused op (scaled_dot_product_attention) keeps its weights to itself; spelled out, the
        weights shown are the very ones this forward pass uses, and the output is the fused op's
        (tests/gpt/test_gpt_attention.py checks both).
        """
        if attention is None:
            return self.attn(x)
        a = self.attn
        B, T, C = x.shape

        def heads(t: Tensor) -> Tensor:  # (B, T, C) -> (B, n_head, T, head_dim)
            return t.reshape(B, T, a.n_head, a.head_dim).swapaxes(1, 2)
        q, k, v = heads(a.q(x)), heads(a.k(x)), heads(a.v(x))
        scores = (q @ k.swapaxes(-2, -1)) * (1 / math.sqrt(a.head_dim))  # (B, n_head, T, T): query t . key s
        weights = scores.masked_fill(causal_mask(T), -math.inf).softmax(axis=-1)  # the future gets weight 0
        attention.append(weights.data)
        return a.o((weights @ v).swapaxes(1, 2).reshape(B, T, C))


class GPT(Module):
    """Token and position embeddings, RMSNorm, n_layer Blocks, and a language-model head.

    The arguments and defaults are scalar_gpt.GPT's (microgpt's). Every weight is drawn from
    gauss(0, 0.08), as microgpt draws them, with np.random.default_rng(seed).
    """

    def __init__(self, vocab_size: int, n_embd: int = 16, n_head: int = 4, n_layer: int = 1, block_size: int = 16,
                 seed: int = SEED):
        rng = np.random.default_rng(seed)
        self.config = {'vocab_size': vocab_size, 'n_embd': n_embd, 'n_head': n_head, 'n_layer': n_layer,
                       'block_size': block_size}
        self.block_size = block_size
        self.wte = Embedding(vocab_size, n_embd, rng=rng)
        self.wpe = Embedding(block_size, n_embd, rng=rng)
        self.norm = RMSNorm(n_embd, elementwise_affine=False)
        self.blocks = [Block(n_embd, n_head, rng) for _ in range(n_layer)]
        self.lm_head = Linear(n_embd, vocab_size, bias=False, rng=rng)
        for p in self.parameters():
            p.data[...] = rng.normal(0.0, 0.08, p.data.shape)

    def forward(self, idx: np.ndarray, attention: list[np.ndarray] | None = None) -> Tensor:
        """The logits (B, T, vocab_size) of the token after each position of idx (B, T).

        Given a list, attention receives each layer's attention weights, (B, n_head, T, T).
        """
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
            x = block.forward(x, attention)
        return self.lm_head(x)

    @no_grad()
    def look_inside(self, tokens: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """What the model does reading tokens (one sequence of T ids): the attention weights of
        every layer and head, (n_layer, n_head, T, T), and the next-token probabilities at every
        position, (T, vocab_size)."""
        attention: list[np.ndarray] = []
        logits = self.forward(np.asarray([tokens]), attention).data[0]
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        return np.stack([weights[0] for weights in attention]), probs / probs.sum(axis=1, keepdims=True)

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

    def load_microgpt(self, state_dict: dict[str, list[list[Value]]] | dict[str, list[list[float]]]
                      | dict[str, np.ndarray]) -> None:
        """Copy in microgpt's weights: scalar_gpt.GPT.state_dict (of Values or numbers), or the
        arrays of a saved file (checkpoint.py), under microgpt's names and in its layout.

        microgpt keeps a weight matrix as nout rows of nin numbers and computes W x; our Linear
        keeps (nin, nout) and computes x @ W, hence the transposes. An embedding is a table of
        rows in both. Every matrix is checked before any is copied.
        """
        weights = self.microgpt_names()
        rows = {}
        for name, weight in weights.items():
            if name not in state_dict:
                raise ValueError(f"GPT.load_microgpt: no {name!r} among {sorted(state_dict)[:6]}...")
            m = state_dict[name]
            rows[name] = m if isinstance(m, np.ndarray) else np.array([[getattr(w, 'data', w) for w in row]
                                                                      for row in m], dtype=np.float64)
            expected = weight.shape if name in EMBEDDINGS else weight.shape[::-1]
            if rows[name].shape != expected:
                raise ValueError(f"GPT.load_microgpt: {name!r} has shape {rows[name].shape}, this model's is "
                                 f"{expected} (another config?)")
        for name, weight in weights.items():
            weight.data[...] = rows[name] if name in EMBEDDINGS else rows[name].T

    def microgpt_state(self) -> dict[str, np.ndarray]:
        """A copy of every weight under microgpt's name and in its layout (nout, nin): what a file holds."""
        return {name: _microgpt_layout(name, w.data).copy() for name, w in self.microgpt_names().items()}

    @no_grad()
    def sample(self, num_samples: int, bos: int, rng: np.random.Generator,
               temperature: float = TEMPERATURE) -> list[list[int]]:
        """num_samples names at once, as token ids: each starts after BOS and draws its next token
        from softmax(logits / temperature) until it draws BOS or fills the block."""
        if not temperature > 0:
            raise ValueError(f"GPT.sample: temperature must be > 0, got {temperature}")
        idx = np.full((num_samples, 1), bos)
        done = np.zeros(num_samples, dtype=bool)  # names that have drawn their final BOS
        for _ in range(self.block_size):
            probs = probabilities(self.forward(idx).data[:, -1, :], temperature)  # the last position's prediction
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


def probabilities(logits: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(logits / temperature) along the last axis, for any temperature > 0.

    The largest logit is subtracted before dividing, not after: every exponent is then <= 0, and
    a tiny temperature sends the others to -inf (exp: 0) instead of overflowing, so near 0 this
    becomes the greedy choice (all the probability on the largest logit, shared if tied).
    """
    shifted = logits - logits.max(axis=-1, keepdims=True)
    with np.errstate(over='ignore'):  # x / 1e-310 for x < 0 is -inf, as it should be here
        probs = np.exp(shifted / temperature)
    return probs / probs.sum(axis=-1, keepdims=True)


def _microgpt_layout(name: str, array: np.ndarray) -> np.ndarray:
    """A weight (or its Adam moment) as microgpt lays it out: embeddings as they are, matrices transposed."""
    return array if name in EMBEDDINGS else array.T


def batch(token_lists: Sequence[Sequence[int]], block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets), each (B, T): target t is input t + 1, as scalar_gpt.GPT.loss pairs them.

    T is the longest document's number of positions. Shorter ones are padded after their last
    token: inputs with that token (any valid id would do), targets with IGNORE.
    """
    if not token_lists:
        raise ValueError("batch: the document list is empty")
    T = max(len(tokens) for tokens in token_lists) - 1
    if T > block_size:
        raise ValueError(f"batch: a document of {T + 1} tokens makes {T} positions, more than the block size "
                         f"{block_size}")
    inputs = np.empty((len(token_lists), T), dtype=np.int64)
    targets = np.full((len(token_lists), T), IGNORE, dtype=np.int64)
    for i, tokens in enumerate(token_lists):
        n = len(tokens) - 1
        inputs[i, :n], inputs[i, n:] = tokens[:-1], tokens[-1]
        targets[i, :n] = tokens[1:]
    return inputs, targets


@no_grad()
def evaluate(model: GPT, token_lists: Sequence[Sequence[int]], batch_size: int = 1024) -> float:
    """The mean loss per predicted token over all the documents (what bigram_loss reports)."""
    total, count = 0.0, 0
    for start in range(0, len(token_lists), batch_size):
        inputs, targets = batch(token_lists[start:start + batch_size], model.block_size)
        n = int((targets != IGNORE).sum())
        total += model.loss(inputs, targets).item() * n
        count += n
    return total / count


def batches(token_lists: Sequence[Sequence[int]], settings: Mapping[str, Any], start_step: int,
            block_size: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """What steps start_step, start_step + 1, ... read (training.train's loop asks): batches of
    settings['batch_size'] documents drawn without replacement, as (inputs, targets).

    The batches of a step depend only on the seed and the step number (pass p shuffles with the
    seed [seed, p]), so a run resumed from a saved model at step s, with its optimizer, takes the
    very steps the uninterrupted run would have.
    """
    batch_size = min(int(settings['batch_size']), len(token_lists))  # a small file: every document in every batch
    steps_per_pass = len(token_lists) // batch_size
    order, order_pass = np.arange(0), -1
    for step in itertools.count(start_step):
        n_pass, i = divmod(step, steps_per_pass)
        if n_pass != order_pass:  # a new pass over the documents
            order, order_pass = np.random.default_rng([settings['seed'], n_pass]).permutation(len(token_lists)), n_pass
        picked = order[i * batch_size:(i + 1) * batch_size]
        yield batch([token_lists[j] for j in picked], block_size)


def adam_state(model: GPT, optimizer: Adam) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """Adam's running means (m, v) of each weight, under microgpt's names and in its layout, and its step count."""
    index = {id(p): i for i, p in enumerate(optimizer.params)}
    m, v = {}, {}
    for name, weight in model.microgpt_names().items():
        i = index[id(weight)]
        m[name] = _microgpt_layout(name, np.broadcast_to(optimizer.m[i], weight.shape)).copy()  # 0.0 before step 1
        v[name] = _microgpt_layout(name, np.broadcast_to(optimizer.v[i], weight.shape)).copy()
    if len(set(optimizer.steps)) != 1:
        raise ValueError(f"adam_state: the weights have taken different numbers of Adam steps {set(optimizer.steps)}; "
                         f"a file stores one count")
    return m, v, optimizer.steps[0]


def load_adam_state(model: GPT, optimizer: Adam, m: dict[str, np.ndarray], v: dict[str, np.ndarray], t: int) -> None:
    """Put saved moments (adam_state's) back into the optimizer: its next step is the one it would have taken."""
    index = {id(p): i for i, p in enumerate(optimizer.params)}
    for name, weight in model.microgpt_names().items():
        i = index[id(weight)]
        optimizer.m[i] = _microgpt_layout(name, m[name]).copy()
        optimizer.v[i] = _microgpt_layout(name, v[name]).copy()
        optimizer.steps[i] = t


def from_checkpoint(ck: checkpoint.Checkpoint) -> GPT:
    """The model a saved file holds."""
    model = GPT(**{key: ck.config[key] for key in checkpoint.MODEL_KEYS})
    model.load_microgpt(ck.weights)
    return model


def make_up(model: GPT, n: int, bos: int, seed: int, temperature: float) -> list[list[int]]:
    """n documents as token ids, drawn all at once with np.random.default_rng(seed)."""
    return model.sample(n, bos, np.random.default_rng(seed), temperature) if n > 0 else []


def main(argv: Sequence[str] | None = None) -> None:
    """Train as the command line says (training.py's run, with this file's model and batches)."""
    import training
    training.main(training.Engine(
        'tensor', prefix='gpt', title='GPT on micrograd.tensor',
        description="Train the GPT on micrograd.tensor on the census first names or\n"
                    "on your own text, save it, sample from it, and look inside.",
        model=GPT, batches=batches, adam_state=adam_state, load_adam_state=load_adam_state, evaluate=evaluate,
        make_up=make_up, parameters=lambda model: sum(p.data.size for p in model.parameters())), argv)


if __name__ == '__main__':
    main()
