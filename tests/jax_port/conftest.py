"""JAX with 64-bit floats during these tests, as gradjit computes numpy's float64."""
import pytest


@pytest.fixture(autouse=True)
def jax_x64():
    jax = pytest.importorskip("jax")
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)
