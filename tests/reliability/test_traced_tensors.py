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


@pytest.mark.parametrize("name", WRITES)
def test_a_write_through_a_traced_index_tensor_is_refused(name):
    """It wrote through None (every row) or failed inside broadcasting."""
    with pytest.raises(IndexError, match="index array computed at run time"):
        gradjit.jit(WRITES[name])(X, INDEX)


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
    """storage_offset read the traced value's data; compiled values are laid out on their
    own, as stride() and is_contiguous() already answer."""
    out = gradjit.jit(lambda t: t[1:, 2:] * t[1:, 2:].storage_offset())(X)
    assert np.array_equal(out.numpy(), np.zeros((3, 3)))
