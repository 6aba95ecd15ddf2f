"""References for compiled gradients: central differences over nested arguments, and
comparison of nested results with dtype-aware tolerances."""
import numpy as np

from gradjit.tracer.pytree import flatten, unflatten


def to_float64(tree):
    leaves = []
    structure = flatten(tree, leaves)
    return unflatten(structure, iter([np.asarray(x, np.float64) if _is_float32(x) else x
                                      for x in leaves]))


def has_float32(tree) -> bool:
    leaves = []
    flatten(tree, leaves)
    return any(_is_float32(x) for x in leaves)


def _is_float32(x):
    return isinstance(x, (np.ndarray, np.generic)) and x.dtype == np.float32


def central_differences(fn, args, argnums, eps=1e-6):
    """d fn / d args[argnums], by central differences, in the structure of those arguments."""
    many = not isinstance(argnums, int)
    grads = tuple(_one_argument(fn, list(args), n, eps)
                  for n in (argnums if many else (argnums,)))
    return grads if many else grads[0]


def _one_argument(fn, args, n, eps):
    leaves = []
    structure = flatten(args[n], leaves)
    out = []
    for i, leaf in enumerate(leaves):
        base = np.array(leaf, dtype=np.float64)
        grad = np.zeros_like(base)
        for index in np.ndindex(base.shape):
            values = []
            for sign in (1, -1):
                moved = base.copy()
                moved[index] += sign * eps
                new = [moved if j == i else x for j, x in enumerate(leaves)]
                if isinstance(leaf, float):
                    new[i] = float(moved)
                call = list(args)
                call[n] = unflatten(structure, iter(new))
                with np.errstate(all="ignore"):
                    values.append(float(fn(*call)))
            grad[index] = (values[0] - values[1]) / (2 * eps)
        out.append(float(grad) if isinstance(leaf, float) else grad)
    return unflatten(structure, iter(out))


def assert_trees_close(got, want, rtol, atol):
    got_leaves, want_leaves = [], []
    assert flatten(got, got_leaves) == flatten(want, want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        # complex leaves compare as complex: a float64 cast would drop the imaginary parts
        wide = np.complex128 if np.iscomplexobj(g) or np.iscomplexobj(w) else np.float64
        g = np.asarray(g, dtype=wide)
        assert g.shape == np.shape(w), (g.shape, np.shape(w))
        np.testing.assert_allclose(g, np.asarray(w, wide), rtol=rtol, atol=atol)
