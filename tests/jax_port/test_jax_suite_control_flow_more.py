"""More of JAX's lax_control_flow scenarios: the checks of cond's predicate, switch's index
and fori_loop's bounds, JAX's older five-argument cond, scans of no steps, index_in_dim."""
import numpy as np
import pytest

from tests.jax_port.api_suite import agree

SCENARIOS = {
    "cond_pred_none": (lambda jax, jnp, lax: lax.cond(None, lambda x: x, lambda x: -x, 1.0),
                       "cond predicate is None"),
    "cond_pred_string": (lambda jax, jnp, lax: lax.cond("foo", lambda: 2.0, lambda: 3.0),
                         "Pred must be a scalar, got foo of type <class 'str'>"),
    "cond_pred_tuple": (lambda jax, jnp, lax: lax.cond((1.0, 1.0), lambda: 2.0, lambda: 3.0),
                        r"Pred must be a scalar, got \(1.0, 1.0\) of type <class 'tuple'>"),
    "cond_pred_array": (lambda jax, jnp, lax: lax.cond(np.ones(2) > 0, lambda: 2.0, lambda: 3.0),
                        r"Pred must be a scalar, got .* of shape \(2,\)"),
    "cond_pred_function": (lambda jax, jnp, lax: lax.cond(lambda x: True, lambda: 2.0,
                                                          lambda: 3.0),
                           "Pred type must be either boolean or number, got <function"),
    "cond_pred_float_and_int": (lambda jax, jnp, lax: [
        lax.cond(p, lambda x: (True, x), lambda x: (False, x), 0.5) for p in (0.0, 0.5, 0, 2)],
        None),
    "cond_five_arguments": (lambda jax, jnp, lax: [
        lax.cond(p, 1.0, lambda x: x * 2, np.arange(2.0).sum(), lambda x: -x) for p in (1, 0)]
        + [jax.jit(lambda p: lax.cond(p, np.ones(2), jnp.sin, 3.0 * np.ones(2), jnp.cos))(True)],
        None),
    "cond_nested_jit": (lambda jax, jnp, lax: [jax.jit(lambda x: lax.cond(
        x < 2, lambda x: 2 * x, lambda x: lax.cond(x < 5, lambda y: 3 * y, lambda y: 4 * y, x),
        x))(v) for v in (1, 3, 6)], None),
    "switch_index_string": (lambda jax, jnp, lax: lax.switch("foo", [lambda: 2.0, lambda: 3.0]),
                            "Index type must be an integer, got foo."),
    "switch_index_function": (lambda jax, jnp, lax: lax.switch(lambda x: 0, [lambda: 2.0]),
                              "Index type must be an integer, got <function"),
    "switch_index_tuple": (lambda jax, jnp, lax: lax.switch((1.0, 1.0), [lambda: 2.0]),
                           r"Branch index must be scalar, got \(1.0, 1.0\) of shape \(2,\)."),
    "switch_index_bool": (lambda jax, jnp, lax: lax.switch(True, [lambda: 2.0, lambda: 3.0]),
                          "Index type must be an integer, got True as bool"),
    "switch_several_operands": (lambda jax, jnp, lax: [jax.jit(
        lambda i: lax.switch(i, [lax.add, lax.mul, lax.sub], 3.0, 4.0))(i) for i in range(-1, 4)],
        None),
    "fori_loop_bound_dtypes": (lambda jax, jnp, lax: lax.fori_loop(
        np.int16(0), np.int32(3), lambda i, c: c, 7.0),
        "lower and upper arguments to fori_loop must have equal types, got int16 and int32"),
    "fori_loop_float_bound": (lambda jax, jnp, lax: lax.fori_loop(0.0, 3, lambda i, c: c, 7.0),
                              "must have equal types, got float64 and int64"),
    "fori_loop_mixed_int_bounds": (lambda jax, jnp, lax: (
        lax.fori_loop(np.int32(1), 4, lambda i, c: c * i, 1),
        lax.fori_loop(0, 0, lambda i, c: c + i, 1.0)), None),
    "fori_loop_dynamic_index_state": (lambda jax, jnp, lax: [jax.jit(
        lambda x, n: lax.fori_loop(0, lax.min(x.shape[0], n), lambda i, s: {
            "arr": s["arr"], "total": s["total"] + lax.dynamic_index_in_dim(s["arr"], i, 0,
                                                                          False)},
            {"arr": x, "total": 0.0})["total"])(np.arange(5.0), n) for n in (0, 3, 9)], None),
    "scan_no_steps": (lambda jax, jnp, lax: (
        lax.scan(lambda c, x: (c + x.sum(), {"y": x * 2, "z": (x, c)}), 0.0, np.zeros((0, 2))),
        jax.jit(lambda: lax.scan(lambda c, x: (c, c * 2), np.ones(3), None, length=0))()),
        None),
    "scan_no_steps_carry_mismatch": (lambda jax, jnp, lax: lax.scan(
        lambda c, x: (c + x, x), 0.0, np.zeros((0, 2))),
        "(?s)carry input and carry output must have equal types.*shapes do not match"),
    "scan_body_output_triple": (lambda jax, jnp, lax: lax.scan(
        lambda c, x: (c, x, x), 0.0, np.ones(3)), "scan body output must be a pair, got"),
    "scan_body_output_list": (lambda jax, jnp, lax: (
        lax.scan(lambda c, x: [c + x, x], 0.0, np.ones(3)),
        lax.scan(lambda c, x: [c + x, x], 0.0, np.ones(0))), None),
    "scan_scalar_xs": (lambda jax, jnp, lax: lax.scan(lambda c, x: (c, x), 0.0, 3.0),
                       "scan got value with no leading axis to scan over: 3.0."),
    "index_in_dim_family": (lambda jax, jnp, lax: (
        lax.index_in_dim(np.arange(6.0).reshape(2, 3), -1, 1),
        lax.index_in_dim(np.arange(6.0).reshape(2, 3), 1, 0, keepdims=False),
        lax.dynamic_index_in_dim(np.arange(6.0).reshape(2, 3), 5, 1, False),
        lax.dynamic_update_index_in_dim(np.zeros((2, 3)), np.ones(3), 1, 0),
        lax.dynamic_update_index_in_dim(np.zeros((2, 3)), np.ones((2, 1)), -1, 1)), None),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    scenario, message = SCENARIOS[name]
    agree(scenario, message=message)
