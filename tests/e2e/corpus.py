"""The compiled-vs-eager corpus: functions written as users write them (numpy, gradjit.ops,
Python control flow), each with inputs that take every path it has and the number of traces
those inputs must cause.

Functions spelled with gradjit.ops and operators (`portable=True`) also run on eager Tensors,
whose autograd is then one more reference for the gradient."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import gradjit
from examples import seed
from gradjit import ops as G

rng = np.random.default_rng(2024)


@dataclass
class Case:
    fn: Callable
    inputs: list  # argument tuples
    traces: int = 1  # traces the inputs cause (one per control-flow path)
    argnums: int | tuple = 0
    finite_differences: bool = True  # False where float()/item() cut the dependence
    reference: Callable | None = None  # the expected gradient, where it is not the derivative
    portable: bool = False  # written with gradjit.ops/operators only: runs on Tensors too
    name: str = field(default="")


CASES: list[Case] = []


def case(*inputs, **options):
    def register(fn):
        options.setdefault("name", fn.__name__)
        CASES.append(Case(fn, list(inputs), **options))
        return fn
    return register


def normal(*shape, dtype=np.float64, scale=1.0):
    return (rng.normal(size=shape) * scale).astype(dtype)


def uniform(low, high, *shape, dtype=np.float64):
    return rng.uniform(low, high, shape).astype(dtype)


def two(*shapes, dtype=np.float64):
    """Two argument tuples of random normal arrays with the given shapes."""
    return [tuple(normal(*s, dtype=dtype) for s in shapes) for _ in range(2)]


# ---- the seeds' examples ----

case(*two((2, 2)), portable=True, name="seed_mean_of_cubic")(seed.f)


@case(*two((4,)))
def seed_two_dot(x):
    return 2 * np.dot(x, x)


@case(*two((4,)), finite_differences=False, reference=lambda x: x * x)
def seed_detached_product(x):
    y = x * x
    u = gradjit.stop_gradient(y)
    return np.sum(u * x)


@case((np.array(0.5),), (np.array(-0.5),), (np.array(0.6),), traces=2)
def seed_control_flow(a):
    b = a * 2
    while np.linalg.norm(b) < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return np.sum(c)


@case((normal(3), np.array([0.1, 1.0, 0.0001])), (normal(3) * 100, np.array([0.1, 1.0, 1e-4])),
      traces=2)
def seed_norm_loop_vjp(x, v):
    y = x * 2
    while np.linalg.norm(y) < 1000:
        y = y * 2
    return np.sum(y * v)


@case(*two((3,)), portable=True)
def seed_sum_of_squares(x):
    return G.sum_(x * x)


# ---- elementwise chains ----

@case(*two((5,)), portable=True)
def softplus_chain(x):
    return G.sum_(G.log(G.exp(x) + 1.0))


@case(*two((2, 3)))
def tanh_sin_cos(x):
    return np.sum(np.tanh(np.sin(x) * np.cos(x)))


@case(*two((4,)), portable=True)
def sigmoid_sum(x):
    return G.sum_(G.sigmoid(x * 3.0))


@case(*two((4,)))
def sqrt_of_square_plus_one(x):
    return np.sum(np.sqrt(x * x + 1))


@case(*two((4,)), portable=True)
def rational(x):
    return G.sum_(x / (1.0 + x * x))


@case((uniform(0.5, 2, 4),), (uniform(0.5, 2, 4),))
def fractional_power(x):
    return np.sum(x ** 1.5)


@case(*two((4,)), portable=True)
def cubic(x):
    return G.sum_(x ** 3)


@case(*two((4,)))
def log1p_expm1(x):
    return np.sum(np.log1p(x * x) + np.expm1(x * 0.3))


@case(*two((4,)))
def reciprocal_and_square(x):
    return np.sum(np.reciprocal(np.square(x) + 1))


@case(*two((4,)))
def negated_abs(x):
    return np.sum(-np.abs(x) * 2)


@case((normal(3), 2.0), (normal(3), -1.5), argnums=(0, 1))
def with_python_scalar(x, s):
    return np.sum(x * s) + s * s


@case(*two((6,), dtype=np.float32))
def float32_exp(x):
    return np.sum(np.exp(x * 0.5))


@case((normal(3, dtype=np.float32), 1.5), (normal(3, dtype=np.float32), 0.5), argnums=(0, 1))
def float32_with_python_scalar(x, s):
    return np.sum(np.sin(x) * s)


@case(*two((3,)))
def trigonometry(x):
    return np.sum(np.tan(x * 0.3) + np.sin(x) ** 2 + np.cos(2 * x))


@case(*two((3,)), portable=True)
def subtract_and_divide(x):
    return G.sum_((x - 1.0) / (x * x + 2.0) - 3.0 / (x * x + 1.0))


# ---- broadcasting ----

@case(*two((3,), (4,)), argnums=(0, 1))
def outer_sum_squared(x, y):
    return np.sum((x[:, None] + y[None, :]) ** 2)


@case(*two((3, 4), (4,)), argnums=(0, 1), portable=True)
def bias_add(x, b):
    return G.sum_(G.tanh(x + b))


@case(*two((2, 3, 4), (3, 1)), argnums=(0, 1), portable=True)
def broadcast_scale_3d(x, w):
    return G.sum_(x * w)


@case(*two((3,), (2,)), argnums=(0, 1))
def outer_product(a, b):
    return np.sum(np.outer(a, b) ** 2)


@case(*two((4,), (3, 4)), argnums=(0, 1))
def explicit_broadcast_to(x, y):
    return np.sum(np.broadcast_to(x, (3, 4)) * y)


@case(*two((2, 1, 3), (4, 1)), argnums=(0, 1), portable=True)
def mutual_broadcast(x, y):
    return G.sum_(G.exp((x - y) * 0.1))


# ---- reductions ----

@case(*two((3, 4)))
def sum_axis0_squared(x):
    return np.sum(np.sum(x, axis=0) ** 2)


@case(*two((3, 4)), portable=True)
def center_rows_keepdims(x):
    return G.sum_((x - G.sum_(x, 1, keepdims=True) / 4.0) ** 2)


@case(*two((2, 3, 4)))
def mean_over_two_axes(x):
    return np.sum(np.mean(x, axis=(0, 2)) ** 2)


@case(*two((3, 4)))
def global_max(x):
    return np.max(x) * 2


@case(*two((3, 4)), portable=True)
def max_keepdims_shift(x):
    return G.sum_(G.exp(x - G.amax(x, 1, keepdims=True)))


@case(*two((3, 4)))
def min_axis0(x):
    return np.sum(np.min(x, axis=0) ** 2)


@case(*two((3, 4)))
def variance(x):
    return np.var(x)


@case(*two((3, 4)))
def std_rows(x):
    return np.sum(np.std(x, axis=1))


@case(*two((3, 4)))
def negative_axis_mean(x):
    return np.sum(x.mean(axis=-1, keepdims=True) * x)


@case(*two((4,)), portable=True)
def product_via_logs(x):
    return G.exp(G.sum_(G.log(G.abs_(x) + 1.0)))


# ---- norms, logsumexp, softmax ----

@case(*two((3, 4)))
def frobenius_norm(x):
    return np.linalg.norm(x)


@case(*two((3, 4)), portable=True)
def row_norms(x):
    return G.sum_(G.vector_norm(x, 2, 1))


@case(*two((5,)), portable=True)
def logsumexp_all(x):
    return G.logsumexp(x)


@case(*two((3, 4)), portable=True)
def logsumexp_rows(x):
    return G.sum_(G.logsumexp(x, 1))


@case((normal(3, 4), np.eye(4)[[0, 2, 1]]), (normal(3, 4), np.eye(4)[[3, 3, 0]]), portable=True)
def softmax_cross_entropy(logits, onehot):
    return -G.sum_(G.log_softmax(logits, -1) * onehot)


@case((normal(3, 4), np.array([0, 2, 1])), (normal(3, 4), np.array([3, -1, 3])))
def cross_entropy_by_labels(logits, labels):
    """The tutorials' spelling: each row's label picks its logit."""
    return np.mean(G.logsumexp(logits, 1) - logits[np.arange(logits.shape[0]), labels])


@case((normal(2, 5, 4), np.array([[1], [4]]), np.array([0, -1, 2], np.int32)),
      (normal(2, 5, 4), np.array([[-5], [0]]), np.array([3, 3, -4], np.int32)))
def index_arrays_among_slices(x, i, j):
    """Adjacent index arrays keep their place, separated ones go first (numpy's rule)."""
    return np.sum(np.tanh(x[:, i, j]) ** 2) + np.sum(x[i % 2, 1:3, j] * x[1, i, None, j])


@case(*two((5,), (5,)), argnums=(0, 1), portable=True)
def softmax_weighted(x, w):
    return G.sum_(G.softmax(x) * w)


@case(*two((6,)))
def manual_stable_logsumexp(x):
    m = gradjit.stop_gradient(np.max(x))
    return np.log(np.sum(np.exp(x - m))) + m


@case((normal(3, 4), np.array([True, False, True])),
      (normal(3, 4), np.array([False, False, True])))
def logsumexp_with_masked_rows(x, masked):
    rows = np.where(masked[:, None], -np.inf, x)
    lse = G.logsumexp(rows, 1)
    return np.sum(np.where(np.isfinite(lse), lse, 0.0))


# ---- matmul and MLPs ----

@case(*two((3, 4), (4,)), argnums=(0, 1))
def matvec_tanh(w, x):
    return np.sum(np.tanh(w @ x))


@case(*two((4, 3), (4,), (2, 4), (3,)), argnums=(0, 1, 2))
def mlp_two_layers(w1, b1, w2, x):
    h = np.maximum(w1 @ x + b1, 0)
    return np.sum((w2 @ h) ** 2)


@case(*two((3, 2), (5, 3), (5, 2)))
def readme_loss(w, x, y):
    return np.mean((np.tanh(x @ w) - y) ** 2)


@case(*two((2, 3, 4), (2, 4, 2)), argnums=(0, 1), portable=True)
def batched_matmul(a, b):
    return G.sum_(G.matmul(a, b) ** 2)


@case(*two((3, 4), (4, 2)), argnums=(0, 1))
def dot_2d(x, w):
    return np.dot(x, w).sum()


@case(*two((3,), (3, 4)), argnums=(0, 1))
def vector_matrix(v, m):
    return np.sum(np.sin(v @ m))


@case(*two((4, 3), (4,)), argnums=(0, 1))
def transposed_matvec(x, y):
    return np.sum(x.T @ y)


@case(*two((3, 4)))
def gram_matrix(x):
    return np.sum((x @ x.T) ** 2)


@case(({"w1": normal(4, 3), "b1": normal(4), "w2": normal(1, 4)}, normal(3, 5)),
      ({"w1": normal(4, 3), "b1": normal(4), "w2": normal(1, 4)}, normal(3, 5)))
def mlp_dict_params(params, x):
    h = np.tanh(params["w1"] @ x + params["b1"][:, None])
    return np.mean((params["w2"] @ h) ** 2)


@case(*two((8, 3), (3, 4), (4,), (4, 2)), argnums=(1, 2, 3))
def mlp_float64_relu_softmax(x, w1, b1, w2):
    h = G.relu(x @ w1 + b1)
    return -np.sum(G.log_softmax(h @ w2, -1)[:, 0])


@case(*two((8, 3), (3, 4), (4, 2), dtype=np.float32), argnums=(1, 2))
def mlp_float32(x, w1, w2):
    return np.mean(np.tanh(x @ w1) @ w2)


# ---- indexing and slicing ----

@case(*two((4, 5)))
def basic_slices(x):
    return np.sum(x[1:, ::2] ** 2)


@case(*two((4, 3)))
def integer_indices(x):
    return np.sum(x[0] * x[-1]) + x[2, 1]


@case(*two((5,), (5,)))
def reversed_slice(x, w):
    return np.sum(x[::-1] * w)


@case(*two((4, 3)))
def fancy_repeated_index(x):
    return np.sum(x[[0, 2, 2]] ** 2)


@case(*two((3, 2)))
def constant_boolean_mask(x):
    return np.sum(x[np.array([True, False, True])] ** 2)


@case(*two((3,), (2, 4)), argnums=(0, 1))
def newaxis_and_ellipsis(x, y):
    return np.sum(x[..., None, None] * y[None, ...])


@case((normal(5, 2), np.array([4, 0, 0])), (normal(5, 2), np.array([1, 3, 2])))
def runtime_integer_index(x, idx):
    return np.sum(x[idx] ** 2)


@case(*two((4,)))
def item_assignment(x):
    y = x * 1.0
    y[0] = 0.0
    y[2:] = y[2:] * 3
    return np.sum(y * y)


@case(*two((3, 2)))
def iterate_rows(x):
    return sum(np.sum(row) ** 2 for row in x)


@case((normal(4, 3), 2), (normal(4, 3), 0), traces=2)
def runtime_scalar_index_and_guarded_slice(x, i):
    return np.sum(x[i] ** 2) + np.sum(x[: i + 1])


# ---- concatenation ----

@case(*two((2, 3), (1, 3)), argnums=(0, 1))
def concatenate_rows(x, y):
    return np.sum(np.concatenate([x, y * 2]) ** 2)


@case(*two((2, 3), (2, 2)), argnums=(0, 1), portable=True)
def concatenate_columns(x, y):
    return G.sum_(G.concatenate([x, G.exp(y)], 1) ** 2)


@case(*two((3,), (2, 3)), argnums=(0, 1))
def stack_and_project(x, w):
    return np.sum(np.stack([x, x * x], axis=1) @ w)


# ---- where, maximum, clip ----

@case((np.array([-1.0, 0.0, 2.0, 3.0]),), (np.array([4.0, -2.0, 0.5, -0.1]),),
      finite_differences=False, reference=lambda x: np.where(x > 0, 0.5 / np.sqrt(np.abs(x)), 0))
def where_guards_sqrt_of_negatives(x):
    # the guard on sqrt's input too: the untaken branch's NaN derivative times its zero
    # cotangent would be NaN (as in JAX and PyTorch)
    return np.sum(np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0))


@case((uniform(-2, -0.1, 4),), (uniform(0.1, 2, 4),))
def where_log_branch(x):
    return np.sum(np.where(x > 0, np.log(x), x * x))


@case(*two((5,)))
def relu_squared(x):
    return np.sum(np.maximum(x, 0) ** 2)


@case(*two((5,), (5,)), argnums=(0, 1), portable=True)
def elementwise_minimum(x, y):
    return G.sum_(G.minimum(x, y) * 2.0)


@case((np.array([-1.0, -0.2, 0.1, 0.7, 2.0]),), (normal(5),))
def clip_squared(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2)


@case((np.array([-3.0, -0.5, 0.2, 1.5]),), (normal(4) * 2,))
def huber(x):
    return np.sum(np.where(np.abs(x) < 1, 0.5 * x * x, np.abs(x) - 0.5))


@case(*two((5,)), portable=True)
def gradjit_relu_and_clip(x):
    return G.sum_(G.relu(x) + G.clip(x, -0.3, 0.3) * 2.0)


# ---- loops and branches on values ----

@case((np.array([1.0, 2.0]),), (np.array([-1.0, -2.0]),), (np.array([0.5, 0.1]),), traces=2)
def branch_on_sum(x):
    if x.sum() > 0:
        return np.sum(x ** 2)
    return np.sum(x ** 3)


@case((np.array([3.0, 4.0]),), (np.array([0.3, 0.4]),), (np.array([30.0, 40.0]),), traces=3)
def halve_until_small(x):
    while np.linalg.norm(x) > 1:
        x = x / 2
    return np.sum(x * x)


@case((np.array([1.0, 2.0]),), (np.array([2.0, 3.0]),), traces=2, finite_differences=False,
      reference=lambda x: np.full_like(x, x.mean()))
def float_conversion_detaches(x):
    s = float(x.mean())
    return np.sum(x * s)


@case(*two((3,)))
def fixed_python_loop(x):
    for _ in range(3):
        x = np.sin(x) + x
    return np.sum(x)


@case((normal(3), 2), (normal(3), 3), (normal(3), 2), traces=2)
def loop_count_from_int_argument(x, k):
    for _ in range(int(k)):
        x = x * 1.5
    return np.sum(x)


@case((normal(3), 1.5), (normal(3), -1.0), (normal(3), 2.5), traces=2, argnums=(0, 1))
def branch_on_python_scalar(x, s):
    if s > 0:
        return np.sum(x * s)
    return np.sum(np.exp(x)) * s


@case((np.array([0.1, 0.2]),), (np.array([1.0, 2.0]),), (np.array([5.0, 6.0]),), traces=3)
def elif_chain(x):
    m = x.max()
    if m < 0.5:
        return np.sum(x * 10)
    elif m < 3:
        return np.sum(x ** 2)
    return np.sum(np.log(x))


@case((np.array([1.0, 1.0]),), (np.array([4.0, 4.0]),), (np.array([0.5, 0.5]),), traces=3)
def loop_with_break(x):
    for _ in range(5):
        if x.sum() > 10:
            break
        x = x * 2
    return np.sum(x * x)


@case((np.array([1.0, -2.0, 3.0]),), (np.array([-1.0, 2.0, 3.0]),), traces=2)
def branch_on_element(x):
    return np.sum(x * x) if x[0] > 0 else np.sum(np.abs(x))


@case((np.array([1.0, 2.0]),), (np.array([-3.0, 2.0]),), traces=2, portable=True)
def branch_with_gradjit_ops(x):
    if G.sum_(x) > 0:
        return G.sum_(G.exp(x))
    return G.sum_(x * x)


# ---- several arguments, keyword arguments, nested structures ----

@case(*two((3,), (3,), (3,)), argnums=(0, 2))
def three_args_two_differentiated(a, b, c):
    return np.sum(a * b * c + a * a)


@case(*two((3,), (3,)), argnums=1)
def second_argument_only(a, b):
    return np.sum(np.exp(a) * b)


@case(((normal(3), normal(3)),), ((normal(3), normal(3)),))
def tuple_argument(pair):
    a, b = pair
    return np.sum(a * np.sin(b))


@case(([normal(2), normal(2), normal(2)],), ([normal(2), normal(2), normal(2)],))
def list_argument(xs):
    total = 0.0
    for i, x in enumerate(xs):
        total = total + np.sum(x * (i + 1)) ** 2
    return total


@case(({"a": normal(2), "b": [normal(3), normal(3)]},),
      ({"a": normal(2), "b": [normal(3), normal(3)]},))
def nested_dict_argument(d):
    return np.sum(d["a"] ** 2) + np.sum(d["b"][0] * d["b"][1])


@case(*two((3,), (3,)), argnums=(0, 1))
def unused_argument_gets_zeros(x, unused):
    return np.sum(x * x)


@case((normal(3, dtype=np.float32), normal(3)), (normal(3, dtype=np.float32), normal(3)),
      argnums=(0, 1))
def mixed_precision_promotes(x, y):
    return np.sum(x.astype(np.float32) * y)


# ---- float32 ----

@case(*two((4, 5), dtype=np.float32), portable=True)
def float32_softmax(x):
    return G.sum_(G.softmax(x, 1) * G.softmax(x * 2.0, 0))


@case(*two((3, 4), dtype=np.float32))
def float32_reductions(x):
    return np.sum(np.max(x, axis=1) ** 2) + np.mean(x) * np.sum(x.min(axis=0))


@case(*two((3, 4), dtype=np.float32), portable=True)
def float32_logsumexp_norm(x):
    return G.sum_(G.logsumexp(x, 0)) + G.norm(x)


@case((np.array([0.5, -1.0], np.float32),), (np.array([-0.5, 1.0], np.float32),), traces=2)
def float32_branch(x):
    return np.sum(np.exp(x)) if x[0] > 0 else np.sum(x * x)
