"""torch.testing.assert_close: PyTorch's default tolerances per dtype and its messages."""
from __future__ import annotations

import numpy as np

import gradjit

# dtype name -> (rtol, atol), PyTorch's defaults; other dtypes compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}


def _as_tensor(value):
    if gradjit.is_tensor(value):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        return gradjit.as_tensor(value)
    return None


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless actual and expected (tensors, arrays, numbers, or sequences
    and mappings of them, matched element by element) are close."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    failure = _compare(actual, expected, "", rtol, atol, equal_nan, check_dtype)
    if failure is not None:
        message, path = failure
        if msg is not None:
            raise AssertionError(msg)
        raise AssertionError(message + (f"\n\nThe failure occurred for item {path}"
                                        if path else ""))


def _compare(actual, expected, path, rtol, atol, equal_nan, check_dtype):
    """None where close, else (message, the path of the item that is not)."""
    if isinstance(actual, dict) and isinstance(expected, dict):
        if actual.keys() != expected.keys():
            missing, extra = sorted(expected.keys() - actual), sorted(actual.keys() - expected)
            return ("The keys of the mappings do not match:" +
                    (f"\nMissing keys in the actual mapping: {missing}" if missing else "") +
                    (f"\nAdditional keys in the actual mapping: {extra}" if extra else ""),
                    path)
        pairs = [(f"{path}[{key!r}]", actual[key], expected[key]) for key in actual]
    elif isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            return (f"The length of the sequences mismatch: {len(actual)} != "
                    f"{len(expected)}", path)
        pairs = [(f"{path}[{i}]", a, e) for i, (a, e) in enumerate(zip(actual, expected))]
    else:
        a, e = _as_tensor(actual), _as_tensor(expected)
        if a is None and e is None and all(isinstance(v, (int, float, bool))
                                           for v in (actual, expected)):
            message = _scalars(actual, expected, rtol, atol, equal_nan)
        elif a is None or e is None:
            raise TypeError(f"No comparison pair was able to handle inputs of type "
                            f"{_type_name(actual)} and {_type_name(expected)}.")
        else:
            message = _tensors(a, e, rtol, atol, equal_nan, check_dtype)
        return None if message is None else (message, path)
    for item, a, e in pairs:
        failure = _compare(a, e, item, rtol, atol, equal_nan, check_dtype)
        if failure is not None:
            return failure
    return None


def _type_name(value):
    return "<class 'torch.Tensor'>" if gradjit.is_tensor(value) else str(type(value))


def _scalars(actual, expected, rtol, atol, equal_nan):
    if rtol is None:
        rtol, atol = (1e-7, 1e-7) if isinstance(expected, float) else (0.0, 0.0)
    both_nan = equal_nan and actual != actual and expected != expected
    if both_nan or abs(actual - expected) <= atol + rtol * abs(expected):
        return None
    difference = abs(actual - expected)
    relative = difference / abs(expected) if expected else float("inf")
    return (f"Scalars are not close!\n\nExpected {expected} but got {actual}.\nAbsolute "
            f"difference: {difference} (up to {atol} allowed)\nRelative difference: "
            f"{relative} (up to {rtol} allowed)")


def _tensors(a, e, rtol, atol, equal_nan, check_dtype):
    if tuple(a.shape) != tuple(e.shape):
        return f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}."
    if check_dtype and a.dtype is not e.dtype:
        return f"The values for attribute 'dtype' do not match: {a.dtype} != {e.dtype}."
    if rtol is None:
        rtol, atol = max(_TOLERANCES.get(str(d).split(".")[-1], (0.0, 0.0))
                         for d in (a.dtype, e.dtype))
    got, want = a.detach().numpy(), e.detach().numpy()
    common = np.result_type(got, want)
    # differences in the tensors' own float type (float32 for integers; the real part's type
    # for complex: moduli), as PyTorch's
    inexact = common if common.kind in "fc" else np.dtype(np.float32)
    real = np.abs(np.zeros(0, inexact)).dtype
    with np.errstate(all="ignore"):
        difference = np.abs(got.astype(common) - want.astype(common))
        magnitude = np.abs(want.astype(np.complex128 if common.kind == "c" else np.float64))
        close = difference <= atol + rtol * magnitude
        close |= got == want
        if equal_nan:
            close |= np.isnan(got.astype(inexact)) & np.isnan(want.astype(inexact))
        if close.all():
            return None
        relative = difference.astype(real) / np.abs(want.astype(inexact))
    exact = rtol == 0 and atol == 0
    bad = ~close
    lines = [f"Tensor-likes are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {int(bad.sum())} / {bad.size} "
             f"({100 * bad.sum() / bad.size:.1f}%)"]
    for name, values, allowed in (("absolute", difference, atol), ("relative", relative, rtol)):
        masked = np.where(bad, np.nan_to_num(values, nan=np.inf), -np.inf)
        at = np.unravel_index(int(np.argmax(masked)), bad.shape)
        value = values[at]
        shown = int(value) if exact and name == "absolute" and float(value).is_integer() \
            else value
        limit = "" if exact else f" (up to {allowed} allowed)"
        lines.append(f"Greatest {name} difference: {shown} at index {tuple(int(i) for i in at)}"
                     f"{limit}")
    return "\n".join(lines)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The older name: the same comparison, NaNs equal by default."""
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, msg=msg or None)
