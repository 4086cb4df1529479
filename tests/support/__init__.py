"""What tests of several areas share: random scalar graphs built alike in micrograd and PyTorch (graphs.py)."""
