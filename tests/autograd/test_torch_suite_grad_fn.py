"""PyTorch's autograd suite, grad_fn part, side by side with torch: the grad_fn names and
next_functions graphs of common operations applied to leaves."""
import numpy as np
import pytest

from tests.autograd.torch_suite import A, B, cases, check

S = np.array([[2.0, 1.0], [0.5, 3.0], [1.5, -1.0]])


def graph_desc(fn):
    if fn is None:
        return "None"
    inner = ", ".join(graph_desc(f) for f, _ in fn.next_functions)
    return f"{type(fn).__name__}({inner})"


OPS = {
    "add": lambda L, x, y, s: x + y, "add_scalar": lambda L, x, y, s: x + 2,
    "radd": lambda L, x, y, s: 2 + x, "sub": lambda L, x, y, s: x - y,
    "rsub": lambda L, x, y, s: 2 - x, "mul": lambda L, x, y, s: x * y,
    "mul_scalar": lambda L, x, y, s: x * 2, "div": lambda L, x, y, s: x / y,
    "div_scalar": lambda L, x, y, s: x / 2, "rdiv": lambda L, x, y, s: 2 / x,
    "pow_scalar": lambda L, x, y, s: x ** 2, "pow_tensor": lambda L, x, y, s: y.abs() ** x,
    "rpow": lambda L, x, y, s: 2 ** x, "neg": lambda L, x, y, s: -x,
    "exp": lambda L, x, y, s: x.exp(), "log": lambda L, x, y, s: y.abs().log(),
    "sin": lambda L, x, y, s: x.sin(), "tanh": lambda L, x, y, s: x.tanh(),
    "sigmoid": lambda L, x, y, s: x.sigmoid(), "relu": lambda L, x, y, s: x.relu(),
    "abs": lambda L, x, y, s: x.abs(), "sqrt": lambda L, x, y, s: y.abs().sqrt(),
    "clamp": lambda L, x, y, s: x.clamp(-1, 1), "clamp_min": lambda L, x, y, s: x.clamp(min=0),
    "matmul": lambda L, x, y, s: x @ s, "mm": lambda L, x, y, s: x.mm(s),
    "matmul_vec": lambda L, x, y, s: x @ s[:, 0],
    "sum": lambda L, x, y, s: x.sum(), "sum_dim": lambda L, x, y, s: x.sum(1),
    "mean": lambda L, x, y, s: x.mean(), "mean_dim": lambda L, x, y, s: x.mean(0),
    "prod": lambda L, x, y, s: x.prod(), "max": lambda L, x, y, s: x.max(),
    "max_dim": lambda L, x, y, s: x.max(1)[0], "amax": lambda L, x, y, s: x.amax(1),
    "norm": lambda L, x, y, s: x.norm(), "var": lambda L, x, y, s: x.var(),
    "std_dim": lambda L, x, y, s: x.std(0), "cumsum": lambda L, x, y, s: x.cumsum(1),
    "view": lambda L, x, y, s: x.view(3, 2), "reshape": lambda L, x, y, s: x.reshape(6),
    "flatten": lambda L, x, y, s: x.flatten(), "t": lambda L, x, y, s: x.t(),
    "transpose": lambda L, x, y, s: x.transpose(0, 1),
    "permute": lambda L, x, y, s: x.permute(1, 0),
    "unsqueeze": lambda L, x, y, s: x.unsqueeze(0), "squeeze": lambda L, x, y, s:
    x.unsqueeze(0).squeeze(0), "expand": lambda L, x, y, s: x[:1].expand(4, 3),
    "select": lambda L, x, y, s: x[1], "slice": lambda L, x, y, s: x[:, 1:],
    "narrow": lambda L, x, y, s: x.narrow(1, 0, 2),
    "index_tensor": lambda L, x, y, s: x[L.tensor([1, 0, 1])],
    "index_mask": lambda L, x, y, s: x[x > 0],
    "index_select": lambda L, x, y, s: x.index_select(1, L.tensor([2, 0])),
    "gather": lambda L, x, y, s: x.gather(1, L.tensor([[0, 0], [2, 1]])),
    "cat": lambda L, x, y, s: L.cat([x, y]), "stack": lambda L, x, y, s: L.stack([x, y]),
    "clone": lambda L, x, y, s: x.clone(), "contiguous": lambda L, x, y, s: x.t().contiguous(),
    "to_float": lambda L, x, y, s: x.float(), "repeat": lambda L, x, y, s: x.repeat(2, 1),
    "where": lambda L, x, y, s: L.where(x > 0, x, y),
    "masked_fill": lambda L, x, y, s: x.masked_fill(y > 0, 0.0),
    "softmax": lambda L, x, y, s: x.softmax(1),
    "log_softmax": lambda L, x, y, s: x.log_softmax(1),
    "linear": lambda L, x, y, s: L.nn.functional.linear(x, y, y[:, 0]),
    "mse_loss": lambda L, x, y, s: L.nn.functional.mse_loss(x, y),
    "topk": lambda L, x, y, s: x.topk(2)[0], "sort": lambda L, x, y, s: x.sort(1)[0],
    "lerp": lambda L, x, y, s: L.lerp(x, y, 0.3), "addmm": lambda L, x, y, s:
    L.addmm(x[:, :2], x, s), "trace": lambda L, x, y, s: s[:2].trace(),
    "diag": lambda L, x, y, s: x.diag(), "tril": lambda L, x, y, s: x.tril(),
    "flip": lambda L, x, y, s: x.flip(0), "roll": lambda L, x, y, s: x.roll(1, 1),
    "unbind": lambda L, x, y, s: x.unbind()[1], "chunk": lambda L, x, y, s: x.chunk(3, 1)[1],
    "split": lambda L, x, y, s: x.split(1)[0], "dropout_eval": lambda L, x, y, s:
    L.nn.functional.dropout(x, training=False), "square": lambda L, x, y, s: x.square(),
    "reciprocal": lambda L, x, y, s: y.reciprocal(), "sign": lambda L, x, y, s: x.sign(),
    "floor": lambda L, x, y, s: x.floor(), "logsumexp": lambda L, x, y, s: x.logsumexp(1),
    "einsum": lambda L, x, y, s: L.einsum("ij,jk->ik", x, s),
    "minimum": lambda L, x, y, s: L.minimum(x, y), "dot": lambda L, x, y, s: x[0].dot(y[0]),
}


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(OPS, DIFFERENCES))
def test_grad_fn_graph_matches_torch(name):
    def scenario(lib):
        x, y = lib.tensor(A, requires_grad=True), lib.tensor(B, requires_grad=True)
        s = lib.tensor(S, requires_grad=True)
        out = OPS[name](lib, x, y, s)
        return graph_desc(out.grad_fn), out.grad_fn.name()
    check(scenario)
