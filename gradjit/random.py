"""torch.random: the default generator's seed and state, and fork_rng."""
from __future__ import annotations

import contextlib

from gradjit.tensor.random import (default_generator, get_rng_state, initial_seed,  # noqa: F401
                                   manual_seed, seed, set_rng_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Within the block, draws leave the default generator as it was before it."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


# jax.random's names (`import gradjit as jax`; `jax.random.normal(key, shape)`): torch.random
# has none of them
from gradjit.prng import *  # noqa: E402,F401,F403
