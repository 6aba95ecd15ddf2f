"""The corpus functions lowered once per test session, shared by the dump tests."""
import functools

import gradjit
from gradjit.tracer import leaves as L
from gradjit.tracer.pytree import flatten
from tests.e2e.corpus import CASES

BY_NAME = {c.name: c for c in CASES}


@functools.cache
def lowered(name: str, index: int):
    """(Lowered, compiled program, argument leaves as arrays) of corpus case `name` called
    with its input `index`."""
    case = BY_NAME[name]
    f = gradjit.value_and_grad(case.fn, argnums=case.argnums)
    lowering = f.lower(*case.inputs[index])
    leaves = []
    flatten((case.inputs[index], {}), leaves)
    return lowering, f.cache.last.program, [L.to_array(x) for x in leaves]
