"""microgpt's GPT on micrograd's scalar Value: one name per step, one position at a time.

Read it beside Karpathy's microgpt: the parameters, the forward pass with its key/value
cache, the loss and the sampling are the same, line for line, and so are the numbers
(same seed, same weights, same loss). What micrograd adds:

- `Value.dot(ws, xs)`: every weighted sum (a row of a linear layer, an attention score, an
  attention-weighted value, RMSNorm's sum of squares) is one node whose backward loops
  over its inputs, where `sum(w * x for ...)` makes two nodes per term.
- `micrograd.optim.Adam` instead of a hand-written update (training.py's loop, shared with
  tensor_gpt.py, steps it).
- Clear errors: a name longer than the context, a token outside the vocabulary.

Run it from the repository root (about half a minute):

    python examples/gpt/scalar_gpt.py                       # the census names, 1,000 steps
    python examples/gpt/scalar_gpt.py --data my.txt --show emma

It takes tensor_gpt.py's options (--help lists them) and saves to the same kind of file
(build/scalar_gpt-names.npz, named after its data), which sample.py reads with either engine.
The run itself (options, data, the training loop, validation, saving, the verdict) is
training.py's, shared with tensor_gpt.py; this file keeps the model, and what a training step
reads (microgpt's one document per step, in order), and needs neither NumPy nor the files beside
it until main() runs. The seed and the temperature are the callers' to give: their defaults are
the command line's (options.py).
"""
from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from micrograd.engine import Value, no_grad
from micrograd.optim import Adam

Matrix = list[list[Value]]  # nout rows of nin weights, as microgpt's matrix(nout, nin)


def linear(x: Sequence[Value], w: Matrix) -> list[Value]:
    """w @ x: one dot product per row of w."""
    return [Value.dot(row, x) for row in w]


def softmax(logits: Sequence[Value]) -> list[Value]:
    """exp(l_i) / sum_j exp(l_j); subtracting the largest logit first keeps exp() from overflowing."""
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def rmsnorm(x: Sequence[Value]) -> list[Value]:
    """x / sqrt(mean(x**2) + eps): every vector leaves with a root mean square of about 1."""
    ms = Value.dot(x, x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def probabilities(logits: Sequence[Value], temperature: float) -> list[float]:
    """softmax(logits / temperature) as numbers, for any temperature > 0: what sampling draws from.

    microgpt divides the logits by the temperature first; at a tiny temperature that overflows.
    Here the largest logit is subtracted first, so every exponent is <= 0, and one too far below
    0 for exp() is 0: near 0 this is the greedy choice (all the probability on the largest logit,
    shared if tied), as in tensor_gpt.probabilities.
    """
    top = max(logit.data for logit in logits)
    weights = []
    for logit in logits:
        shifted = logit.data - top  # <= 0
        # exp(x) underflows to 0 below about -745; testing shifted < -745 * T avoids computing shifted / T,
        # which overflows for a tiny T
        weights.append(0.0 if shifted < -745.0 * temperature else math.exp(shifted / temperature))
    total = sum(weights)
    return [w / total for w in weights]


class GPT:
    """microgpt's model: token and position embeddings, n_layer blocks of (RMSNorm, causal
    self-attention with n_head heads, residual; RMSNorm, ReLU MLP 4x wide, residual), and a
    language-model head. No biases, no learned norm weights. The defaults are microgpt's.

    `state_dict` maps microgpt's names to its matrices (nout rows of nin Values each), drawn
    from gauss(0, 0.08) in microgpt's order with `random.Random(seed)`, so the same seed gives
    microgpt's weights.
    """

    def __init__(self, vocab_size: int, n_embd: int = 16, n_head: int = 4, n_layer: int = 1, block_size: int = 16,
                 *, seed: int):
        if n_embd % n_head:
            raise ValueError(f"GPT: n_embd ({n_embd}) must be a multiple of n_head ({n_head})")
        self.vocab_size, self.n_embd, self.n_head, self.n_layer = vocab_size, n_embd, n_head, n_layer
        self.block_size, self.head_dim = block_size, n_embd // n_head
        rng = random.Random(seed)

        def matrix(nout: int, nin: int, std: float = 0.08) -> Matrix:
            return [[Value(rng.gauss(0, std)) for _ in range(nin)] for _ in range(nout)]

        self.state_dict = {'wte': matrix(vocab_size, n_embd), 'wpe': matrix(block_size, n_embd),
                           'lm_head': matrix(vocab_size, n_embd)}
        for i in range(n_layer):
            self.state_dict[f'layer{i}.attn_wq'] = matrix(n_embd, n_embd)
            self.state_dict[f'layer{i}.attn_wk'] = matrix(n_embd, n_embd)
            self.state_dict[f'layer{i}.attn_wv'] = matrix(n_embd, n_embd)
            self.state_dict[f'layer{i}.attn_wo'] = matrix(n_embd, n_embd)
            self.state_dict[f'layer{i}.mlp_fc1'] = matrix(4 * n_embd, n_embd)
            self.state_dict[f'layer{i}.mlp_fc2'] = matrix(n_embd, 4 * n_embd)

    def parameters(self) -> list[Value]:
        """Every weight, matrix by matrix in state_dict order, row by row."""
        return [p for mat in self.state_dict.values() for row in mat for p in row]

    def forward(self, token_id: int, pos_id: int, keys: list[list[list[Value]]],
                values: list[list[list[Value]]], attention: list[list[list[list[float]]]] | None = None
                ) -> list[Value]:
        """The logits of the token after `token_id` at position `pos_id`.

        keys[li] and values[li] are layer li's cache: the keys and values of the positions
        before this one. This call appends its own, so calling it for positions 0, 1, 2, ...
        is causal attention: each position sees itself and what came before, never after.
        Given attention (attention[li][h] a list per layer and head), each head appends the
        weights it gave positions 0..pos_id, as numbers.
        """
        if not 0 <= token_id < self.vocab_size:
            raise IndexError(f"GPT.forward: token id {token_id} is out of range for a vocabulary of {self.vocab_size}")
        if not 0 <= pos_id < self.block_size:
            raise IndexError(f"GPT.forward: position {pos_id} is out of range for a block size of {self.block_size}")
        sd, head_dim = self.state_dict, self.head_dim
        tok_emb = sd['wte'][token_id]
        pos_emb = sd['wpe'][pos_id]
        x = [t + p for t, p in zip(tok_emb, pos_emb)]
        x = rmsnorm(x)

        for li in range(self.n_layer):
            # 1) Multi-head attention: each head compares its query with the keys so far
            x_residual = x
            x = rmsnorm(x)
            q = linear(x, sd[f'layer{li}.attn_wq'])
            k = linear(x, sd[f'layer{li}.attn_wk'])
            v = linear(x, sd[f'layer{li}.attn_wv'])
            keys[li].append(k)
            values[li].append(v)
            x_attn: list[Value] = []
            for h in range(self.n_head):
                hs = h * head_dim
                q_h = q[hs:hs + head_dim]
                k_h = [ki[hs:hs + head_dim] for ki in keys[li]]
                v_h = [vi[hs:hs + head_dim] for vi in values[li]]
                attn_logits = [Value.dot(q_h, k_h[t]) / head_dim ** 0.5 for t in range(len(k_h))]
                attn_weights = softmax(attn_logits)
                if attention is not None:
                    attention[li][h].append([w.data for w in attn_weights])
                head_out = [Value.dot(attn_weights, [v_h[t][j] for t in range(len(v_h))]) for j in range(head_dim)]
                x_attn.extend(head_out)
            x = linear(x_attn, sd[f'layer{li}.attn_wo'])
            x = [a + b for a, b in zip(x, x_residual)]
            # 2) MLP: think about what attention gathered, one position at a time
            x_residual = x
            x = rmsnorm(x)
            x = linear(x, sd[f'layer{li}.mlp_fc1'])
            x = [xi.relu() for xi in x]
            x = linear(x, sd[f'layer{li}.mlp_fc2'])
            x = [a + b for a, b in zip(x, x_residual)]

        logits = linear(x, sd['lm_head'])
        return logits

    def loss(self, tokens: Sequence[int]) -> Value:
        """The mean cross-entropy of predicting tokens[1:] from what precedes each one.

        tokens is a name as the tokenizer encodes it: [BOS, characters..., BOS].
        """
        n = len(tokens) - 1  # positions that have a next token to predict
        if n < 1:
            raise ValueError(f"GPT.loss: needs at least 2 tokens (BOS and a next token), got {len(tokens)}")
        if n > self.block_size:
            raise ValueError(f"GPT.loss: {len(tokens)} tokens make {n} positions, more than the block size "
                             f"{self.block_size} (the model has no position embedding beyond it)")
        outside = [t for t in tokens if not 0 <= t < self.vocab_size]
        if outside:
            raise IndexError(f"GPT.loss: token id {outside[0]} is out of range for a vocabulary of {self.vocab_size}")
        keys: list[list[list[Value]]] = [[] for _ in range(self.n_layer)]
        values: list[list[list[Value]]] = [[] for _ in range(self.n_layer)]
        losses = []
        for pos_id in range(n):
            token_id, target_id = tokens[pos_id], tokens[pos_id + 1]
            logits = self.forward(token_id, pos_id, keys, values)
            probs = softmax(logits)
            loss_t = -probs[target_id].log()
            losses.append(loss_t)
        loss = (1 / n) * sum(losses)  # the average loss over the name
        return loss

    @no_grad()
    def sample(self, bos: int, rng: random.Random, temperature: float) -> list[int]:
        """Token ids drawn one at a time from softmax(logits / temperature), starting after
        BOS, until the model draws BOS (the name ends) or the block is full.

        A lower temperature sharpens the distribution: safer, more common names.
        """
        if not temperature > 0:
            raise ValueError(f"GPT.sample: temperature must be > 0, got {temperature}")
        keys: list[list[list[Value]]] = [[] for _ in range(self.n_layer)]
        values: list[list[list[Value]]] = [[] for _ in range(self.n_layer)]
        token_id, sample = bos, []
        for pos_id in range(self.block_size):
            logits = self.forward(token_id, pos_id, keys, values)
            token_id = rng.choices(range(self.vocab_size), weights=probabilities(logits, temperature))[0]
            if token_id == bos:
                break
            sample.append(token_id)
        return sample

    @no_grad()
    def look_inside(self, tokens: Sequence[int]) -> tuple[list[list[list[list[float]]]], list[list[float]]]:
        """What the model does reading tokens (T ids): the attention weights each head used at each
        position, [layer][head][t][s] (0 for the later positions s > t, which the cache does not hold
        yet), and the next-token probabilities at each position, [t][token]."""
        if len(tokens) > self.block_size:
            raise ValueError(f"GPT.look_inside: {len(tokens)} tokens are more than the block size {self.block_size}")
        T = len(tokens)
        keys: list[list[list[Value]]] = [[] for _ in range(self.n_layer)]
        values: list[list[list[Value]]] = [[] for _ in range(self.n_layer)]
        attention: list[list[list[list[float]]]] = [[[] for _ in range(self.n_head)] for _ in range(self.n_layer)]
        probs = [[p.data for p in softmax(self.forward(token_id, pos_id, keys, values, attention))]
                 for pos_id, token_id in enumerate(tokens)]
        maps = [[[row + [0.0] * (T - len(row)) for row in head] for head in layer] for layer in attention]
        return maps, probs

    def load_microgpt(self, weights: Mapping[str, Sequence[Sequence[float]]]) -> None:
        """Copy numbers into the weights: matrices under microgpt's names, nout rows of nin numbers
        each (a saved file's arrays, or another model's state). Every shape is checked first."""
        for name, matrix in self.state_dict.items():
            if name not in weights:
                raise ValueError(f"GPT.load_microgpt: no {name!r} among {sorted(weights)[:6]}...")
            rows = weights[name]
            shape, expected = (len(rows), len(rows[0]) if len(rows) else 0), (len(matrix), len(matrix[0]))
            if shape != expected:
                raise ValueError(f"GPT.load_microgpt: {name!r} has shape {shape}, this model's is {expected} "
                                 f"(another config?)")
        for name, matrix in self.state_dict.items():
            for row, numbers in zip(matrix, weights[name]):
                for w, x in zip(row, numbers):
                    w.data = float(x)

    def microgpt_state(self) -> dict[str, list[list[float]]]:
        """The weights' numbers under microgpt's names, nout rows of nin each: what a file holds."""
        return {name: [[w.data for w in row] for row in matrix] for name, matrix in self.state_dict.items()}


@no_grad()
def evaluate(model: GPT, token_lists: Sequence[Sequence[int]]) -> float:
    """The mean loss per predicted token over all the names (what bigram_loss reports)."""
    total, count = 0.0, 0
    for tokens in token_lists:
        n = len(tokens) - 1
        total += model.loss(tokens).data * n
        count += n
    return total / count


def batches(token_lists: Sequence[Sequence[int]], settings: Mapping[str, Any], start_step: int,
            block_size: int) -> Iterator[tuple[Sequence[int]]]:
    """What steps start_step, start_step + 1, ... read (training.train's loop asks): microgpt's one
    document per step, in order (step s reads token_lists[s % len]), as model.loss's argument."""
    for step in itertools.count(start_step):
        yield (token_lists[step % len(token_lists)],)


def adam_state(model: GPT, optimizer: Adam) -> tuple[dict[str, list[list[float]]], dict[str, list[list[float]]], int]:
    """Adam's running means (m, v) of every weight, in microgpt_state()'s layout, and its step count."""
    m: dict[str, list[list[float]]] = {}
    v: dict[str, list[list[float]]] = {}
    i = 0  # optimizer.params is model.parameters(): matrix by matrix, row by row
    for name, matrix in model.state_dict.items():
        m[name], v[name] = [], []
        for row in matrix:
            m[name].append([float(x) for x in optimizer.m[i:i + len(row)]])
            v[name].append([float(x) for x in optimizer.v[i:i + len(row)]])
            i += len(row)
    if len(set(optimizer.steps)) != 1:
        raise ValueError(f"adam_state: the weights have taken different numbers of Adam steps {set(optimizer.steps)}; "
                         f"a file stores one count")
    return m, v, optimizer.steps[0]


def load_adam_state(model: GPT, optimizer: Adam, m: Mapping[str, Sequence[Sequence[float]]],
                    v: Mapping[str, Sequence[Sequence[float]]], t: int) -> None:
    """Put saved moments (adam_state's) back into the optimizer: its next step is the one it would have taken."""
    i = 0
    for name, matrix in model.state_dict.items():
        for m_row, v_row, row in zip(m[name], v[name], matrix):
            optimizer.m[i:i + len(row)] = [float(x) for x in m_row]
            optimizer.v[i:i + len(row)] = [float(x) for x in v_row]
            i += len(row)
    optimizer.steps = [t] * len(optimizer.params)


def from_checkpoint(ck: Any) -> GPT:
    """The model a saved file holds (a checkpoint.Checkpoint, from either engine)."""
    config = {key: ck.config[key] for key in ('vocab_size', 'n_embd', 'n_head', 'n_layer', 'block_size')}
    model = GPT(**config, seed=0)  # (any seed: every weight is then the file's)
    model.load_microgpt(ck.weights)
    return model


def make_up(model: GPT, n: int, bos: int, seed: int, temperature: float) -> list[list[int]]:
    """n documents as token ids, one after the other, drawn with random.Random(seed)."""
    rng = random.Random(seed)
    return [model.sample(bos, rng, temperature) for _ in range(n)]


# The validation loss measured while training is the mean over this many validation documents (all of them at
# the end): on scalar Values, the 516 census names' take seconds each time.
EVAL_DOCS = 100


def main(argv: Sequence[str] | None = None) -> None:
    """Train as the command line says (training.py's run, with this file's model and batches)."""
    # training.py sits beside this script (Python puts a script's folder first on sys.path); the
    # model above needs neither it nor NumPy, so the class can be imported without them.
    import training
    training.main(training.Engine(
        'scalar', prefix='scalar_gpt', title='GPT on scalar Values',
        description="Train microgpt's GPT on micrograd's scalar Value, on the census first names\n"
                    "or on your own text, save it, sample from it, and look inside.",
        model=GPT, batches=batches, adam_state=adam_state, load_adam_state=load_adam_state, evaluate=evaluate,
        make_up=make_up, parameters=lambda model: len(model.parameters()), eval_docs=EVAL_DOCS, train_docs=500,
        step_digits=4), argv)  # microgpt prints 'step    1 / 1000'


if __name__ == '__main__':
    main()
