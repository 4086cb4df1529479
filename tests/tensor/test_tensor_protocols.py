"""A Tensor where NumPy or Python expect an array or a number: np.asarray gives its data (as for a PyTorch
tensor, read-only), a list of 0-d tensors makes a tensor, a 0-d tensor is a number to float() and no sequence; indices
refused by name; copy.copy and pickle keep a tensor's data, grad and requires_grad, as PyTorch's do."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import micrograd.tensor as mt


@pytest.mark.parametrize('data, dtype', [([1.0, 2.0], np.float64), (3.0, np.float64), ([[1, 2]], np.int32),
                                         ([True], np.bool_), (np.zeros((0, 2)), np.float16)])
def test_numpy_reads_a_tensor_as_its_data_not_as_a_sequence_of_tensors(data, dtype):
    x = mt.Tensor(data, dtype=dtype, requires_grad=np.dtype(dtype).kind == 'f')
    array = np.asarray(x)
    assert type(array) is np.ndarray and array.dtype == dtype and (np.shares_memory(array, x.data) or x.data.size == 0)
    assert not array.flags.writeable  # no copy, as .numpy(), but read-only (test_tensor_arrays.py)
    assert np.array(x) is not x.data and np.array_equal(np.array(x), x.data)  # np.array copies, as for any array
    assert np.asarray(x, dtype=np.float32).dtype == np.float32


def test_a_list_of_0d_tensors_is_a_tensor_of_their_numbers():
    assert mt.Tensor([mt.Tensor(1.0), mt.Tensor(2.0)]).data.tolist() == [1.0, 2.0]


def test_numpy_functions_take_a_tensor_as_an_array_but_ufuncs_leave_the_op_to_it():
    x = mt.Tensor([1.0, -2.0], requires_grad=True)
    assert np.where(np.array([True, False]), x, 0).tolist() == [1.0, 0.0]
    assert (np.ones(2) * x)._op == '*'  # ndarray * Tensor is Tensor.__rmul__: a node with a gradient
    with pytest.raises(TypeError):
        np.add(np.ones(2), x)  # a ufunc called by name: NumPy refuses to guess


def test_a_0d_tensor_is_a_number_to_python_and_no_sequence():
    x = mt.Tensor(2.5)
    assert float(x) == 2.5 and int(x) == 2 and bool(x) is True
    with pytest.raises(TypeError, match='iteration over a 0-d tensor'):
        iter(x)
    with pytest.raises(TypeError, match='iteration over a 0-d tensor'):
        sum(x)


BAD_INDICES = {
    'a float': (1.0, 'a float'), 'a NumPy float': (np.float64(1), 'a float'),
    'a float in a tuple': ((0, 1.5), 'a float'),
    'a list of floats': ([0.0, 1.0], 'a float'), 'a float array': (np.array([0.0]), 'dtype=np.int64'),
    'a float Tensor': (mt.Tensor([0, 1]), 'dtype=np.int64'), 'a string': ('a', 'valid indices'),
    'out of range': (5, 'out of bounds'), 'out of range in an array': (np.array([0, 5]), 'out of bounds'),
    'too many': ((0, 0, 0), 'too many indices'), 'a mask of the wrong length': (np.array([True]), 'boolean index'),
}


@pytest.mark.parametrize('name', BAD_INDICES)
def test_a_bad_index_is_refused_naming_the_op_and_what_is_wrong(name):
    index, words = BAD_INDICES[name]
    with pytest.raises(IndexError, match=rf'Tensor\.__getitem__: .*{words}'):
        mt.Tensor(np.ones((2, 3)), requires_grad=True)[index]


def test_an_empty_list_is_an_empty_integer_index_as_in_numpy_and_pytorch():
    assert mt.Tensor(np.ones((2, 3)))[[]].shape == (0, 3)


@pytest.mark.parametrize('how', ['copy.copy', 'pickle'])
@pytest.mark.parametrize('made_by_an_op', [False, True], ids=['a leaf', 'made by an op'])
def test_copy_and_pickle_keep_data_grad_and_requires_grad_and_leave_the_graph_as_pytorch(how, made_by_an_op):
    w = mt.Tensor([1.0, 2.0], requires_grad=True)
    t = w * 2 if made_by_an_op else w
    t.grad = np.array([0.5, 0.5]) if not made_by_an_op else None
    c = copy.copy(t) if how == 'copy.copy' else pickle.loads(pickle.dumps(t))
    assert c.data.tolist() == t.data.tolist() and c.requires_grad and c._prev == ()  # a leaf, as PyTorch's
    assert (c.grad is None) == (t.grad is None)
    (c * 3).sum().backward()
    if made_by_an_op:
        assert w.grad is None  # the copy is a leaf of its own: its gradient does not reach the original's leaves


def test_a_model_pickles_and_computes_the_same():
    model = mt.MLP(2, [3, 1], rng=np.random.default_rng(0))
    again = pickle.loads(pickle.dumps(model))
    x = np.ones((4, 2))
    assert np.array_equal(again(x).data, model(x).data) and all(p.requires_grad for p in again.parameters())


def test_in_abs_plus_and_index_as_in_pytorch():
    t = mt.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert 2.0 in t and 5.0 not in t and 3.0 in mt.Tensor(3.0)  # any element equal, as PyTorch (0-d too)
    assert mt.Tensor([1, 2], dtype=np.int64) in mt.Tensor([[1, 2], [3, 4]], dtype=np.int64)
    assert abs(-t)._op == 'abs' and abs(-t).data.tolist() == t.data.tolist() and +t is t
    one = mt.Tensor(1, dtype=np.int64)
    assert [10, 20, 30][one] == 20 and list(range(mt.Tensor(3, dtype=np.int32))) == [0, 1, 2]
    with pytest.raises(TypeError, match=r'Tensor\.__index__: only an integer tensor of one element'):
        [1, 2][mt.Tensor(1.0)]
    with pytest.raises(TypeError, match=r'Tensor\.__contains__'):
        'a' in t  # noqa: B015
    with pytest.raises(TypeError, match=r'Tensor\.\+: .*bool'):
        +(t > 0)  # noqa: B018
