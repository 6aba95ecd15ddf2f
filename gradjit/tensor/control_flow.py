"""torch.cond and torch.while_loop over pytrees of tensors, run by gradjit.lax's control flow
(Python control flow whose traced predicates become guards), so that gradjit.jit compiles them
and autograd differentiates the path taken."""
from __future__ import annotations

from gradjit import lax
from gradjit.lax.control import choose
from gradjit.tensor.arith import apply
from gradjit.tensor.functions import is_tensor
from gradjit.tree_util import tree_flatten, tree_unflatten


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands). A Python predicate picks the branch
    at once; a tensor one checks that both branches give outputs of one structure, dims and
    dtypes, and gives the chosen outputs with grad_fn CondAutogradOpBackward."""
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    _check_cond(pred, true_fn, false_fn, operands)
    leaves, spec = tree_flatten(operands)

    def chosen(*flat):
        args = tree_unflatten(spec, flat)
        outputs = true_fn(*args), false_fn(*args)
        _check_branches(*outputs)
        return choose(pred.reshape(()), *outputs)
    return apply("CondAutogradOpBackward", chosen, *leaves)


def _check_cond(pred, true_fn, false_fn, operands):
    if not is_tensor(pred):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or \
            not all(is_tensor(t) for t in tree_flatten(operands)[0]):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that "
                           f"only consists of tensor leaves, but got {operands}.")


def _check_branches(true_out, false_out):
    """torch's merge of the branches' outputs: one tree, and per tensor one dim and dtype (the
    sizes may differ)."""
    (true_leaves, true_spec), (false_leaves, false_spec) = map(tree_flatten,
                                                               (true_out, false_out))
    if true_spec != false_spec:
        raise RuntimeError(f"Unmatched output spec from torch.cond branches: true branch "
                           f"tree_spec {true_spec} vs false branch tree_spec {false_spec}.")
    for a, b in zip(true_leaves, false_leaves):
        for field, of in (("dim", lambda t: t.dim()), ("dtype", lambda t: t.dtype)):
            if of(a) != of(b):
                raise RuntimeError(f"When merging two branches' output in torch.cond,  expected "
                                   f"same {field} but got {of(a)} and {of(b)}.")


def while_loop(cond_fn, body_fn, carried_inputs):
    """body_fn applied to the carried values while cond_fn of them holds; body_fn returns
    values of the carried ones' structure, shapes and dtypes. The result is a tuple of new
    tensors (grad_fn WhileLoopAutogradOpBackward) and ints."""
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    leaves, spec = tree_flatten(carried_inputs)
    if not all(is_tensor(v) or isinstance(v, int) for v in leaves):
        raise AssertionError(f"{leaves} can only be of (<class 'torch.Tensor'>, <class 'int'>, "
                             f"<class 'torch.SymInt'>) but got {tuple(map(type, leaves))}")

    def looped(*flat):
        def holds(values):
            pred = cond_fn(*tree_unflatten(spec, values))
            if not (isinstance(pred, bool) or is_tensor(pred) and pred.dim() == 0 and
                    pred.dtype.ir.is_bool):
                raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean "
                                   f"but got {pred}")
            return pred

        def step(values):
            out = tree_flatten(body_fn(*tree_unflatten(spec, values)))[0]
            _check_body(out, values)
            return out
        out = lax.while_loop(holds, step, list(flat))
        return [v.clone() if any(v is x for x in flat) and is_tensor(v) else v for v in out]
    out = apply("WhileLoopAutogradOpBackward", looped, *leaves)
    return tuple(tree_unflatten(spec, out))


def _check_body(out, carried):
    if len(out) != len(carried):
        raise RuntimeError(f"Expected body_fn_output and carried_inputs to have same number of "
                           f"outputs but got lhs:{out} and rhs:{carried}")
    for i, (a, b) in enumerate(zip(out, carried)):
        if is_tensor(a) and is_tensor(b):
            differ = [f"'{name}: {x} vs {y}'" for name, x, y in (
                ("shape", a.shape, b.shape), ("dtype", a.dtype, b.dtype)) if x != y]
        else:
            differ = [f"'type: {type(a)} vs {type(b)}'"] if type(a) is not type(b) else []
        if differ:
            raise RuntimeError(f"Expected body_fn_output and carried_inputs to have same "
                               f"metadata but found:\npair[{i}] differ in {', '.join(differ)}")
