"""The performance suite: gradjit against the peers a user would pick instead (numpy by hand,
PyTorch eager, torch.compile, JAX jit(grad), numba), run with `python -m benchmarks`."""
