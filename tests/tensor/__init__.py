"""micrograd.tensor: its ops swept from the table in tensor_ops.py against PyTorch, its layers, losses and edges."""
