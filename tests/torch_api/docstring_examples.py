"""The `>>>` examples of torch's own docstrings, run with torch and with gradjit (the namespace
swapped, both seeded alike), each step's result turned into plain data and compared."""
import builtins
import codeop
import contextlib
import inspect
import io
import math
import re
import warnings

import numpy as np


# words that mark an example as about what gradjit leaves out: devices, sparse and quantized
# layouts, process groups, storages and DLPack capsules
OUT_OF_SCOPE = ("cuda", "sparse", "quantiz", "qint", "distributed", "storage(",
                "mps", "xpu", "+requires(module:")


def documented(torch):
    """(qualified name, docstring) of every public callable with `>>>` examples in the
    namespaces gradjit mirrors, each docstring once (Tensor methods by their own name)."""
    spaces = [("torch", torch), ("torch.Tensor", torch.Tensor),
              ("torch.nn.functional", torch.nn.functional), ("torch.linalg", torch.linalg),
              ("torch.special", torch.special), ("torch.fft", torch.fft),
              ("torch.nn", torch.nn), ("torch.distributions", torch.distributions),
              ("torch.masked", torch.masked), ("torch.nested", torch.nested)]
    found, seen = {}, set()
    for prefix, space in spaces:
        for name in sorted(n for n in dir(space) if not n.startswith("_")):
            obj = getattr(space, name, None)
            doc = getattr(obj, "__doc__", None)
            if not isinstance(doc, str) or ">>>" not in doc or \
                    prefix != "torch.Tensor" and (id(obj), doc) in seen:
                continue
            seen.add((id(obj), doc))
            found[f"{prefix}.{name}"] = doc
            if inspect.isclass(obj) and prefix == "torch.distributions":
                for method, member in vars(obj).items():
                    text = getattr(member, "__doc__", None)
                    if not method.startswith("_") and isinstance(text, str) and ">>>" in text:
                        found[f"{prefix}.{name}.{method}"] = text
    return found


def _incomplete(source):
    try:
        return codeop.compile_command(source) is None
    except (SyntaxError, ValueError, OverflowError):
        return False


def statements(doc):
    """The `>>>` statements with their `...` lines; a `>>>` line that leaves the statement
    open (some docstrings write continuations so) joins it."""
    found = []
    for line in doc.splitlines():
        text = line.strip()
        if text.startswith(">>>"):
            body = text[4:] if text.startswith(">>> ") else text[3:]
            if found and _incomplete(found[-1]) and not body.startswith(
                    ("def ", "class ", "for ", "with ", "if ", "while ")):
                found[-1] += "\n" + body
            else:
                found.append(body)
        elif text.startswith("...") and found:
            found[-1] += "\n" + (text[4:] if text.startswith("... ") else text[3:])
    return [s + "\n" for s in found]


def out_of_scope(sources):
    text = "\n".join(sources).lower()
    return next((word for word in OUT_OF_SCOPE if word in text), None)


def _importing_gradjit(name, globals=None, locals=None, fromlist=(), level=0):
    if name == "torch" or name.startswith("torch."):
        name = "gradjit" + name[5:]
    return builtins.__import__(name, globals, locals, fromlist, level)


def run(lib, torch, sources):
    """Each statement's ("ok", picture of its value, printed text) or ("err", error type)."""
    lib.manual_seed(0)
    names = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional, "np": np, "numpy": np,
             "math": math, "__name__": "__doc__"}
    names.update({n: getattr(lib.distributions, n) for n in torch.distributions.__all__
                  if hasattr(lib.distributions, n)})
    if lib is not torch:
        names["__builtins__"] = {**vars(builtins), "__import__": _importing_gradjit}
    steps = []
    try:
        for source in sources:
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        value = eval(compile(source, "<doc>", "eval"), names)
                    except SyntaxError:
                        value = exec(compile(source, "<doc>", "exec"), names)
                steps.append(("ok", None if value is None else picture(lib, value),
                              printed.getvalue()))
            except Exception as error:  # noqa: BLE001 - the error type is the result
                steps.append(("err", type(error).__name__))
    finally:
        _restore(lib)
    return steps


def _restore(lib):
    """Undo the global settings examples change."""
    lib.set_default_dtype(lib.float32)
    lib.set_printoptions(profile="default")
    lib.set_grad_enabled(True)


def picture(lib, v, depth=0):
    """A value as plain data, taken at once (later steps may write into it)."""
    if isinstance(v, lib.Tensor):
        try:
            array = np.array(v.detach().resolve_conj().resolve_neg().numpy(), copy=True)
        except Exception as error:  # noqa: BLE001 - e.g. bfloat16, which numpy lacks
            array = type(error).__name__
        return ("tensor", str(v.dtype), tuple(v.shape), array, repr(v))
    if isinstance(v, lib.Size):
        return ("size", tuple(v))
    if isinstance(v, lib.dtype):
        return ("dtype", str(v))
    if isinstance(v, (list, tuple)) and depth < 4:
        kind = "rettuple" if "return_types" in repr(v)[:30] else "sequence"
        return (kind, [picture(lib, x, depth + 1) for x in v])
    if isinstance(v, dict) and depth < 4:
        return ("dict", {str(k): picture(lib, x, depth + 1) for k, x in v.items()})
    if isinstance(v, (bool, int, float, complex, str)) or v is None:
        return ("number", type(v).__name__, v)
    if isinstance(v, np.ndarray):
        return ("ndarray", str(v.dtype), v.shape, v.copy())
    text = repr(v)
    return ("object", type(v).__name__, "" if " object at 0x" in text else text)


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def same_text(a, b):
    """Equal but for numbers within float32 printing's rounding and objects' addresses."""
    a, b = (_ADDRESS.sub(" at 0x", text) for text in (a, b))
    if a == b:
        return True
    x, y = _NUMBER.findall(a), _NUMBER.findall(b)
    return _NUMBER.sub("#", a) == _NUMBER.sub("#", b) and len(x) == len(y) and np.allclose(
        np.array(x, float), np.array(y, float), rtol=1e-3, atol=1e-4, equal_nan=True)


def _close(a, b):
    """Exact for integers and bools; floats within float32 rounding of sums as long as the
    largest term (a convolution's near-zero outputs carry its error)."""
    if a.dtype == bool or a.size == 0 or a.dtype.kind not in "fc":
        return np.array_equal(a, b)
    scale = max(1.0, float(np.abs(np.nan_to_num(a, nan=0, posinf=0, neginf=0)).max()))
    return np.allclose(a, b, rtol=1e-4, atol=1e-5 * scale, equal_nan=True)


def difference(t, g):
    """None where two pictures agree, else what differs."""
    if t is None or g is None:
        return None if t is g else "value"
    if t[0] != g[0]:
        return f"kind {t[0]} / {g[0]}"
    kind = t[0]
    if kind == "tensor":
        if t[1:3] != g[1:3]:
            return f"dtype or shape {t[1:3]} / {g[1:3]}"
        if isinstance(t[3], str) or isinstance(g[3], str):
            return None if t[3] == g[3] else "readable"
        if not _close(t[3], g[3]):
            return "values"
        return None if same_text(t[4], g[4]) else "repr"
    if kind in ("sequence", "rettuple"):
        if len(t[1]) != len(g[1]):
            return "length"
        return next(filter(None, map(difference, t[1], g[1])), None)
    if kind == "dict":
        if t[1].keys() != g[1].keys():
            return "keys"
        return next(filter(None, (difference(t[1][k], g[1][k]) for k in t[1])), None)
    if kind == "number" and t[1] in ("float", "complex") and t[1] == g[1]:
        return None if np.allclose(t[2], g[2], rtol=1e-4, atol=1e-5, equal_nan=True) \
            else "value"
    if kind == "ndarray":
        return None if t[1:3] == g[1:3] and _close(t[3], g[3]) else "ndarray"
    if kind == "object":
        return None if t[1] == g[1] and same_text(t[2], g[2]) else "object"
    return None if t[1:] == g[1:] else "value"


def first_difference(torch_steps, gradjit_steps):
    """(step, what differs) at the first step that differs, or None."""
    for i, (t, g) in enumerate(zip(torch_steps, gradjit_steps)):
        if t[0] == "err" or g[0] == "err":
            if t[:2] != g[:2]:
                return i, f"{t[:2]} / {g[:2]}"
            continue
        found = difference(t[1], g[1]) or (None if same_text(t[2], g[2]) else "printed")
        if found:
            return i, found
    return None


def usable(steps):
    return any(s[0] == "ok" for s in steps)
