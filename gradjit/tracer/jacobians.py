"""jacrev, jacfwd, jacobian and hessian as JAX defines them (pytrees in and out).

A Jacobian is one call of a batched program: the pullback (jacrev) or pushforward (jacfwd)
mapped by vmap over the whole basis of the output (input) space, so it is traced and compiled
once and runs the basis as one stack; inside another transformation it inlines the same way
(hessian = jacfwd(jacrev(f)) is one forward-over-reverse program over the identity)."""
from __future__ import annotations

import functools

import numpy as np

from gradjit.tracer import leaves as L
from gradjit.tracer import transforms as T
from gradjit.tracer.api import Transformed, _count, _leaf_dtype
from gradjit.tracer.pytree import flatten, unflatten
from gradjit.tracer.vmap import vmap


def _argnums(argnums, n):
    many = not isinstance(argnums, int)
    nums = tuple(a % n for a in (argnums if many else (argnums,)))
    return nums, many


def _check_dtypes(name, holomorphic, leaves, side):
    """JAX's dtype rules: jacfwd takes real inputs, jacrev gives real outputs, unless
    holomorphic, which needs complex inputs (and, for jacrev, outputs)."""
    for x in leaves:
        dtype = _leaf_dtype(x)
        if holomorphic and dtype.kind != "c":
            raise TypeError(f"{name} with holomorphic=True requires {side}s with complex "
                            f"dtype, but got {dtype.name}.")
        if not holomorphic and dtype.kind == "c" or dtype.kind not in "fc":
            raise TypeError(f"{name} requires real-valued {side}s ({side} dtype that is a "
                            f"sub-dtype of np.floating), but got {dtype.name}. For holomorphic "
                            "differentiation, pass holomorphic=True.")


def _shape(x):
    return tuple(np.shape(x))


def _identity_blocks(leaves):
    """The basis of the space of `leaves`, stacked: per leaf an array (total, *its shape) that
    holds the identity in its rows of the stack and zeros elsewhere, in the leaf's type."""
    sizes = [int(np.prod(_shape(x), dtype=int)) for x in leaves]
    total, offset, blocks = sum(sizes), 0, []
    for x, size in zip(leaves, sizes):
        block = np.zeros((total, size), _leaf_dtype(x))
        block[offset:offset + size] = np.eye(size, dtype=block.dtype)
        block = block.reshape((total,) + _shape(x))
        blocks.append(L.wrap_tensor(block) if L.is_tensor(x) else block)  # Tensors give Tensors
        offset += size
    return blocks, sizes


def _rows(stacked, sizes, shapes, leading):
    """Split a stack over the basis into one array per basis leaf: the stack's rows of that
    leaf, laid out as leading + its shape (basis first) or its shape + leading (basis last)."""
    parts, offset = [], 0
    for size, shape in zip(sizes, shapes):
        part = stacked[offset:offset + size]
        rest = _shape(part)[1:]
        if leading:
            part = np.reshape(part, shape + rest)
        else:
            part = np.reshape(np.moveaxis(part, 0, -1), rest + shape)
        parts.append(part)
        offset += size
    return parts


def jacrev(fn, argnums=0, has_aux=False, holomorphic=False, allow_int=False, *, backend=None,
           argnum=None):
    """The Jacobian of fn with respect to args[argnums] by reverse mode, as jax.jacrev: for
    each output leaf of shape S and differentiated input leaf of shape I, an array of shape
    S + I; the output's tree holds the argument's tree (a tuple of them for tuple argnums).
    With has_aux, fn returns (out, aux) and the call returns (jacobian, aux). `argnum` is
    HIPS autograd's name for argnums. Complex outputs need holomorphic (and then complex
    inputs), as in JAX; with allow_int an integer or bool input's blocks are zeros of its
    dtype, as JAX's."""
    argnums = argnums if argnum is None else argnum
    main = T.main_output(fn, has_aux)

    @functools.cache
    def mapped(nums, count):
        """The pullback of the argnums, mapped over a stack of output cotangents."""
        return vmap(T._pullback(main, nums, False, backend), in_axes=(0,) + (None,) * count,
                    backend=backend)

    def jacobian(*args):
        nums, many = _argnums(argnums, len(args))
        result = T._transformed(fn, "jit", lambda f: f, backend=backend)(*args)
        out, aux = result if has_aux else (result, None)
        out_leaves = []
        out_tree = flatten(out, out_leaves)
        _check_dtypes("jacrev", holomorphic, out_leaves, "output")
        if holomorphic:
            _check_dtypes("jacrev", True, [x for i in nums for x in _leaves(args[i])], "input")
        blocks, sizes = _identity_blocks(out_leaves)
        out_shapes = [_shape(o) for o in out_leaves]
        ints = {i for i in nums if allow_int and
                all(_leaf_dtype(x).kind in "biu" for x in _leaves(args[i]))}
        diff = tuple(i for i in nums if i not in ints)
        pulled = iter(mapped(diff, len(args))(unflatten(out_tree, iter(blocks)), *args)
                      if diff else ())
        per_arg = []  # per argument: per output leaf, the argument's tree of Jacobian blocks
        for i in nums:
            tree = args[i] if i in ints else next(pulled)
            leaves = []
            structure = flatten(tree, leaves)
            split = [[np.zeros(s + _shape(x), _leaf_dtype(x)) for s in out_shapes] if i in ints
                     else _rows(x, sizes, out_shapes, True) for x in leaves]
            per_arg.append([unflatten(structure, iter(parts[k] for parts in split))
                            for k in range(len(out_leaves))])
        jac = unflatten(out_tree, iter(tuple(a[k] for a in per_arg) if many else per_arg[0][k]
                                       for k in range(len(out_leaves))))
        return (jac, aux) if has_aux else jac
    return jacobian


def jacfwd(fn, argnums=0, has_aux=False, holomorphic=False, *, backend=None, argnum=None):
    """The Jacobian of fn with respect to args[argnums] by forward mode, as jax.jacfwd: the
    same layout as jacrev (output shape + input shape per pair of leaves). Complex inputs
    need holomorphic, as in JAX."""
    argnums = argnums if argnum is None else argnum
    main = T.main_output(fn, has_aux)

    @functools.cache
    def mapped(nums, count):
        """The pushforward of the argnums, mapped over a stack of their input tangents."""
        def push(tangents, *args):
            def along(*moved):
                return main(*(moved[nums.index(j)] if j in nums else a
                              for j, a in enumerate(args)))
            # Only the argnums carry tangents, as JAX's argnums_partial: a zero tangent of
            # another argument would still be multiplied through (a dense matmul of zeros).
            # Traced afresh in each trace of push, so no cache keeps the traced arguments.
            jvp = Transformed(T._jvp_wrapper(along), "jvp", backend=backend)
            return jvp(tuple(args[j] for j in nums), tuple(tangents))[1]
        push.__qualname__ = f"jacfwd_{getattr(fn, '__qualname__', 'f')}"
        return vmap(push, in_axes=(0,) + (None,) * count, backend=backend)

    def jacobian(*args):
        nums, many = _argnums(argnums, len(args))
        aux = T._transformed(fn, "jit", lambda f: f, backend=backend)(*args)[1] if has_aux \
            else None
        in_leaves, in_trees = [], []
        for i in nums:
            in_trees.append(flatten(args[i], in_leaves))
        _check_dtypes("jacfwd", holomorphic, in_leaves, "input")
        blocks, sizes = _identity_blocks(in_leaves)
        tangents, start = [], 0
        for tree in in_trees:
            count = _count(tree)
            tangents.append(unflatten(tree, iter(blocks[start:start + count])))
            start += count
        pushed = mapped(nums, len(args))(tuple(tangents), *args)
        out_leaves = []
        out_tree = flatten(pushed, out_leaves)
        shapes = [_shape(x) for x in in_leaves]
        per_out = []
        for stacked in out_leaves:
            parts, start, trees = _rows(stacked, sizes, shapes, False), 0, []
            for tree in in_trees:
                count = _count(tree)
                trees.append(unflatten(tree, iter(parts[start:start + count])))
                start += count
            per_out.append(tuple(trees) if many else trees[0])
        jac = unflatten(out_tree, iter(per_out))
        return (jac, aux) if has_aux else jac
    return jacobian


jacobian = jacrev


def hessian(fn, argnums=0, has_aux=False, holomorphic=False, *, backend=None, argnum=None):
    """jacfwd(jacrev(fn)), as jax.hessian: for a scalar fn of an array x, shape x.shape * 2."""
    argnums = argnums if argnum is None else argnum
    return jacfwd(jacrev(fn, argnums, has_aux, holomorphic, backend=backend), argnums, has_aux,
                  holomorphic, backend=backend)


def _leaves(tree):
    leaves = []
    flatten(tree, leaves)
    return leaves
