"""PyTorch's own operator database (`op_db`, its OpInfo sample inputs) run side by side with
torch and gradjit: each sample's outputs (dtype, shape, values), the gradients of a weighted sum
of its floating outputs, and the error types of the database's error inputs must agree.
`python -m tests.torch_api.opinfo [--only REGEX] [--verbose] [--compiled | --compile] [--first]`
prints what differs per op; --compiled runs each call inside gradjit.jit on the interpreter and
the default backend, --compile through gradjit.compile as a user calls it."""
import argparse
import collections
import functools
import itertools
import re
import signal
import types

import numpy as np
import torch
from torch.testing._internal.common_methods_invocations import op_db

import gradjit

# layouts, devices and features gradjit leaves out, by the database's own names
OUT_OF_SCOPE = re.compile(r"^(sparse\.|_refs|.*_sparse|to_sparse|.*quantize|"
                          r"nn\.functional\.scaled_dot_product_attention$|jiterator)")
DTYPES = (torch.float64, torch.float32, torch.int64)
# relative and absolute, by the output's dtype: a few roundings of each
TOLERANCE = {np.dtype(np.float64): 1e-7, np.dtype(np.complex128): 1e-7,
             np.dtype(np.float32): 1e-5, np.dtype(np.complex64): 1e-5,
             np.dtype(np.float16): 1e-2}


# outputs of uninitialized memory: only their dtype and shape are specified
UNSPECIFIED_VALUES = re.compile(r"(^|_)empty")


class Skip(Exception):
    """A sample carries something gradjit has no counterpart for (a generator, a layout)."""


def gradjit_callable(op):
    """The database's own lambda run with gradjit for torch, else gradjit's function of the
    op's name, or its Tensor method where only a method exists."""
    rebound = rebound_lambda(op)
    if rebound is not None:
        return rebound
    target = gradjit
    for part in op.name.split("."):
        target = getattr(target, part, None)
        if target is None:
            break
    if target is not None and callable(target):
        return target
    if op.method_variant is not None or op.name.startswith("__"):
        return functools.partial(method, op.name)
    return None


def method(name, tensor, *args, **kwargs):
    """gradjit's Tensor method `name` called as torch.Tensor's unbound one: self must be a
    Tensor."""
    if not isinstance(tensor, gradjit.Tensor):
        raise TypeError(f"descriptor '{name}' requires a Tensor, not {type(tensor).__name__}")
    return getattr(tensor, name)(*args, **kwargs)


def rebound_lambda(op):
    """A database lambda (einsum's `torch.einsum(equation, tensors)`, `x.chalf()`,
    `wrapper_set_seed(torch.Tensor.item, x)`) with `torch` naming gradjit; None for other ops
    and for lambdas that close over helpers of their own."""
    code = getattr(op.op, "__code__", None)
    if code is None or code.co_name != "<lambda>" or code.co_freevars:
        return None
    return types.FunctionType(code, {**op.op.__globals__, "torch": gradjit}, code.co_name,
                              op.op.__defaults__)


def seed(op):
    """The seed torch draws the op's samples with: the database's wrapper_set_seed sets 42."""
    code = getattr(op.op, "__code__", None)
    return 42 if code is not None and "wrapper_set_seed" in code.co_names else 0


def to_gradjit(value, leaves, order="C"):
    """A torch sample's value in gradjit's terms; leaves collects (torch, gradjit) pairs of the
    tensors that require grad. order "K" keeps each tensor's layout as torch's: its strides and
    offset in a copy of its whole storage (a non-contiguous sample stays one)."""
    if isinstance(value, torch.Tensor):
        if value.dtype in (torch.bfloat16, torch.complex32) or value.layout != torch.strided \
                or value.device.type != "cpu":
            raise Skip(f"{value.dtype}/{value.layout}/{value.device}")
        try:
            if order == "K":
                converted = gradjit.from_numpy(_in_storage_copy(value))
                converted.requires_grad_(value.requires_grad)
            else:
                converted = gradjit.tensor(value.numpy(force=True).copy(order=order),
                                           requires_grad=value.requires_grad)
        except ValueError as error:  # over 32 dimensions: numpy's limit
            raise Skip(str(error)) from error
        if value.requires_grad:
            leaves.append((value, converted))
        return converted
    if isinstance(value, torch.dtype):
        return getattr(gradjit, str(value).rpartition(".")[2])
    if isinstance(value, torch.Size):
        return gradjit.Size(value)
    if isinstance(value, (torch.device, torch.memory_format, torch.layout)):
        name = str(value).rpartition(".")[2]
        return getattr(gradjit, name) if not isinstance(value, torch.device) else name
    if isinstance(value, torch.Generator):
        raise Skip("generator")
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_gradjit(v, leaves, order) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_gradjit(v, leaves, order) for v in value)
    if isinstance(value, dict):
        return {k: to_gradjit(v, leaves, order) for k, v in value.items()}
    return value


def _in_storage_copy(value):
    """A numpy copy of torch tensor `value`'s whole storage, viewed at its sizes, strides and
    storage offset."""
    item = value.element_size()
    whole = torch.as_strided(value.detach(), (value.untyped_storage().nbytes() // item,), (1,), 0)
    root = whole.numpy(force=True).copy()
    return np.ndarray(tuple(value.shape), root.dtype, buffer=root,
                      offset=value.storage_offset() * item,
                      strides=tuple(step * item for step in value.stride()))


def flatten(value):
    """The tensors and numbers of an output, in order."""
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]


def compare(t_out, g_out, values=True):
    """What differs between torch's output and gradjit's, or None; values=False compares dtypes
    and shapes only (an output torch leaves unspecified, as empty's)."""
    t_leaves, g_leaves = flatten(t_out), flatten(g_out)
    if len(t_leaves) != len(g_leaves):
        return f"{len(g_leaves)} outputs, torch gives {len(t_leaves)}"
    for i, (t, g) in enumerate(zip(t_leaves, g_leaves)):
        if isinstance(t, torch.Tensor):
            if not isinstance(g, gradjit.Tensor):
                return f"output {i} is {type(g).__name__}, torch gives a Tensor"
            if str(g.dtype).rpartition(".")[2] != str(t.dtype).rpartition(".")[2]:
                return f"output {i} dtype {g.dtype}, torch gives {t.dtype}"
            if tuple(g.shape) != tuple(t.shape):
                return f"output {i} shape {tuple(g.shape)}, torch gives {tuple(t.shape)}"
            expected, actual = as_numpy(t), as_numpy(g)
        elif isinstance(t, (bool, int, float, complex)):
            expected, actual = np.asarray(t), np.asarray(g)
        else:
            continue
        if values and not close(expected, actual):
            return f"output {i} values differ: max |diff| {difference(expected, actual)}"
    return None


def as_numpy(t):
    """A torch or gradjit tensor as numpy, bfloat16 and complex32 (numpy has neither) widened
    exactly."""
    t = t.detach()
    kind = str(t.dtype).rpartition(".")[2]
    if kind in ("bfloat16", "complex32"):
        t = t.float() if kind == "bfloat16" else t.cfloat()
    return t.numpy()


def close(expected, actual, scale=1):
    if expected.shape != actual.shape:
        return False
    if expected.dtype.kind in "fc" or actual.dtype.kind in "fc":
        tolerance = scale * TOLERANCE.get(expected.dtype, 1e-7)
        return np.allclose(actual, expected, rtol=tolerance, atol=tolerance, equal_nan=True)
    return np.array_equal(actual, expected)


def difference(expected, actual):
    try:
        return float(np.nanmax(np.abs(actual.astype(np.float64) - expected.astype(np.float64))))
    except (TypeError, ValueError):
        return "n/a"


def weighted_sum(library, output):
    """A fixed weighted sum of the floating tensors of an output (None when there are none)."""
    total = None
    for leaf in flatten(output):
        if isinstance(leaf, library.Tensor) and leaf.dtype.is_floating_point \
                and leaf.requires_grad:
            weights = np.linspace(0.5, 1.5, max(leaf.numel(), 1))[:leaf.numel()]
            term = (leaf * library.tensor(weights.reshape(tuple(leaf.shape)),
                                          dtype=leaf.dtype)).sum()
            total = term if total is None else total + term
    return total


def run_sample(op, function, sample, dtype):
    """The first difference of one sample, or None; Skip when it cannot be converted."""
    leaves = []
    g_input = to_gradjit(sample.input, leaves)
    g_args = to_gradjit(sample.args, leaves)
    g_kwargs = to_gradjit(sample.kwargs, leaves)
    torch.manual_seed(0)
    try:
        t_out = op.op(sample.input, *sample.args, **sample.kwargs)
    except Exception as error:  # torch refuses this sample on this build: nothing to compare
        raise Skip(f"torch raises {type(error).__name__}") from error
    gradjit.manual_seed(seed(op))
    try:
        g_out = function(g_input, *g_args, **g_kwargs)
    except Exception as error:
        return f"raises {type(error).__name__}: {str(error)[:160]}"
    t_out = resolved(t_out)
    unspecified = op.has_nondeterministic_output or UNSPECIFIED_VALUES.search(op.name)
    problem = compare(t_out, g_out, values=not unspecified)
    t_out, g_out = sample.output_process_fn_grad(t_out), postprocess(sample, g_out)
    if problem and compare(t_out, g_out) is None:  # the sample's transform removes what torch
        problem = None  # leaves unspecified: eigenvectors' signs and phases, singular vectors'
    if problem or not leaves or not op.supports_autograd or unspecified:
        return problem
    t_total, g_total = weighted_sum(torch, t_out), weighted_sum(gradjit, g_out)
    if t_total is None:
        return None
    if g_total is None:
        return "output does not require grad"
    t_inputs = [t for t, _ in leaves]
    t_grads = torch.autograd.grad(t_total, t_inputs, allow_unused=True)
    try:
        g_grads = gradjit.autograd.grad(g_total, [g for _, g in leaves], allow_unused=True)
    except Exception as error:
        return f"backward raises {type(error).__name__}: {str(error)[:160]}"
    for i, (t_grad, g_grad) in enumerate(zip(t_grads, g_grads)):
        t_value = np.zeros(tuple(t_inputs[i].shape)) if t_grad is None else t_grad.numpy(force=True)
        g_value = np.zeros(tuple(t_inputs[i].shape)) if g_grad is None else g_grad.numpy()
        if not close(t_value, g_value, scale=10):
            return f"gradient {i} differs: max |diff| {difference(t_value, g_value)}"
    return None


def resolved(output):
    """torch's output with its lazy conjugate and negative views (ifft's) made plain tensors,
    which numpy() reads."""
    if isinstance(output, torch.Tensor):
        return output.resolve_conj().resolve_neg()
    if isinstance(output, tuple) and hasattr(output, "_fields"):
        return type(output)(*map(resolved, output))
    if isinstance(output, (list, tuple)):
        return type(output)(map(resolved, output))
    return output


def postprocess(sample, output):
    """The sample's output transform (it removes sign or order ambiguity), applied to gradjit's
    output where it only uses Tensor methods."""
    try:
        return sample.output_process_fn_grad(output)
    except Exception:
        return output


def error_problems(op, function):
    """The database's error inputs: gradjit must raise the type torch raises."""
    if op.error_inputs_func is None:
        return
    for error_input in op.error_inputs("cpu"):
        sample = error_input.sample_input
        if not torch_raises(op, sample):
            continue
        try:
            leaves = []
            args = to_gradjit((sample.input, *sample.args), leaves)
            kwargs = to_gradjit(sample.kwargs, leaves)
        except Skip:
            continue
        try:
            function(*args, **kwargs)
        except error_input.error_type:
            continue
        except Exception as error:
            yield f"error input raises {type(error).__name__}, torch " \
                  f"{error_input.error_type.__name__}: {str(error)[:120]}"
            continue
        yield f"error input does not raise ({error_input.error_type.__name__}: " \
              f"{error_input.error_regex[:80]})"


def torch_raises(op, sample):
    """Whether torch raises on an error input: the database lists a few that this build
    accepts (clamp_max(t, 2), whose Number overload it says is missing)."""
    try:
        op.op(sample.input, *sample.args, **sample.kwargs)
    except Exception:
        return True
    return False


class Slot:
    """Where the i-th traced argument goes back into a sample's arguments."""

    def __init__(self, index):
        self.index = index


def substitute(value, leaf):
    """value with every leaf x (not a list, tuple or dict) replaced by leaf(x)."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(substitute(v, leaf) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(substitute(v, leaf) for v in value)
    if isinstance(value, dict):
        return {k: substitute(v, leaf) for k, v in value.items()}
    return leaf(value)


def compiled(function, backend):
    """function called inside gradjit.jit on backend (None: the default), with every floating
    or integer tensor of its arguments a traced argument and the rest closed over."""
    def call(*args, **kwargs):
        tensors = []

        def lift(x):
            if isinstance(x, gradjit.Tensor) and not x.dtype.is_complex and x.dtype != gradjit.bool:
                tensors.append(x)
                return Slot(len(tensors) - 1)
            return x

        structure = substitute((args, kwargs), lift)

        def sample(*traced):
            args, kwargs = substitute(structure, lambda x: traced[x.index]
                                      if isinstance(x, Slot) else x)
            return function(*args, **kwargs)
        return gradjit.jit(sample, backend=backend)(*tensors)
    return call


class RanEagerly(Exception):
    """gradjit.compile ran the call eagerly: it left what one program can express."""


def torch_compiled(function):
    """function called through gradjit.compile (torch.compile) as a user calls it, on the
    sample's own Tensors; a call it runs eagerly raises RanEagerly with the reason."""
    def call(*args, **kwargs):
        program = gradjit.compile(function)
        out = program(*args, **kwargs)
        if program.eager_calls:
            raise RanEagerly(program.notes[0].removeprefix("ran eagerly: "))
        return out
    return call


# the compiled modes: backend names for gradjit.jit
BACKENDS = {"interpreter": "interpreter", "compiled": None}
# a problem that is a wrong answer, not a refusal
WRONG = re.compile(r"^(output \d+ (values differ|dtype|shape|is )|\d+ outputs, torch|"
                   r"gradient \d+ differs|output does not require grad|error input does not)")


class Timeout(BaseException):
    """The op's time is up: not an Exception, so no sample's handler takes it for the op's."""


def _alarm(*_):
    raise Timeout


def problems(op, seconds=30, mode="eager", samples=None, dtypes=DTYPES, errors=True):
    """Every difference of an op over its samples in `dtypes` (the first `samples` of each, or
    all) and its error inputs (unless errors=False), as (dtype, sample index, text), run
    eagerly, through gradjit.compile ("compile") or in one of the BACKENDS."""
    function = gradjit_callable(op)
    if function is None:
        return [("-", -1, f"gradjit has no {op.name}")]
    if mode == "compile":
        function = torch_compiled(function)
    elif mode != "eager":
        function = compiled(function, BACKENDS[mode])
    found = []
    # the limit counts the process's CPU time, so a loaded machine does not fail an op; a
    # wall-clock limit ten times longer still ends one that waits on something forever
    previous = {sig: signal.signal(sig, _alarm) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, 10 * seconds)
    try:
        for dtype in dtypes:
            if not op.supports_dtype(dtype, "cpu"):
                continue
            grad = dtype.is_floating_point and op.supports_autograd
            drawn = op.sample_inputs("cpu", dtype, requires_grad=grad)
            for index, sample in enumerate(itertools.islice(drawn, samples)):
                try:
                    problem = run_sample(op, function, sample, dtype)
                except Skip:
                    continue
                except Exception as error:  # converting or comparing gradjit's results
                    problem = f"comparing raises {type(error).__name__}: {str(error)[:160]}"
                if problem:
                    found.append((str(dtype), index, problem))
        if errors:
            found.extend(("errors", -1, text) for text in error_problems(op, function))
    except Timeout:
        found.append(("-", -1, f"over {seconds} s"))
    finally:
        for timer in (signal.ITIMER_PROF, signal.ITIMER_REAL):
            signal.setitimer(timer, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return found


def full_name(op):
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def in_scope():
    return [op for op in op_db if not OUT_OF_SCOPE.match(op.name)]


def known_row(name, text, width=100):
    """One line of KNOWN, its reason cut to the line length."""
    prefix = f"    {name!r}: "
    while len(prefix + repr(text) + ",") > width:
        text = text[:-1]
    return f"{prefix}{text!r},"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="", help="regular expression on op names")
    parser.add_argument("--verbose", action="store_true", help="every difference, not the first")
    parser.add_argument("--known", action="store_true",
                        help="print the failing ops as test_opinfo.py's KNOWN table")
    parser.add_argument("--compiled", action="store_true",
                        help="run each call inside gradjit.jit on the interpreter and the "
                             "default backend, for the ops that pass eagerly (wrong answers "
                             "are marked WRONG)")
    parser.add_argument("--compile", action="store_true",
                        help="run each call through gradjit.compile, for the ops that pass "
                             "eagerly (calls it runs eagerly are marked EAGER)")
    parser.add_argument("--first", action="store_true",
                        help="only the first float64 sample of each op, without error inputs")
    parser.add_argument("--seconds", type=int, default=30, help="CPU seconds per op and mode")
    options = parser.parse_args()
    limits = dict(samples=1, dtypes=(torch.float64,), errors=False) if options.first else {}
    modes = ("compile",) if options.compile else tuple(BACKENDS) if options.compiled else ()
    counts = collections.Counter()
    for op in in_scope():
        if not re.search(options.only, full_name(op)):
            continue
        found = [("eager", *problem) for problem in problems(op, options.seconds, **limits)]
        if modes and found:  # the compiled modes are compared where eager agrees
            counts["failing eagerly"] += 1
            continue
        found = [(mode, *problem) for mode in modes
                 for problem in problems(op, options.seconds, mode, **limits)] or found
        counts["failing" if found else "passing"] += 1
        counts["wrong"] += any(WRONG.search(text) for *_, text in found)
        counts["eager"] += any(text.startswith("raises RanEagerly") for *_, text in found)
        for mode, dtype, index, text in (found if options.verbose else found[:1]):
            if options.known:
                print(known_row(full_name(op), f"{dtype} #{index}: {text}"))
            else:
                where = "" if mode == "eager" else f"{mode} "
                wrong = "WRONG " if mode != "eager" and WRONG.search(text) else ""
                first_line = text.partition("\n")[0]
                print(f"{full_name(op)} [{where}{dtype} #{index}] {wrong}{first_line}",
                      flush=True)
    print(f"# {dict(counts)}")


if __name__ == "__main__":
    main()
