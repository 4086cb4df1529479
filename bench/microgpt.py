"""microgpt's model and training step, written exactly as microgpt writes them, for any Value class.

The code below is copied from `strands_microgpt/engine.py` in the `strands-microgpt` 0.1.0 package
(MIT licence, Cagatay Cali), which packages Karpathy's microgpt gist
(https://gist.github.com/karpathy/8627fe009c40f57531cb18360106ce95). Only two things differ:
the Value class is a parameter, so the same lines run on microgpt's engine and on ours, and the
weights are given rather than drawn, so every engine starts from the very same floats. The bench
checks that this copy, on microgpt's Value, takes a training step bit for bit like the package does.

Everything is plain ops on scalar Values: `sum(w * x for ...)`, `exp`, `log`, `** -0.5`.
"""
from __future__ import annotations

from typing import Any

# One name per step, the first names of makemore's names.txt (the data set microgpt trains on),
# written out so the bench needs no network. Every engine trains on the same names in the same order.
NAMES = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia',
         'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery']
CHARS = list('abcdefghijklmnopqrstuvwxyz')  # names.txt holds these 26 letters; token 26 is BOS
BOS = len(CHARS)
VOCAB_SIZE = len(CHARS) + 1
CONFIG = {'vocab_size': VOCAB_SIZE, 'n_layer': 1, 'n_embd': 16, 'block_size': 16, 'n_head': 4}
LEARNING_RATE, NUM_STEPS = 0.01, 1000  # microgpt's defaults; the rate decays linearly over NUM_STEPS


def tokens(step: int) -> list[int]:
    """The name for this step as microgpt feeds it: BOS, its letters, BOS."""
    return [BOS] + [CHARS.index(ch) for ch in NAMES[step % len(NAMES)]] + [BOS]


def _linear(x: list[Any], w: list[list[Any]]) -> list[Any]:
    """Linear layer: y = Wx."""
    return [sum(wi * xi for wi, xi in zip(wo, x)) for wo in w]


def _softmax(logits: list[Any]) -> list[Any]:
    """Numerically stable softmax."""
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def _rmsnorm(x: list[Any]) -> list[Any]:
    """Root mean square layer normalization."""
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


class MicroGPT:
    """microgpt's GPT on the given Value class, from weights laid out like microgpt's state_dict."""

    def __init__(self, Value: type, weights: dict[str, list[list[float]]], n_layer: int = 1, n_embd: int = 16,
                 block_size: int = 16, n_head: int = 4, vocab_size: int = VOCAB_SIZE) -> None:
        self.n_layer, self.n_embd, self.block_size, self.n_head = n_layer, n_embd, block_size, n_head
        self.head_dim = n_embd // n_head
        self.state_dict = {name: [[Value(w) for w in row] for row in rows] for name, rows in weights.items()}
        self.params = [p for mat in self.state_dict.values() for row in mat for p in row]
        self.m = [0.0] * len(self.params)  # Adam's moments, as train_on_docs keeps them
        self.v = [0.0] * len(self.params)

    def forward(self, token_id: int, pos_id: int, keys: list[list[Any]], values: list[list[Any]]) -> list[Any]:
        """Forward pass for a single token. Returns logits."""
        tok_emb = self.state_dict["wte"][token_id]
        pos_emb = self.state_dict["wpe"][pos_id]
        x = [t + p for t, p in zip(tok_emb, pos_emb)]
        x = _rmsnorm(x)

        for li in range(self.n_layer):
            # Multi-head Attention
            x_residual = x
            x = _rmsnorm(x)
            q = _linear(x, self.state_dict[f"layer{li}.attn_wq"])
            k = _linear(x, self.state_dict[f"layer{li}.attn_wk"])
            v = _linear(x, self.state_dict[f"layer{li}.attn_wv"])
            keys[li].append(k)
            values[li].append(v)

            x_attn = []
            for h in range(self.n_head):
                hs = h * self.head_dim
                q_h = q[hs : hs + self.head_dim]
                k_h = [ki[hs : hs + self.head_dim] for ki in keys[li]]
                v_h = [vi[hs : hs + self.head_dim] for vi in values[li]]
                attn_logits = [
                    sum(q_h[j] * k_h[t][j] for j in range(self.head_dim))
                    / self.head_dim**0.5
                    for t in range(len(k_h))
                ]
                attn_weights = _softmax(attn_logits)
                head_out = [
                    sum(attn_weights[t] * v_h[t][j] for t in range(len(v_h)))
                    for j in range(self.head_dim)
                ]
                x_attn.extend(head_out)

            x = _linear(x_attn, self.state_dict[f"layer{li}.attn_wo"])
            x = [a + b for a, b in zip(x, x_residual)]

            # MLP
            x_residual = x
            x = _rmsnorm(x)
            x = _linear(x, self.state_dict[f"layer{li}.mlp_fc1"])
            x = [xi.relu() for xi in x]
            x = _linear(x, self.state_dict[f"layer{li}.mlp_fc2"])
            x = [a + b for a, b in zip(x, x_residual)]

        logits = _linear(x, self.state_dict["lm_head"])
        return logits

    def train_step(self, step: int, tokens: list[int], learning_rate: float = LEARNING_RATE,
                   num_steps: int = NUM_STEPS) -> float:
        """One iteration of microgpt's train_on_docs loop: the mean loss over the name, backward, Adam."""
        beta1, beta2, eps_adam = 0.85, 0.99, 1e-8
        m, v = self.m, self.v
        n = min(self.block_size, len(tokens) - 1)

        keys: list[list[Any]] = [[] for _ in range(self.n_layer)]
        values: list[list[Any]] = [[] for _ in range(self.n_layer)]
        step_losses = []

        for pos_id in range(n):
            token_id, target_id = tokens[pos_id], tokens[pos_id + 1]
            logits = self.forward(token_id, pos_id, keys, values)
            probs = _softmax(logits)
            loss_t = -probs[target_id].log()
            step_losses.append(loss_t)

        loss = (1 / n) * sum(step_losses)
        loss.backward()

        # Adam optimizer
        lr_t = learning_rate * (1 - step / num_steps)
        for i, p in enumerate(self.params):
            m[i] = beta1 * m[i] + (1 - beta1) * p.grad
            v[i] = beta2 * v[i] + (1 - beta2) * p.grad**2
            m_hat = m[i] / (1 - beta1 ** (step + 1))
            v_hat = v[i] / (1 - beta2 ** (step + 1))
            p.data -= lr_t * m_hat / (v_hat**0.5 + eps_adam)
            p.grad = 0

        return float(loss.data)


def lr_at(step: int) -> float:
    """microgpt's learning rate at a step, for an optimizer that is not microgpt's loop."""
    return LEARNING_RATE * (1 - step / NUM_STEPS)

