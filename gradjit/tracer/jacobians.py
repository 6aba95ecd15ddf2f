"""jacrev, jacfwd, jacobian and hessian as JAX defines them (pytrees in and out).

A Jacobian is assembled from one compiled pullback (jacrev) or pushforward (jacfwd) per basis
vector of the output (input) space: a Python loop of calls of one cached program, unrolled
into the trace when called inside another transformation (so hessian = jacfwd(jacrev(f))
compiles one forward-over-reverse program holding n pullbacks and runs it once per input
basis vector: O(n^2) ops, fine for small n). Batching the basis into one call waits for vmap."""
from __future__ import annotations

import numpy as np

from gradjit.tracer import transforms as T
from gradjit.tracer.api import _leaf_dtype
from gradjit.tracer.pytree import flatten, unflatten


def _argnums(argnums, n):
    many = not isinstance(argnums, int)
    nums = tuple(a % n for a in (argnums if many else (argnums,)))
    return nums, many


def _main(fn, has_aux):
    if not has_aux:
        return fn

    def main(*args):
        return fn(*args)[0]
    return main


def _basis(shape, dtype):
    size = int(np.prod(shape, dtype=int))
    for k in range(size):
        e = np.zeros(size, dtype)
        e[k] = 1
        yield e.reshape(shape)


def _shape(x):
    return tuple(np.shape(x))


def jacrev(fn, argnums=0, has_aux=False, *, backend=None):
    """The Jacobian of fn with respect to args[argnums] by reverse mode, as jax.jacrev: for
    each output leaf of shape S and differentiated input leaf of shape I, an array of shape
    S + I; the output's tree holds the argument's tree (a tuple of them for tuple argnums).
    With has_aux, fn returns (out, aux) and the call returns (jacobian, aux)."""
    main = _main(fn, has_aux)

    def jacobian(*args):
        nums, many = _argnums(argnums, len(args))
        result = T._transformed(fn, "jit", lambda f: f, backend=backend)(*args)
        out, aux = result if has_aux else (result, None)
        pull = T._pullback(main, nums, False, backend)
        out_leaves = []
        out_tree = flatten(out, out_leaves)
        rows = []  # per output leaf: the pulled-back cotangent of each basis vector
        for k, leaf in enumerate(out_leaves):
            pulled = []
            for e in _basis(_shape(leaf), _leaf_dtype(leaf)):
                ct = [e if j == k else np.zeros(_shape(o), _leaf_dtype(o))
                      for j, o in enumerate(out_leaves)]
                grads = pull(unflatten(out_tree, iter(ct)), *args)
                pulled.append(grads)  # a tuple: _pullback takes argnums as a tuple
            rows.append(pulled)
        jac = unflatten(out_tree, iter(
            _assemble([[p[i] for p in rows[k]] for i in range(len(nums))], _shape(leaf), many)
            for k, leaf in enumerate(out_leaves)))
        return (jac, aux) if has_aux else jac
    return jacobian


def jacfwd(fn, argnums=0, has_aux=False, *, backend=None):
    """The Jacobian of fn with respect to args[argnums] by forward mode, as jax.jacfwd: the
    same layout as jacrev (output shape + input shape per pair of leaves)."""
    main = _main(fn, has_aux)

    def jacobian(*args):
        nums, many = _argnums(argnums, len(args))
        aux = T._transformed(fn, "jit", lambda f: f, backend=backend)(*args)[1] if has_aux \
            else None
        pushed = []  # per differentiated argument: the output tangent of each basis vector
        for i in nums:
            in_leaves = []
            in_tree = flatten(args[i], in_leaves)
            columns = []
            for k, leaf in enumerate(in_leaves):
                for e in _basis(_shape(leaf), _leaf_dtype(leaf)):
                    ts = [e if j == k else np.zeros(_shape(x), _leaf_dtype(x))
                          for j, x in enumerate(in_leaves)]
                    tangents = tuple(unflatten(in_tree, iter(ts)) if j == i else _zero_tree(a)
                                     for j, a in enumerate(args))
                    columns.append((k, T.jvp(main, args, tangents, backend=backend)[1]))
            pushed.append((in_tree, in_leaves, columns))
        out_leaves = []
        out_tree = None
        per_arg = []
        for in_tree, in_leaves, columns in pushed:
            per_out = None
            for k, tangent_out in columns:
                leaves = []
                out_tree = flatten(tangent_out, leaves)
                if per_out is None:
                    out_leaves = leaves
                    per_out = [[[] for _ in in_leaves] for _ in leaves]
                for o, t in enumerate(leaves):
                    per_out[o][k].append(t)
            per_arg.append([unflatten(in_tree, iter(
                np.reshape(np.stack(cols, axis=-1), _shape(out_leaves[o]) + _shape(x))
                for cols, x in zip(per_out[o], in_leaves))) for o in range(len(out_leaves))])
        jac = unflatten(out_tree, iter(
            tuple(a[o] for a in per_arg) if many else per_arg[0][o]
            for o in range(len(out_leaves))))
        return (jac, aux) if has_aux else jac
    return jacobian


def _zero_tree(tree):
    leaves = []
    structure = flatten(tree, leaves)
    return unflatten(structure, iter(
        np.zeros(_shape(x), _leaf_dtype(x)) if _leaf_dtype(x).kind == "f" else x
        for x in leaves))


def _assemble(per_arg, out_shape, many):
    """Stack the pulled-back cotangents (one per output element) into out_shape + in_shape
    arrays in each argument's tree."""
    trees = []
    for pulled in per_arg:
        leaves_per_row = []
        structure = None
        for tree in pulled:
            leaves = []
            structure = flatten(tree, leaves)
            leaves_per_row.append(leaves)
        trees.append(unflatten(structure, iter(
            np.reshape(np.stack([row[m] for row in leaves_per_row]),
                       out_shape + _shape(leaves_per_row[0][m]))
            for m in range(len(leaves_per_row[0])))))
    return tuple(trees) if many else trees[0]


jacobian = jacrev


def hessian(fn, argnums=0, has_aux=False, *, backend=None):
    """jacfwd(jacrev(fn)), as jax.hessian: for a scalar fn of an array x, shape x.shape * 2."""
    return jacfwd(jacrev(fn, argnums, has_aux, backend=backend), argnums, has_aux,
                  backend=backend)
