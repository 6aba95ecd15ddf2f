"""np.vectorize as jax.numpy has it: pyfunc is vmapped over the broadcast loop axes of its
arguments (traced once, not called per element), the core axes of a gufunc `signature` left
to pyfunc; outside a trace it is numpy's own vectorize."""
from __future__ import annotations

import functools
import re

import numpy as np

from gradjit.tracer.trace import current_trace
from gradjit.tracer.vmap import vmap

_CORE = re.compile(r"\(([^()]*)\)")


def _cores(text: str) -> list[tuple[str, ...]]:
    return [tuple(name for name in group.split(",") if name) for group in _CORE.findall(text)]


def parse_signature(signature: str):
    """The core dimension names of each input and output: "(m,n),(n)->(m)" gives
    ([("m", "n"), ("n",)], [("m",)]) (numpy's vectorize has checked the signature's form)."""
    inputs, outputs = signature.replace(" ", "").split("->")
    return _cores(inputs), _cores(outputs)


class vectorize:  # noqa: N801 - numpy's name
    """numpy.vectorize(pyfunc, excluded=..., signature=...); otypes, doc and cache are
    numpy's when called outside a trace and have no effect on traced calls (the result types
    are pyfunc's)."""

    def __init__(self, pyfunc, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        self.pyfunc, self.excluded = pyfunc, frozenset(excluded or ())
        self.signature = signature
        self._numpy = np.vectorize(pyfunc, otypes, doc, excluded, cache, signature)
        functools.update_wrapper(self, pyfunc)

    def __call__(self, *args, **kwargs):
        if current_trace() is None:
            return self._numpy(*args, **kwargs)
        positions = [i for i in range(len(args)) if i not in self.excluded]
        names = [k for k in kwargs if k not in self.excluded]
        mapped = [np.asarray(args[i]) if _is_number(args[i]) else args[i] for i in positions] + \
            [kwargs[k] for k in names]
        cores = [()] * len(mapped)
        if self.signature is not None:
            cores = parse_signature(self.signature)[0]
            if len(cores) != len(mapped):
                raise TypeError(f"wrong number of positional arguments: expected {len(cores)}, "
                                f"got {len(mapped)}")
        loops = [np.shape(x)[:np.ndim(x) - len(core)] for x, core in zip(mapped, cores)]
        for x, core in zip(mapped, cores):
            if np.ndim(x) < len(core):
                raise ValueError(f"{np.ndim(x)}-dimensional argument does not have enough "
                                 f"dimensions for all core dimensions {core}")
        loop = np.broadcast_shapes(*loops)
        mapped = [np.broadcast_to(x, loop + np.shape(x)[len(shape):])
                  for x, shape in zip(mapped, loops)]

        def call(*values):
            full, kw = list(args), dict(kwargs)
            for i, v in zip(positions, values):
                full[i] = v
            kw.update(zip(names, values[len(positions):]))
            return self.pyfunc(*full, **kw)
        for _ in loop:
            call = vmap(call)
        return call(*mapped)


def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float, complex, np.generic))
