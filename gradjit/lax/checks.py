"""The type checks JAX's control flow makes: cond's predicate and switch's index are scalars of
the right kinds, branches return the same tree of the same shapes and dtypes, a loop's carry
keeps its tree and types, a while_loop's predicate is a boolean scalar."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gradjit import tree_util


def _shape(x) -> tuple:
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _dtype(x) -> np.dtype:
    """The dtype of an array, a traced value, a tensor, a ShapeDtypeStruct or a number."""
    if not hasattr(x, "dtype"):
        return np.result_type(x)
    return np.dtype(getattr(getattr(x.dtype, "ir", None), "numpy", x.dtype))


def _type(x) -> str:
    return f"{_dtype(x).name}{list(_shape(x))}".replace(" ", "")


def _weak(x) -> bool:
    """A Python number (or a traced one): JAX lets its dtype give way to a loop's carry."""
    return type(x) in (bool, int, float, complex) or getattr(x, "__gradjit_weak__", False)


def _kind(tree) -> str:
    leaf = tree_util.tree_structure(tree) == tree_util.tree_structure(0)
    return "a pytree leaf" if leaf else f"a {type(tree)}"


def _mismatch(a, b) -> str | None:
    if _shape(a) != _shape(b):
        return "shapes"
    return "dtypes" if _dtype(a) != _dtype(b) else None


def check_branches(kind: str, names, outputs):
    """Every branch's output agrees with the first one's (kind: "cond" or "switch")."""
    first, first_tree = names[0], tree_util.tree_structure(outputs[0])
    for name, out in zip(names[1:], outputs[1:]):
        if tree_util.tree_structure(out) != first_tree:
            raise TypeError(
                f"{kind} branch outputs must have the same pytree structure, but they differ:"
                f"\n\n{first} output is {_kind(outputs[0])} but {name} output is {_kind(out)},"
                f" so their structures differ ({first_tree} and "
                f"{tree_util.tree_structure(out)}).\n\nRevise {first} and/or {name} so that "
                "they have the same pytree structure.")
        for a, b in zip(tree_util.tree_leaves(outputs[0]), tree_util.tree_leaves(out)):
            differ = _mismatch(a, b)
            if differ:
                raise TypeError(
                    f"{kind} branches must have equal output types but they differ.\n\nThe "
                    f"output of {first} has type {_type(a)} but the corresponding output of "
                    f"{name} has type {_type(b)}, so the {differ} do not match.\n\nRevise "
                    f"{first} and/or {name} so that all output types match.")


def check_carry(kind: str, before, after):
    """A loop body's carry output agrees with its input (kind: "scan" or "while_loop");
    a Python number's dtype may change, as JAX promotes a weakly typed carry."""
    what = f"{kind} body function carry input and carry output must"
    if tree_util.tree_structure(before) != tree_util.tree_structure(after):
        raise TypeError(
            f"{what} have the same pytree structure, but they differ:\n\nThe input carry is "
            f"{tree_util.tree_structure(before)} but the carry output is "
            f"{tree_util.tree_structure(after)}.\n\nRevise the function so that the carry "
            "output has the same pytree structure as the carry input.")
    for i, (a, b) in enumerate(zip(tree_util.tree_leaves(before), tree_util.tree_leaves(after))):
        differ = _mismatch(a, b)
        if differ and not (differ == "dtypes" and _weak(a)):
            where = f" component {i}" if tree_util.tree_leaves(before)[1:] else ""
            raise TypeError(
                f"{what} have equal types, but they differ:\n\nThe input carry{where} has "
                f"type {_type(a)} but the corresponding output carry component has type "
                f"{_type(b)}, so the {differ} do not match.\n\nRevise the function so that "
                "all output types match the corresponding input types.")


def check_pair(out):
    """A scan body's output: (carry, y)."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"scan body output must be a pair, got {out}.")
    return out


def check_predicate(pred):
    if _shape(pred) != () or _dtype(pred) != np.bool_:
        raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                        f"[{_type(pred)}].")


def _kind_of(x) -> str | None:
    """The dtype kind of a number or an array, None for anything else (a string, a function)."""
    try:
        return _dtype(x).kind if not isinstance(x, str) else None
    except TypeError:
        return None


def check_pred(pred):
    """cond's predicate: a boolean or a number, a scalar."""
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or _shape(pred) != ():
        got = f"type {type(pred)}" if isinstance(pred, Sequence) else f"shape {_shape(pred)}."
        raise TypeError(f"Pred must be a scalar, got {pred} of {got}")
    if _kind_of(pred) not in tuple("biuf"):
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.")


def check_index(index):
    """switch's index: an integer scalar."""
    if isinstance(index, Sequence) and not isinstance(index, str) or (
            not isinstance(index, str) and _kind_of(index) and _shape(index) != ()):
        raise TypeError(f"Branch index must be scalar, got {index} of shape "
                        f"{np.shape(index)}.")
    kind = _kind_of(index)
    if kind is None:
        raise TypeError(f"Index type must be an integer, got {index}.")
    if kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {_dtype(index)}")


def check_bounds(lower, upper):
    """fori_loop's bounds: of one dtype, a Python int giving way to the other's integers."""
    kinds = {_kind_of(lower), _kind_of(upper)}
    if _dtype(lower) != _dtype(upper) and not (kinds <= set("iu") and int in (
            type(lower), type(upper))):
        raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                        f"{_dtype(lower).name} and {_dtype(upper).name}")
