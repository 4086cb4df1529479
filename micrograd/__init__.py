"""micrograd: a tiny scalar autograd engine and a neural-net library on top of it."""
from micrograd.engine import Value, no_grad
from micrograd.nn import MLP, SGD, Layer, Module, Neuron

__all__ = ['Value', 'no_grad', 'Module', 'Neuron', 'Layer', 'MLP', 'SGD']
__version__ = '1.0.0'
