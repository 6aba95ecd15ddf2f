"""HIPS autograd's names over gradjit's transformations, so autograd code ports by changing
its imports: `primitive` with `defvjp`/`defjvp` rules (built on custom_vjp/custom_jvp) and
the differential operators make_vjp, make_jvp, make_hvp, grad_and_aux, grad_named,
hessian_tensor_product, tensor_jacobian_product and deriv, each with autograd's `argnum`."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from gradjit.tracer.custom import custom_jvp, custom_vjp
from gradjit.tracer.transforms import elementwise_grad, jvp, vjp


class primitive:
    """autograd's @primitive: calls of `fun` are one op whose derivatives are the rules given
    by defvjp (reverse mode) and defjvp (forward mode; with no VJP rule, reverse mode
    transposes it). With VJP rules alone forward mode is refused. Keyword arguments and
    positional arguments that are not arrays (numbers, strings, tuples, None) are constants
    of the op."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vjp_makers: dict = {}  # argnum -> maker(ans, *args, **kwargs) -> (g -> cotangent)
        self.jvp_makers: dict = {}  # argnum -> maker(g, ans, *args, **kwargs) -> tangent
        self._ops: dict = {}

    def __call__(self, *args, **kwargs):
        constant = tuple(i for i, a in enumerate(args) if _is_constant(a))
        key = (len(args), constant, tuple(sorted(kwargs.items())))
        if key not in self._ops:
            self._ops[key] = self._op(len(args), constant, kwargs)
        op = self._ops[key]
        return op(*args) if op is not None else self.fun(*args, **kwargs)

    def _op(self, count, constant, kwargs):
        if not self.vjp_makers and not self.jvp_makers:
            return None  # no rule yet: traced like any Python function
        @functools.wraps(self.fun)
        def fun(*args):
            return self.fun(*args, **kwargs)
        if not self.vjp_makers:
            op = custom_jvp(fun, nondiff_argnums=constant)
            op.defjvp(self._jvp_rule(op, count, constant, kwargs))
            return op
        op = custom_vjp(fun, nondiff_argnums=constant)

        def fwd(*args):
            # the op, not fun: traced again for higher derivatives, fun (often a scipy
            # function) could not take traced values
            ans = op(*args)
            return ans, (ans, args)

        def bwd(*rest):
            (ans, args), g = rest[-2], rest[-1]
            return tuple(self._cotangent(i, g, ans, args, kwargs)
                         for i in range(count) if i not in constant)
        op.defvjp(fwd, bwd)
        if self.jvp_makers:
            op.defjvp(self._jvp_rule(op, count, constant, kwargs))
        return op

    def _jvp_rule(self, op, count, constant, kwargs):
        def rule(*rest):
            primals, tangents = rest[-2], rest[-1]
            args = _merge(rest[:-2], constant, primals, count)
            ans = op(*args)
            parts = [self.jvp_makers[i](tangent, ans, *args, **kwargs) for tangent, i in zip(
                tangents, (i for i in range(count) if i not in constant)) if i in self.jvp_makers]
            return ans, sum(parts[1:], parts[0]) if parts else np.zeros_like(ans)
        return rule

    def _cotangent(self, i, g, ans, args, kwargs):
        maker = self.vjp_makers.get(i)
        return None if maker is None else maker(ans, *args, **kwargs)(g)


def _is_constant(value) -> bool:
    return value is None or isinstance(value, (bool, int, float, complex, str, tuple))


def _merge(nondiff, constant, primals, count):
    args, values, fixed = [], iter(primals), dict(zip(constant, nondiff))
    for i in range(count):
        args.append(fixed[i] if i in fixed else next(values))
    return args


def defvjp(fun: primitive, *vjpmakers, argnums=None):
    """fun's VJP makers, one per argument in `argnums` (default 0, 1, ...): each is
    maker(ans, *args, **kwargs) returning g -> the cotangent of that argument (None: not
    differentiable)."""
    _define(fun, "vjp_makers", vjpmakers, argnums)


def defjvp(fun: primitive, *jvpmakers, argnums=None):
    """fun's JVP makers, one per argument: maker(g, ans, *args, **kwargs) -> the output's
    tangent along the tangent g of that argument."""
    _define(fun, "jvp_makers", jvpmakers, argnums)


def _define(fun, kind, makers, argnums):
    if not isinstance(fun, primitive):
        raise TypeError(f"defvjp/defjvp take a function made by @primitive, not "
                        f"{type(fun).__name__}")
    table = getattr(fun, kind)
    table.clear()
    table.update((i, m) for i, m in zip(argnums or range(len(makers)), makers)
                 if m is not None)
    fun._ops.clear()


def _at(fun, argnum, args):
    """fun as a function of args[argnum] alone, the other arguments fixed."""
    def of_one(x):
        return fun(*args[:argnum], x, *args[argnum + 1:])
    return of_one


def make_vjp(fun, argnum=0):
    """make_vjp(fun, argnum)(*args) -> (vjp, ans): vjp(g) is the cotangent of args[argnum]."""
    def at(*args):
        ans, pull = vjp(_at(fun, argnum, args), args[argnum])
        return (lambda g: pull(g)[0]), ans
    return at


def make_jvp(fun, argnum=0):
    """make_jvp(fun, argnum)(*args)(v) -> (ans, the directional derivative along v)."""
    def at(*args):
        return lambda v: jvp(_at(fun, argnum, args), (args[argnum],), (v,))
    return at


def grad_and_aux(fun, argnum=0):
    """For fun returning (value, aux): (the gradient of value, aux)."""
    from gradjit.tracer import grad
    return grad(fun, argnum, has_aux=True)


def holomorphic_grad(fun, argnum=0):
    """The complex derivative of a holomorphic fun of a complex argument."""
    from gradjit.tracer import grad
    return grad(fun, argnum, holomorphic=True)


def make_hvp(fun, argnum=0):
    """make_hvp(fun, argnum)(*args) -> (hvp, gradient): hvp(v) is the Hessian times v."""
    from gradjit.tracer import grad
    return make_vjp(grad(fun, argnum), argnum)


def hessian_tensor_product(fun, argnum=0):
    """A function of (*args, tensor): the Hessian of fun at args[argnum] contracted with
    tensor (over all of tensor's axes)."""
    from gradjit.tracer import grad
    gradient = grad(fun, argnum)

    def contract(*args):
        *args, tensor = args
        return np.tensordot(gradient(*args), tensor, np.ndim(tensor))
    return grad(contract, argnum)


def tensor_jacobian_product(fun, argnum=0):
    """A function of (*args, tensor): tensor contracted with fun's Jacobian at
    args[argnum] (a vector-Jacobian product)."""
    def product(*args):
        *args, tensor = args
        return make_vjp(fun, argnum)(*args)[0](tensor)
    return product


def make_ggnvp(f, g=lambda y: 0.5 * np.sum(y ** 2, axis=-1), f_argnum=0):
    """make_ggnvp(f, g, f_argnum)(*args) -> ggnvp: v -> J^T H J v, the generalized Gauss-Newton
    matrix of g(f(x)) at x = args[f_argnum] times v, where J is f's Jacobian at x and H is g's
    Hessian at f(x) (by default g is half the squared norm over the last axis: J^T J v)."""
    def at(*args):
        x, f_of_x = args[f_argnum], _at(f, f_argnum, args)
        f_x, pull = vjp(f_of_x, x)
        g_hvp = make_hvp(g)(f_x)[0]

        def ggnvp(v):
            return pull(g_hvp(jvp(f_of_x, (x,), (v,))[1]))[0]
        return ggnvp
    return at


def multigrad_dict(fun):
    """The gradients with respect to every argument at once, as {argument name: gradient} in
    the signature's order (defaults included; *args as a tuple, **kwargs as a dict)."""
    from gradjit.tracer import grad
    signature = inspect.signature(fun)

    def gradients(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        names = list(bound.arguments)

        def of_all(values):
            call = signature.bind_partial()
            call.arguments.update(values)
            return fun(*call.args, **call.kwargs)
        found = grad(of_all)(dict(bound.arguments))
        return {name: found[name] for name in names}
    return gradients


def grad_named(fun, argname):
    """The gradient with respect to the argument called `argname`."""
    from gradjit.tracer import grad
    return grad(fun, list(inspect.signature(fun).parameters).index(argname))


hessian_vector_product = hessian_tensor_product
vector_jacobian_product = tensor_jacobian_product
deriv = elementwise_grad


def unbroadcast(g, target):
    """g summed down to target's shape: the cotangent of an argument that broadcasting
    widened (autograd's unbroadcast, for the VJP makers of primitives)."""
    shape = np.shape(target)
    while np.ndim(g) > len(shape):
        g = np.sum(g, axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and np.shape(g)[axis] != 1:
            g = np.sum(g, axis=axis, keepdims=True)
    return g
