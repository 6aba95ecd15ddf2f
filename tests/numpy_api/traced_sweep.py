"""Every documented numpy function (np, np.linalg, np.fft) and ndarray's methods through
gradjit's transformations: the first docstring example of each function whose inputs hold a
float64 array, and each method on a float64 matrix, run under gradjit.jit
and gradjit.grad on the default backend and under gradjit.vmap over a batch of three inputs,
compared with numpy (values, per-example values) and central differences (gradients).
`python -m tests.numpy_api.traced_sweep [--only REGEX] [--modes jit,grad,vmap]` prints what
differs per function and the counts."""
import argparse
import collections
import re

import numpy as np

import gradjit
from tests.numpy_api.docstring_examples import (Call, calls, difference, documented_functions,
                                                flat, float_positions, quiet)

MODES = ("jit", "grad", "vmap")
# each example of a vmap batch: the example's float inputs moved by these steps, which keep
# sort orders and signs of the examples' values (a different path needs a new trace)
STEPS = (0.0, 1e-3, -2e-3)


# ndarray's methods and properties that compute values, each applied to a float64 matrix A
# (a second operand, where there is one, is a fixed array)
METHODS = {
    "all": "a.all(axis=0)", "any": "a.any(axis=1)", "argmax": "a.argmax(axis=1)",
    "argmin": "a.argmin()", "argpartition": "a.argpartition(1, axis=1)",
    "argsort": "a.argsort(axis=0)", "astype": "a.astype(np.float32)",
    "choose": "np.array([0, 1, 2]).choose(a[:3])", "clip": "a.clip(-0.5, 0.8)",
    "compress": "a.compress([True, False, True], axis=1)", "conj": "a.conj()",
    "copy": "a.copy()", "cumprod": "a.cumprod(axis=1)", "cumsum": "a.cumsum()",
    "diagonal": "a.diagonal(1)", "dot": "a.dot(a.T)", "flatten": "a.flatten('F')",
    "item": "a.item(2) * a", "max": "a.max(axis=0)", "mean": "a.mean(axis=1)",
    "min": "a.min()", "nonzero": "a[a.nonzero()]",
    "partition": "(b := a.copy(), b.partition(1), np.sort(b))[-1]",
    "prod": "a.prod(axis=1)", "ravel": "a.ravel()", "repeat": "a.repeat(2, axis=0)",
    "reshape": "a.reshape(3, 4)", "round": "a.round(1) + a", "searchsorted":
    "np.sort(a[0]).searchsorted(a[1])", "sort": "(b := a.copy(), b.sort(axis=0), b)[-1]", "squeeze":
    "a[None].squeeze(0)", "std": "a.std(axis=0, ddof=1)", "sum": "a.sum(axis=(0, 1))",
    "swapaxes": "a.swapaxes(0, 1)", "take": "a.take([2, 0], axis=1)", "trace": "a.trace()",
    "transpose": "a.transpose()", "var": "a.var()", "T": "a.T", "mT": "a.mT", "real": "a.real",
    "imag": "a.imag + a", "flat": "a.flat[[1, 5]]", "tolist": "np.array(a.tolist())",
    "__matmul__": "a @ a.T", "__pow__": "a ** 2", "__abs__": "abs(a)",
    "fill": "(b := a.copy(), b.fill(0.5), b * a)[-1]",
    "put": "(b := a.copy(), b.put([0, 5], a[1, :2]), b)[-1]", "__neg__": "-a",
    "__mod__": "a % 0.3", "__floordiv__": "a // 0.3",
}
A = np.linspace(-1.0, 1.3, 12).reshape(4, 3) ** 3


def method_calls():
    """"ndarray.name" -> a Call of the method on A, with numpy's result."""
    chosen = {}
    for name, source in METHODS.items():
        function = eval(f"lambda a: {source}", {"np": np})
        call = Call(f"ndarray.{name}", source, function, [("leaf", 0)], {}, [A.copy()])
        call.expected = call(A.copy())
        chosen[f"ndarray.{name}"] = call
    return chosen


def first_calls():
    """name -> the first example call with a float64 input and numpy's result for it (numpy
    leaves empty's values unspecified: nothing to compare)."""
    chosen = method_calls()
    for name, function in documented_functions():
        if "empty" in name:
            continue
        for call in calls(name, function):
            if not any(leaf.dtype == np.float64 for leaf in call.leaves):
                continue
            try:
                with quiet():
                    call.expected = call(*copies(call.leaves))
            except Exception:
                continue
            if call.expected is not None:
                chosen[name] = call
                break
    return chosen


def copies(leaves):
    return [leaf.copy(order="K") for leaf in leaves]


def jit_problem(call, backend=None):
    with quiet():
        got = gradjit.jit(call, backend=backend)(*copies(call.leaves))
    return difference(got, call.expected)


def weights_for(result, positions):
    leaves = flat(result)
    return [np.linspace(0.5, 1.5, max(np.size(leaves[p]), 1))[:np.size(leaves[p])]
            .reshape(np.shape(leaves[p])) for p in positions]


def weighted_sum(call, positions, weights):
    def total(*leaves):
        out = flat(call(*[x.copy() if isinstance(x, np.ndarray) else x for x in leaves]))
        return sum((out[p] * w).sum() for p, w in zip(positions, weights))
    return total


def central_differences(fn, leaves, n, eps=1e-6):
    grad = np.zeros_like(leaves[n])
    for index in np.ndindex(grad.shape):
        moved = []
        for step in (eps, -eps):
            x = leaves[n].copy()
            x[index] += step
            moved.append(float(fn(*leaves[:n], x, *leaves[n + 1:])))
        grad[index] = (moved[0] - moved[1]) / (2 * eps)
    return grad


def one_sided_differences(fn, leaves, n, side, eps=1e-6):
    at = float(fn(*leaves))
    grad = np.zeros_like(leaves[n])
    for index in np.ndindex(grad.shape):
        x = leaves[n].copy()
        x[index] += side * eps
        grad[index] = side * (float(fn(*leaves[:n], x, *leaves[n + 1:])) - at) / eps
    return grad


def smooth(fn, leaves, n, central):
    """Whether fn is differentiable at the point along leaves[n]: differences from either side
    and central ones over a larger step agree with the central ones (at a kink or a jump there
    is no gradient to compare)."""
    return all(np.allclose(one_sided_differences(fn, leaves, n, side), central, 1e-3, 1e-4)
               for side in (1, -1)) and \
        np.allclose(central_differences(fn, leaves, n, 1e-4), central, 1e-3, 1e-4)


def grad_problem(call, backend=None):
    floats = [i for i, leaf in enumerate(call.leaves) if leaf.dtype == np.float64]
    positions = float_positions(call.expected)
    if not positions or sum(call.leaves[i].size for i in floats) > 64 or not all(
            np.all(np.abs(np.asarray(flat(call.expected)[p], float)) < 1e100)
            for p in positions):
        return None
    total = weighted_sum(call, positions, weights_for(call.expected, positions))
    with quiet():
        got = gradjit.grad(total, argnums=tuple(floats), backend=backend)(*call.leaves)
        for g, n in zip(got, floats):
            want = central_differences(total, call.leaves, n)
            if not np.allclose(g, want, 1e-5, 1e-6) and smooth(total, call.leaves, n, want):
                return f"gradient of input {n} differs: max |diff| {np.max(np.abs(g - want))}"
    return None


def batch(call):
    """The example's inputs as a batch of len(STEPS) along a new axis 0 (float ones moved by
    STEPS, others repeated), and numpy's result per example; None when numpy's results differ
    in shape or type across the batch."""
    per_example = [[leaf + step if leaf.dtype == np.float64 else leaf for leaf in call.leaves]
                   for step in STEPS]
    try:
        with quiet():
            results = [call(*copies(leaves)) for leaves in per_example]
    except Exception:
        return None
    kinds = {tuple((type(x), np.shape(x), np.asarray(x).dtype) if not
                   isinstance(x, tuple) else x for x in flat(r)) for r in results}
    if len(kinds) != 1:
        return None
    return [np.stack(leaves) for leaves in zip(*per_example)], results


def vmap_problem(call, backend="interpreter"):
    batched = batch(call) if all(isinstance(leaf, (np.ndarray, np.generic)) or type(leaf) in
                                 (int, float) or is_sequence(leaf)
                                 for leaf in flat(call.expected)) else None
    if batched is None:  # text, types, dtypes and Python bools are no arrays to map
        return None
    inputs, results = batched
    with quiet():
        got = gradjit.vmap(call, backend=backend)(*inputs)
    got_leaves = flat(got)
    for i, result in enumerate(results):
        expected = flat(result)
        if len(got_leaves) != len(expected):
            return f"{len(got_leaves)} leaves, numpy {len(expected)}"
        example = [leaf if is_sequence(leaf) else np.asarray(leaf)[i] for leaf in got_leaves]
        problem = difference_of_leaves(example, expected)
        if problem:
            return f"example {i}: {problem}"
    return None


def is_sequence(leaf):
    return isinstance(leaf, tuple) and leaf[:1] == ("sequence",)


def difference_of_leaves(got, want):
    for a, b in zip(got, want):
        if is_sequence(b):
            continue
        problem = difference(a, b)
        if problem:
            return problem
    return None


PROBLEM = {"jit": jit_problem, "grad": grad_problem, "vmap": vmap_problem}


def problem(mode, call):
    """Why `call` differs from numpy under `mode`, or None."""
    try:
        return PROBLEM[mode](call)
    except Exception as error:
        return f"raises {type(error).__name__}: {str(error).splitlines()[0][:160]}" if \
            str(error) else f"raises {type(error).__name__}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="", help="regular expression on function names")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated modes")
    options = parser.parse_args()
    counts = collections.Counter()
    for name, call in sorted(first_calls().items()):
        if not re.search(options.only, name):
            continue
        for mode in options.modes.split(","):
            found = problem(mode, call)
            counts[f"{mode} {'failing' if found else 'passing'}"] += 1
            if found:
                print(f"{name} [{mode}] {call.source.splitlines()[0][:60]}: {found}", flush=True)
    print(f"# {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
