"""Backwards of the tensor track written the way learners write them, for test_exercises_tensor: wrong ones, each
to be graded wrong with its own diagnosis, and right ones written differently (np.einsum, keepdims or reshape, a
loop), each to be graded done.

A mutant is (exercise, blank, body, diagnosis[, line]): line is the line of the body the report must point at
(from 1), given where a line is meaningful (not for a line left out, as a parent never handed its gradient). The
blank is named as the exercise records name it ('unbroadcast', 'Tensor.__mul__', 'cross_entropy',
'Tensor.backward()'); the body is written unindented, and may read what the library's forward pass binds there (x,
y, e, t, passes, top, s, out, log_probs, ...). Everything else in the engine is the library's own. These are not the
slips of the records (test_exercises_tensor plants those too): each is written otherwise than the checker's own copy
of the slip, or is one no record lists, or pins the line of a record's own body the report must point at.
"""

SLIPS = [
    # unbroadcast
    ('unbroadcast', 'unbroadcast', "return grad.copy()", 'not_reduced', 1),
    ('unbroadcast', 'unbroadcast', "return np.array(grad)", 'not_reduced', 1),
    ('unbroadcast', 'unbroadcast', "while grad.ndim > len(shape):\n    grad = grad.sum(axis=0)\nreturn grad",
     'size1_not_summed', 3),
    ('unbroadcast', 'unbroadcast', "return np.sum(grad, axis=tuple(range(grad.ndim - len(shape))))",
     'size1_not_summed', 1),
    ('unbroadcast', 'unbroadcast',
     "while grad.ndim > len(shape):\n    grad = grad.sum(axis=0)\n"
     "for i, n in enumerate(shape):\n    if n == 1 and grad.shape[i] != 1:\n"
     "        grad = grad.sum(axis=i)\nreturn grad",
     'keepdims_lost', 5),
    ('unbroadcast', 'unbroadcast',
     "axes = tuple(range(len(shape), grad.ndim))\nreturn np.add.reduce(grad, axis=axes)", 'wrong_axis', 2),
    ('unbroadcast', 'unbroadcast',
     "while grad.ndim > len(shape):\n    grad = grad.mean(axis=0)\n"
     "for i, n in enumerate(shape):\n    if n == 1:\n        grad = grad.mean(axis=i, keepdims=True)\nreturn grad",
     'mean_not_sum', 2),
    ('unbroadcast', 'unbroadcast',
     "total = np.zeros(shape)\nextra = grad.ndim - len(shape)\n"
     "axes = tuple(range(extra)) + tuple(extra + i for i, n in enumerate(shape) if n == 1)\n"
     "total += grad.sum(axis=axes, keepdims=True).reshape(shape)\nreturn total", 'promoted', 1),
    # + and *
    ('+ *', 'Tensor.__mul__', "self._add_grad(grad * x)\nother._add_grad(grad * y)", 'mul_swapped', 1),
    ('+ *', 'Tensor.__mul__', "if self.requires_grad:\n    self._add_grad(grad)\nif other.requires_grad:\n"
                              "    other._add_grad(grad)", 'sum_rule_in_mul', 2),
    ('+ *', 'Tensor.__mul__', "if self.requires_grad:\n    self._add_grad(y)\nif other.requires_grad:\n"
                              "    other._add_grad(x)", 'upstream', 2),
    ('+ *', 'Tensor.__mul__', "if self.requires_grad:\n    self._add_grad(-grad * y)\nif other.requires_grad:\n"
                              "    other._add_grad(-grad * x)", 'sign', 2),
    ('+ *', 'Tensor.__mul__', "if self.requires_grad:\n    self._add_grad(grad * y)", 'one_parent'),
    ('+ *', 'Tensor.__add__', "self._add_grad(grad)", 'one_parent'),
    ('+ *', 'Tensor.__add__', "pass", 'nothing'),
    ('+ *', 'Tensor.__mul__', "self._add_grad(grad * y)\nother._add_grad(grad * y)", 'mul_swapped', 2),
    ('matmul', 'Tensor.__matmul__', "self._add_grad(grad @ b.swapaxes(-1, -2))\nother._add_grad(a @ grad)",
     'matmul_untransposed', 2),
    ('+ *', 'Tensor.__add__', "self._add_grad(np.ones_like(grad))\nother._add_grad(np.ones_like(grad))", 'upstream', 1),
    ('+ *', 'Tensor.__add__', "self.grad = grad\nif other.requires_grad:\n    other.grad = grad",
     'bypassed_add_grad', 3),
    ('+ *', 'Tensor.__add__', "self._add_grad(grad * y)\nother._add_grad(grad * x)", 'product_rule_in_add', 1),
    # elementwise
    ('elementwise', 'Tensor.exp', "self._add_grad(self.data * grad)", 'exp_at_input', 1),
    ('elementwise', 'Tensor.exp', "self._add_grad(e)", 'upstream', 1),
    ('elementwise', 'Tensor.log', "self._add_grad(grad * np.log(self.data))", 'log_function', 1),
    ('elementwise', 'Tensor.log', "self._add_grad(grad * self.data)", 'log_times', 1),
    ('elementwise', 'Tensor.log', "self._add_grad(-grad / x)", 'sign', 1),
    ('elementwise', 'Tensor.tanh', "self._add_grad((1 - self.data * self.data) * grad)", 'tanh_at_input', 1),
    ('elementwise', 'Tensor.tanh', "self._add_grad(grad * (1 - np.tanh(self.data)))", 'tanh_no_square', 1),
    ('elementwise', 'Tensor.tanh', "self._add_grad(1 - t ** 2)", 'upstream', 1),
    # a slip split over two lines: a local, then the gradient made from it; at the line that makes the wrong value
    ('elementwise', 'Tensor.tanh', "local = 1 - self.data * self.data\nself._add_grad(local * grad)",
     'tanh_at_input', 1),
    ('elementwise', 'Tensor.tanh', "local = 1 - np.tanh(self.data)\nself._add_grad(grad * local)", 'tanh_no_square', 1),
    ('+ *', 'Tensor.__add__', "g = grad.sum(axis=0)\nself._add_grad(grad)\nother._add_grad(g * 2)", 'factor', 3),
    ('elementwise', 'Tensor.relu', "self._add_grad(np.where(self.data >= 0, grad, 0))", 'relu_at_zero', 1),
    ('elementwise', 'Tensor.relu', "self._add_grad(grad.copy())", 'relu_ungated', 1),
    ('elementwise', 'Tensor.relu', "self._add_grad(np.where(self.data > 0, self.data, 0) * grad)", 'relu_value', 1),
    ('elementwise', 'Tensor.relu', "grad *= passes\nself._add_grad(grad)", 'inplace', 1),
    ('elementwise', 'Tensor.relu', "np.multiply(grad, passes, out=grad)\nself._add_grad(grad)", 'inplace', 1),
    ('elementwise', 'Tensor.tanh', "grad *= 1 - t * t\nself._add_grad(grad)", 'inplace', 1),
    ('elementwise', 'Tensor.relu', "grad[~passes] = 0\nself._add_grad(grad)", 'inplace', 1),
    ('elementwise', 'Tensor.exp', "grad *= e\nself._add_grad(grad)", 'inplace', 1),
    ('+ *', 'Tensor.__mul__', "if other.requires_grad:\n    other._add_grad(grad * x)\nif self.requires_grad:\n"
                              "    grad *= y\n    self._add_grad(grad)", 'inplace', 4),
    # sum and mean
    ('sum mean', 'Tensor.sum', "self._add_grad(grad * np.ones_like(self.data))", 'keepdims_lost', 1),
    ('sum mean', 'Tensor.sum', "self._add_grad(np.ones_like(self.data))", 'upstream', 1),
    ('sum mean', 'Tensor.mean', "self._add_grad(grad * np.ones_like(self.data) / n)", 'keepdims_lost', 1),
    ('sum mean', 'Tensor.mean',
     "g = grad if keepdims or not ax else np.expand_dims(grad, ax)\nself._add_grad(g * np.ones_like(self.data))",
     'mean_not_divided', 2),
    ('sum mean', 'Tensor.mean',
     "g = grad if keepdims or not ax else np.expand_dims(grad, ax)\n"
     "self._add_grad(g * np.ones_like(self.data) / self.data.size)", 'mean_whole_size', 2),
    # max
    ('max', 'Tensor._extreme', "g = np.reshape(grad, top.shape)\nself._add_grad(np.where(x == top, g, 0))",
     'ties_full', 2),
    ('max', 'Tensor._extreme', "is_top = (x == top)\nself._add_grad(np.where(is_top, grad, 0))", 'keepdims_lost', 2),
    ('max', 'Tensor._extreme', "self._add_grad(np.reshape(grad, top.shape) * np.ones_like(x))", 'max_ungated', 1),
    # reshape and permute
    ('reshape', 'Tensor.reshape', "self._add_grad(np.transpose(grad))", 'reshape_transposed', 1),
    ('reshape', 'Tensor.permute', "self._add_grad(np.transpose(grad, order))", 'permute_not_inverted', 1),
    ('reshape', 'Tensor.permute', "self._add_grad(np.transpose(grad))", 'permute_all_reversed', 1),
    ('reshape', 'Tensor.permute', "self._add_grad(np.reshape(grad, self.data.shape))", 'not_moved_back', 1),
    # indexing
    ('getitem', 'Tensor.__getitem__', "g = np.zeros(self.data.shape)\ng[picked] += grad\nself._add_grad(g)",
     'index_overwritten', 2),
    ('getitem', 'Tensor.__getitem__',
     "full = np.zeros_like(self.data)\nfull.__setitem__(picked, grad)\nself._add_grad(full)", 'index_overwritten', 2),
    ('getitem', 'Tensor.__getitem__', "full = np.zeros_like(self.data)\nfull[picked] = grad\nself._add_grad(full)",
     'index_overwritten', 2),
    # matmul
    ('matmul', 'Tensor.__matmul__', "self._add_grad(np.matmul(grad, b))\nother._add_grad(np.matmul(a, grad))",
     'matmul_untransposed', 1),
    ('matmul', 'Tensor.__matmul__', "self._add_grad(grad @ b.T)\nother._add_grad(a.T @ grad)", 'batch_transpose', 1),
    ('matmul', 'Tensor.__matmul__',
     "self._add_grad(np.swapaxes(b, -1, -2) @ grad)\nother._add_grad(grad @ np.swapaxes(a, -1, -2))",
     'matmul_order', 1),
    ('matmul', 'Tensor.__matmul__',
     "ones = np.ones_like(grad)\nself._add_grad(ones @ b.swapaxes(-1, -2))\nother._add_grad(a.swapaxes(-1, -2) @ ones)",
     'upstream', 1),
    ('matmul', 'Tensor._matmul_rows',
     "g = grad.reshape(n_rows, -1)\nself._add_grad((g @ b).reshape(a.shape))\nother._add_grad(rows @ g)",
     'matmul_untransposed', 2),
    # softmax and log_softmax
    ('softmax', 'Tensor.softmax', "self._add_grad(s * (1 - s) * grad)", 'softmax_diagonal', 1),
    ('softmax', 'Tensor.softmax', "self._add_grad(grad * (s - s * s))", 'softmax_diagonal', 1),
    ('softmax', 'Tensor.softmax', "dot = (grad * s).sum(axis=ax)\nself._add_grad(s * grad - s * dot)",
     'keepdims_lost', 2),
    ('softmax', 'Tensor.softmax', "self._add_grad(s * (grad - np.sum(grad, axis=ax, keepdims=True)))",
     'softmax_unweighted', 1),
    ('softmax', 'Tensor.log_softmax', "self._add_grad(grad - out * np.sum(grad, axis=ax, keepdims=True))",
     'log_softmax_no_exp', 1),
    ('softmax', 'Tensor.log_softmax', "self._add_grad(grad - np.exp(out) * np.sum(grad, axis=ax))",
     'keepdims_lost', 1),
    ('softmax', 'Tensor.log_softmax', "p = np.exp(out)\nself._add_grad(grad * (1 - p))", 'log_softmax_diagonal', 2),
    # cross_entropy
    ('cross_entropy', 'cross_entropy',
     "p = np.exp(log_probs)\np[rows, picked] -= 1\np[~counted] = 0\nlogits._add_grad(p * grad)", 'ce_not_averaged', 4),
    ('cross_entropy', 'cross_entropy',
     "p = np.exp(log_probs)\np[rows, picked] -= 1\np[~counted] = 0\nlogits._add_grad(p * grad / p.shape[0])",
     'ce_all_rows', 4),
    ('cross_entropy', 'cross_entropy',
     "p = np.exp(log_probs)\np[np.arange(len(picked)), picked] -= 1\nlogits._add_grad(p * grad / n_counted)",
     'ce_ignored_rows', 3),
    ('cross_entropy', 'cross_entropy',
     "p = np.exp(log_probs)\np[:, picked] -= 1\np[~counted] = 0\nlogits._add_grad(p * grad / n_counted)",
     'ce_columns', 2),
    ('cross_entropy', 'cross_entropy',
     "p = np.exp(log_probs)\np[rows, picked] -= 1\np[~counted] = 0\nlogits._add_grad(p / n_counted)", 'upstream', 4),
    # rms_norm
    ('rms_norm', 'rms_norm', "x._add_grad(r * grad)", 'rms_constant', 1),
    ('rms_norm', 'rms_norm', "x._add_grad(r * (grad - y * np.sum(grad * y, axis=-1, keepdims=True)))",
     'rms_not_divided', 1),
    ('rms_norm', 'rms_norm', "x._add_grad(r * (grad - y * np.mean(grad * y, axis=-1)))", 'keepdims_lost', 1),
    # attention
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ np.swapaxes(vd, -1, -2)\nds = p * (dp - np.sum(p * dp, axis=-1, keepdims=True))\n"
     "q._add_grad(ds @ kd)\nk._add_grad(np.swapaxes(ds, -1, -2) @ qd)\nv._add_grad(np.swapaxes(p, -1, -2) @ grad)",
     'attn_no_scale', 3),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ np.swapaxes(vd, -1, -2)\nds = p * (dp - np.sum(p * dp, axis=-1, keepdims=True)) * scale\n"
     "q._add_grad(ds @ kd)\nk._add_grad(np.swapaxes(ds, -1, -2) @ qd)\nv._add_grad(p @ grad)",
     'attn_v_untransposed', 5),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ np.swapaxes(vd, -1, -2)\nds = dp * p * (1 - p) * scale\n"
     "q._add_grad(ds @ kd)\nk._add_grad(np.swapaxes(ds, -1, -2) @ qd)\nv._add_grad(np.swapaxes(p, -1, -2) @ grad)",
     'attn_softmax_diagonal', 2),
    # one parent's gradient only: its sign, its chain factor
    ('+ *', 'Tensor.__mul__', "self._add_grad(grad * y)\nother._add_grad(-grad * x)", 'sign', 2),
    ('matmul', 'Tensor.__matmul__',
     "self._add_grad(grad @ b.swapaxes(-1, -2))\nother._add_grad(a.swapaxes(-1, -2) @ np.ones_like(grad))",
     'upstream', 2),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ vd.swapaxes(-2, -1)\nds = p * (dp - (p * dp).sum(axis=-1, keepdims=True)) * scale\n"
     "q._add_grad(ds @ kd)\nk._add_grad(ds.swapaxes(-2, -1) @ qd)\nv._add_grad(-p.swapaxes(-2, -1) @ grad)", 'sign', 5),
    # the forward pass's arrays written in place
    ('elementwise', 'Tensor.exp', "np.multiply(e, grad, out=e)\nself._add_grad(e)", 'inplace_data', 1),
    ('elementwise', 'Tensor.tanh', "t[...] = 1 - t * t\nself._add_grad(grad * t)", 'inplace_data', 1),
    ('softmax', 'Tensor.softmax', "np.multiply(s, grad - (grad * s).sum(axis=ax, keepdims=True), out=s)\n"
                                  "self._add_grad(s)", 'inplace_data', 1),
    # the harder ops' own slips, and two at once
    ('softmax', 'Tensor.softmax', "self._add_grad(grad - np.sum(s * grad, axis=ax, keepdims=True))",
     'softmax_outer_s', 1),
    ('softmax', 'Tensor.softmax', "self._add_grad(s * (grad - np.mean(grad * s, axis=ax, keepdims=True)))",
     'softmax_mean', 1),
    ('softmax', 'Tensor.log_softmax',
     "p = np.exp(out)\nself._add_grad(grad - p * grad - p * np.sum(grad, axis=ax, keepdims=True))",
     'log_softmax_double', 2),
    ('cross_entropy', 'cross_entropy', "p = np.exp(log_probs)\np[rows, picked] += 1\np[~counted] = 0\n"
                                       "logits._add_grad(p * grad / n_counted)", 'ce_one_hot_sign', 2),
    ('cross_entropy', 'cross_entropy', "p = np.exp(log_probs) / n_counted\np[rows, picked] -= 1\np[~counted] = 0\n"
                                       "logits._add_grad(p * grad)", 'ce_half_averaged', 1),
    ('rms_norm', 'rms_norm', "x._add_grad(r * grad - y * np.mean(grad * y, axis=-1, keepdims=True))", 'rms_x_for_y', 1),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ vd.swapaxes(-2, -1)\nds = (dp - (p * dp).sum(axis=-1, keepdims=True)) * scale\n"
     "q._add_grad(ds @ kd)\nk._add_grad(ds.swapaxes(-2, -1) @ qd)\nv._add_grad(p.swapaxes(-2, -1) @ grad)",
     'attn_softmax_no_p', 2),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ vd.swapaxes(-2, -1)\nds = p * (dp - (p * dp).sum(axis=-1, keepdims=True)) * scale\n"
     "q._add_grad(ds @ kd)\nk._add_grad(ds @ qd)\nv._add_grad(p @ grad)", 'attn_k_untransposed', 4),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ vd.swapaxes(-2, -1)\nds = p * (dp - (p * dp).sum(axis=-1, keepdims=True)) * scale\n"
     "q._add_grad(ds @ kd)\nk._add_grad(ds.swapaxes(-2, -1) @ qd)\nv._add_grad(p.swapaxes(-2, -1) @ grad * scale)",
     'factor', 5),
    ('matmul', 'Tensor._matmul_rows',
     "g = grad.reshape(n_rows, b.shape[1])\nself._add_grad((g @ b.T).reshape(a.shape))\n"
     "other._add_grad(rows.T @ g / n_rows)", 'factor', 3),
    # a local derivative read off the numbers, as a formula
    ('elementwise', 'Tensor.tanh', "self._add_grad(grad * (1 - np.tanh(t) ** 2))", 'local_derivative', 1),
    ('elementwise', 'Tensor.log', "self._add_grad(grad * -1 / x ** 2)", 'local_derivative', 1),
    ('elementwise', 'Tensor.relu', "self._add_grad(grad * np.sign(self.data))", 'local_derivative', 1),
    ('elementwise', 'Tensor.tanh', "self._add_grad(grad * 2 * self.data)", 'local_derivative', 1),
    # a fixed axis where the op's own belongs
    ('sum mean', 'Tensor.sum', "if not keepdims and ax:\n    grad = np.expand_dims(grad, -1)\n"
                               "self._add_grad(np.broadcast_to(grad, self.data.shape))", 'wrong_axis', 3),
    ('sum mean', 'Tensor.mean', "if not keepdims and ax:\n    grad = np.expand_dims(grad, 0)\n"
                                "self._add_grad(np.broadcast_to(grad / n, self.data.shape))", 'wrong_axis', 3),
    # the lecture's habits: out.grad for grad, += on a .grad that is still None
    ('+ *', 'Tensor.__mul__', "self._add_grad(out.grad * y)\nother._add_grad(out.grad * x)", 'out_undefined', 1),
    ('elementwise', 'Tensor.exp', "self._add_grad(out.data * out.grad)", 'out_undefined', 1),
    ('+ *', 'Tensor.__add__', "self.grad += grad\nother.grad += grad", 'grad_none', 1),
    ('backward', 'Tensor.backward()', "order = self._topological_order()\nfor node in order:\n    node.grad = None\n"
                                      "for node in reversed(order):\n    node._backward(node.grad)",
     'backward_no_seed', 4),
    # reductions by hand, fixed axes, factors, transposed shapes: said by their shapes and numbers
    ('unbroadcast', 'unbroadcast',
     "extra = grad.ndim - len(shape)\nreturn grad.sum(axis=tuple(range(extra)), keepdims=True)", 'not_reshaped', 2),
    ('unbroadcast', 'unbroadcast', "if grad.shape == shape:\n    return grad\nreturn grad.sum(axis=0)",
     'wrong_axis', 3),
    ('+ *', 'Tensor.__add__', "self._add_grad(grad)\nother._add_grad(grad.sum(axis=0))", 'handed_wrong_shape', 2),
    ('+ *', 'Tensor.__mul__', "self._add_grad((grad * y).sum(axis=0))\nother._add_grad((grad * x).sum(axis=0))",
     'handed_wrong_shape', 1),
    ('+ *', 'Tensor.__mul__', "if self.requires_grad:\n    self._add_grad(grad * y.T)\nif other.requires_grad:\n"
                              "    other._add_grad(grad * x)", 'shape', 2),  # NumPy's shape error, in the case's terms
    ('elementwise', 'Tensor.exp', "self._add_grad(grad * np.exp(self.data - 1) * self.data)", 'exp_power_rule', 1),
    ('sum mean', 'Tensor.sum',
     "self._add_grad(np.broadcast_to(np.expand_dims(grad, ax) if ax else grad, self.data.shape))",
     'keepdims_ignored', 1),
    ('sum mean', 'Tensor.mean', "if not keepdims and ax:\n    grad = np.expand_dims(grad, ax)\n"
                                "self._add_grad(np.broadcast_to(grad, self.data.shape) / len(self.data))", 'factor', 3),
    ('max', 'Tensor._extreme', "grad = np.reshape(grad, top.shape)\nis_top = x == top\n"
                               "self._add_grad(grad * is_top / is_top.sum())", 'ties_counted_everywhere', 3),
    ('getitem', 'Tensor.__getitem__', "full = np.zeros_like(self.data)\nfull[picked] = full[picked] + grad\n"
                                      "self._add_grad(full)", 'index_overwritten', 2),
    ('matmul', 'Tensor.__matmul__', "self._add_grad(grad @ b.swapaxes(-1, -2))\nother._add_grad(a.T @ grad)",
     'batch_transpose', 2),
    ('matmul', 'Tensor.__matmul__', "self._add_grad(grad @ b.swapaxes(-1, -2))\n"
                                    "other._add_grad(grad.swapaxes(-1, -2) @ a)", 'handed_wrong_shape', 2),
    ('matmul', 'Tensor.__matmul__', "self._add_grad(grad @ b.swapaxes(-1, -2))\n"
                                    "other._add_grad((a.swapaxes(-1, -2) @ grad).sum(axis=0))",
     'handed_wrong_shape', 2),
    ('matmul', 'Tensor.__matmul__', "self._add_grad(np.dot(grad, b.T))\nother._add_grad(np.dot(a.T, grad))",
     'shape', 1),
    ('softmax', 'Tensor.softmax', "self._add_grad(s * (grad - (grad * s).sum(axis=0, keepdims=True)))",
     'wrong_axis', 1),
    ('softmax', 'Tensor.softmax', "self._add_grad(s * (grad - (grad * s).sum(axis=-1, keepdims=True)))",
     'wrong_axis', 1),
    ('softmax', 'Tensor.log_softmax', "self._add_grad(grad - np.exp(out) * grad.sum())", 'softmax_sum_all', 1),
    ('cross_entropy', 'cross_entropy', "g = np.exp(log_probs)\ng[rows, picked] -= 1\ng[~counted] = 0\n"
                                       "logits._add_grad(g * grad / n_counted / log_probs.shape[1])", 'factor', 4),
    ('rms_norm', 'rms_norm', "x._add_grad(2 * r * (grad - y * (grad * y).mean(axis=-1, keepdims=True)))", 'factor', 1),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ vd.swapaxes(-2, -1)\nds = p * (dp - (p * dp).sum(axis=-1, keepdims=True)) / scale\n"
     "q._add_grad(ds @ kd)\nk._add_grad(ds.swapaxes(-2, -1) @ qd)\nv._add_grad(p.swapaxes(-2, -1) @ grad)",
     'factor', 2),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ vd.swapaxes(-2, -1)\nds = p * (dp - (p * dp).sum(axis=-1, keepdims=True)) * scale\n"
     "q._add_grad(ds @ kd)\nk._add_grad(ds.swapaxes(-2, -1) @ qd)", 'one_parent'),
    ('backward', 'Tensor.backward()', "order = self._topological_order()\n"
                                      "self._add_grad(np.ones_like(self.data) if grad is None else np.asarray(grad))\n"
                                      "for node in reversed(order):\n    node._backward(node.grad)",
     'backward_no_reset', 1),
    # the reset loop left out: said at the line that makes the order, where the loop belongs (never at a comment)
    ('backward', 'Tensor.backward()',
     "# the order, as self._topological_order() gives it: each node after the ones it was made from\n"
     "order = self._topological_order()\n"
     "self._add_grad(np.ones_like(self.data) if grad is None else np.asarray(grad, dtype=self.data.dtype))\n"
     "for node in reversed(order):\n    node._backward(node.grad)", 'backward_no_reset', 2),
    ('backward', 'Tensor.backward()',
     "topo, visited = [], set()\ndef build_topo(v):\n    if v not in visited:\n        visited.add(v)\n"
     "        for child in v._prev:\n            build_topo(child)\n        topo.append(v)\n"
     "# build_topo(self) lists every node, the leaves too\nbuild_topo(self)\n"
     "self._add_grad(np.ones_like(self.data) if grad is None else np.asarray(grad, dtype=self.data.dtype))\n"
     "for node in reversed(topo):\n    if node._prev:\n        node._backward(node.grad)", 'backward_no_reset', 9),
    ('backward', 'Tensor.backward()',
     "order = self._topological_order()\nfor node in order:\n    node.grad = None\n"
     "self._add_grad(np.ones_like(self.data) if grad is None else np.asarray(grad, dtype=self.data.dtype))\n"
     "for node in order:\n    assert node.grad is not None\n    node._backward(node.grad)", 'backward_not_reversed', 5),
    # graded done before: a gradient whose shape only the library's _add_grad made right, min, a saved array written
    ('matmul', 'Tensor._matmul_rows',
     "g = grad.reshape(n_rows, -1)\nself._add_grad(g @ b.T)\nother._add_grad(rows.T @ g)", 'not_reshaped', 2),
    ('reshape', 'Tensor.reshape', "self._add_grad(grad.copy())", 'not_reshaped', 1),
    ('max', 'Tensor._extreme', "g = np.reshape(grad, top.shape)\nm = x == np.max(x, axis=ax, keepdims=True)\n"
                               "self._add_grad(g * m / m.sum(axis=ax, keepdims=True))", 'extreme_max_only', 2),
    ('cross_entropy', 'cross_entropy', "np.exp(log_probs, out=log_probs)\nlog_probs[rows, picked] -= 1\n"
                                       "log_probs[~counted] = 0\nlogits._add_grad(log_probs * grad / n_counted)",
     'inplace_saved', 1),
    ('+ *', 'Tensor.__mul__', "if self.requires_grad:\n    self._add_grad(grad * y)\nif other.requires_grad:\n"
                              "    other._add_grad((grad * x).sum(axis=1))", 'handed_wrong_shape', 4),
    # caught before, but not named (or misnamed)
    ('reshape', 'Tensor.reshape', "self._add_grad(np.reshape(grad, self.data.shape, order='F'))", 'reshape_fortran', 1),
    ('softmax', 'Tensor.softmax',
     "xs = self.data\nself._add_grad(xs * (grad - np.sum(grad * xs, axis=ax, keepdims=True)))", 'softmax_at_input', 2),
    ('cross_entropy', 'cross_entropy', "p = np.exp(log_probs)\np[rows, picked - 1] -= 1\np[~counted] = 0\n"
                                       "logits._add_grad(p * grad / n_counted)", 'ce_one_hot_off_by_one', 2),
    ('attention', 'scaled_dot_product_attention',
     "dp = grad @ np.swapaxes(vd, -1, -2)\nds = p * (dp - np.sum(p * dp, axis=-1, keepdims=True)) * scale\n"
     "q._add_grad(ds @ qd)\nk._add_grad(np.swapaxes(ds, -1, -2) @ qd)\nv._add_grad(np.swapaxes(p, -1, -2) @ grad)",
     'attn_dq_operand', 3),
    ('backward', 'Tensor.backward()',
     "topo = []\ndef build(v):\n    for p in v._prev:\n        build(p)\n    topo.append(v)\nbuild(self)\n"
     "for v in topo:\n    if v._prev:\n        v.grad = None\nif grad is None:\n    grad = np.ones_like(self.data)\n"
     "self._add_grad(np.asarray(grad, dtype=self.data.dtype))\nfor v in reversed(topo):\n    if v._prev:\n"
     "        v._backward(v.grad)", 'backward_sort_revisits', 5),
    ('matmul', 'Tensor.__matmul__',
     "self._add_grad(grad @ a.swapaxes(-1, -2))\nother._add_grad(a.swapaxes(-1, -2) @ grad)",
     'matmul_wrong_operand', 1),
    ('matmul', 'Tensor.__matmul__', "self._add_grad(grad @ np.swapaxes(b, -1, -2))\n"
                                    "other._add_grad(np.swapaxes(b, -1, -2) @ grad)", 'matmul_wrong_operand', 2),
    ('unbroadcast', 'unbroadcast',
     "axes = [i for i, n in enumerate(shape) if n == 1] + list(range(len(shape), grad.ndim))\n"
     "return grad.sum(axis=tuple(axes), keepdims=True).reshape(shape)", 'left_aligned', 2),
    ('matmul', 'Tensor.__matmul__',
     "self._add_grad(grad @ np.swapaxes(b, 0, 1))\nother._add_grad(np.swapaxes(a, 0, 1) @ grad)",
     'matmul_batch_axes', 1),
    ('sum mean', 'Tensor.mean', "if not keepdims and ax:\n    grad = np.expand_dims(grad, ax)\n"
                                "self._add_grad(np.broadcast_to(grad / self.data.shape[-1], self.data.shape))",
     'factor', 3),
]

RIGHT = [
    # unbroadcast, a loop and with reshape instead of keepdims
    ('unbroadcast', 'unbroadcast',
     "while grad.ndim > len(shape):\n    grad = grad.sum(axis=0)\n"
     "for i, n in enumerate(shape):\n    if n == 1 and grad.shape[i] != 1:\n"
     "        grad = grad.sum(axis=i, keepdims=True)\nreturn grad"),
    ('unbroadcast', 'unbroadcast',
     "extra = grad.ndim - len(shape)\n"
     "axes = tuple(range(extra)) + tuple(extra + i for i, n in enumerate(shape) if n == 1)\n"
     "return np.sum(grad, axis=axes).reshape(shape)"),
    ('unbroadcast', 'unbroadcast',
     "out = np.zeros(shape, dtype=grad.dtype)\nnp.add(out, grad.sum(axis=tuple(range(grad.ndim - len(shape)))"
     ").sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True), out=out)\nreturn out"),
    # + and *
    ('+ *', 'Tensor.__mul__', "for t, d in ((self, y), (other, x)):\n    if t.requires_grad:\n"
                              "        t._add_grad(np.multiply(grad, d))"),
    ('+ *', 'Tensor.__mul__', "if self.requires_grad:\n    self._add_grad(unbroadcast(grad * y, self.data.shape))\n"
                              "if other.requires_grad:\n    other._add_grad(unbroadcast(x * grad, other.data.shape))"),
    ('+ *', 'Tensor.__add__', "for t in (self, other):\n    if t.requires_grad:\n        t._add_grad(grad.copy())"),
    # elementwise
    ('elementwise', 'Tensor.exp', "self._add_grad(grad * np.exp(self.data))"),
    ('elementwise', 'Tensor.log', "self._add_grad(np.divide(grad, self.data))"),
    ('elementwise', 'Tensor.tanh', "self._add_grad(grad * (1 - np.tanh(self.data) ** 2))"),
    ('elementwise', 'Tensor.tanh', "self._add_grad(grad / np.cosh(self.data) ** 2)"),
    ('elementwise', 'Tensor.relu', "self._add_grad(np.where(self.data > 0, grad, 0))"),
    ('elementwise', 'Tensor.relu', "self._add_grad(grad * (self.data > 0))"),
    # sum and mean, with reshape instead of expand_dims
    ('sum mean', 'Tensor.sum',
     "shape = [1 if ax is None or i in ax else n for i, n in enumerate(self.data.shape)]\n"
     "self._add_grad(np.reshape(grad, shape) * np.ones_like(self.data))"),
    ('sum mean', 'Tensor.mean',
     "shape = [1 if ax is None or i in ax else n for i, n in enumerate(self.data.shape)]\n"
     "self._add_grad(np.broadcast_to(np.reshape(grad, shape), self.data.shape) / n)"),
    # max
    ('max', 'Tensor._extreme',
     "g = np.reshape(grad, top.shape)\nmask = (x == top).astype(x.dtype)\n"
     "self._add_grad(g * mask / mask.sum(axis=ax, keepdims=True))"),
    # reshape and permute
    ('reshape', 'Tensor.reshape', "self._add_grad(np.reshape(grad, self.data.shape))"),
    ('reshape', 'Tensor.permute', "self._add_grad(np.transpose(grad, np.argsort(order)))"),
    ('reshape', 'Tensor.permute', "self._add_grad(np.moveaxis(grad, range(len(order)), order))"),
    # indexing
    ('getitem', 'Tensor.__getitem__',
     "full = np.zeros(self.data.shape, dtype=grad.dtype)\nnp.add.at(full, picked, grad)\nself._add_grad(full)"),
    # matmul with einsum, and with tensordot for the rows
    ('matmul', 'Tensor.__matmul__', "self._add_grad(np.einsum('...ij,...kj->...ik', grad, b))\n"
                                    "other._add_grad(np.einsum('...ij,...ik->...jk', a, grad))"),
    ('matmul', 'Tensor._matmul_rows',
     "self._add_grad(grad @ b.T)\n"
     "other._add_grad(np.tensordot(a, grad, axes=(list(range(a.ndim - 1)), list(range(a.ndim - 1)))))"),
    # softmax
    ('softmax', 'Tensor.softmax', "dot = np.sum(grad * s, axis=ax, keepdims=True)\nself._add_grad(s * grad - s * dot)"),
    ('softmax', 'Tensor.log_softmax',
     "p = np.exp(out)\nself._add_grad(grad - p * np.sum(grad, axis=ax, keepdims=True))"),
    # cross_entropy with a one-hot matrix
    ('cross_entropy', 'cross_entropy',
     "one_hot = np.zeros_like(log_probs)\none_hot[rows, picked] = 1\n"
     "g = (np.exp(log_probs) - one_hot) * counted[:, None]\nlogits._add_grad(g * grad / n_counted)"),
    # rms_norm
    ('rms_norm', 'rms_norm', "x._add_grad(r * grad - y * r * np.mean(grad * y, axis=-1, keepdims=True))"),
    # attention with einsum
    ('attention', 'scaled_dot_product_attention',
     "dp = np.einsum('...td,...sd->...ts', grad, vd)\n"
     "ds = p * (dp - np.einsum('...ts,...ts->...t', p, dp)[..., None]) * scale\n"
     "q._add_grad(np.einsum('...ts,...sd->...td', ds, kd))\nk._add_grad(np.einsum('...ts,...td->...sd', ds, qd))\n"
     "v._add_grad(np.einsum('...ts,...td->...sd', p, grad))"),
    # backward() with the seed made by hand and the walk by index
    ('backward', 'Tensor.backward()',
     "if grad is None:\n    if self.data.size != 1:\n        raise ValueError('a non-scalar output needs grad=')\n"
     "    grad = np.ones(self.data.shape, dtype=self.data.dtype)\n"
     "grad = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=self.data.dtype)\n"
     "if grad.shape != self.data.shape:\n    raise ValueError('grad has the wrong shape')\n"
     "order = self._topological_order()\nfor node in order:\n    node.grad = None\nself._add_grad(grad)\n"
     "for i in range(len(order) - 1, -1, -1):\n    order[i]._backward(order[i].grad)"),
    # and more written otherwise: x.data for the forward's names, a Jacobian, a recursive sort inside backward()
    ('rms_norm', 'rms_norm',
     "xd = x.data\nx._add_grad(r * grad - xd * r**3 * np.mean(grad * xd, axis=-1, keepdims=True))"),
    ('elementwise', 'Tensor.relu', "self._add_grad(grad * (self.data > 0).astype(float))"),
    ('elementwise', 'Tensor.relu', "self._add_grad(np.where(self.data > 0, grad, 0.0))"),
    ('elementwise', 'Tensor.log', "self._add_grad(grad * self.data ** -1)"),
    ('sum mean', 'Tensor.sum',
     "g = grad if keepdims or ax is None else np.expand_dims(grad, ax)\nself._add_grad(np.ones_like(self.data) * g)"),
    ('sum mean', 'Tensor.mean', "g = grad if keepdims or ax is None else np.expand_dims(grad, ax)\n"
                                "self._add_grad(np.ones_like(self.data) * g * grad.size / self.data.size)"),
    ('cross_entropy', 'cross_entropy', "one_hot = np.eye(log_probs.shape[1])[picked]\n"
                                       "g = (np.exp(log_probs) - one_hot) * counted[:, None]\n"
                                       "logits._add_grad(g * grad / n_counted)"),
    ('reshape', 'Tensor.reshape', "self._add_grad(grad.reshape(self.shape))"),
    ('max', 'Tensor._extreme',
     "mask = x == top\nself._add_grad(mask * np.reshape(grad, top.shape) / mask.sum(axis=ax, keepdims=True))"),
    ('matmul', 'Tensor.__matmul__', "self._add_grad(np.matmul(grad, np.swapaxes(b, -1, -2)))\n"
                                    "other._add_grad(np.matmul(np.swapaxes(a, -1, -2), grad))"),
    ('attention', 'scaled_dot_product_attention',
     "dv = np.swapaxes(p, -1, -2) @ grad\ndp = grad @ np.swapaxes(v.data, -1, -2)\n"
     "ds = p * (dp - (p * dp).sum(-1, keepdims=True))\nq._add_grad(ds @ k.data * scale)\n"
     "k._add_grad(np.swapaxes(ds, -1, -2) @ q.data * scale)\nv._add_grad(dv)"),
    ('softmax', 'Tensor.softmax', "g = np.moveaxis(grad, ax, -1)\nsm = np.moveaxis(s, ax, -1)\n"
                                  "J = sm[..., :, None] * (np.eye(sm.shape[-1]) - sm[..., None, :])\n"
                                  "dx = np.einsum('...ij,...i->...j', J, g)\nself._add_grad(np.moveaxis(dx, -1, ax))"),
    ('unbroadcast', 'unbroadcast', "ndims_added = grad.ndim - len(shape)\nfor _ in range(ndims_added):\n"
                                   "    grad = grad.sum(axis=0)\nfor i, dim in enumerate(shape):\n    if dim == 1:\n"
                                   "        grad = grad.sum(axis=i, keepdims=True)\nreturn grad"),
    ('backward', 'Tensor.backward()',
     "topo, seen = [], set()\ndef build(v):\n    if id(v) not in seen:\n        seen.add(id(v))\n"
     "        for p in v._prev:\n            build(p)\n        topo.append(v)\nbuild(self)\n"
     "for v in topo:\n    if v._prev:\n        v.grad = None\nif grad is None:\n    if self.data.size != 1:\n"
     "        raise ValueError('needs grad')\n    grad = np.ones_like(self.data)\n"
     "self._add_grad(np.asarray(grad, dtype=self.data.dtype))\nfor v in reversed(topo):\n    if v._prev:\n"
     "        v._backward(v.grad)"),
    # min as well as max; a reshape and a product reshaped back; the exp written into a copy of its own
    ('max', 'Tensor._extreme', "g = np.reshape(grad, top.shape)\nhit = np.equal(x, top)\n"
                               "self._add_grad(np.where(hit, g / hit.sum(axis=ax, keepdims=True, dtype=x.dtype), 0))"),
    ('reshape', 'Tensor.reshape', "self._add_grad(np.reshape(grad, self.data.shape, order='C'))"),
    ('matmul', 'Tensor._matmul_rows',
     "g = grad.reshape(-1, grad.shape[-1])\nself._add_grad(np.reshape(g @ b.T, a.shape))\nother._add_grad(rows.T @ g)"),
    ('cross_entropy', 'cross_entropy', "lp = log_probs.copy()\nnp.exp(lp, out=lp)\nlp[rows, picked] -= 1\n"
                                       "lp[~counted] = 0\nlogits._add_grad(lp * grad / n_counted)"),
]
