"""The scalar engine (Value), nn, the optimizers, and Karpathy's lecture replayed on them."""
