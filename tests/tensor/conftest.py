"""A fixture for the tensor tests that compare with PyTorch; a module asks for it by its pytestmark
(pytest.mark.usefixtures('torch_in_float64'))."""
import pytest

from tests.tensor.sweep import torch


@pytest.fixture(scope='module')
def torch_in_float64():
    """PyTorch with float64 as its default dtype (ours), on one thread (the tensors are tiny)."""
    if torch is None:
        yield
        return
    dtype, threads = torch.get_default_dtype(), torch.get_num_threads()
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(1)
    yield
    torch.set_default_dtype(dtype)
    torch.set_num_threads(threads)
