"""The torch surface walked on traced numpy values: (namespace, name, domain, call) rows, `call`
taking the library (gradjit or torch) and the input; generated per namespace from sample args."""
import numpy as np

_rng = np.random.default_rng(7)
_A = _rng.standard_normal((4, 4))
DOMAINS = {
    "x": _rng.standard_normal((4, 5)),
    "pos": _rng.uniform(0.5, 2.0, (4, 5)),
    "unit": _rng.uniform(-0.9, 0.9, (4, 5)),
    "prob": _rng.uniform(0.1, 0.9, (4, 5)),
    "sq": _A + 4 * np.eye(4),
    "spd": _A @ _A.T + 4 * np.eye(4),
    "vec": _rng.standard_normal(5),
    "seq": _rng.standard_normal((2, 3, 8)),
    "img": _rng.standard_normal((1, 2, 6, 6)),
}
OTHER = _rng.standard_normal((4, 5))
IDX = np.array([0, 2, 3])
ROW_IDX = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])
LABELS = np.array([0, 1, 2, 4])
W_CONV1 = _rng.standard_normal((2, 3, 3))
W_CONV2 = _rng.standard_normal((3, 2, 3, 3))
W_LIN = _rng.standard_normal((3, 5))
B_LIN = _rng.standard_normal(3)


def c(lib, array):
    """A constant argument as the library's tensor."""
    return lib.tensor(array)


# Tensor methods PyTorch has and numpy's ndarray lacks: (name, domain, args).
_METHODS = [
    ("abs", "x", ()), ("neg", "x", ()), ("exp", "x", ()), ("log", "pos", ()), ("sin", "x", ()),
    ("cos", "x", ()), ("tan", "unit", ()), ("tanh", "x", ()), ("sigmoid", "x", ()),
    ("relu", "x", ()), ("sqrt", "pos", ()), ("rsqrt", "pos", ()), ("square", "x", ()),
    ("reciprocal", "pos", ()), ("log1p", "pos", ()), ("expm1", "x", ()), ("erf", "x", ()),
    ("erfc", "x", ()), ("erfinv", "unit", ()), ("lgamma", "pos", ()), ("digamma", "pos", ()),
    ("sinh", "x", ()), ("cosh", "x", ()), ("asin", "unit", ()), ("acos", "unit", ()),
    ("atan", "x", ()), ("atanh", "unit", ()), ("asinh", "x", ()), ("log2", "pos", ()),
    ("log10", "pos", ()), ("exp2", "x", ()), ("sinc", "x", ()), ("logit", "prob", ()),
    ("frac", "x", ()), ("floor", "x", ()), ("sign", "x", ()), ("sgn", "x", ()),
    ("deg2rad", "x", ()), ("rad2deg", "x", ()), ("i0", "x", ()), ("nan_to_num", "x", ()),
    ("softmax", "x", (1,)), ("log_softmax", "x", (1,)), ("logsumexp", "x", (1,)),
    ("topk", "x", (2, 1)), ("kthvalue", "x", (2, 1)), ("median", "x", (1,)),
    ("nanmedian", "x", (1,)), ("cummax", "x", (1,)), ("cummin", "x", (1,)),
    ("logcumsumexp", "x", (1,)), ("nansum", "x", ()), ("nanmean", "x", ()),
    ("amax", "x", (1,)), ("amin", "x", (0,)), ("aminmax", "x", ()), ("norm", "x", ()),
    ("dist", "x", ("OTHER",)), ("masked_fill", "x", ("MASK", 0.5)),
    ("index_select", "x", (0, "IDX")), ("gather", "x", (1, "ROW_IDX")),
    ("unfold", "x", (1, 2, 1)), ("narrow", "x", (1, 1, 3)), ("flip", "x", (1,)),
    ("roll", "x", (1, 1)), ("rot90", "x", ()), ("triu", "x", ()), ("tril", "x", (-1,)),
    ("t", "x", ()), ("permute", "x", (1, 0)), ("unsqueeze", "x", (0,)),
    ("movedim", "x", (0, 1)), ("expand", "vec", (3, 5)), ("clamp", "x", (-0.5, 0.5)),
    ("clamp_min", "x", (0.1,)), ("clamp_max", "x", (0.1,)), ("lerp", "x", ("OTHER", 0.3)),
    ("addcmul", "x", ("OTHER", "OTHER")), ("addcdiv", "x", ("OTHER", "POS")),
    ("add", "x", ("OTHER",)), ("sub", "x", ("OTHER",)), ("mul", "x", ("OTHER",)),
    ("div", "x", ("POS",)), ("pow", "pos", (2.5,)), ("float_power", "pos", (2,)),
    ("hypot", "x", ("OTHER",)), ("atan2", "x", ("OTHER",)), ("logaddexp", "x", ("OTHER",)),
    ("xlogy", "pos", ("POS",)), ("maximum", "x", ("OTHER",)), ("minimum", "x", ("OTHER",)),
    ("fmax", "x", ("OTHER",)), ("fmin", "x", ("OTHER",)), ("copysign", "x", ("OTHER",)),
    ("scatter_add", "x", (1, "ROW_IDX", "HALF")), ("index_add", "x", (0, "IDX", "THREE")),
    ("index_fill", "x", (1, "IDX", -1.0)), ("diag", "sq", ()), ("matmul", "x", ("OTHER_T",)),
    ("mm", "x", ("OTHER_T",)), ("mv", "x", ("VEC",)), ("msort", "x", ()),
    ("diff", "x", ()), ("tile", "x", ((1, 2),)), ("repeat_interleave", "x", (2, 0)),
    ("cov", "x", ()), ("corrcoef", "x", ()), ("split", "x", (2,)), ("chunk", "x", (2, 1)),
    ("unbind", "x", ()), ("tensor_split", "x", (2, 1)), ("expand_as", "vec", ("OTHER",)),
    ("detach", "x", ()), ("clone", "x", ()), ("contiguous", "x", ()), ("double", "x", ()),
    ("type_as", "x", ("OTHER",)), ("eq", "x", ("OTHER",)), ("gt", "x", (0.0,)),
    ("logical_not", "x", ()), ("count_nonzero", "x", (1,)), ("inverse", "sq", ()),
    ("det", "sq", ()), ("logdet", "spd", ()), ("slogdet", "sq", ()), ("cholesky", "spd", ()),
    ("matrix_exp", "sq", ()), ("matrix_power", "sq", (3,)), ("pinverse", "x", ()),
    ("renorm", "x", (2, 0, 1.0)), ("polygamma", "pos", (1,)), ("mvlgamma", "pos", (1,)),
    ("hardshrink", "x", ()), ("new_zeros", "x", ((2,),)), ("where", "x", ("MASK", "OTHER")),
    ("sum_to_size", "x", (1, 5)), ("view_as", "x", ("OTHER",)),
]

# torch.*, nn.functional, linalg, special and fft functions of the input: (name, domain, args).
_FUNCTIONS = {
    "torch": [
        ("add", "x", ("OTHER",)), ("std", "x", ()), ("var", "x", (1,)), ("mean", "x", (0,)),
        ("sum", "x", (1,)), ("max", "x", (1,)), ("min", "x", ()), ("prod", "pos", (1,)),
        ("cumsum", "x", (1,)), ("cumprod", "x", (0,)), ("logsumexp", "x", (0,)),
        ("softmax", "x", (0,)), ("std_mean", "x", (1,)), ("var_mean", "x", ()),
        ("quantile", "x", (0.3,)), ("median", "x", ()), ("sort", "x", (1,)),
        ("argsort", "x", (1,)), ("argmax", "x", (1,)), ("topk", "x", (3,)),
        ("where", "MASK", ("SELF", 0.0)), ("einsum", "ij,kj->ik", ("SELF", "OTHER")),
        ("tensordot", "x", ("OTHER_T", 1)), ("cdist", "x", ("OTHER",)),
        ("trapezoid", "x", ()), ("cumulative_trapezoid", "x", ()), ("diff", "x", (1, 0)),
        ("dist", "x", ("OTHER", 3)), ("norm", "x", ()), ("clamp", "x", (-0.3,)),
        ("flip", "x", ((0, 1),)), ("kron", "x", ("SQ2",)), ("outer", "vec", ("VEC",)),
        ("cov", "x", ()), ("corrcoef", "x", ()), ("broadcast_to", "vec", ((3, 5),)),
        ("diagonal", "x", ()), ("diag_embed", "x", ()), ("trace", "sq", ()),
        ("take_along_dim", "x", ("ROW_IDX", 1)), ("addmm", "sq", ("SQ", "SQ")),
        ("inner", "x", ("OTHER",)), ("logaddexp2", "x", ("OTHER",)), ("sinc", "x", ()),
        ("hypot", "x", ("OTHER",)), ("fmod", "x", ("POS",)),
        ("bucketize", "x", ("EDGES",)), ("histc", "x", ()), ("tril", "x", ()),
        ("renorm", "x", (2, 1, 2.0)), ("nanquantile", "x", (0.7, 1)),
        ("cartesian_prod", "vec", ("VEC",)), ("atleast_3d", "x", ()),
        ("block_diag", "sq", ("SQ",)), ("frexp", "x", ()), ("ldexp", "x", ("IDX3",)),
        ("logdet", "spd", ()), ("remainder", "x", ("POS",)), ("searchsorted", "EDGES", ("SELF",)),
    ],
    "torch.nn.functional": [
        ("relu", "x", ()), ("relu6", "x", ()), ("elu", "x", ()), ("selu", "x", ()),
        ("celu", "x", ()), ("gelu", "x", ()), ("silu", "x", ()), ("mish", "x", ()),
        ("softplus", "x", ()), ("softsign", "x", ()), ("tanhshrink", "x", ()),
        ("hardtanh", "x", ()), ("hardswish", "x", ()), ("hardsigmoid", "x", ()),
        ("leaky_relu", "x", ()), ("logsigmoid", "x", ()), ("softmin", "x", (1,)),
        ("softmax", "x", (1,)), ("log_softmax", "x", (0,)), ("glu", "x", (0,)),
        ("normalize", "x", ()), ("layer_norm", "x", ((5,),)), ("rms_norm", "x", ((5,),)),
        ("linear", "x", ("W_LIN", "B_LIN")), ("conv1d", "seq", ("W_CONV1",)),
        ("conv2d", "img", ("W_CONV2",)), ("avg_pool1d", "seq", (2,)),
        ("max_pool1d", "seq", (2,)), ("avg_pool2d", "img", (2,)), ("max_pool2d", "img", (2,)),
        ("adaptive_avg_pool1d", "seq", (3,)), ("lp_pool1d", "seq", (2, 2)),
        ("pad", "x", ((1, 2),)), ("interpolate", "seq", (None, 2.0)),
        ("cross_entropy", "x", ("LABELS",)), ("nll_loss", "x", ("LABELS",)),
        ("mse_loss", "x", ("OTHER",)), ("l1_loss", "x", ("OTHER",)),
        ("smooth_l1_loss", "x", ("OTHER",)), ("huber_loss", "x", ("OTHER",)),
        ("kl_div", "x", ("PROB",)), ("binary_cross_entropy_with_logits", "x", ("PROB",)),
        ("binary_cross_entropy", "prob", ("PROB",)), ("poisson_nll_loss", "x", ("POS",)),
        ("gaussian_nll_loss", "x", ("OTHER", "POS")), ("cosine_similarity", "x", ("OTHER",)),
        ("pairwise_distance", "x", ("OTHER",)), ("pdist", "x", ()),
        ("margin_ranking_loss", "x", ("OTHER", "SIGNS")),
        ("hinge_embedding_loss", "x", ("SIGNS",)), ("soft_margin_loss", "x", ("SIGNS",)),
        ("multilabel_soft_margin_loss", "x", ("PROB",)), ("softshrink", "x", ()),
        ("threshold", "x", (0.1, -1.0)), ("dropout", "x", (0.5, False)),
        ("instance_norm", "seq", ()), ("group_norm", "seq", (1,)),
        ("batch_norm", "seq", (None, None, None, None, True)), ("unfold", "img", (2,)),
        ("pixel_shuffle", "img", (1,)), ("scaled_dot_product_attention", "seq",
                                         ("SELF", "SELF")),
        ("local_response_norm", "seq", (2,)), ("embedding", "IDX", ("SELF",)),
    ],
    "torch.linalg": [
        ("norm", "x", ()), ("vector_norm", "x", (3,)), ("matrix_norm", "x", ()),
        ("det", "sq", ()), ("slogdet", "sq", ()), ("inv", "sq", ()), ("pinv", "x", ()),
        ("solve", "sq", ("OTHER_T4",)), ("cholesky", "spd", ()), ("eigvalsh", "spd", ()),
        ("svdvals", "x", ()), ("matrix_exp", "sq", ()), ("matrix_power", "sq", (2,)),
        ("multi_dot", "LIST", ()), ("vecdot", "x", ("OTHER",)),
        ("cond", "sq", ()),
        ("matrix_rank", "x", ()), ("diagonal", "sq", ()), ("lstsq", "sq", ("OTHER_T4",)),
    ],
    "torch.special": [
        ("erf", "x", ()), ("erfc", "x", ()), ("erfinv", "unit", ()), ("erfcx", "x", ()),
        ("expit", "x", ()), ("logit", "prob", ()), ("xlogy", "pos", ("POS",)),
        ("xlog1py", "pos", ("POS",)), ("gammaln", "pos", ()), ("digamma", "pos", ()),
        ("psi", "pos", ()), ("multigammaln", "pos", (2,)),
        ("i0", "x", ()), ("i0e", "x", ()), ("i1", "x", ()), ("i1e", "x", ()),
        ("ndtr", "x", ()), ("log_ndtr", "x", ()), ("ndtri", "prob", ()), ("sinc", "x", ()),
        ("entr", "pos", ()), ("logsumexp", "x", (1,)), ("softmax", "x", (1,)),
        ("log_softmax", "x", (0,)), ("log1p", "pos", ()), ("expm1", "x", ()),
        ("exp2", "x", ()), ("round", "x", ()),
    ],
    "torch.fft": [
        ("rfft", "x", ()), ("fft", "x", ()), ("ifft", "x", ()), ("fft2", "x", ()),
        ("irfft", "x", ()), ("fftshift", "x", ()), ("hfft", "x", ()), ("rfftn", "x", ()),
    ],
}

METHOD_NAMES = [name for name, _, _ in _METHODS]


def _argument(lib, arg, x):
    """Named sample arguments resolve per library; others are passed as written."""
    if not isinstance(arg, str):
        return arg
    arrays = {
        "OTHER": OTHER, "POS": np.abs(OTHER) + 0.5, "PROB": 1 / (1 + np.exp(-OTHER)),
        "OTHER_T": OTHER.T, "VEC": DOMAINS["vec"], "IDX": IDX, "ROW_IDX": ROW_IDX,
        "LABELS": LABELS, "MASK": OTHER > 0, "HALF": np.full((4, 2), 0.5),
        "THREE": OTHER[:3], "SQ": DOMAINS["sq"], "SQ2": DOMAINS["sq"][:2, :2],
        "OTHER_T4": OTHER[:, :4], "EDGES": np.linspace(-1, 1, 5),
        "IDX3": np.arange(20).reshape(4, 5) % 3, "SIGNS": np.sign(OTHER),
        "W_LIN": W_LIN, "B_LIN": B_LIN, "W_CONV1": W_CONV1, "W_CONV2": W_CONV2,
    }
    return x if arg == "SELF" else c(lib, arrays[arg])


def _call(target, args):
    """call(lib, x): `target(lib)(x, *args)`, or the input placed where "SELF" stands when the
    first argument is a named constant (torch.where(mask, x, 0))."""
    def call(lib, x):
        resolved = [_argument(lib, a, x) for a in args]
        return target(lib, x)(*resolved)
    return call


def _namespace(lib, path):
    for part in path.split(".")[1:]:
        lib = getattr(lib, part)
    return lib


def _function_row(space, name, domain, args):
    if domain in DOMAINS:
        return (f"{space}.{name}", domain,
                _call(lambda lib, x: lambda *a: getattr(_namespace(lib, space), name)(x, *a),
                      args))
    if domain == "LIST":  # a list of traced values (multi_dot)
        return (f"{space}.{name}", "x",
                lambda lib, x: getattr(_namespace(lib, space), name)([x, x.T, x]))
    if domain.isupper():  # a named constant comes first, the input later
        return (f"{space}.{name}", "x", _call(
            lambda lib, x: lambda *a: getattr(_namespace(lib, space), name)(
                _argument(lib, domain, x), *a), args))
    return (f"{space}.{name}", "x",  # an einsum-like leading string
            _call(lambda lib, x: lambda *a: getattr(_namespace(lib, space), name)(domain, *a),
                  args))


ROWS = [(f"Tensor.{name}", domain, _call(lambda lib, x, n=name: getattr(x, n), args))
        for name, domain, args in _METHODS] + \
    [_function_row(space, *row) for space, rows in _FUNCTIONS.items() for row in rows]
