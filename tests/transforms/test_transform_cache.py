"""jvp, vjp and linearize keep one compiled program per definition of the function, not per
function object: a lambda or a bound method made afresh on every call is traced once, and a
different captured value (baked into the trace) is traced again and computes with it."""
import numpy as np

import gradjit

rng = np.random.default_rng(11)
x, t = rng.standard_normal(4), rng.standard_normal(4)


def test_a_fresh_lambda_per_call_is_traced_once():
    traces = []
    y = rng.standard_normal(4)
    for _ in range(4):
        def f(z):
            traces.append("jvp")
            return np.sin(z) * y
        out, tangent = gradjit.jvp(f, (x,), (t,))
        np.testing.assert_allclose(tangent, np.cos(x) * t * y, rtol=1e-12)
    assert traces == ["jvp"]  # the Python body runs only while tracing


def test_vjp_and_linearize_trace_once_across_fresh_lambdas():
    counts = {"vjp": 0, "linearize": 0}
    for _ in range(3):
        out, pull = gradjit.vjp(lambda z: counts.__setitem__("vjp", counts["vjp"] + 1)
                                or np.exp(z) * z, x)
        np.testing.assert_allclose(pull(t)[0], (np.exp(x) * x + np.exp(x)) * t, rtol=1e-12)
        out, push = gradjit.linearize(lambda z: counts.__setitem__(
            "linearize", counts["linearize"] + 1) or np.tanh(z), x)
        np.testing.assert_allclose(push(t), t / np.cosh(x) ** 2, rtol=1e-12)
    # one trace for the value, one for the pullback (vjp) or the forward-mode program
    assert counts == {"vjp": 2, "linearize": 2}


def test_captured_values_decide_the_program():
    def scaled(k):
        return lambda z: np.sin(z) * k

    for k in (2.0, 3.0, 2.0, 3.0):
        np.testing.assert_allclose(gradjit.jvp(scaled(k), (x,), (t,))[1], k * np.cos(x) * t,
                                   rtol=1e-12)
    arrays = [rng.standard_normal(4), rng.standard_normal(4)]
    for a in arrays + arrays:
        np.testing.assert_allclose(gradjit.jvp(lambda z: z * a, (x,), (t,))[1], a * t)
    definitions = {gradjit.tracer.transforms._definition(scaled(k)) for k in (2.0, 3.0, 2.0)}
    assert len(definitions) == 2


def test_bound_methods_of_one_object_share_a_program_and_of_two_do_not():
    traces = []

    class Model:
        def __init__(self, w):
            self.w = w

        def forward(self, z):
            traces.append(self)
            return np.tanh(z * self.w)

    first, second = Model(2.0), Model(-1.0)
    for model in (first, first, second, first, second):
        tangent = gradjit.jvp(model.forward, (x,), (t,))[1]
        np.testing.assert_allclose(tangent, model.w * t / np.cosh(x * model.w) ** 2,
                                   rtol=1e-12)
    assert traces == [first, second]


weights = np.ones(4)


def test_a_global_assigned_anew_or_changed_in_place_is_read_afresh():
    global weights
    loss = lambda z: np.sum(weights * z ** 2)  # noqa: E731
    for scale in (1.0, 2.0):
        weights = np.full(4, scale)
        np.testing.assert_allclose(gradjit.vjp(loss, x)[1](1.0)[0], 2 * scale * x)
    for scale in (3.0, -1.0):
        weights[:] = scale
        np.testing.assert_allclose(gradjit.vjp(loss, x)[1](1.0)[0], 2 * scale * x)
        np.testing.assert_allclose(gradjit.jvp(loss, (x,), (t,))[1], 2 * scale * x @ t)


def test_an_attribute_assigned_anew_is_read_afresh():
    class Model:
        def __init__(self):
            self.w = np.ones(4)

        def energy(self, z):
            return np.sum(self.w * z)

    model = Model()
    for scale in (1.0, 5.0):
        model.w = np.full(4, scale)
        np.testing.assert_allclose(gradjit.vjp(model.energy, x)[1](1.0)[0], np.full(4, scale))


def test_cache_info_of_the_shared_programs():
    """Each definition keeps one Transformed per mode (jvp, the value for vjp and linearize,
    the pullback): fresh lambdas with equal captured numbers hit it, another number traces
    its own; a captured array changed in place is traced afresh and computed with."""
    y = rng.standard_normal(4)

    def make(k):
        return lambda z: np.sin(z) * y * k
    for k in (1.0, 1.0, 2.0, 1.0):
        np.testing.assert_allclose(gradjit.jvp(make(k), (x,), (t,))[1], np.cos(x) * t * y * k)
        np.testing.assert_allclose(gradjit.vjp(make(k), x)[1](t)[0], np.cos(x) * t * y * k)
    table = gradjit.tracer.transforms._cached
    infos = [{mode: program.cache_info() for mode, program in
              table[gradjit.tracer.transforms._definition(make(k))].items()} for k in (1.0, 2.0)]
    assert len(infos[0]) == 3
    assert all((i.traces, i.hits, i.misses) == (1, 2, 1) for i in infos[0].values())
    assert all((i.traces, i.hits, i.misses) == (1, 0, 1) for i in infos[1].values())
    y[:] = 2.0
    np.testing.assert_allclose(gradjit.jvp(make(1.0), (x,), (t,))[1], np.cos(x) * t * 2.0)
