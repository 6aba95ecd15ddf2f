"""PyTorch 2.13's CPU autocast lists as one table (op name -> policy) and the wrapper that applies
it, installed once on every listed function and Tensor method: outside autocast, one flag test."""
from __future__ import annotations

import functools
import sys

from gradjit.amp.state import state
from gradjit.tensor import dtypes


def _tensors(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            yield from (t for t in a if hasattr(t, "_edge"))
        elif hasattr(a, "_edge"):
            yield a


def _eligible(t) -> bool:
    """What autocast casts: floating CPU tensors other than float64."""
    return t.dtype.is_floating_point and t.dtype is not dtypes.float64 and \
        t.device.type == "cpu"


def lower_precision_fp(args, kwargs):
    return state.dtype["cpu"]


def fp32(args, kwargs):
    return dtypes.float32


def promote(args, kwargs):
    """The widest eligible input type, starting from the lower-precision one: float32 wins,
    float64 inputs are left out, and the other lower-precision type is refused."""
    current = state.dtype["cpu"]
    for t in _tensors(args, kwargs):
        if not _eligible(t):
            continue
        if current is dtypes.float32 or t.dtype is dtypes.float32:
            current = dtypes.float32
        elif t.dtype is not current:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _argument(args, kwargs, position, name, default):
    return args[position] if len(args) > position else kwargs.get(name, default)


# F.pad reaches reflection_pad1d/2d and replication_pad1d/2d/3d (on the fp32 list) by its mode and
# the number of padded dimensions; reflection_pad3d and the constant and circular pads are not
_FP32_PADS = {("reflect", 1), ("reflect", 2), ("replicate", 1), ("replicate", 2),
              ("replicate", 3)}


def fp32_pads(args, kwargs):
    mode = _argument(args, kwargs, 2, "mode", "constant")
    pairs = len(_argument(args, kwargs, 1, "pad", ())) // 2
    return dtypes.float32 if (mode, pairs) in _FP32_PADS else None


def fp32_without_indices(args, kwargs):
    """max_pool3d is listed; max_pool3d_with_indices, which return_indices=True calls, is not."""
    return None if _argument(args, kwargs, 6, "return_indices", False) else dtypes.float32


def as_is(args, kwargs):
    """Ops off the lists whose gradjit forms call listed ones (the in-place forms, bilinear's
    einsum): they run in their inputs' dtypes."""
    return None


# Composites PyTorch builds from listed ops, so that its autocast sees their mm/bmm/avg_pool3d;
# gradjit computes them directly, so they are listed, under the condition on which PyTorch's
# decomposition reaches the listed op.

def contracting_einsum(args, kwargs):
    """einsum reaches bmm where two operands share a label that the output sums over."""
    inputs, _, output = args[0].replace(" ", "").partition("->")
    terms = [set(term) - {"."} for term in inputs.split(",")]
    shared = {c for i, term in enumerate(terms) for other in terms[i + 1:] for c in term & other}
    return state.dtype["cpu"] if shared - set(output) else None


def inner_of_matrices(args, kwargs):
    """inner is tensordot (mm) unless an operand is a number or both are vectors (dot)."""
    dims = args[0].dim(), args[1].dim()
    return state.dtype["cpu"] if 0 not in dims and dims != (1, 1) else None


def matrix_products(args, kwargs):
    """matrix_power(A, n) multiplies matrices for n >= 2 (n <= -2 inverts in float32 first,
    which this does not reproduce: it runs in the input's dtype)."""
    return state.dtype["cpu"] if _argument(args, kwargs, 1, "n", 0) >= 2 else None


_LOWER_PRECISION = (
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "addbmm", "linear", "matmul",
    "__matmul__", "__rmatmul__", "prelu", "scaled_dot_product_attention")
_FP32 = (
    "avg_pool3d", "binary_cross_entropy", "grid_sample", "prod", "quantile", "nanquantile",
    "cdist", "trace", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "pinverse",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "mse_loss",
    "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "poisson_nll_loss",
    "smooth_l1_loss", "cross_entropy", "l1_loss", "huber_loss", "margin_ranking_loss",
    "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "kl_div",
    "multilabel_margin_loss", "binary_cross_entropy_with_logits", "linalg_cond",
    "linalg_matrix_rank", "linalg_solve", "linalg_cholesky", "linalg_svdvals",
    "linalg_eigvalsh", "linalg_inv", "linalg_tensorinv", "linalg_tensorsolve", "qr", "svd",
    "triangular_solve", "fractional_max_pool2d", "adaptive_max_pool3d", "linalg_qr",
    "linalg_cholesky_ex", "linalg_svd", "linalg_eigh", "linalg_lstsq", "linalg_inv_ex")
_PROMOTE = ("cat", "stack", "index_copy")

POLICIES = {**dict.fromkeys(_LOWER_PRECISION, lower_precision_fp), **dict.fromkeys(_FP32, fp32),
            **dict.fromkeys(_PROMOTE, promote), "pad": fp32_pads,
            "max_pool3d": fp32_without_indices,
            **dict.fromkeys(("addmm_", "addbmm_", "baddbmm_", "index_copy_", "bilinear"),
                             as_is),
            "einsum": contracting_einsum, "inner": inner_of_matrices,
            "matrix_power": matrix_products, "linalg_matrix_power": matrix_products,
            "tensordot": lower_precision_fp, "linalg_multi_dot": lower_precision_fp,
            "lp_pool3d": fp32}
"""PyTorch's name of each op on the CPU autocast lists (torch.*, Tensor, nn.functional and
linalg_* forms) -> the dtype its floating inputs are cast to (None: left as they are)."""


def _cast(value, target):
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, target) for v in value)
    if not hasattr(value, "_edge") or value.dtype is target or not _eligible(value):
        return value
    # A float32 leaf that requires grad (a weight) is cast once per outermost region, so its
    # uses share one ToCopyBackward0, as PyTorch's cast cache does.
    if target is state.dtype["cpu"] and value.dtype is dtypes.float32 and value.requires_grad \
            and value.is_leaf and value._base is None and state.cache_enabled:
        hit = state.cache.get(id(value))
        if hit is None:
            hit = state.cache[id(value)] = (value, value.to(target))
        return hit[1]
    return value.to(target)


def _run(fn, policy, args, kwargs):
    """`fn` on its inputs cast as `policy` says; the ops it calls are not cast again (out= forms
    are not on the lists)."""
    target = None if kwargs.get("out") is not None else policy(args, kwargs)
    if target is not None:
        args = [_cast(a, target) for a in args]
        kwargs = {k: _cast(v, target) for k, v in kwargs.items()}
    state.active = False
    try:
        return fn(*args, **kwargs)
    finally:
        state.active = True


def _wrap(fn, policy):
    @functools.wraps(fn)
    def autocast_op(*args, **kwargs):
        if not state.active:
            return fn(*args, **kwargs)
        return _run(fn, policy, args, kwargs)
    return autocast_op


def locations(name):
    """(namespace, attribute) pairs where gradjit defines the op PyTorch calls `name`."""
    import gradjit
    from gradjit.nn import functional

    spaces = ((gradjit, ""), (gradjit.Tensor, ""), (functional, ""), (gradjit.linalg, "linalg_"))
    return [(space, name[len(prefix):]) for space, prefix in spaces
            if name.startswith(prefix) and hasattr(space, name[len(prefix):])]


def _replace(holder, wrappers):
    """Swap the originals among `holder`'s attributes for their wrappers; classes defined in
    gradjit (Tensor's mixins, layers holding an op as a staticmethod) are holders too."""
    for key, value in list(vars(holder).items()):
        if isinstance(value, staticmethod) and id(value.__func__) in wrappers:
            setattr(holder, key, staticmethod(wrappers[id(value.__func__)]))
        elif id(value) in wrappers:
            setattr(holder, key, wrappers[id(value)])
        elif isinstance(value, type) and value.__module__.split(".")[0] == "gradjit" and \
                value is not holder:
            _replace(value, wrappers)


def install():
    """Replace each listed function wherever gradjit's modules and classes hold it, so internal
    calls and user calls alike come through its one wrapper."""
    wrappers = {}
    for name, policy in POLICIES.items():
        for space, attribute in locations(name):
            fn = getattr(space, attribute)
            wrappers.setdefault(id(fn), _wrap(fn, policy))
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] == "gradjit":
            _replace(module, wrappers)
