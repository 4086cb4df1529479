"""The tensor track's exercises on a network's fused ops: softmax and log_softmax, cross_entropy, RMS norm and
attention, where each input's gradient sums over a whole row; one record each."""
from __future__ import annotations

import numpy as np

from micrograd.exercises.tensor.array_exercise import KEEPDIMS, Exercise, Slip
from micrograd.exercises.tensor.cases import case

_SUM_ALL = "summed over every axis: the sum runs along the softmax's axis only, one per row (keepdims=True)"

SOFTMAX = Exercise(
    'softmax', "backward of softmax and log_softmax",
    "Write the `_backward` of `softmax` and of `log_softmax` along axis `ax`: every output of a row depends on "
    "every input of that row, so each input's gradient is a sum over the row.",
    "`s` is softmax's output, `out` log_softmax's; `ax` the axis. Keep the summed axis (keepdims=True) so that it "
    "broadcasts back over the row.",
    "x (4, 5) along the last axis; (3, 3) along axis 0 [square]; (2, 3, 4) along axis 1; upstream gradients "
    "random (with all ones, softmax's gradient is 0 and most slips hide); float32",
    "`ds_i/dx_j = s_i (1[i=j] - s_j)`: the diagonal `s * (1 - s)` is only part of it; every `j` in the row "
    "contributes.",
    "softmax: `s * (grad - (grad * s).sum(axis=ax, keepdims=True))`. log_softmax: `d out_i/dx_j = 1[i=j] - s_j` "
    "with `s = exp(out)`: `grad - exp(out) * grad.sum(axis=ax, keepdims=True)`.",
    "softmax: dx = s * (g - sum(g * s));   log_softmax: dx = g - softmax(x) * sum(g)   (sums along the axis)",
    ('Tensor.softmax', 'Tensor.log_softmax'),
    (case('x 4,5', "out = x.softmax(axis=-1)"),
     case('x 3,3', "out = x.softmax(axis=0)", note="square"),
     case('x 2,3,4', "out = x.softmax(axis=1)"),
     case('x 4,5', "out = x.log_softmax(axis=-1)"),
     case('x 3,3', "out = x.log_softmax(axis=0)", note="square"),
     case('x 2,3,4', "out = x.log_softmax(axis=1)"),
     case('x 3,4', "out = x.softmax(axis=-1) * x.log_softmax(axis=-1)", dtype='float32')),
    (Slip('softmax_diagonal', 'Tensor.softmax', "self._add_grad(grad * s * (1 - s))",
          "softmax's Jacobian reduced to its diagonal s * (1 - s): every s_i depends on every x_j of its row, "
          "ds_i/dx_j = s_i (1[i=j] - s_j), so dx = s * (grad - sum(grad * s, axis, keepdims=True))"),
     Slip('keepdims_lost', 'Tensor.softmax', "self._add_grad(s * (grad - (grad * s).sum(axis=ax)))", KEEPDIMS),
     Slip('softmax_at_input', 'Tensor.softmax',
          "self._add_grad(self.data * (grad - (grad * self.data).sum(axis=ax, keepdims=True)))",
          "derivative taken at the input: ds_i/dx_j = s_i (1[i=j] - s_j) is written with the output s = "
          "softmax(x), and you used x"),
     Slip('softmax_at_input', 'Tensor.log_softmax',
          "self._add_grad(grad - np.exp(self.data) * grad.sum(axis=ax, keepdims=True))",
          "derivative taken at the input: d out_i/dx_j = 1[i=j] - softmax(x)_j, with softmax(x) = exp(out) from "
          "the output, and you used exp(x)"),
     Slip('softmax_unweighted', 'Tensor.softmax',
          "self._add_grad(s * (grad - grad.sum(axis=ax, keepdims=True)))",
          "the row's sum is missing its weights: it is sum_j grad_j * s_j, not sum_j grad_j"),
     Slip('softmax_outer_s', 'Tensor.softmax', "self._add_grad(grad - (grad * s).sum(axis=ax, keepdims=True))",
          "the outer factor s is missing: dx = s * (grad - sum(grad * s, axis, keepdims=True))"),
     Slip('softmax_mean', 'Tensor.softmax', "self._add_grad(s * (grad - (grad * s).mean(axis=ax, keepdims=True)))",
          "a mean where the sum belongs: the row's term is sum_j grad_j s_j, not its mean"),
     Slip('softmax_mean', 'Tensor.log_softmax',
          "self._add_grad(grad - np.exp(out) * grad.mean(axis=ax, keepdims=True))",
          "a mean where the sum belongs: the row's term is softmax(x) * sum_j grad_j, not its mean"),
     Slip('log_softmax_double', 'Tensor.log_softmax',
          "s = np.exp(out)\nself._add_grad(grad * (1 - s) - s * grad.sum(axis=ax, keepdims=True))",
          "the diagonal counted twice: d out_i/dx_j = 1[i=j] - s_j, and the sum over the row already holds j = i; "
          "dx = grad - s * sum(grad)"),
     Slip('softmax_sum_all', 'Tensor.softmax', "self._add_grad(s * (grad - (grad * s).sum()))", _SUM_ALL),
     Slip('log_softmax_no_exp', 'Tensor.log_softmax',
          "self._add_grad(grad - out * grad.sum(axis=ax, keepdims=True))",
          "log-probabilities used where probabilities belong: d out_i/dx_j = 1[i=j] - softmax(x)_j, and "
          "softmax(x) = exp(out)"),
     Slip('log_softmax_diagonal', 'Tensor.log_softmax', "self._add_grad(grad * (1 - np.exp(out)))",
          "log_softmax's Jacobian reduced to its diagonal 1 - s: every output of a row depends on every input, "
          "dx = grad - softmax(x) * sum(grad, axis, keepdims=True)"),
     Slip('softmax_sum_all', 'Tensor.log_softmax', "self._add_grad(grad - np.exp(out) * grad.sum())", _SUM_ALL),
     Slip('keepdims_lost', 'Tensor.log_softmax', "self._add_grad(grad - np.exp(out) * grad.sum(axis=ax))",
          KEEPDIMS)),
    prompts=('softmax along ax: each input gets a sum over its row (s is the output)',
             'log_softmax along ax (out is the output; softmax = exp(out))'),
    math=(r"s = \mathrm{softmax}(x):\ \ \bar x_j = s_j \Big(G_j - \sum_i G_i s_i\Big); \qquad \ell = \log "
          r"\mathrm{softmax}(x):\ \ \bar x_j = G_j - s_j \sum_i G_i"))

_CE = "g = np.exp(log_probs)\ng[rows, picked] -= 1\ng[~counted] = 0\nlogits._add_grad(g * grad / n_counted)"
_TORCH_CE = "out = F.cross_entropy(z, torch.tensor(t))"  # the same in PyTorch
_OFF_BY_ONE = ("the one-hot is off by one: class indices count from 0, so a row's 1 goes in its target's own column, "
               "g[rows, picked], not the one beside it")

CROSS_ENTROPY = Exercise(
    'cross_entropy', "backward of cross_entropy, fused",
    "Write the `_backward` of `cross_entropy(logits, targets)`, the mean over rows of "
    "`-log softmax(logits)[target]`, as one op: its gradient with respect to the logits.",
    "`log_probs` is log_softmax of the logits (n, classes), `rows` = arange(n), `picked` the targets, `counted` the "
    "rows whose target is not `ignore_index`, `n_counted` how many. Ignored rows get 0 and do not count in the "
    "mean. `grad` is the loss's upstream gradient, a 0-d array.",
    "logits (4, 5) with targets [1, 0, 4, 1]; (6, 3) with two rows ignored (target -100); float32",
    "For one row: `softmax(logits) - one_hot(target)`. The loss is a mean over the counted rows: divide by "
    "`n_counted`, and multiply by `grad`.",
    "`g = np.exp(log_probs)`, `g[rows, picked] -= 1` (one element per row; `g[:, picked]` would hit every row), "
    "`g[~counted] = 0`, then `logits._add_grad(g * grad / n_counted)`.",
    "dL/dlogits = (softmax(logits) - one_hot(targets)) / n_counted * grad",
    ('cross_entropy',),
    (case('z 4,5', "out = F.cross_entropy(z, t)", torch=_TORCH_CE, given={'t': np.array([1, 0, 4, 1])}),
     case('z 6,3', "out = F.cross_entropy(z, t)", torch=_TORCH_CE, given={'t': np.array([2, -100, 0, 1, -100, 2])},
          note="rows 1 and 4 are ignored"),
     case('z 3,4', "out = F.cross_entropy(z, t)", torch=_TORCH_CE, given={'t': np.array([3, 3, 0])}, dtype='float32')),
    (Slip('ce_not_averaged', 'cross_entropy', _CE.replace(" / n_counted", ""),
          "cross-entropy not divided by the batch size: the loss is a mean over the counted rows, so each row's "
          "gradient is divided by n_counted"),
     Slip('ce_all_rows', 'cross_entropy', _CE.replace("/ n_counted", "/ len(rows)"),
          "divided by every row: ignored rows do not count in the mean, so divide by n_counted"),
     Slip('ce_ignored_rows', 'cross_entropy', _CE.replace("g[~counted] = 0\n", ""),
          "ignored rows get a gradient: a row whose target is ignore_index takes no part in the loss"),
     Slip('ce_no_one_hot', 'cross_entropy', _CE.replace("g[rows, picked] -= 1\n", ""),
          "the one-hot target is not subtracted: dL/dlogits = softmax - one_hot(target)"),
     Slip('ce_one_hot_sign', 'cross_entropy', _CE.replace("-= 1", "+= 1"),
          "the one-hot target is added: dL/dlogits = softmax - one_hot (the target's logit is pushed up, its "
          "gradient goes down by 1)"),
     Slip('ce_half_averaged', 'cross_entropy',
          "g = np.exp(log_probs) / n_counted\ng[rows, picked] -= 1\ng[~counted] = 0\nlogits._add_grad(g * grad)",
          "only the softmax is divided by the batch size: (softmax - one_hot) / n_counted, the one-hot too"),
     Slip('ce_one_hot_off_by_one', 'cross_entropy', _CE.replace("picked]", "picked - 1]"), _OFF_BY_ONE),
     Slip('ce_one_hot_off_by_one', 'cross_entropy', _CE.replace("picked]", "picked + 1]"),
          f"{_OFF_BY_ONE} (the last class has no column after it)"),
     Slip('ce_columns', 'cross_entropy', _CE.replace("g[rows, picked]", "g[:, picked]"),
          "g[:, picked] subtracts 1 in every row at every target's column: index one element per row, g[rows, picked]"),
     Slip('ce_log_probs', 'cross_entropy', _CE.replace("np.exp(log_probs)", "log_probs.copy()"),
          "log-probabilities used where probabilities belong: dL/dlogits = softmax(logits) - one_hot, and "
          "softmax = exp(log_probs)")),
    prompts=('the logits get (softmax - one_hot) / n_counted * grad; ignored rows 0',),
    math=(r"L = \frac{1}{n}\sum_r -\log \mathrm{softmax}(z_r)_{t_r}:\quad \bar z_r = "
          r"\frac{G}{n}\big(\mathrm{softmax}(z_r) - \mathrm{onehot}(t_r)\big)"))

_TORCH_RMS = "out = F.rms_norm(x, (x.shape[-1],), eps=1e-5)"  # the same in PyTorch

RMS_NORM = Exercise(
    'rms_norm', "backward of RMS norm",
    "Write the `_backward` of `rms_norm(x)`: `y = x * r` with `r = 1 / sqrt(mean(x**2) + eps)` over the last "
    "axis. `r` depends on every element of the vector, so each input's gradient has a term from the whole vector.",
    "`y` is the output, `r` the factor (one per vector, shape (..., 1)), `n` the vector length. Work along the "
    "last axis with keepdims=True.",
    "x (4, 6); x (2, 3, 5); float32",
    "`dr/dx_j = -r**3 x_j / n`. Collect both paths: through `x` directly and through `r`.",
    "`dx = r * (grad - y * mean(grad * y, axis=-1, keepdims=True))`.",
    "dx = r (g - y mean(g y))   along the last axis",
    ('rms_norm',),
    (case('x 4,6', "out = F.rms_norm(x)", torch=_TORCH_RMS),
     case('x 2,3,5', "out = F.rms_norm(x)", torch=_TORCH_RMS),
     case('x 3,3', "out = F.rms_norm(x)", torch=_TORCH_RMS, note="square"),
     case('x 3,4', "out = F.rms_norm(x)", torch=_TORCH_RMS, dtype='float32')),
    (Slip('rms_constant', 'rms_norm', "x._add_grad(grad * r)",
          "r treated as a constant: r = 1/rms(x) depends on every x_j of the vector, so "
          "dx = r (grad - y mean(grad y)), not r grad"),
     Slip('rms_not_divided', 'rms_norm', "x._add_grad(r * (grad - y * (grad * y).sum(axis=-1, keepdims=True)))",
          "a sum where the mean belongs: dx = r (grad - y mean(grad y)), the mean over the n elements"),
     Slip('keepdims_lost', 'rms_norm', "x._add_grad(r * (grad - y * (grad * y).mean(axis=-1)))", KEEPDIMS),
     Slip('rms_wrong_axis', 'rms_norm', "x._add_grad(r * (grad - y * (grad * y).mean(axis=0, keepdims=True)))",
          "reduced over the wrong axis: rms_norm normalizes each vector along the last axis"),
     Slip('rms_x_for_y', 'rms_norm', "x._add_grad(r * (grad - x.data * (grad * y).mean(axis=-1, keepdims=True)))",
          "one factor r too few in the second term: dx = r (grad - y mean(grad y)) with y = x r; r grad - "
          "y mean(grad y), or x in the place of y, leaves one r out"),
     Slip('rms_sign', 'rms_norm', "x._add_grad(r * (grad + y * (grad * y).mean(axis=-1, keepdims=True)))",
          "the sign of the second term: r falls as x grows, dx = r (grad - y mean(grad y))")),
    prompts=('x gets r (grad - y mean(grad y)) along the last axis',),
    math=(r"y = x\,r,\ \ r = \Big(\tfrac{1}{n}\sum_j x_j^2 + \epsilon\Big)^{-1/2}:\quad \bar x = r\,\Big(G - "
          r"y\,\tfrac{1}{n}\sum_j G_j y_j\Big)"))

_SDPA = 'scaled_dot_product_attention'
_ATTENTION = ("dp = grad @ vd.swapaxes(-2, -1)\nds = p * (dp - (p * dp).sum(axis=-1, keepdims=True)) * scale\n"
              "q._add_grad(ds @ kd)\nk._add_grad(ds.swapaxes(-2, -1) @ qd)\nv._add_grad(p.swapaxes(-2, -1) @ grad)")

ATTENTION = Exercise(
    'attention', "backward of scaled dot-product attention with a causal mask",
    "Write the `_backward` of `scaled_dot_product_attention(q, k, v)`: `out = p @ v` with "
    "`p = softmax(q @ k^T * scale)` (masked: query t sees keys 0..t). Backpropagate through the three steps.",
    "`qd`, `kd`, `vd` are the data, `p` the attention weights (0 where masked), `scale` = 1/sqrt(d). Batch axes "
    "lead; transpose the last two only.",
    "q, k, v (4, 3) causal and not; (2, 2, 4, 3) [batch, heads]; v (4, 2); float32",
    "Three steps backwards: `dp = grad @ v^T` and `dv = p^T @ grad`; then softmax's backward per row; then "
    "`dq = dscores @ k * scale`, `dk = dscores^T @ q * scale`.",
    "`dscores = p * (dp - (p * dp).sum(axis=-1, keepdims=True)) * scale`; the masked entries need nothing "
    "special, since p is 0 there.",
    "dv = p^T g;  dp = g v^T;  ds = p (dp - sum(p dp)) scale;  dq = ds k;  dk = ds^T q",
    (_SDPA,),
    (case('q 4,3; k 4,3; v 4,3', "out = F.scaled_dot_product_attention(q, k, v, is_causal=True)"),
     case('q 4,3; k 4,3; v 4,2', "out = F.scaled_dot_product_attention(q, k, v)"),
     case('q 2,2,4,3; k 2,2,4,3; v 2,2,4,3', "out = F.scaled_dot_product_attention(q, k, v, is_causal=True)"),
     case('q 5,2; k 5,2; v 5,2', "out = F.scaled_dot_product_attention(q, k, v, is_causal=True)", dtype='float32')),
    (Slip('attn_softmax_diagonal', _SDPA, _ATTENTION.replace("p * (dp - (p * dp).sum(axis=-1, keepdims=True))",
                                                             "p * (1 - p) * dp"),
          "softmax's Jacobian reduced to s * (1 - s): dscores = p * (dp - sum(p * dp, axis=-1, keepdims=True))"),
     Slip('attn_no_scale', _SDPA, _ATTENTION.replace(") * scale\n", ")\n"),
          "the scale is missing: the scores were q @ k^T * scale, so dq and dk carry the factor scale = 1/sqrt(d)"),
     Slip('attn_softmax_no_p', _SDPA, _ATTENTION.replace("ds = p * (", "ds = ("),
          "softmax's backward is missing its factor p: dscores = p * (dp - sum(p * dp, axis=-1, keepdims=True))"),
     Slip('attn_v_untransposed', _SDPA, _ATTENTION.replace("p.swapaxes(-2, -1) @ grad", "p @ grad"),
          "v's gradient untransposed: out = p @ v, so dv = p^T @ grad"),
     Slip('attn_dq_operand', _SDPA, _ATTENTION.replace("ds @ kd", "ds @ qd"),
          "q's gradient from the wrong operand: scores = q @ k^T, so dq = dscores @ k, the other factor of the "
          "product (with the scale), not q itself"),
     Slip('attn_dk_operand', _SDPA, _ATTENTION.replace("-1) @ qd", "-1) @ kd"),
          "k's gradient from the wrong operand: scores = q @ k^T, so dk = dscores^T @ q, the other factor of the "
          "product (with the scale), not k itself"),
     Slip('attn_k_untransposed', _SDPA, _ATTENTION.replace("ds.swapaxes(-2, -1) @ qd", "ds @ qd"),
          "k's gradient untransposed: scores = q @ k^T, so dk = dscores^T @ q"),
     Slip('keepdims_lost', _SDPA, _ATTENTION.replace("sum(axis=-1, keepdims=True)", "sum(axis=-1)"), KEEPDIMS)),
    prompts=('q, k, v get their gradients through p @ v, the softmax and q @ k^T * scale',),
    math=(r"S = \tfrac{QK^\top}{\sqrt d},\ P = \mathrm{softmax}(S),\ O = PV:\ \ \bar V = P^\top G,\ \bar P = G "
          r"V^\top,\ \bar S = P \odot \big(\bar P - \textstyle\sum_s P \odot \bar P\big),\ \bar Q = \tfrac{\bar "
          r"S K}{\sqrt d},\ \bar K = \tfrac{\bar S^\top Q}{\sqrt d}"))
