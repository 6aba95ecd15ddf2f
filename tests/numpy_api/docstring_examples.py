"""numpy's own docstring examples as calls to trace: each example's call of the function it
documents, with its arguments evaluated after the examples before it, and its array inputs
(numbers in lists too) split out as the leaves a traced function takes."""
import ast
import contextlib
import copy
import doctest
import io
import re
import tempfile
import types
import warnings
from dataclasses import dataclass

import numpy as np

MODULES = (("np", np), ("np.linalg", np.linalg), ("np.fft", np.fft))
# functions whose first argument is a shape, a dtype or a value whose type matters: its lists
# stay lists (other functions' first list argument is an array to trace)
LITERAL_FIRST = {
    "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "geomspace", "eye",
    "identity", "tri", "indices", "diag_indices", "tril_indices", "triu_indices", "mask_indices",
    "fromiter", "frombuffer", "fromstring", "fromfunction", "unravel_index", "ravel_multi_index",
    "isscalar", "ndim", "shape", "size", "iterable", "array", "asarray", "asanyarray",
    "ascontiguousarray", "asfortranarray", "asarray_chkfinite", "require", "copy", "atleast_1d",
    "atleast_2d", "atleast_3d", "result_type", "min_scalar_type", "can_cast", "isdtype",
    "issubdtype", "format_float_positional", "format_float_scientific", "binary_repr",
    "base_repr", "histogram2d", "histogramdd", "block"}


@dataclass
class Call:
    """One example's call: `name[index]`, its source, how to make it from leaves, and what
    numpy gives (its result or its exception)."""
    key: str
    source: str
    function: object
    args: list
    kwargs: dict
    leaves: list
    expected: object = None

    def __call__(self, *leaves):
        return self.function(*[_join(a, leaves) for a in self.args],
                             **{k: _join(v, leaves) for k, v in self.kwargs.items()})


def documented_functions():
    """(printed name, function) for every public function of the three namespaces, once."""
    seen = {}
    for prefix, module in MODULES:
        for name in sorted(dir(module)):
            obj = getattr(module, name)
            if name.startswith("_") or isinstance(obj, (type, types.ModuleType)) \
                    or not callable(obj) or not getattr(obj, "__doc__", None):
                continue
            seen.setdefault(id(obj), (f"{prefix}.{name}", obj))
    return list(seen.values())


def calls(name, function):
    """Each example of function's docstring that calls it on something to trace, as a Call
    built just before the example runs (the examples run in order, as doctest runs them)."""
    doc = function.__doc__
    start = re.search(r"^\s*Examples\n\s*-{3,}", doc, re.M)
    examples = doctest.DocTestParser().get_examples(doc[start.end():]) if start else []
    namespace = {"np": np, "numpy": np}
    for i, example in enumerate(examples):
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            continue
        node = next((n for n in ast.walk(tree) if isinstance(n, ast.Call)
                     and _resolves_to(n.func, namespace, function)), None)
        if node is not None:
            with quiet():
                call = _build(f"{name}[{i}]", example.source.strip(), function, node, namespace)
            if call is not None and call.leaves:
                yield call
        with quiet(), contextlib.suppress(Exception):
            exec(compile(tree, "<example>", "exec"), namespace)
    np.set_printoptions(legacy=False)  # some examples change them


@contextlib.contextmanager
def quiet():
    """Examples run without their warnings and printing, in a folder of their own (np.save's
    and np.savetxt's write files)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"), \
            contextlib.redirect_stdout(io.StringIO()), tempfile.TemporaryDirectory() as folder, \
            contextlib.chdir(folder):
        warnings.simplefilter("ignore")
        yield


def _resolves_to(func, namespace, function):
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    try:
        return eval(compile(ast.Expression(func), "<f>", "eval"), namespace) is function
    except Exception:
        return False


def _build(key, source, function, node, namespace):
    def value(expr):
        return eval(compile(ast.Expression(expr), "<arg>", "eval"), namespace)
    try:
        args = [x for a in node.args for x in
                (value(a.value) if isinstance(a, ast.Starred) else [value(a)])]
        kwargs = {}
        for k in node.keywords:
            kwargs.update(value(k.value) if k.arg is None else {k.arg: value(k.value)})
    except Exception:  # an argument names a variable the example itself defines
        return None
    leaves = []
    ufunc = isinstance(function, np.ufunc)
    literal = function.__name__ in LITERAL_FIRST
    split_args = [_split(a, leaves, ufunc or (i == 0 and not literal and
                                               isinstance(a, (list, tuple))))
                  for i, a in enumerate(args)]
    split_kwargs = {k: _split(v, leaves, False) for k, v in kwargs.items()}
    return Call(key, source, function, split_args, split_kwargs, leaves)


def _split(v, leaves, numbers):
    """v with its arrays (and, when `numbers`, its lists of numbers and its numbers; else its
    lists of floats) replaced by ("leaf", i); tuples and lists holding arrays keep their
    shape."""
    if numbers and isinstance(v, (int, float, complex)) and not isinstance(v, bool):
        v = np.asarray(v)
    if isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in "biufc":
        leaves.append(v.copy(order="K"))  # later examples may write into the array
        return ("leaf", len(leaves) - 1)
    if isinstance(v, (list, tuple)) and v:
        if _holds_array(v):
            return ("sequence", type(v), [_split(e, leaves, False) for e in v])
        with contextlib.suppress(Exception):
            array = np.asarray(v)
            if array.dtype.kind in ("biufc" if numbers else "fc") and _numbers(v):
                leaves.append(array)
                return ("leaf", len(leaves) - 1)
    return ("constant", v)


def _holds_array(v):
    return any(isinstance(e, np.ndarray) or isinstance(e, (list, tuple)) and _holds_array(e)
               for e in v)


def _numbers(v):
    if isinstance(v, (list, tuple)):
        return all(_numbers(e) for e in v)
    return isinstance(v, (int, float, complex, np.number, np.bool_))


def _join(spec, leaves):
    if spec[0] == "leaf":
        return leaves[spec[1]]
    if spec[0] == "sequence":
        return spec[1](_join(p, leaves) for p in spec[2])
    return copy.deepcopy(spec[1])


def flat(x):
    """The leaves of a result, tuples and lists marked by their length."""
    if isinstance(x, (tuple, list)):
        return [("sequence", len(x))] + [leaf for e in x for leaf in flat(e)]
    return [x]


def difference(got, want):
    """Why got is not numpy's result `want` (structure, shape, dtype, values), or None."""
    g, w = flat(got), flat(want)
    if len(g) != len(w):
        return f"{len(g)} leaves, numpy {len(w)}"
    for a, b in zip(g, w):
        if b is None or isinstance(b, (str, bytes, tuple, type, np.dtype)):
            if a != b:
                return f"{a!r}, numpy {b!r}"
            continue
        a, b = np.asarray(a), np.asarray(b)
        if (a.shape, a.dtype) != (b.shape, b.dtype):
            return f"{a.dtype}{list(a.shape)}, numpy {b.dtype}{list(b.shape)}"
        tol = 1e-3 if b.dtype in (np.float16, np.float32, np.complex64) else 1e-7
        if b.dtype.kind in "fc" and not np.allclose(a, b, tol, tol * 1e-2, equal_nan=True) \
                or b.dtype.kind in "biu" and not np.array_equal(a, b):
            return "values differ"
    return None


def float_positions(result):
    """Positions in flat(result) of the floating arrays a weighted sum can differentiate."""
    return [i for i, leaf in enumerate(flat(result))
            if isinstance(leaf, (np.ndarray, np.generic, float))
            and np.asarray(leaf).dtype.kind == "f"]
