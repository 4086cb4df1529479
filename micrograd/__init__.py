"""micrograd: a tiny scalar autograd engine and a neural-net library on top of it."""
from micrograd.engine import Value, no_grad
from micrograd.grad_of_grad import grad, hessian, hvp
from micrograd.nn import MLP, Layer, Module, Neuron
from micrograd.optim import SGD, Adam

__all__ = ['Value', 'no_grad', 'grad', 'hessian', 'hvp', 'Module', 'Neuron', 'Layer', 'MLP', 'SGD', 'Adam']
__version__ = '1.1.0'
