"""PyTorch's tensor repr: precision 4, scientific notation by its rules, aligned widths,
80-column wrapping, summaries of tensors over 1000 elements, and the trailing suffixes."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gradjit.tensor import dtypes


@dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTIONS = PrintOptions()
_PROFILES = {"default": PrintOptions(), "short": PrintOptions(precision=2, edgeitems=2),
             "full": PrintOptions(threshold=math.inf)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    if profile in _PROFILES:  # torch ignores a name it does not know
        chosen = _PROFILES[profile]
        OPTIONS.__dict__.update({k: v for k, v in chosen.__dict__.items() if k != "sci_mode"})
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


class _Formatter:
    """Chooses one format (integer-valued, fixed or scientific) and one width for all
    elements, from the finite nonzero values."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitude = np.abs(finite)
        lo, hi = magnitude.min(), magnitude.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        precision = OPTIONS.precision
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4 \
            if OPTIONS.sci_mode is None else OPTIONS.sci_mode  # the widths follow the choice
        if self.sci_mode:
            widths = [len(f"{v:.{precision}e}") for v in finite.tolist()]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in finite.tolist()]
        else:
            widths = [len(f"{v:.{precision}f}") for v in finite.tolist()]
        self.max_width = max(self.max_width, *widths)

    def format(self, value) -> str:
        precision = OPTIONS.precision
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{precision}f}"
        return " " * (self.max_width - len(text)) + text


class _ComplexFormatter:
    """Real and imaginary parts formatted each by its own rules, joined as `a+bj`."""

    def __init__(self, values: np.ndarray):
        self.real, self.imag = _Formatter(values.real), _Formatter(values.imag)
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value) -> str:
        imag = (self.imag.format(value.imag) + "j").lstrip()
        # a sign is written by the format (negatives, nan); + joins the others
        return self.real.format(value.real) + ("" if imag[0] in "+-" else "+") + imag


def _vector(values, indent, summarize, fmt):
    per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / (fmt.max_width + 2))))
    edge = OPTIONS.edgeitems
    if summarize and values.shape[0] > 2 * edge:
        data = [fmt.format(v) for v in values[:edge].tolist()] + [" ..."] + \
            [fmt.format(v) for v in values[-edge:].tolist()]
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values, indent, summarize, fmt):
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, fmt)
    edge, n = OPTIONS.edgeitems, values.shape[0]
    if summarize and n > 2 * edge:
        rows = [_nested(values[i], indent + 1, summarize, fmt) for i in range(edge)] + ["..."] + \
            [_nested(values[i], indent + 1, summarize, fmt) for i in range(n - edge, n)]
    else:
        rows = [_nested(values[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _summarized(values):
    """The elements a summary shows: those the formatter must size."""
    edge = OPTIONS.edgeitems
    if values.ndim == 0 or values.shape[0] <= 2 * edge:
        return values if values.ndim <= 1 else np.stack([_summarized(v) for v in values])
    if values.ndim == 1:
        return np.concatenate([values[:edge], values[-edge:]])
    rows = list(range(edge)) + list(range(values.shape[0] - edge, values.shape[0]))
    return np.stack([_summarized(values[i]) for i in rows])


def tensor_str(values: np.ndarray, indent: int) -> str:
    if values.size == 0:
        return "[]"
    summarize = values.size > OPTIONS.threshold
    shown = _summarized(values) if summarize else values
    fmt = _ComplexFormatter(shown) if values.dtype.kind == "c" else _Formatter(shown)
    return _nested(values, indent, summarize, fmt)


def add_suffixes(text, suffixes, indent, force_newline=False):
    """text, then each suffix after a comma, on a new line where the line would grow past the
    line width (`force_newline`: the first one always, as sparse tensors print)."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t) -> str:
    prefix = "tensor("
    indent = len(prefix)
    values = t.__gradjit_constant__()
    if values is None:  # traced: its values exist only when the compiled function runs
        return f"tensor(<traced {t._value.ir_type}>, dtype={t.dtype})"
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    dtype = t.dtype
    if t.device.type == "meta":
        suffixes.append(f"size={tuple(values.shape)}")
        if dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={dtype}")
        text = "..."
    elif values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={dtype}")
        text = "[]"
    else:
        default = dtypes.get_default_dtype()
        if dtype not in (default, default.to_complex(), dtypes.int64, dtypes.bool_):
            suffixes.append(f"dtype={dtype}")
        text = tensor_str(values, indent)
    fn = t.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    if t._edge is not None:  # a dual is on the tape
        from gradjit.autograd import forward_ad  # above the tensor layer: loaded late
        tangent = forward_ad.unpack_dual(t).tangent
        if tangent is not None:
            suffixes.append(f"tangent={tangent!r}")
    return add_suffixes(prefix + text, suffixes, indent)
