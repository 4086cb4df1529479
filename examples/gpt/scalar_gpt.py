"""microgpt's GPT on micrograd's scalar Value: one name per step, one position at a time.

Read it beside Karpathy's microgpt: the parameters, the forward pass with its key/value
cache, the loss and the sampling are the same, line for line, and so are the numbers
(same seed, same weights, same loss). What micrograd adds:

- `Value.dot(ws, xs)`: every weighted sum (a row of a linear layer, an attention score, an
  attention-weighted value, RMSNorm's sum of squares) is one node whose backward loops
  over its inputs, where `sum(w * x for ...)` makes two nodes per term.
- `micrograd.optim.Adam` instead of a hand-written update loop.
- Clear errors: a name longer than the context, a token outside the vocabulary.

Run it from the repository root (about half a minute):

    python examples/gpt/scalar_gpt.py
"""
from __future__ import annotations

import random
import time
from collections.abc import Sequence

from micrograd.engine import Value, no_grad

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


class GPT:
    """microgpt's model: token and position embeddings, n_layer blocks of (RMSNorm, causal
    self-attention with n_head heads, residual; RMSNorm, ReLU MLP 4x wide, residual), and a
    language-model head. No biases, no learned norm weights. The defaults are microgpt's.

    `state_dict` maps microgpt's names to its matrices (nout rows of nin Values each), drawn
    from gauss(0, 0.08) in microgpt's order with `random.Random(seed)`, so the same seed gives
    microgpt's weights.
    """

    def __init__(self, vocab_size: int, n_embd: int = 16, n_head: int = 4, n_layer: int = 1, block_size: int = 16,
                 seed: int = 42):
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
                values: list[list[list[Value]]]) -> list[Value]:
        """The logits of the token after `token_id` at position `pos_id`.

        keys[li] and values[li] are layer li's cache: the keys and values of the positions
        before this one. This call appends its own, so calling it for positions 0, 1, 2, ...
        is causal attention: each position sees itself and what came before, never after.
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
    def sample(self, bos: int, rng: random.Random, temperature: float = 0.5) -> list[int]:
        """Token ids drawn one at a time from softmax(logits / temperature), starting after
        BOS, until the model draws BOS (the name ends) or the block is full.

        A lower temperature sharpens the distribution: safer, more common names.
        """
        if temperature <= 0:
            raise ValueError(f"GPT.sample: temperature must be > 0, got {temperature}")
        keys: list[list[list[Value]]] = [[] for _ in range(self.n_layer)]
        values: list[list[list[Value]]] = [[] for _ in range(self.n_layer)]
        token_id, sample = bos, []
        for pos_id in range(self.block_size):
            logits = self.forward(token_id, pos_id, keys, values)
            probs = softmax([logit / temperature for logit in logits])
            token_id = rng.choices(range(self.vocab_size), weights=[p.data for p in probs])[0]
            if token_id == bos:
                break
            sample.append(token_id)
        return sample



@no_grad()
def evaluate(model: GPT, token_lists: Sequence[Sequence[int]]) -> float:
    """The mean loss per predicted token over all the names (what bigram_loss reports)."""
    total, count = 0.0, 0
    for tokens in token_lists:
        n = len(tokens) - 1
        total += model.loss(tokens).data * n
        count += n
    return total / count


def main(num_steps: int = 1000, learning_rate: float = 0.01, seed: int = 42) -> None:
    # data.py sits beside this script (Python puts a script's folder first on sys.path); the model
    # above does not need it, so the class can be imported without the data.
    from data import Tokenizer, bigram_loss, load_names, split

    from micrograd.optim import Adam

    names = load_names()
    train, val = split(names, seed=seed)
    tokenizer = Tokenizer(names)
    model = GPT(tokenizer.vocab_size, seed=seed)
    params = model.parameters()
    print(f"{len(train)} training names, {len(val)} validation names, {tokenizer}")
    print(f"GPT on scalar Values: {len(params)} parameters, {num_steps} steps of one name each")

    # microgpt's Adam: betas (0.85, 0.99), and a learning rate decaying linearly to 0
    optimizer = Adam(params, lr=learning_rate, betas=(0.85, 0.99), eps=1e-8)
    start = time.perf_counter()
    for step in range(num_steps):
        name = train[step % len(train)]
        loss = model.loss(tokenizer.encode(name))
        optimizer.zero_grad()
        loss.backward()
        optimizer.lr = learning_rate * (1 - step / num_steps)
        optimizer.step()
        if (step + 1) % 100 == 0 or step == 0:
            print(f"step {step + 1:4d} / {num_steps} | loss {loss.data:.4f} | {time.perf_counter() - start:4.1f}s",
                  flush=True)

    train_loss = evaluate(model, [tokenizer.encode(name) for name in train[:1000]])
    val_loss = evaluate(model, [tokenizer.encode(name) for name in val])
    print(f"train loss {train_loss:.4f} (first 1000 names) | val loss {val_loss:.4f} | "
          f"bigram baseline val loss {bigram_loss(train, val, tokenizer):.4f}")
    print("--- 20 names the model made up (temperature 0.5) ---")
    rng = random.Random(seed)
    for _ in range(20):
        print(tokenizer.decode(model.sample(tokenizer.bos, rng)))


if __name__ == '__main__':
    main()
