"""nn.utils and nn.init as PyTorch's own nn tests exercise them (test_nn.py, test_init.py,
test_packed_sequence.py): gradient clipping, parameter vectors, weight and spectral norm,
sequence packing and the initializers' draws and errors, each scenario run in gradjit and
torch and compared (numbers to float32 rounding)."""
import pytest

from tests.nn.helpers import same_outcome


def params(t, grads=True):
    t.manual_seed(0)
    ps = [t.nn.Parameter(t.randn(3, 4)), t.nn.Parameter(t.randn(5))]
    for scale, p in enumerate(ps if grads else (), 1):
        p.grad = t.randn(p.shape) * scale
    return ps


def clipped(t, max_norm, **options):
    ps = params(t)
    total = t.nn.utils.clip_grad_norm_(ps, max_norm, **options)
    return total, [p.grad for p in ps]


def with_nan_grad(t):
    ps = params(t)
    ps[0].grad.fill_(float("nan"))
    return ps


CLIPPING = {
    **{f"clip_grad_norm_{p}": (lambda t, p=p: clipped(t, 1.0, norm_type=p))
       for p in (2, 1, float("inf"), 0.5, 3)},
    "clip_grad_norm_foreach": lambda t: clipped(t, 1.0, foreach=True),
    "clip_grad_norm_large_max": lambda t: clipped(t, 100.0),
    "clip_grad_norm_nonfinite_error": lambda t: t.nn.utils.clip_grad_norm_(
        with_nan_grad(t), 1.0, error_if_nonfinite=True),
    "clip_grad_norm_nonfinite": lambda t: (lambda ps: (
        t.nn.utils.clip_grad_norm_(ps, 1.0), [p.grad for p in ps]))(with_nan_grad(t)),
    "clip_grad_norm_one_tensor": lambda t: t.nn.utils.clip_grad_norm_(params(t)[0], 0.1),
    "clip_grad_norm_no_grads": lambda t: t.nn.utils.clip_grad_norm_(params(t, False), 1.0),
    "clip_grad_norm_empty": lambda t: t.nn.utils.clip_grad_norm_([], 1.0),
    "clip_grad_value": lambda t: (lambda ps: (t.nn.utils.clip_grad_value_(ps, 0.5),
                                              [p.grad for p in ps]))(params(t)),
    "clip_grad_value_foreach": lambda t: (lambda ps: (
        t.nn.utils.clip_grad_value_(ps, 0.5, foreach=True), [p.grad for p in ps]))(params(t)),
    "get_total_norm": lambda t: t.nn.utils.get_total_norm([p.grad for p in params(t)], 3.0),
    "clip_grads_with_norm": lambda t: (lambda ps: (
        t.nn.utils.clip_grads_with_norm_(ps, 1.0, t.tensor(5.0)), [p.grad for p in ps]))(
            params(t)),
    "parameters_to_vector": lambda t: t.nn.utils.parameters_to_vector(params(t)),
    "vector_to_parameters": lambda t: (lambda ps: (
        t.nn.utils.vector_to_parameters(t.arange(17.0), ps), ps))(params(t)),
    "vector_to_parameters_not_a_tensor": lambda t: t.nn.utils.vector_to_parameters(
        [1.0], params(t)),
}


def linear(t):
    t.manual_seed(0)
    return t.nn.Linear(3, 4)


def trained(t, module):
    out = module(t.ones(2, 3))
    out.sum().backward()
    return out


def weight_norm(t, dim=0):
    module = t.nn.utils.weight_norm(linear(t), dim=dim)
    out = trained(t, module)
    return ([n for n, _ in module.named_parameters()], out, module.weight_g,
            module.weight_v.grad, module.weight_g.grad)


def spectral_norm(t, **options):
    module = t.nn.utils.spectral_norm(linear(t), **options)
    out = trained(t, module)
    return ([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()],
            out, module.weight_orig.grad, module.weight_u, list(module.state_dict()))


def removed(t, apply, remove):
    module = apply(linear(t))
    remove(module)
    return [n for n, _ in module.named_parameters()], list(module.state_dict()), module.weight


def parametrized(t, apply):
    module = apply(linear(t))
    return repr(module), trained(t, module), list(module.state_dict())


NORMS = {
    "weight_norm": weight_norm,
    "weight_norm_dim1": lambda t: weight_norm(t, 1),
    "weight_norm_whole": lambda t: weight_norm(t, None),
    "weight_norm_twice": lambda t: t.nn.utils.weight_norm(t.nn.utils.weight_norm(linear(t))),
    "remove_weight_norm": lambda t: removed(t, t.nn.utils.weight_norm,
                                            t.nn.utils.remove_weight_norm),
    "remove_weight_norm_absent": lambda t: t.nn.utils.remove_weight_norm(linear(t)),
    "spectral_norm": spectral_norm,
    "spectral_norm_iterations": lambda t: spectral_norm(t, n_power_iterations=3),
    "spectral_norm_eval": lambda t: (lambda m: (trained(t, m), m.eval(), m(t.ones(1, 3)))[2])(
        t.nn.utils.spectral_norm(linear(t))),
    "spectral_norm_twice": lambda t: t.nn.utils.spectral_norm(
        t.nn.utils.spectral_norm(linear(t))),
    "spectral_norm_no_iterations": lambda t: t.nn.utils.spectral_norm(
        linear(t), n_power_iterations=0),
    "remove_spectral_norm": lambda t: removed(t, t.nn.utils.spectral_norm,
                                              t.nn.utils.remove_spectral_norm),
    "parametrized_weight_norm": lambda t: parametrized(
        t, t.nn.utils.parametrizations.weight_norm),
    "parametrized_spectral_norm": lambda t: parametrized(
        t, t.nn.utils.parametrizations.spectral_norm),
    "parametrized_orthogonal": lambda t: parametrized(
        t, t.nn.utils.parametrizations.orthogonal),
}


def sequences(t, grad=False):
    t.manual_seed(0)
    return [t.randn(n, 2, requires_grad=grad) for n in (4, 2, 3)]


def packed(t):
    return t.nn.utils.rnn.pack_sequence(sequences(t), enforce_sorted=False)


def packed_gradients(t):
    seqs = sequences(t, grad=True)
    padded, _ = t.nn.utils.rnn.pad_packed_sequence(
        t.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False))
    padded.pow(2).sum().backward()
    return [s.grad for s in seqs]


RNN = {
    "pad_sequence": lambda t: t.nn.utils.rnn.pad_sequence(sequences(t)),
    "pad_sequence_batch_first": lambda t: t.nn.utils.rnn.pad_sequence(
        sequences(t), batch_first=True, padding_value=-1),
    "pad_sequence_left": lambda t: t.nn.utils.rnn.pad_sequence(
        sequences(t), batch_first=True, padding_side="left"),
    "pad_sequence_bad_side": lambda t: t.nn.utils.rnn.pad_sequence(sequences(t),
                                                                   padding_side="middle"),
    "pack_sequence_unsorted": lambda t: t.nn.utils.rnn.pack_sequence(sequences(t)),
    "pack_sequence": lambda t: repr(packed(t)),
    "pack_padded_lengths_tensor": lambda t: t.nn.utils.rnn.pack_padded_sequence(
        t.zeros(4, 3, 2), t.tensor([4, 3, 2])),
    "pack_padded_zero_length": lambda t: t.nn.utils.rnn.pack_padded_sequence(
        t.zeros(4, 3, 2), [4, 3, 0]),
    "pad_packed_total_length": lambda t: t.nn.utils.rnn.pad_packed_sequence(
        packed(t), batch_first=True, total_length=6),
    "pad_packed_total_length_short": lambda t: t.nn.utils.rnn.pad_packed_sequence(
        packed(t), total_length=2),
    "unpad_sequence": lambda t: t.nn.utils.rnn.unpad_sequence(
        t.nn.utils.rnn.pad_sequence(sequences(t)), t.tensor([4, 2, 3])),
    "unpack_sequence": lambda t: t.nn.utils.rnn.unpack_sequence(packed(t)),
    "packed_gradients": packed_gradients,
    "packed_to_same_dtype_is_itself": lambda t: (lambda p: p.to(t.float32) is p)(packed(t)),
    **{f"packed_{cast}": (lambda t, cast=cast: repr(getattr(packed(t), cast)()))
       for cast in ("double", "float", "half", "long", "int", "short", "char", "byte", "cpu")},
}


def init(t, name, shape, *args, **kwargs):
    t.manual_seed(0)
    return getattr(t.nn.init, name)(t.empty(shape), *args, **kwargs)


def with_generator(t, name, *args):
    t.manual_seed(1)
    return getattr(t.nn.init, name)(t.empty(3, 4), *args, generator=t.Generator().manual_seed(3))


INITS = {
    **{f"{name}_{len(shape)}d": (lambda t, name=name, shape=shape, args=args:
                                 init(t, name, shape, *args))
       for name, args in (("xavier_uniform_", ()), ("xavier_normal_", ()),
                          ("kaiming_uniform_", ()), ("kaiming_normal_", ()),
                          ("orthogonal_", ()), ("trunc_normal_", ()), ("eye_", ()),
                          ("dirac_", ()), ("sparse_", (0.5,)), ("uniform_", (-2, 2)),
                          ("normal_", (1, 2)), ("constant_", (0.3,)))
       for shape in ((3,), (3, 4), (2, 3, 4), (2, 3, 2, 2))},
    **{f"trunc_normal_{a}_{b}_mean{mean}_std{std}": (
        lambda t, mean=mean, std=std, a=a, b=b: init(t, "trunc_normal_", (30, 20), mean, std,
                                                      a, b))
       for mean, std, a, b in ((0, 1, 1, 3), (0.5, 0.1, -0.1, 0.2), (3, 1, -1, 0),
                               (0, 1, -0.1, 0.1))},
    **{f"{name}_with_generator": (lambda t, name=name, args=args:
                                  with_generator(t, name, *args))
       for name, args in (("uniform_", ()), ("normal_", ()), ("kaiming_uniform_", ()),
                          ("xavier_normal_", ()), ("trunc_normal_", ()), ("orthogonal_", ()),
                          ("sparse_", (0.5,)))},
    "kaiming_leaky_fan_out": lambda t: init(t, "kaiming_normal_", (3, 5), a=0.1,
                                            mode="fan_out", nonlinearity="leaky_relu"),
    "kaiming_bad_mode": lambda t: init(t, "kaiming_uniform_", (3, 4), mode="fan"),
    "kaiming_zero_elements": lambda t: init(t, "kaiming_uniform_", (0, 4)),
    "xavier_zero_elements": lambda t: init(t, "xavier_uniform_", (3, 0)),
    "dirac_groups_not_dividing": lambda t: init(t, "dirac_", (4, 2, 3), groups=3),
    "dirac_groups": lambda t: init(t, "dirac_", (4, 2, 3), groups=2),
    "gain_unknown": lambda t: t.nn.init.calculate_gain("foo"),
    "gain_leaky_bad_slope": lambda t: t.nn.init.calculate_gain("leaky_relu", "x"),
    "gain_leaky_bool_slope": lambda t: t.nn.init.calculate_gain("leaky_relu", True),
    **{f"gain_{name}": (lambda t, name=name: t.nn.init.calculate_gain(name))
       for name in ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu", "leaky_relu")},
    "init_keeps_a_parameter_a_leaf": lambda t: (lambda p: (
        t.nn.init.uniform_(p), p.requires_grad, p.grad_fn)[1:])(t.nn.Parameter(t.empty(3))),
}

SCENARIOS = {**CLIPPING, **NORMS, **RNN, **INITS}


@pytest.mark.parametrize("name", SCENARIOS)
def test_nn_utils_and_init_match_torch(name):
    same_outcome(SCENARIOS[name], rtol=1e-5, atol=1e-6)
