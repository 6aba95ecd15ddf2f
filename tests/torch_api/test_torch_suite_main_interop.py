"""PyTorch's test_torch suite, side by side with torch: numpy interop (from_numpy sharing,
__array__, dtypes, refusals), deepcopy and pickling of tensors, tensor hooks, and multinomial
and bernoulli draws under manual_seed."""
import copy
import io
import pickle

import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DIFFERENCES = {}


def errors(*calls):
    out = []
    for call in calls:
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001 - the error is what the scenario compares
            out.append((type(e).__name__, str(e)))
    return out


@scenario
def from_numpy_shares_memory(lib):
    a = np.arange(6.0).reshape(2, 3)
    t = lib.from_numpy(a)
    t[0, 1] = 10
    a[1, 2] = -1
    v = lib.from_numpy(a[:, ::2])
    return t, a.copy(), v.stride(), v, t.dtype, lib.from_numpy(np.float32(2.5)).shape


@scenario
def from_numpy_dtypes(lib):
    out = []
    for name in ("float16", "float32", "float64", "complex64", "complex128", "int8", "int16",
                 "int32", "int64", "uint8", "bool"):
        out.append(str(lib.from_numpy(np.zeros(2, dtype=name)).dtype))
    return out + errors(lambda: lib.from_numpy(np.zeros(2, dtype=object)),
                        lambda: lib.from_numpy([1, 2]))


@scenario
def from_numpy_byte_order_and_negative_strides(lib):
    return errors(lambda: lib.from_numpy(np.arange(4.0)[::-1]),
                  lambda: lib.from_numpy(np.arange(3, dtype=">i4")).tolist())


@scenario
def numpy_shares_and_array_protocol(lib):
    t = lib.arange(6, dtype=lib.float32).reshape(2, 3)
    n = t.numpy()
    n[0, 0] = 7
    arr = np.asarray(t)
    c = np.array(t.t())
    return [t, arr.dtype.name, c.flags["C_CONTIGUOUS"], c.tolist(),
            np.asarray(t, dtype=np.float64).dtype.name, np.add(t.numpy(), 1).tolist(),
            lib.tensor(np.array([1, 2], dtype=np.int16)).dtype,
            lib.as_tensor(np.arange(3)).dtype, (np.float64(2.0) * lib.ones(2)).dtype,
            (lib.ones(2) * np.float64(2.0)).dtype, lib.tensor(np.float32(1.5)).dtype]


@scenario
def numpy_refusals(lib):
    x = lib.ones(2, requires_grad=True)
    return errors(lambda: x.numpy(), lambda: x.numpy(force=True).tolist(),
                  lambda: lib.ones(2).to(lib.bfloat16).numpy())


@scenario
def tensor_from_numpy_scalars_and_lists(lib):
    return [lib.tensor([np.float32(1.5), 2]), lib.tensor([np.int64(1), np.int64(2)]).dtype,
            lib.tensor(np.bool_(True)).dtype, lib.tensor([[np.float16(1)]]).dtype,
            lib.tensor(np.array(3)).shape]


@scenario
def deepcopy_keeps_sharing_and_flags(lib):
    a = lib.arange(6.0).reshape(2, 3).requires_grad_()
    b = lib.arange(4.0)
    view = b[1:3]
    pair = copy.deepcopy([b, view])
    pair[0][1] = 100
    c = copy.deepcopy(a)
    d = copy.copy(b)
    return [pair[1], c.requires_grad, c.is_leaf, c, c.data_ptr() == a.data_ptr(),
            d.data_ptr() == b.data_ptr(), b]


@scenario
def deepcopy_of_grad_and_nonleaf(lib):
    a = lib.ones(2, requires_grad=True)
    (a * 3).sum().backward()
    c = copy.deepcopy(a)
    out = [c.grad, c.grad is a.grad]
    y = a * 2
    out += errors(lambda: copy.deepcopy(y))
    return out


def _pickled(lib, value):
    buffer = io.BytesIO()
    lib.save(value, buffer)
    buffer.seek(0)
    return lib.load(buffer)


@scenario
def pickling_tensors(lib):
    a = lib.arange(6.0).reshape(2, 3).requires_grad_()
    b = pickle.loads(pickle.dumps(a))
    c = pickle.loads(pickle.dumps(lib.arange(10)[2:8:2]))
    d = pickle.loads(pickle.dumps(lib.tensor([1 + 2j])))
    return [b, b.requires_grad, c, c.stride(), d, pickle.loads(pickle.dumps(lib.float16)),
            pickle.loads(pickle.dumps(lib.Size([2, 3])))]


@scenario
def save_load_keeps_views_shared(lib):
    base = lib.arange(6.0)
    loaded = _pickled(lib, {"base": base, "view": base[2:4]})
    loaded["view"][0] = -1
    return loaded["base"], loaded["view"].storage_offset()


@scenario
def tensor_hooks(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.clone()) or g * 10)
    y = (x * x).sum()
    y.backward()
    first = x.grad.clone()
    h.remove()
    x.grad = None
    (x * x).sum().backward()
    return first, seen, x.grad


@scenario
def hooks_on_nonleaf_and_retain_grad(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: g + 1)
    (y * y).sum().backward()
    return x.grad, y.grad, y.is_leaf, y.retains_grad


@scenario
def hook_errors(lib):
    return errors(lambda: lib.ones(2).register_hook(lambda g: g),
                  lambda: type(lib.ones(2, requires_grad=True).register_hook(5)).__name__)


@scenario
def multinomial_draws(lib):
    lib.manual_seed(0)
    p = lib.tensor([[0.1, 0.0, 0.9, 0.0], [0.25, 0.25, 0.25, 0.25]])
    one = lib.multinomial(p, 2)
    many = lib.multinomial(p, 6, replacement=True)
    flat = lib.tensor([1.0, 2.0, 3.0]).multinomial(3)
    return one.shape, many.shape, flat.sort().values, (one[0] % 2).tolist(), one.dtype


@scenario
def multinomial_errors(lib):
    p = lib.tensor([0.5, 0.5])
    return errors(lambda: lib.multinomial(p, 3), lambda: lib.multinomial(p, 0),
                  lambda: lib.multinomial(lib.tensor([-1.0, 2.0]), 1),
                  lambda: lib.multinomial(lib.tensor([0.0, 0.0]), 1),
                  lambda: lib.multinomial(lib.ones(2, 2, 2), 1),
                  lambda: lib.multinomial(lib.tensor([1, 2]), 1),
                  lambda: lib.multinomial(lib.tensor([float("inf"), 1.0]), 1))


@scenario
def bernoulli_forms(lib):
    lib.manual_seed(1)
    p = lib.tensor([0.0, 1.0, 0.0, 1.0])
    x = lib.empty(3, 2)
    return [lib.bernoulli(p), p.bernoulli(), x.bernoulli_(1.0), x.bernoulli_(0.0),
            lib.bernoulli(lib.ones(2), 0.0), lib.zeros(2, dtype=lib.int32).bernoulli_(1.0),
            lib.bernoulli(p.double()).dtype] + errors(
        lambda: lib.bernoulli(lib.tensor([1.5])), lambda: lib.empty(2).bernoulli_(-0.5),
        lambda: lib.bernoulli(lib.ones(2), 1.5),
        lambda: lib.bernoulli(lib.tensor([1, 0])))


@scenario
def multinomial_of_no_rows(lib):
    return [lib.multinomial(lib.ones(0, 3), n, replacement=r) for n in (1, 2)
            for r in (True, False)]


@scenario
def hook_removing_itself(lib):
    out = []
    for remove in (True, False):
        t = lib.ones((1, 5), requires_grad=True)
        handle = None

        def hook(grad, remove=remove):
            if remove:
                handle.remove()
            return lib.zeros_like(grad)
        handle = t.register_hook(hook)
        t.mean().backward()
        first = t.grad.clone()
        t.mean().backward()
        out += [first, t.grad]
    return out


def test_random_fills_and_draws_of_zero_dim_tensors_stay_tensors():
    """Each draw into a 0-d tensor is a 0-d tensor that later operations (copy_, +) read."""
    import gradjit
    gradjit.manual_seed(0)
    draws = [gradjit.normal(0.0, 1.0, size=()), gradjit.zeros(()).exponential_(),
             gradjit.zeros(()).geometric_(0.5), gradjit.poisson(gradjit.tensor(2.0)),
             gradjit.zeros(()).cauchy_(), gradjit.bernoulli(gradjit.tensor(0.5))]
    for d in draws:
        assert d.shape == () and (gradjit.zeros(()).copy_(d) + d).shape == ()


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_scenario(name):
    check(SCENARIOS[name])


def test_multinomial_without_replacement_follows_its_law():
    """Draws without replacement from weights 1:2:3:4, first picks by frequency; seeded."""
    import gradjit
    gradjit.manual_seed(3)
    w = gradjit.tensor([1.0, 2.0, 3.0, 4.0])
    first = gradjit.multinomial(w.expand(4000, 4), 2)[:, 0]
    counts = np.bincount(first.numpy(), minlength=4) / 4000
    np.testing.assert_allclose(counts, [0.1, 0.2, 0.3, 0.4], atol=0.03)
    pairs = gradjit.multinomial(w.expand(500, 4), 4)
    assert all(sorted(row) == [0, 1, 2, 3] for row in pairs.tolist())


def test_bernoulli_follows_its_law():
    import gradjit
    gradjit.manual_seed(5)
    p = gradjit.tensor([0.2, 0.7]).expand(5000, 2)
    mean = gradjit.bernoulli(p).mean(0)
    np.testing.assert_allclose(mean.numpy(), [0.2, 0.7], atol=0.03)
