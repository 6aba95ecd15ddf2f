"""PyTorch's own module database (ModuleInfo entries of torch's test suite) run on gradjit.nn:
for each module input, float64 and float32, the module built from the same arguments with
torch's parameters and buffers gives the same outputs, input and parameter gradients, repr,
state_dict and error types (at most MAX_INPUTS inputs an entry). Inputs that cannot match are
listed with the reason and checked to still fail, so the list stays true."""
import fnmatch
import math
import re

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import to_gradjit

pytest.importorskip("expecttest")  # torch's test databases import it
from torch.testing._internal.common_modules import (  # noqa: E402
    ModuleErrorEnum,
    module_db,
)

# evenly spaced inputs of the entries that have more (LinearCrossEntropyLoss has 857), so
# that the file runs in about a minute
MAX_INPUTS = 32
TOLERANCE = {torch.float64: dict(rtol=1e-7, atol=1e-9),
             torch.float32: dict(rtol=2e-4, atol=2e-5)}

# input key (name/desc/dtype/mode, glob) -> why gradjit's result differs from torch's
KNOWN = {}

# the torch modules an input passes to another's constructor (TransformerEncoder's layer):
# their constructor arguments, recorded while torch's input functions run
_ARGUMENTS = {}


class _RecordedConstructors:
    NAMES = ("TransformerEncoderLayer", "TransformerDecoderLayer", "LayerNorm")

    def __enter__(self):
        self.saved = {getattr(torch.nn, n): getattr(torch.nn, n).__init__ for n in self.NAMES}
        for cls, init in self.saved.items():
            def record(m, *args, _init=init, **kwargs):
                _ARGUMENTS[id(m)] = (args, kwargs)
                _init(m, *args, **kwargs)
            cls.__init__ = record

    def __exit__(self, *exc):
        for cls, init in self.saved.items():
            cls.__init__ = init


def convert(x):
    if isinstance(x, torch.nn.Module):
        args, kwargs = _ARGUMENTS[id(x)]
        module = getattr(gradjit.nn, type(x).__name__)(*convert(args), **convert(kwargs))
        return module.to(to_gradjit(next(x.parameters()).dtype))
    if isinstance(x, tuple):
        return tuple(convert(v) for v in x)
    if isinstance(x, dict):
        return {k: convert(v) for k, v in x.items()}
    return to_gradjit(x)


def leaves(x):
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in leaves(item)]
    return [x]


def compare(what, want, got, dtype, problems):
    """Appends to `problems` how `got` (gradjit's) differs from `want` (torch's)."""
    if want is None or got is None:
        if (want is None) != (got is None):
            problems.append(f"{what}: torch {type(want).__name__}, gradjit {type(got).__name__}")
        return
    if not isinstance(want, torch.Tensor):
        if want != got:
            problems.append(f"{what}: {want!r} vs {got!r}")
        return
    if not gradjit.is_tensor(got) or tuple(want.shape) != tuple(got.shape):
        problems.append(f"{what}: shape {tuple(want.shape)} vs {getattr(got, 'shape', got)}")
    elif str(want.dtype)[6:] != str(got.dtype).split(".")[-1]:
        problems.append(f"{what}: dtype {want.dtype} vs {got.dtype}")
    elif not np.allclose(want.detach().numpy(), got.detach().numpy(), equal_nan=True,
                         **TOLERANCE[dtype]):
        problems.append(f"{what}: values differ")


def weighted_sum(lib, outputs):
    """The fixed weighted sum of every differentiable output that backward starts from."""
    total = None
    for out in outputs:
        if getattr(out, "requires_grad", False):
            w = np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))
            term = (out * lib.tensor(w.astype(str(out.dtype).split(".")[-1]))).sum()
            total = term if total is None else total + term
    return total


def check_input(info, module_input, dtype, training):
    """How gradjit's module differs from torch's on one ModuleInput."""
    problems = []
    ctor, fwd = module_input.constructor_input, module_input.forward_input
    want_m = info.module_cls(*ctor.args, **ctor.kwargs).to(dtype).train(training)
    got_m = getattr(gradjit.nn, info.module_cls.__name__)(*convert(ctor.args),
                                                          **convert(ctor.kwargs))
    got_m = got_m.to(to_gradjit(dtype)).train(training)
    compare("repr", repr(want_m), repr(got_m), dtype, problems)
    if info.is_lazy:  # parameters exist after a first call
        with torch.no_grad():
            want_m(*fwd.args, **fwd.kwargs)
        with gradjit.no_grad():
            got_m(*convert(fwd.args), **convert(fwd.kwargs))
    state = want_m.state_dict()
    compare("state_dict keys", list(state), list(got_m.state_dict()), dtype, problems)
    got_m.load_state_dict(convert(dict(state)))
    args, kwargs = convert(fwd.args), convert(fwd.kwargs)
    torch.manual_seed(0)
    gradjit.manual_seed(0)
    want, got = leaves(want_m(*fwd.args, **fwd.kwargs)), leaves(got_m(*args, **kwargs))
    if len(want) != len(got):
        return problems + [f"{len(want)} outputs vs {len(got)}"]
    for i, (w, g) in enumerate(zip(want, got)):
        compare(f"output {i}", w, g, dtype, problems)
    want_sum, got_sum = weighted_sum(torch, want), weighted_sum(gradjit, got)
    if problems or want_sum is None:
        return problems
    if got_sum is None:
        return ["gradjit's output does not require grad"]
    want_sum.backward()
    got_sum.backward()
    want_in = [x for x in leaves((fwd.args, list(fwd.kwargs.values())))
               if isinstance(x, torch.Tensor)]
    got_in = [x for x in leaves((args, list(kwargs.values()))) if gradjit.is_tensor(x)]
    for i, (w, g) in enumerate(zip(want_in, got_in)):
        if w.requires_grad and w.is_leaf:
            compare(f"input {i} grad", w.grad, g.grad, dtype, problems)
    got_params = dict(got_m.named_parameters())
    for name, p in want_m.named_parameters():
        compare(f"grad of {name}", p.grad, got_params[name].grad, dtype, problems)
    got_state = got_m.state_dict()
    for name, buffer in want_m.state_dict().items():
        compare(f"{name} after the call", buffer, got_state.get(name), dtype, problems)
    return problems


def check_error(info, error_input, dtype):
    module_input = error_input.module_error_input
    ctor, fwd = module_input.constructor_input, module_input.forward_input
    try:
        m = getattr(gradjit.nn, info.module_cls.__name__)(*convert(ctor.args),
                                                          **convert(ctor.kwargs))
        if error_input.error_on == ModuleErrorEnum.FORWARD_ERROR:
            m(*convert(fwd.args), **convert(fwd.kwargs))
    except Exception as error:  # noqa: BLE001 (any type may be the wrong one)
        if not isinstance(error, error_input.error_type):
            return [f"{type(error).__name__} instead of {error_input.error_type.__name__}: "
                    f"{error}"]
        if not re.search(error_input.error_regex, str(error)):
            return [f"message {str(error)!r} does not match {error_input.error_regex!r}"]
        return []
    return [f"no error, torch raises {error_input.error_type.__name__}"]


def failures(info, dtype):
    """{input key: problems} for every input of `info` gradjit does not match."""
    name, short = info.module_cls.__name__, str(dtype)[6:]
    if not hasattr(gradjit.nn, name):
        return {f"{name}/*/{short}": ["not in gradjit.nn"]}
    found = {}
    for training in ((True, False) if info.train_and_eval_differ else (True,)):
        torch.manual_seed(0)
        with _RecordedConstructors():
            inputs = info.module_inputs_func(info, device="cpu", dtype=dtype,
                                             requires_grad=True, training=training)
        every = math.ceil(len(inputs) / MAX_INPUTS)
        for i, module_input in list(enumerate(inputs))[::every]:
            key = f"{name}/{module_input.desc or i}/{short}/{'train' if training else 'eval'}"
            try:
                problems = check_input(info, module_input, dtype, training)
            except Exception as error:  # noqa: BLE001 (reported with the input's key)
                problems = [f"{type(error).__name__}: {error}"]
            if problems:
                found[key] = problems
    if info.module_error_inputs_func is not None:
        for i, error_input in enumerate(info.module_error_inputs_func(info, "cpu", dtype,
                                                                      True, True)):
            problems = check_error(info, error_input, dtype)
            if problems:
                found[f"{name}/error{i}/{short}"] = problems
    return found


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("info", module_db, ids=lambda info: info.name)
def test_module_matches_torch(info, dtype):
    if dtype not in info.dtypes:
        pytest.skip(f"{info.name} is not tested in {dtype} by torch")
    found = failures(info, dtype)
    unexplained = {k: v for k, v in found.items()
                   if not any(fnmatch.fnmatch(k, pattern) for pattern in KNOWN)}
    assert not unexplained, unexplained
    for pattern in KNOWN:
        if applies(pattern, info.module_cls.__name__, str(dtype)[6:]):
            assert any(fnmatch.fnmatch(k, pattern) for k in found), \
                f"{pattern} passes now: remove it from KNOWN"


def applies(pattern, name, dtype):
    """Whether a KNOWN pattern names this module (and dtype, where it gives one)."""
    parts = pattern.split("/")
    return fnmatch.fnmatch(name, parts[0]) and (len(parts) < 3 or
                                                fnmatch.fnmatch(dtype, parts[2]))
