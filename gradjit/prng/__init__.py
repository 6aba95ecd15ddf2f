"""jax.random under gradjit's name (`gradjit.random` also answers torch.random's names):
JAX's threefry2x32 keys and samplers giving JAX's numbers, written as traced numpy (the
rejection loops as host ops)."""
from gradjit.prng import continuous, counts, derived, discrete, gamma_family
from gradjit.prng.continuous import *  # noqa: F401,F403
from gradjit.prng.counts import *  # noqa: F401,F403
from gradjit.prng.derived import *  # noqa: F401,F403
from gradjit.prng.discrete import *  # noqa: F401,F403
from gradjit.prng.gamma_family import *  # noqa: F401,F403
from gradjit.prng.keys import (KeyArray, PRNGKey, clone, fold_in, key,  # noqa: F401
                               key_data, key_dtype, key_impl, split, wrap_key_data)

__all__ = [*continuous.__all__, *counts.__all__, *derived.__all__, *discrete.__all__,
           *gamma_family.__all__, "KeyArray", "PRNGKey", "clone", "fold_in", "key", "key_data",
           "key_dtype", "key_impl", "split", "wrap_key_data"]
