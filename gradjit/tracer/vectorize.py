"""np.vectorize on traced values as jax.numpy's: pyfunc vmapped over the broadcast loop axes
(traced once, not per element), a gufunc signature's core axes left to it; outside a trace,
numpy's own vectorize, which it subclasses and replaces in numpy's namespace."""
from __future__ import annotations

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


class vectorize(np.vectorize):  # noqa: N801 - numpy's name
    """numpy.vectorize; called on traced values, otypes and cache have no effect (the result
    types are pyfunc's)."""

    def __call__(self, *args, **kwargs):
        if current_trace() is None or self.pyfunc is np._NoValue:
            return super().__call__(*args, **kwargs)
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
        for x, core in zip(mapped, cores):
            if np.ndim(x) < len(core):
                raise ValueError(f"{np.ndim(x)}-dimensional argument does not have enough "
                                 f"dimensions for all core dimensions {core}")
        loops = [np.shape(x)[:np.ndim(x) - len(core)] for x, core in zip(mapped, cores)]
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


def install():
    """np.vectorize becomes this subclass (once)."""
    if not issubclass(np.vectorize, vectorize):
        np.vectorize = vectorize
