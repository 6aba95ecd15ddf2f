"""torch.einsum as PyTorch's CPU kernel records it: each operand's diagonals, unsqueezes and one
permute to a shared layout (output dims, then contracted ones), then left-to-right pairs, each a
sum of its lone dims and a permuted, reshaped bmm (a product where nothing is contracted)."""
from __future__ import annotations

import math

from gradjit.ir.primitive import AxisError, ShapeError
from gradjit.ops.contraction import parse
from gradjit.tensor.arith import operand
from gradjit.tensor.contract import _same_dtype


def _sublist_equation(args):
    """einsum(A, [0, 1], B, [1, 2], [0, 2]): the subscripts as numbers (0-25 for A-Z, 26-51
    for a-z, so that the implicit output's order is the numbers') and Ellipsis, turned into the
    equation and the operands."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

    def spell(sublist):
        return "".join("..." if s is Ellipsis else letters[s] for s in sublist)
    operands, sublists = args[0:len(args) - len(args) % 2:2], args[1::2]
    equation = ",".join(spell(s) for s in sublists[:len(operands)])
    if len(args) % 2:
        equation += "->" + spell(args[-1])
    return equation, operands


def _check_subscripts(lhs, rhs, operands):
    """torch's einsum checks: one term per operand, output letters taken from the inputs, and
    the sizes of a letter equal or 1 (which broadcasts)."""
    terms = lhs.split(",")
    if len(terms) != len(operands):
        which = "fewer" if len(operands) < len(terms) else "more"
        raise RuntimeError(f"einsum(): {which} operands were provided than specified in the "
                           "equation")
    for letter in rhs.replace(".", ""):
        if letter not in lhs:
            raise RuntimeError(f"einsum(): output subscript {letter} does not appear in the "
                               "equation for any input operand")
    sizes = {}
    for i, (term, t) in enumerate(zip(terms, operands)):
        head, dots, tail = term.partition("...")
        pairs = list(zip(head, t.shape))
        if dots and tail:
            pairs += zip(tail, t.shape[len(t.shape) - len(tail):])
        for letter, n in pairs:
            seen = sizes.setdefault(letter, n)
            if 1 not in (n, seen) and n != seen:
                raise RuntimeError(f"einsum(): subscript {letter} has size {n} for operand {i} "
                                   f"which does not broadcast with previously seen size {seen}")
            sizes[letter] = n if seen == 1 else seen


def _layout(equation, arrow, rhs, operands):
    """Each operand's labels ('...' spelled '.0', '.1', ...), the labels of the shared layout
    in PyTorch's order (output's, then '...' where the output drops it, then the contracted
    letters alphabetically, capitals first) and how many of them the output keeps."""
    try:
        inputs, output = parse(equation, [tuple(t.shape) for t in operands])
    except (ShapeError, AxisError):
        raise
    except ValueError as error:
        raise RuntimeError(f"einsum(): {error}") from None
    kept = output[len(output) - len(rhs):] if arrow and "..." not in rhs else output
    dropped = output[:len(output) - len(kept)]
    contracted = sorted(set().union(*inputs) - set(output))
    return inputs, kept + dropped + tuple(contracted), len(kept)


def _aligned(t, labels, position, counts):
    """t in the shared layout: a repeated label's diagonal, an unsqueeze for each missing one,
    then one permute; counts[k] counts the operands whose dim k is not 1."""
    permutation = [-1] * len(position)
    dim = 0
    for label in labels:
        k = position[label]
        if permutation[k] == -1:
            counts[k] += t.shape[dim] != 1
            permutation[k] = dim
            dim += 1
        else:
            t = t.diagonal(0, permutation[k], dim).movedim(-1, permutation[k])
    for k, p in enumerate(permutation):
        if p == -1:
            t = t.unsqueeze(dim)
            permutation[k] = dim
            dim += 1
    return t.permute(tuple(permutation))


def _sum_product(left, right, summed):
    """(left * right).sum(summed, keepdim=True) of two aligned operands, as one bmm: dims in
    both, in left only (lo), summed, in right only (ro); the operands swap where all of
    right's come first, so that bmm writes the output in order."""
    if not summed:
        return left * right
    both, lo, ro, size = [], [], [], 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                size *= left.shape[i]
            elif sl or sr:
                left, right = (left.sum(i, True), right) if sl else (left, right.sum(i, True))
        else:
            (both if sl and sr else lo if sl else ro).append(i)
    if lo and ro and ro[-1] < lo[0]:
        left, right, lo, ro = right, left, ro, lo
    shape = ([left.shape[d] for d in both + lo] + [1] * len(summed) +
             [right.shape[d] for d in ro])
    order = both + lo + list(summed) + ro
    rows = math.prod(left.shape[d] for d in both)
    a = left.permute(tuple(order)).reshape(rows, math.prod(left.shape[d] for d in lo), size)
    b = right.permute((*both, *summed, *ro, *lo)).reshape(
        rows, size, math.prod(right.shape[d] for d in ro))
    return a.bmm(b).view(tuple(shape)).permute(
        tuple(sorted(range(len(order)), key=order.__getitem__)))


def _contraction_path(equation, operands):
    """The pairs torch.einsum contracts in: opt_einsum's path for three operands or more,
    where it is installed and enabled (torch.backends.opt_einsum), else None: left to
    right."""
    from gradjit.backends import opt_einsum
    if len(operands) <= 2 or not opt_einsum.enabled or not opt_einsum.is_available():
        return None
    shapes = [tuple(t.shape) for t in operands]
    return opt_einsum.get_opt_einsum().contract_path(equation, *shapes, shapes=True,
                                                     optimize=opt_einsum.strategy)[0]


def _contract(ops, out_dims, counts, path=None):
    """The aligned operands multiplied pairwise, each dim summed in the pair after which no
    other operand has it: the pairs of `path` (their product joins the end of the list), or
    left to right (the product replaces the first two)."""
    pairs = iter(path or ())
    while len(ops) > 1:
        i, j = sorted(next(pairs)) if path else (0, 1)
        b, a = ops.pop(j), ops.pop(i)
        summed, lone_a, lone_b = [], [], []
        for d in range(out_dims, len(counts)):
            if a.shape[d] != 1 and b.shape[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    summed.append(d)
                    counts[d] = 0
            elif counts[d] == 1 and (a.shape[d] != 1 or b.shape[d] != 1):
                (lone_a if a.shape[d] != 1 else lone_b).append(d)
                counts[d] = 0
        a = a.sum(lone_a, True) if lone_a else a
        b = b.sum(lone_b, True) if lone_b else b
        product = _sum_product(a, b, summed)
        if path:
            ops.append(product)
        else:
            ops.insert(0, product)
    return ops[0]


def einsum(equation, *operands):
    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = tuple(operand(t) for t in operands)
    _same_dtype("einsum()", operands)
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    _check_subscripts(lhs, rhs, operands)
    path = _contraction_path(equation, operands)
    if arrow and "..." in lhs and "..." not in rhs:
        equation = f"{lhs}->...{rhs}"  # torch contracts the dims '...' covers (numpy refuses)
    inputs, labels, out_dims = _layout(equation.replace(" ", ""), arrow, rhs, operands)
    position = {label: k for k, label in enumerate(labels)}
    counts = [0] * len(labels)
    ops = [_aligned(t, term, position, counts) for t, term in zip(operands, inputs)]
    out = _contract(ops, out_dims, counts, path)
    if len(labels) == out_dims:
        return out
    if len(operands) > 1:  # what is left to sum has size 1 by now
        return out.view(tuple(out.shape[:out_dims]))
    return out.sum(list(range(out_dims, len(labels))))
