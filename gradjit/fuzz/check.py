"""The properties every random program must have, each checked against the reference
interpreter: text round trip, every pass, compiled CPU code, the PTX grid emulator, compiled
gradients against eager autograd and finite differences.

Floating-point results may differ by rounding (fused loops sum in another order, the math
library is not numpy's), so agreement is judged against the program's own sensitivity: the
interpreter is re-run on arguments perturbed by a few ulps, and positions whose value, NaN-ness
or integer result moves under that are too ill-conditioned to compare; elsewhere the results
must match within a few times the perturbation's effect. NaN positions, infinities and signs of
zero must match exactly where the program is stable."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from gradjit.ir import Builder, Function, GuardFailed, Op, interpret, parse, verify
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.autodiff import differentiate
from gradjit.ir.forward import forward
from gradjit.ir.passes import PIPELINE, eliminate_dead_code, optimize
from gradjit.ir.primitive import bind, evaluate
from gradjit.ir.text import print_function

# What numpy raises for inputs a program rejects (max over nothing, negative integer powers,
# an index out of range) and what a failing guard raises: any other exception is a failure.
EXPECTED_ERRORS = (ValueError, IndexError, GuardFailed)
PASSES = tuple((p.__name__, p) for p in PIPELINE) + (("optimize", optimize),)
PERTURBATIONS = 3
# Primitives that gradjit's math library computes to a few ulps, not as numpy does.
INEXACT = {"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sigmoid", "pow", "erf",
            "erfc", "atan2"}


@dataclass
class Failure:
    check: str
    message: str

    def __str__(self) -> str:
        return f"{self.check}: {self.message}"


@dataclass
class Outcome:
    """The arrays a run returned, or the type of the expected error it raised."""

    arrays: list | None = None
    error: str | None = None

    def __str__(self) -> str:
        return f"raised {self.error}" if self.error else f"{len(self.arrays)} arrays"


def outcome(run, *args) -> Outcome:
    try:
        return Outcome([np.asarray(a) for a in run(*args)])
    except EXPECTED_ERRORS as error:
        return Outcome(error=type(error).__name__)


class Reference:
    """The interpreter's outcome for a function and arguments, and its sensitivity."""

    def __init__(self, fn: Function, args, seed=0):
        # Rounding noise of the least precise float type anywhere in the program: perturbing
        # f64 arguments does not show the noise of an f32 value computed from them.
        types = [p.type for p in fn.params] + [op.out.type for op in fn.ops if op.out]
        self.eps = max((float(np.finfo(t.dtype.numpy).eps) for t in types if t.dtype.is_float),
                       default=0.0)
        self.outcome = outcome(lambda *a: interpret(fn, *a), *args)
        self.dead_error = False
        if self.outcome.error:  # an op no result depends on raised: passes may drop it
            for simplify in (eliminate_dead_code, optimize):
                try:
                    simpler = simplify(fn)
                except EXPECTED_ERRORS:  # constant folding met the error
                    break
                found = outcome(lambda *a: interpret(simpler, *a), *args)
                if found.error is None:
                    fn, self.outcome, self.dead_error = simpler, found, True
                    break
        rng = np.random.default_rng(seed)
        self.perturbed = [outcome(lambda *a: interpret(fn, *a), *_perturb(rng, args))
                          for _ in range(PERTURBATIONS)]
        self.perturbed += [outcome(lambda: _interpret_nudged(fn, args, rng))
                           for _ in range(PERTURBATIONS)]
        reordered = _reversed_sums(fn)
        self.perturbed.append(outcome(lambda *a: interpret(reordered, *a), *args))

    def compare(self, got: Outcome) -> str | None:
        """None if `got` agrees with the reference, else what differs."""
        ref = self.outcome
        if got.error and self.dead_error:
            return None
        if ref.error or got.error:
            if ref.error and got.error:
                return None  # reordered checks may raise another of the expected errors
            if any((p.error is None) != (ref.error is None) for p in self.perturbed):
                return None  # whether it raises depends on rounding
            return f"reference {ref}, got {got}"
        if len(got.arrays) != len(ref.arrays):
            return f"{len(ref.arrays)} results expected, got {len(got.arrays)}"
        for i, (want, have) in enumerate(zip(ref.arrays, got.arrays)):
            if have.shape != want.shape or have.dtype != want.dtype:
                return f"result {i}: expected {want.dtype}{list(want.shape)}, got " \
                       f"{have.dtype}{list(have.shape)}"
            moved = [p.arrays[i] for p in self.perturbed if p.error is None]
            problem = compare_arrays(want, have, moved, self.eps)
            if problem:
                return f"result {i}: {problem}"
        return None


def _interpret_nudged(fn: Function, args, rng):
    """The interpreter with each result of a math function moved by a few ulps, as gradjit's
    math library may compute it: the program's sensitivity to those (1 - tanh(x)^2 for large
    x, say) is not seen by perturbing the arguments alone."""
    env = dict(zip(fn.params, args))
    for op in fn.ops:
        out = evaluate(op.prim, [env[v] for v in op.inputs], op.params)
        if op.out is not None:
            env[op.out] = _perturb(rng, [out], 8)[0] if op.prim.name in INEXACT else out
    return [env[r] for r in fn.results]


def _reversed_sums(fn: Function) -> Function:
    """`fn` with every sum taken over its operand in reverse order: compiled loops add in
    another order than numpy, so where the order decides (cancellation, or an overflow to inf
    that one order meets and another does not) the result is not compared."""
    builder = Builder(fn.name)
    builder.params = list(fn.params)
    env = {p: p for p in fn.params}
    with builder:
        for op in fn.ops:
            inputs = [env[v] for v in op.inputs]
            if op.prim is S.reduce_sum:
                for axis in op.params["axes"]:
                    n = inputs[0].type.shape[axis]
                    flip = np.arange(n - 1, -1, -1, dtype=np.int64)
                    inputs = [S.gather(inputs[0], flip, axis=axis)]
            out = builder.emit(op.prim, inputs, op.params, op.site)
            if op.out is not None:
                env[op.out] = out
    return builder.build([env[r] for r in fn.results])


def _perturb(rng, args, ulps=32):
    """Float arrays each multiplied by 1 +- `ulps` epsilons (the sign random per element)."""
    out = []
    for a in args:
        if a.dtype.kind != "f":
            out.append(a)
            continue
        eps = np.finfo(a.dtype).eps
        factor = 1 + ulps * eps * rng.choice([-1.0, 1.0], size=a.shape)
        with np.errstate(over="ignore"):  # the largest values may round up to inf
            out.append((a * factor).astype(a.dtype))
    return out


def compare_arrays(want, have, moved, eps=0.0) -> str | None:
    """Compare at the positions where `moved` (results for perturbed arguments) shows the
    program is stable, to within 16 times `eps` (at least the result type's) relative and 4
    times the perturbation's effect; None when they agree."""
    stable = np.ones(want.shape, bool)
    if want.dtype.kind != "f":
        for m in moved:
            stable &= m == want
        bad = stable & (have != want)
        return _report(bad, want, have) if bad.any() else None
    spread = np.zeros(want.shape, want.dtype)
    with np.errstate(all="ignore"):
        for m in moved:
            stable &= (np.isnan(m) == np.isnan(want)) & (np.isinf(m) == np.isinf(want))
            stable &= ~np.isinf(want) | (m == want)
            stable &= (want != 0) | (m == 0)
            spread = np.fmax(spread, np.abs(m - want))
        info = np.finfo(want.dtype)
        eps = max(eps, float(info.eps))
        tol = 16 * eps * np.abs(want) + 4 * spread + 64 * info.smallest_subnormal
        nan_differs = np.isnan(want) != np.isnan(have)
        finite = np.isfinite(want)
        off = finite & ~(np.abs(have - want) <= tol)
        inf_differs = np.isinf(want) & (have != want)
        zero_sign = (want == 0) & (have == 0) & (np.signbit(want) != np.signbit(have))
    bad = stable & (nan_differs | off | inf_differs | zero_sign)
    return _report(bad, want, have) if bad.any() else None


def _report(bad, want, have) -> str:
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ, first at {list(where)}: "
            f"expected {want[where]!r}, got {have[where]!r}")


def loss_function(fn: Function) -> Function | None:
    """`fn`'s float results folded into one scalar, sum(r) + sum(r*r)/2 over each result,
    for gradient checks; None without float results."""
    floats = [r for r in fn.results if r.type.dtype.is_float]
    if not floats:
        return None
    dt = fn.params[0].type.dtype.name
    builder = Builder(fn.name)
    builder.params, builder.ops = list(fn.params), list(fn.ops)
    with builder:
        total = None
        for r in floats:
            axes = tuple(range(r.type.rank))
            r = E.cast(r, dtype=dt) if r.type.dtype.name != dt else r
            part = E.add(S.reduce_sum(r, axes=axes, keepdims=False),
                         E.mul(S.reduce_sum(E.mul(r, r), axes=axes, keepdims=False), 0.5))
            total = part if total is None else E.add(total, part)
    return builder.build([total])


def eager_gradients(fn: Function, args):
    """The value and gradients of scalar `fn` by gradjit's eager Tensors and tape autograd."""
    import gradjit
    leaves = [gradjit.from_numpy(np.array(a)).requires_grad_() for a in args]
    env = dict(zip(fn.params, leaves))
    for op in fn.ops:
        out = bind(op.prim, *[env[v] for v in op.inputs], **op.params)
        if op.out is not None:
            env[op.out] = out
    loss = env[fn.results[0]]
    if not getattr(loss, "requires_grad", False):  # no input reaches it differentiably
        return [np.asarray(getattr(loss, "_value", loss))] + [np.zeros_like(a) for a in args]
    loss.backward()
    grads = [np.zeros_like(a) if t.grad is None else t.grad.numpy() for a, t in zip(args, leaves)]
    return [loss.detach().numpy()] + grads


def check_program(fn: Function, args, *, targets=("cpu",), gradients=True, passes=PASSES):
    """Every property for one program and its arguments: a list of Failures (empty if none)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow in numpy is expected here
        return _check(fn, args, targets, gradients, passes)


def _check(fn, args, targets, gradients, passes):
    failures = []
    ref = Reference(fn, args)
    _round_trip(fn, args, ref, failures)
    _against(ref, fn, args, targets, passes, "", failures)
    loss = loss_function(fn) if gradients else None
    if loss is None:
        return failures
    dfn = verify(differentiate(loss, range(len(fn.params))))
    dref = Reference(dfn, args)
    _against(dref, dfn, args, targets, passes, "gradient ", failures)
    _expect(failures, "eager gradient", dref, lambda: eager_gradients(loss, args))
    tame = all(np.all((a == 0) | (np.abs(a) >= 1e-6) & (np.abs(a) <= 1e3)) for a in args)
    if tame:
        # steps are absolute (no huge values); near tiny values, VJPs such as div's add
        # terms like 1/x that absorb the rest of the gradient
        problem = finite_differences(loss, args)
        if problem:
            failures.append(Failure("finite differences", problem))
    _forward_mode(loss, args, targets, passes, failures, tame)
    return failures


def _forward_mode(loss: Function, args, targets, passes, failures, tame):
    """Forward mode on the same loss: its program through every pass and target against the
    interpreter, and (for tame arguments, as finite differences) its tangent against reverse
    mode's <gradient, tangent>."""
    floats = [i for i, p in enumerate(loss.params) if p.type.dtype.is_float]
    if not floats:
        return
    rng = np.random.default_rng(1)
    tangents = [rng.normal(size=args[i].shape).astype(args[i].dtype) for i in floats]
    pushed = verify(forward(loss, floats))
    pushed_args = [*args, *tangents]
    _against(Reference(pushed, pushed_args), pushed, pushed_args, targets, passes, "jvp ",
             failures)
    problem = transpose_identity(loss, floats, args, tangents) if tame else None
    if problem:
        failures.append(Failure("jvp transpose", problem))


def _retyped_f64(fn: Function) -> Function:
    """fn with its single-precision values (float32, complex64) in double precision."""
    return parse(print_function(fn).replace("f32", "f64").replace("c64", "c128"))


def transpose_identity(loss: Function, floats, args, tangents) -> str | None:
    """The tangent of scalar `loss` along `tangents` (forward mode) against <gradient,
    tangents> (reverse mode), both in f64; None where they agree or either is not finite."""
    loss = _retyped_f64(loss)
    args = [a.astype(np.float64) for a in args]
    tangents = [t.astype(np.float64) for t in tangents]
    count = len(loss.results)
    try:
        grads = interpret(differentiate(loss, floats), *args)[count:]
        tangent = float(interpret(forward(loss, floats), *args, *tangents)[count])
    except EXPECTED_ERRORS:
        return None
    want = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents))
    scale = sum(float(np.sum(np.abs(g * t))) for g, t in zip(grads, tangents)) + 1.0
    if not (np.isfinite(want) and np.isfinite(tangent) and np.isfinite(scale)):
        return None
    if abs(tangent - want) > 1e-9 * (scale + abs(want)):
        return f"forward mode's tangent {tangent!r}, reverse mode's <gradient, tangent> {want!r}"
    return None


def _expect(failures, name, ref: Reference, run):
    try:
        got = outcome(run)
    except Exception as error:  # anything but the expected errors is a failure to report
        failures.append(Failure(name, f"crashed with {type(error).__name__}: {error}"))
        return
    problem = ref.compare(got)
    if problem:
        failures.append(Failure(name, problem))


def _round_trip(fn, args, ref, failures):
    text = print_function(fn)
    try:
        again = verify(parse(text))
    except Exception as error:
        failures.append(Failure("round trip", f"{type(error).__name__}: {error}"))
        return
    if print_function(again) != text:
        failures.append(Failure("round trip", "printing the parsed text gives other text"))
    _expect(failures, "round trip", ref, lambda: interpret(again, *args))


def _against(ref, fn, args, targets, passes, prefix, failures):
    from gradjit.codegen import compile_function
    for name, transform in passes:  # (folding may raise what the program would raise)
        _expect(failures, f"{prefix}pass {name}", ref,
                lambda: interpret(verify(transform(fn)), *args))
    for target in targets:
        options = {"cache_dir": False} if target == "cpu" else {}
        _expect(failures, f"{prefix}compiled {target}", ref,
                lambda: compile_function(verify(optimize(fn)), target=target, **options)(*args))


def finite_differences(loss: Function, args, seed=0) -> str | None:
    """The gradient of `loss` (retyped to f64) in two random directions against central
    differences at two step sizes. A direction is skipped where these disagree, or where the
    one-sided differences at a tiny step do (a kink: |x| at 0 has central differences 0)."""
    loss = _retyped_f64(loss)
    grad = differentiate(loss, range(len(loss.params)))
    args = [a.astype(np.float64) for a in args]
    try:
        grads = interpret(grad, *args)[1:]
        loss = _freeze_stop_gradients(loss, args)
    except EXPECTED_ERRORS:
        return None
    rng = np.random.default_rng(seed)
    for _ in range(2):
        v = [rng.normal(size=a.shape) for a in args]
        slope = sum(float(np.sum(g * d)) for g, d in zip(grads, v))
        scale = sum(float(np.sum(np.abs(g * d))) for g, d in zip(grads, v)) + 1.0
        estimates = [_differences(loss, args, v, h) for h in (1e-4, 1e-5, 1e-7)]
        if any(e is None for e in estimates) or not np.isfinite(slope):
            continue
        (coarse, _), (fine, _), (_, one_sided) = estimates
        if abs(coarse - fine) > 1e-6 * (scale + abs(fine)) or one_sided > 1e-4 * scale:
            continue
        if abs(slope - fine) > 1e-5 * (scale + abs(fine)):
            return f"directional derivative {slope!r}, central differences {fine!r}"
    return None


def _freeze_stop_gradients(fn: Function, args) -> Function:
    """`fn` with each stop_gradient (and stop_reverse) replaced by the constant it computes at
    `args`: what the gradient differentiates (their reverse derivative is zero by definition)."""
    stops = [op for op in fn.ops if op.prim in (E.stop_gradient, E.stop_reverse)]
    if not stops:
        return fn
    values = interpret(Function(fn.name, fn.params, fn.ops, [op.out for op in stops]), *args)
    frozen = {id(op): Op(S.constant, [], {"value": v.tolist(), "shape": v.shape,
                                          "dtype": op.out.type.dtype.name}, op.out, op.site)
              for op, v in zip(stops, values)}
    return Function(fn.name, fn.params, [frozen.get(id(op), op) for op in fn.ops], fn.results)


def _differences(loss, args, v, h):
    """(central difference, |forward - backward difference|) at step h in direction v."""
    try:
        up, mid, down = (float(interpret(loss, *[a + s * h * d for a, d in zip(args, v)])[0])
                         for s in (1, 0, -1))
    except EXPECTED_ERRORS:
        return None
    central, one_sided = (up - down) / (2 * h), abs((up - mid) - (mid - down)) / h
    return (central, one_sided) if np.isfinite(central) and np.isfinite(one_sided) else None


def describe(fn: Function, args, failures) -> str:
    """A failure report that reproduces it: the failures, the IR text and the arguments."""
    lines = [str(f) for f in failures] + ["", print_function(fn), ""]
    for p, a in zip(fn.params, args):
        lines.append(f"# %{p.name} = {a.tolist()!r}")
        lines.append(f"np.frombuffer(bytes.fromhex({a.tobytes().hex()!r}), np.{a.dtype})"
                     f".reshape({a.shape})")
    return "\n".join(lines)
