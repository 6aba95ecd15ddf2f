"""Tensors traced by jit agree with eager Tensors or raise the tracer's error naming the
user's line: index tensors known only at run time, and the paths that read a tensor's data."""
import numpy as np
import pytest

import gradjit
from gradjit.tracer.array_methods import TracerArrayConversionError

X = gradjit.arange(20.0).reshape(4, 5)
INDEX = gradjit.tensor([3, 0])
CONSTANT = gradjit.arange(20.0).reshape(4, 5) * 2

INDEXINGS = {
    "rows": lambda t, i: t[i],
    "columns": lambda t, i: t[:, i],
    "both": lambda t, i: t[i, i],
    "of a constant": lambda t, i: CONSTANT[i] + t[0],
}


@pytest.mark.parametrize("name", INDEXINGS)
def test_a_traced_index_tensor_indexes_as_in_eager(name):
    """A traced index Tensor was read as None (a new axis), so t[i] gave t[None]."""
    fn = INDEXINGS[name]
    assert gradjit.equal(gradjit.jit(fn)(X, INDEX), fn(X, INDEX))


WRITES = {
    "setitem": lambda t, i: _set(t.clone(), i, 0.0),
    "setitem into a constant": lambda t, i: _set(CONSTANT.clone(), i, 0.0),
    "index_put": lambda t, i: t.index_put((i,), gradjit.ones(2, 5)),
}


def _set(target, index, value):
    target[index] = value
    return target


@pytest.mark.parametrize("name", ["setitem", "index_put"])
def test_a_write_through_a_traced_index_tensor_writes_as_in_eager(name):
    """It wrote through None (every row) or failed inside broadcasting."""
    assert gradjit.equal(gradjit.jit(WRITES[name])(X, INDEX), WRITES[name](X, INDEX))


def test_a_traced_write_into_a_tensor_of_outside_data_is_refused():
    """A tensor computed from data outside the trace alone holds that data, not a traced
    value: the compiled program could not update it."""
    with pytest.raises(RuntimeError, match="holding data from outside the trace"):
        gradjit.jit(WRITES["setitem into a constant"])(X, INDEX)


def test_a_traced_value_written_into_a_constant_is_never_nan():
    """The eager path wrote the traced value's missing data (None, as NaN) into the array."""
    def write(t):
        return _set(CONSTANT.clone(), slice(0, 2), t[:2])
    try:
        out = gradjit.jit(write)(X)
    except RuntimeError as error:
        assert "in-place operation" in str(error)
    else:
        assert gradjit.equal(out, write(X))


READS = {
    "untyped_storage": lambda t: t.untyped_storage(),
    "set_": lambda t: gradjit.zeros(3).set_(t),
    "resize_": lambda t: t.clone().resize_(2, 2),
    "apply_": lambda t: t.clone().apply_(lambda v: v + 1),
    "map_": lambda t: t.clone().map_(t, lambda a, b: a + b),
    "histogram": lambda t: gradjit.histogram(t, 3),
    "index_put accumulate": lambda t: t.index_put((INDEX.long() * 0 + t[0, :2].long(),),
                                                  gradjit.ones(2, 5), accumulate=True),
}


@pytest.mark.parametrize("name", READS)
def test_reading_a_traced_tensors_data_names_the_line(name):
    """These read the data of a traced Tensor, which was None: AttributeError or TypeError
    from inside gradjit."""
    fn = READS[name]
    fn(X)  # eagerly it works
    with pytest.raises(TracerArrayConversionError, match="test_traced_tensors.py"):
        gradjit.jit(fn)(X)


def test_layout_queries_answer_for_a_traced_tensor():
    """storage_offset read the traced value's data; a computed value is laid out on its own
    (offset 0), as stride() and is_contiguous() already answered."""
    out = gradjit.jit(lambda t: (t * 2).storage_offset() + t * 0)(X)
    assert np.array_equal(out.numpy(), np.zeros((4, 5)))


def _through(view, write):
    """A function writing through `view` of a fresh copy of its input, returning the copy."""
    def fn(t):
        target = t.clone()
        write(view(target), t)
        return target
    return fn


VIEW_WRITES = {
    "add_ to rows": _through(lambda c: c[1:], lambda v, t: v.add_(1)),
    "overlapping add_": _through(lambda c: c[1:], lambda v, t: v.add_(t[:-1])),
    "mul_ of a row": _through(lambda c: c[0], lambda v, t: v.mul_(2)),
    "narrow": _through(lambda c: c.narrow(1, 1, 2), lambda v, t: v.add_(1)),
    "setitem": _through(lambda c: c[1:], lambda v, t: v.__setitem__(0, 5.0)),
    "transpose": _through(lambda c: c.t(), lambda v, t: v.add_(1)),
    "out=": _through(lambda c: c[:2], lambda v, t: gradjit.add(t[:2], 1, out=v)),
    "view of a view": _through(lambda c: c[1:][:, 2:], lambda v, t: v.add_(1)),
    "flat view": _through(lambda c: c.view(-1)[3:7], lambda v, t: v.zero_()),
    "reshape that copies": _through(lambda c: c.t().reshape(20), lambda v, t: v.add_(1)),
}


@pytest.mark.parametrize("name", VIEW_WRITES)
def test_a_write_through_a_traced_view_reaches_its_base(name):
    """Under a trace a view held a value of its own: the write was lost to the base."""
    fn = VIEW_WRITES[name]
    assert gradjit.equal(gradjit.jit(fn)(X), fn(X))


def test_views_of_a_traced_base_see_writes_to_it_and_to_each_other():
    def fn(t):
        c = t.clone()
        row, column, whole = c[1], c[:, 0], c.view(20)
        row.add_(100)   # seen by column (it shares c[1, 0]) and the base
        c.mul_(2)       # seen by every view
        return row * 1, column * 1, whole * 1
    for got, want in zip(gradjit.jit(fn)(X), fn(X)):
        assert gradjit.equal(got, want)


def test_the_gradient_flows_through_a_write_to_a_traced_view():
    def loss(t):
        c = t * 1
        c[1:].mul_(t[:-1])
        return c.sum()
    x = gradjit.tensor(np.random.default_rng(0).random((4, 5)), requires_grad=True)
    loss(x).backward()
    assert np.allclose(gradjit.grad(loss)(x.detach()).numpy(), x.grad.numpy())


LAYOUTS = {
    "stride of a transpose": lambda t: t.t().stride(),
    "stride of a stepped slice": lambda t: t[1:, ::2].stride(),
    "storage_offset of a slice": lambda t: t[1:, 2:].storage_offset(),
    "is_contiguous of a transpose": lambda t: t.t().is_contiguous(),
    "is_contiguous of a row": lambda t: t[1].is_contiguous(),
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_a_traced_view_answers_layout_queries_as_eager(name):
    """A traced view reported a row-major layout of its own (stride (4, 1) for t.t())."""
    fn = LAYOUTS[name]
    got = gradjit.jit(lambda t: gradjit.tensor(fn(t)))(X)
    assert got.tolist() == gradjit.tensor(fn(X)).tolist()
