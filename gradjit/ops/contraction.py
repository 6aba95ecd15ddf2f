"""einsum: subscripts parsed into labelled operands, contracted pairwise in the order numpy's
einsum_path chooses for `optimize=`, each pair lowered to one batched matmul of transposed and
reshaped operands, so large contractions run through BLAS."""
from __future__ import annotations

import itertools
import math
import string

import numpy as np

from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops.array import mul, ne, reshape, sum_, transpose
from gradjit.ops.promote import astype, broadcast, result_type

# Labels are one letter; the axes an ellipsis covers get labels '.0', '.1', ... counted from
# the left of the widest ellipsis, so that they broadcast right-aligned as numpy's do.
_INTERLEAVED = string.ascii_uppercase + string.ascii_lowercase


def einsum(*operands, optimize=False):
    """numpy's einsum, string or interleaved form."""
    subscripts, arrays = _split_arguments(operands)
    arrays = [np.asarray(a) if is_python_scalar(a) or isinstance(a, (list, tuple)) else a
              for a in arrays]
    inputs, output = parse(subscripts, [ir_type(a).shape for a in arrays])
    # optimize=False is numpy's one loop nest over every label, which has no counterpart here:
    # the contraction is pairwise either way, and the greedy order keeps intermediates small.
    return contract(arrays, inputs, output, optimize or "greedy")


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """numpy's einsum_path: the contraction order as ['einsum_path', (i, j), ...] and a report
    of each step's scaling and labels."""
    subscripts, arrays = _split_arguments(operands)
    shapes = [np.shape(a) for a in arrays]
    inputs, output = parse(subscripts, shapes)
    sizes = _label_sizes(inputs, shapes)
    path = contraction_path(inputs, output, sizes, optimize)
    return ["einsum_path", *path], _report(inputs, output, sizes, path)


# ---- parsing ----

def _split_arguments(operands):
    if not operands:
        raise ValueError("einsum: no subscripts given")
    if isinstance(operands[0], str):
        return operands[0].replace(" ", ""), list(operands[1:])
    pairs = list(operands)
    output = pairs.pop() if len(pairs) % 2 else None
    arrays, terms = pairs[0::2], [_sublist(s) for s in pairs[1::2]]
    text = ",".join(terms) + ("" if output is None else "->" + _sublist(output))
    return text, arrays


def _sublist(labels) -> str:
    out = []
    for label in labels:
        if label is Ellipsis:
            out.append("...")
        elif not isinstance(label, (int, np.integer)):
            raise TypeError(f"einsum: subscript {label!r} in a sublist is neither an integer "
                            "nor Ellipsis")
        elif 0 <= label < len(_INTERLEAVED):
            out.append(_INTERLEAVED[label])
        else:
            raise ValueError(f"einsum: subscript {label} in a sublist is not within the valid "
                             f"range [0, {len(_INTERLEAVED)})")
    return "".join(out)


def parse(subscripts: str, shapes) -> tuple[list[tuple[str, ...]], tuple[str, ...]]:
    """Each operand's labels (one per axis) and the output's labels."""
    if subscripts.count("->") > 1:
        raise ValueError(f"einsum: subscripts {subscripts!r} contain '->' more than once")
    lhs, arrow, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s) but "
                         f"{len(shapes)} were given")
    letters = [_term_letters(t, f"operand {i}") for i, t in enumerate(terms)]
    width = max((len(s) - len(l) for s, (l, e) in zip(shapes, letters) if e is not None),
                default=0)
    inputs = []
    for i, (shape, (labels, ellipsis)) in enumerate(zip(shapes, letters)):
        extra = len(shape) - len(labels)
        if extra < 0 or (extra and ellipsis is None):
            raise ValueError(f"einsum: operand {i} has {len(shape)} dimension(s) but subscripts "
                             f"{terms[i]!r} name {len(labels)}" +
                             ("" if extra < 0 else " and no '...' covers the rest"))
        dots = tuple(f".{width - extra + k}" for k in range(extra))
        inputs.append(labels if ellipsis is None else
                      labels[:ellipsis] + dots + labels[ellipsis:])
    dots = tuple(f".{k}" for k in range(width))
    if arrow:
        labels, ellipsis = _term_letters(rhs, "the output")
        if ellipsis is None and width:
            raise ValueError("einsum: the output has no '...' for the dimensions the inputs' "
                             "'...' cover")
        output = labels if ellipsis is None else labels[:ellipsis] + dots + labels[ellipsis:]
        _check_output(output, inputs)
    else:
        counts = {}
        for label in itertools.chain(*inputs):
            counts[label] = counts.get(label, 0) + 1
        output = dots + tuple(sorted(k for k, n in counts.items() if n == 1 and len(k) == 1))
    return inputs, output


def _term_letters(term: str, where: str):
    """The letters of one term and the position of its '...' (None when it has none)."""
    ellipsis = None
    if "..." in term:
        ellipsis = term.index("...")
        term = term.replace("...", "", 1)
    for ch in term:
        if ch == ".":
            raise ValueError(f"einsum: a '.' in {where} is not part of an ellipsis ('...')")
        if ch not in string.ascii_letters:
            raise ValueError(f"einsum: invalid subscript {ch!r} in {where}: subscripts must be "
                             "letters")
    return tuple(term), ellipsis


def _check_output(output, inputs):
    seen = set()
    for label in output:
        if label in seen:
            raise ValueError(f"einsum: output subscript {label!r} appears more than once")
        seen.add(label)
        if not any(label in labels for labels in inputs):
            raise ValueError(f"einsum: output subscript {label!r} appears in no input")


def _label_sizes(inputs, shapes) -> dict[str, int]:
    """The size of each label; size 1 broadcasts against any other size, as in numpy."""
    sizes = {}
    for i, (labels, shape) in enumerate(zip(inputs, shapes)):
        own = {}  # a label repeated in one operand (a diagonal) has one size, no broadcasting
        for label, d in zip(labels, shape):
            known = sizes.get(label, 1)
            if own.get(label, d) != d or (d != known and 1 not in (d, known)):
                name = "a '...' dimension" if label.startswith(".") else f"subscript {label!r}"
                raise ValueError(f"einsum: {name} has sizes {own.get(label, known)} and {d} "
                                 f"in operand {i}")
            own[label] = d
            sizes[label] = d if known == 1 else known
    return sizes


# ---- contraction order ----

def contraction_path(inputs, output, sizes, optimize) -> list[tuple[int, ...]]:
    """numpy's path: each step contracts the listed positions of the current operand list,
    removes them and appends the result."""
    n = len(inputs)
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        return _checked_path(list(optimize[1:]), n)
    kind = optimize[0] if isinstance(optimize, tuple) and optimize else optimize
    if kind is False or kind is None or n < 3:
        return [tuple(range(n))]
    if kind is True or kind in ("greedy", "optimal"):
        return _numpy_path(inputs, output, sizes, optimize)
    raise TypeError(f"einsum: did not understand optimize={optimize!r}: expected a bool, "
                    "'greedy', 'optimal' or a path ['einsum_path', (i, j), ...]")


def _numpy_path(inputs, output, sizes, optimize):
    """np.einsum_path's own greedy or optimal search, run on stand-ins that hold no data
    (arrays of the operands' shapes, every element one number); labels spelled as letters,
    an ellipsis's axes as letters no subscript uses."""
    unused = iter(c for c in string.ascii_letters if c not in sizes)
    letter = {label: label if len(label) == 1 else next(unused) for label in sizes}
    terms = ",".join("".join(letter[label] for label in labels) for labels in inputs)
    stand_ins = [np.broadcast_to(np.zeros(()), tuple(sizes[label] for label in labels))
                 for labels in inputs]
    path = np.einsum_path(f"{terms}->{''.join(letter[label] for label in output)}",
                          *stand_ins, optimize=optimize)[0]
    return [tuple(step) for step in path[1:]]


def _checked_path(path, n):
    for step in path:
        step = tuple(step)
        if len(set(step)) != len(step) or not step or not all(0 <= i < n for i in step):
            raise ValueError(f"einsum: path step {step} does not name distinct operands among "
                             f"the {n} present")
        n -= len(step) - 1
    if n != 1:
        raise RuntimeError(f"einsum: the path leaves {n} operands instead of one")
    return [tuple(step) for step in path]


def _flops(labels, sizes) -> int:
    return math.prod(sizes[label] for label in labels)


def _report(inputs, output, sizes, path) -> str:
    """numpy's einsum_path report: scalings, multiply-add counts (numpy's formula: the size
    of all labels involved, times the terms, plus one when a sum is taken) and each step."""
    def text(labels):
        dots = [label for label in labels if label.startswith(".")]
        return "".join("..." if dots and label == dots[0] else "" if label in dots else label
                       for label in labels)

    def flops(labels, terms, summed):
        return _flops(labels, sizes) * (max(1, terms - 1) + bool(summed))

    current = [tuple(labels) for labels in inputs]
    everything = set().union(*current)
    naive = flops(everything, len(current), everything - set(output))
    steps, scaling, total, largest = [], 0, 0, 0
    for step in path:
        chosen = [current[i] for i in step]
        current = [c for k, c in enumerate(current) if k not in step]
        keep = frozenset(output).union(*current)
        joined = tuple(dict.fromkeys(itertools.chain(*chosen)))
        result = tuple(label for label in joined if label in keep)
        current.append(result)
        scaling = max(scaling, len(joined))
        total += flops(joined, len(chosen), set(joined) - keep)
        largest = max(largest, _flops(result, sizes))
        remaining = ",".join(map(text, current)) + "->" + text(output)
        current_text = ",".join(map(text, chosen)) + "->" + text(result)
        steps.append(f"{len(joined):>4}    {current_text:>24} {remaining:>40}")
    rule = "-" * 74
    return "\n".join([
        f"  Complete contraction:  {','.join(map(text, inputs))}->{text(output)}",
        f"         Naive scaling:  {len(everything)}",
        f"     Optimized scaling:  {scaling}",
        f"      Naive FLOP count:  {naive:.3e}",
        f"  Optimized FLOP count:  {total:.3e}",
        f"   Theoretical speedup:  {naive / max(total, 1):.3f}",
        f"  Largest intermediate:  {largest:.3e} elements",
        rule, f"{'scaling':<8}{'current':>24}{'remaining':>41}", rule, *steps])


# ---- lowering ----

def contract(arrays, inputs, output, optimize=False):
    """Contract labelled operands into the output labels along the chosen path."""
    dt = result_type(*arrays)
    work = "int64" if dt.is_bool else dt
    sizes = _label_sizes(inputs, [ir_type(a).shape for a in arrays])
    path = contraction_path(inputs, output, sizes, optimize)
    keep_all = [frozenset(output).union(*(l for k, l in enumerate(inputs) if k != i))
                for i in range(len(inputs))]
    current = [_prepare(astype(a, work), labels, sizes, keep)
               for a, labels, keep in zip(arrays, inputs, keep_all)]
    for step in path:
        chosen = [current[i] for i in step]
        current = [c for k, c in enumerate(current) if k not in step]
        keep = frozenset(output).union(*(labels for _, labels in current))
        merged = chosen[0]
        for k, other in enumerate(chosen[1:], 2):
            later = frozenset().union(*(labels for _, labels in chosen[k:]))
            merged = contract_pair(*merged, *other, keep | later)
        current.append(merged)
    (x, labels), = current
    x, labels = _sum_labels(x, labels, set(labels) - set(output))
    x = transpose(x, [labels.index(label) for label in output]) if labels else x
    return ne(x, 0) if dt.is_bool else astype(x, dt)  # sums of small integers widen


def _prepare(x, labels, sizes, keep):
    """One operand with each label once: sizes broadcast, diagonals of repeated labels taken,
    labels no other operand or the output needs summed away."""
    shape = tuple(sizes[label] for label in labels)
    x = broadcast(x, shape)
    for label in dict.fromkeys(labels):
        axes = [i for i, l in enumerate(labels) if l == label]
        if len(axes) > 1:
            x, labels = _diagonal(x, labels, axes)
    return _sum_labels(x, labels, set(labels) - keep)


def _diagonal(x, labels, axes):
    """Entries where the given axes (of equal size n) have equal indices, as one last axis:
    in the row-major flattening of those axes they sit at a fixed stride."""
    n = ir_type(x).shape[axes[0]]
    rest = [i for i in range(len(labels)) if i not in axes]
    x = transpose(x, rest + axes)
    lead = tuple(ir_type(x).shape[:len(rest)])
    x = reshape(x, lead + (n ** len(axes),))
    stride = sum(n ** k for k in range(len(axes)))
    stop = (n - 1) * stride + 1 if n else 0
    x = S.slice_(x, start=(0,) * len(lead) + (0,), stop=lead + (stop,),
                 step=(1,) * len(lead) + (stride,))
    return x, tuple(labels[i] for i in rest) + (labels[axes[0]],)


def _sum_labels(x, labels, summed):
    if not summed:
        return x, tuple(labels)
    axes = tuple(i for i, l in enumerate(labels) if l in summed)
    # in the operands' type, as the matmuls that follow: integer sums stay, say, int32
    return sum_(x, axes, dtype=ir_type(x).dtype), tuple(l for l in labels if l not in summed)


def contract_pair(a, la, b, lb, keep):
    """Two labelled operands into one holding the labels in `keep`: shared labels not kept are
    contracted by one batched matmul (batch, left, inner) @ (batch, inner, right)."""
    a, la = _sum_labels(a, la, set(la) - set(lb) - keep)
    b, lb = _sum_labels(b, lb, set(lb) - set(la) - keep)
    batch = [l for l in la if l in lb and l in keep]
    inner = [l for l in la if l in lb and l not in keep]
    left = [l for l in la if l not in lb]
    right = [l for l in lb if l not in la]
    size = dict(zip(la, ir_type(a).shape)) | dict(zip(lb, ir_type(b).shape))
    dims = [tuple(size[l] for l in group) for group in (batch, left, inner, right)]
    out_labels = tuple(batch + left + right)
    if not inner:  # elementwise or outer product: a broadcast multiply
        x = reshape(_permute(a, la, batch + left), dims[0] + dims[1] + (1,) * len(right))
        y = reshape(_permute(b, lb, batch + right), dims[0] + (1,) * len(left) + dims[3])
        return mul(x, y), out_labels
    m, k, n = (math.prod(d) for d in dims[1:])
    nb = math.prod(dims[0])
    x = reshape(_permute(a, la, batch + left + inner), (nb, m, k))
    y = reshape(_permute(b, lb, batch + inner + right), (nb, k, n))
    return reshape(S.matmul(x, y), dims[0] + dims[1] + dims[3]), out_labels


def _permute(x, labels, order):
    return transpose(x, [labels.index(label) for label in order]) if order else x
