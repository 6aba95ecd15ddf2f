"""Recurrent layers, their cells and the packing utilities as test_nn.py's TestNN and
TestNNDeviceType exercise them on the CPU: values, gradients, state names, reprs, warnings and
errors compared with torch's."""

import warnings

import pytest

from tests.nn.helpers import backward, same_outcome, tensors, uniform


def layer(t, name, *args, seed=0, **kwargs):
    t.manual_seed(seed)
    return getattr(t.nn, name)(*args, **kwargs)


def run(t, name, args, kwargs, x_shape, hx=None, call=None):
    m = layer(t, name, *args, **kwargs)
    x = uniform(t, *x_shape).requires_grad_()
    states = [uniform(t, *s, seed=i + 1).requires_grad_() for i, s in enumerate(hx or ())]
    if not states:
        out = m(x)
    else:
        out = m(x, states[0] if len(states) == 1 else tuple(states))
    return backward(t, out, x, *states, *m.parameters())


def packed(t, name, lengths, enforce_sorted=True, batch_first=False, **kwargs):
    m = layer(t, name, 3, 4, **kwargs)
    x = uniform(t, max(lengths), len(lengths), 3).requires_grad_()
    xs = x.transpose(0, 1) if batch_first else x
    pack = t.nn.utils.rnn.pack_padded_sequence(
        xs, t.tensor(lengths), batch_first=batch_first, enforce_sorted=enforce_sorted)
    out, state = m(pack)
    padded, lens = t.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first,
                                                       total_length=max(lengths) + 1)
    return backward(t, (padded, state), x, *m.parameters()) + (lens, out.batch_sizes,
                                                                out.sorted_indices)


def cell_sequence(t, name, steps):
    cell = layer(t, name, 3, 4)
    x = uniform(t, steps, 2, 3).requires_grad_()
    h = None
    outs = []
    for i in range(steps):
        h = cell(x[i]) if h is None else cell(x[i], h)
        outs.append(h[0] if isinstance(h, tuple) else h)
    return backward(t, t.stack(outs), x, *cell.parameters())


def dropout_state(t):
    m = layer(t, "LSTM", 3, 4, 2, dropout=0.5)
    m.dropout = 0.0  # test_RNN_change_dropout: changing it later takes effect
    x = uniform(t, 5, 2, 3)
    first = m(x)[0]
    m.eval()
    m.dropout = 0.9
    return first, m(x)[0]


def flattened(t):
    m = layer(t, "GRU", 3, 4, 2, bidirectional=True)
    m.flatten_parameters()
    return [(n, tuple(p.shape)) for n, p in m.named_parameters()], m._flat_weights_names


def state_names(t, name, **kwargs):
    m = layer(t, name, 3, 4, **kwargs)
    return list(m.state_dict()), [tuple(w.shape) for w in m.all_weights[-1]]


def load_back(t):
    a, b = layer(t, "LSTM", 3, 4, 2, proj_size=2), layer(t, "LSTM", 3, 4, 2, proj_size=2, seed=1)
    b.load_state_dict(a.state_dict())
    x = uniform(t, 4, 1, 3)
    return a(x), b(x)


def weight_norm_rnn(t):
    m = t.nn.utils.weight_norm(layer(t, "LSTM", 3, 4), name="weight_hh_l0")
    return run_module(t, m, (5, 2, 3))


def run_module(t, m, shape):
    x = uniform(t, *shape).requires_grad_()
    return backward(t, m(x), x)


def rnn_retain(t):
    m = layer(t, "RNN", 3, 4, 2)
    x = uniform(t, 5, 2, 3).requires_grad_()
    out = m(x)[0].sum()
    out.backward(retain_graph=True)
    first = x.grad.clone()
    out.backward()
    return first, x.grad


def warns(t, make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make(t)
    return [str(w.message) for w in caught]


def zero_state_is_default(t, name, **kwargs):
    """test_rnn_initial_hidden_state: explicit zero states give what no states give."""
    m = layer(t, name, 3, 4, 2, **kwargs)
    x = uniform(t, 5, 2, 3)
    size = kwargs.get("proj_size") or 4
    hx = t.zeros(2, 2, size)
    states = (hx, t.zeros(2, 2, 4)) if name == "LSTM" else hx
    return [(a - b).abs().max() for a, b in zip(tensors(t, m(x)), tensors(t, m(x, states)))]


def dropout_extremes(t, p):
    """test_RNN_dropout: ones for weights, zeros for biases; p=1 drops the first layer's
    output entirely, p=0 keeps it."""
    m = layer(t, "RNN", 4, 4, 2, dropout=p, nonlinearity="relu")
    with t.no_grad():
        for name, param in m.named_parameters():
            param.fill_(0.0 if "bias" in name else 1.0)
    return m(t.ones(1, 1, 4))


def grad_fn_names(t, name, **kwargs):
    m = layer(t, name, 3, 4, **kwargs)
    x = t.ones(2, 5, 3) if kwargs.get("batch_first") else t.ones(5, 2, 3)
    return [type(v.grad_fn).__name__ for v in tensors(t, m(x))]


def double_state(t, name, bias):
    """A float64 state for float32 weights."""
    m = layer(t, name, 3, 4, bias=bias)
    if "Cell" not in name:
        return m(t.ones(2, 1, 3), t.ones(1, 1, 4, dtype=t.float64))
    h = t.ones(2, 4, dtype=t.float64)
    return m(t.ones(2, 3), (h, h.float()) if name == "LSTMCell" else h)


SCENARIOS = {
    **{
        f"hidden_dtype_{name}_{'bias' if bias else 'no_bias'}": (
            lambda t, n=name, b=bias: double_state(t, n, b))
        for name in ("RNN", "GRU", "RNNCell", "GRUCell", "LSTMCell")
        for bias in (True, False)
    },
    "pack_no_sequences": lambda t: t.nn.utils.rnn.pack_sequence([]),
    "pad_no_sequences": lambda t: t.nn.utils.rnn.pad_sequence([]),
    **{
        f"grad_fns_{name}_{'_'.join(kwargs)}": (
            lambda t, n=name, k=kwargs: grad_fn_names(t, n, **k))
        for name in ("RNN", "LSTM", "GRU")
        for kwargs in ({}, {"batch_first": True}, {"bidirectional": True, "num_layers": 2})
    },
    **{
        f"initial_state_{name}{'_proj' if kwargs else ''}": (
            lambda t, n=name, k=kwargs: zero_state_is_default(t, n, **k))
        for name, kwargs in (("RNN", {}), ("GRU", {}), ("LSTM", {}), ("LSTM", {"proj_size": 2}))
    },
    "rnn_dropout_zero_train": lambda t: dropout_extremes(t, 0.0),
    "rnn_dropout_one_train": lambda t: dropout_extremes(t, 1.0),
    **{
        f"args_check_{name}_{what}": (
            lambda t, n=name, x=x, hx=hx: run(t, n.rstrip("P"), (3, 4, 2),
                                              {"proj_size": 2} if n == "LSTMP" else {}, x, hx))
        for name, cases in (
            ("RNN", {"input_size": ((5, 2, 2), [(2, 2, 4)]),
                     "hidden_layers": ((5, 2, 3), [(3, 2, 4)]),
                     "hidden_batch": ((5, 2, 3), [(2, 3, 4)]),
                     "hidden_size": ((5, 2, 3), [(2, 2, 5)])}),
            ("GRU", {"hidden_batch": ((5, 2, 3), [(2, 3, 4)]),
                     "hidden_size": ((5, 2, 3), [(2, 2, 5)])}),
            ("LSTM", {"cell_size": ((5, 2, 3), [(2, 2, 4), (2, 2, 5)]),
                      "cell_batch": ((5, 2, 3), [(2, 2, 4), (2, 3, 4)]),
                      "hidden_layers": ((5, 2, 3), [(1, 2, 4), (2, 2, 4)])}),
            ("LSTMP", {"hidden_proj": ((5, 2, 3), [(2, 2, 4), (2, 2, 4)]),
                       "cell_proj": ((5, 2, 3), [(2, 2, 2), (2, 2, 2)]),
                       "input_size": ((5, 2, 4), [(2, 2, 2), (2, 2, 4)])}),
        )
        for what, (x, hx) in cases.items()
    },
    "rnn_tanh_cell_no_hx": lambda t: run(t, "RNNCell", (3, 4), {}, (2, 3)),
    "rnn_relu_cell": lambda t: run(t, "RNNCell", (3, 4), {"nonlinearity": "relu"}, (2, 3),
                                   [(2, 4)]),
    "rnn_cell_unbatched": lambda t: run(t, "RNNCell", (3, 4), {}, (3,), [(4,)]),
    "lstm_cell_unbatched": lambda t: run(t, "LSTMCell", (3, 4), {}, (3,), [(4,), (4,)]),
    "gru_cell_unbatched_no_bias": lambda t: run(t, "GRUCell", (3, 4), {"bias": False}, (3,)),
    "lstm_cell_sequence": lambda t: cell_sequence(t, "LSTMCell", 4),
    "gru_cell_sequence": lambda t: cell_sequence(t, "GRUCell", 4),
    "rnn_cell_zero_hidden": lambda t: run(t, "RNNCell", (3, 0), {}, (2, 3)),
    "gru_cell_zero_batch": lambda t: run(t, "GRUCell", (3, 4), {}, (0, 3)),
    "rnn_cell_input_size": lambda t: run(t, "RNNCell", (3, 4), {}, (2, 5)),
    "rnn_cell_hidden_size": lambda t: run(t, "RNNCell", (3, 4), {}, (2, 3), [(2, 5)]),
    "rnn_cell_no_broadcast": lambda t: run(t, "RNNCell", (3, 4), {}, (2, 3), [(1, 4)]),
    "lstm_cell_no_broadcast": lambda t: run(t, "LSTMCell", (3, 4), {}, (2, 3), [(1, 4), (2, 4)]),
    "lstm_cell_3d": lambda t: run(t, "LSTMCell", (3, 4), {}, (2, 2, 3)),
    "lstm_cell_unbatched_batched_hx": lambda t: run(t, "LSTMCell", (3, 4), {}, (3,),
                                                    [(1, 4), (1, 4)]),
    "rnn_input_size_zero": lambda t: run(t, "RNN", (0, 4), {}, (5, 2, 0)),
    "rnn_relu_2_layers": lambda t: run(t, "RNN", (3, 4, 2), {"nonlinearity": "relu"}, (5, 2, 3)),
    "rnn_nonlinearity_arg": lambda t: run(t, "RNN", (3, 4, 1, "relu"), {}, (5, 2, 3)),
    "lstm_proj_batch_first_bidir": lambda t: run(
        t, "LSTM", (3, 5, 2), {"proj_size": 2, "batch_first": True, "bidirectional": True},
        (2, 4, 3), [(4, 2, 2), (4, 2, 5)]),
    "lstm_proj_unbatched": lambda t: run(t, "LSTM", (3, 5), {"proj_size": 2}, (4, 3),
                                         [(1, 2), (1, 5)]),
    "lstm_proj_hx_wrong": lambda t: run(t, "LSTM", (3, 5), {"proj_size": 2}, (4, 2, 3),
                                        [(1, 2, 5), (1, 2, 5)]),
    "lstm_proj_cx_wrong": lambda t: run(t, "LSTM", (3, 5), {"proj_size": 2}, (4, 2, 3),
                                        [(1, 2, 2), (1, 2, 2)]),
    "gru_hx_layers_wrong": lambda t: run(t, "GRU", (3, 4, 2), {"bidirectional": True},
                                         (5, 2, 3), [(2, 2, 4)]),
    "rnn_batch_first_hx": lambda t: run(t, "RNN", (3, 4), {"batch_first": True}, (2, 5, 3),
                                        [(1, 2, 4)]),
    "rnn_batch_first_hx_wrong": lambda t: run(t, "RNN", (3, 4), {"batch_first": True},
                                              (2, 5, 3), [(2, 1, 4)]),
    "rnn_unbatched_hx_3d": lambda t: run(t, "RNN", (3, 4), {}, (5, 3), [(1, 2, 4)]),
    "rnn_input_1d": lambda t: run(t, "GRU", (3, 4), {}, (3,)),
    "rnn_input_4d": lambda t: run(t, "LSTM", (3, 4), {}, (2, 2, 2, 3)),
    "rnn_input_features": lambda t: run(t, "GRU", (3, 4), {}, (5, 2, 2)),
    "gru_hx_tuple": lambda t: run(t, "GRU", (3, 4), {}, (5, 2, 3), [(1, 2, 4), (1, 2, 4)]),
    "rnn_dropout_warning": lambda t: warns(t, lambda t: t.nn.RNN(3, 4, 1, dropout=0.3)),
    "lstm_dropout_no_warning": lambda t: warns(t, lambda t: t.nn.LSTM(3, 4, 2, dropout=0.3)),
    "rnn_dropout_negative": lambda t: t.nn.RNN(3, 4, 2, dropout=-0.1),
    "rnn_dropout_one": lambda t: t.nn.GRU(3, 4, 2, dropout=1),
    "lstm_dropout_change": dropout_state,
    "lstm_dropout_eval_equal": lambda t: (lambda m, x: (m(x)[0] - m(x)[0]).abs().max())(
        layer(t, "LSTM", 3, 4, 3, dropout=0.7).eval(), uniform(t, 5, 2, 3)),
    "rnn_mode_bad": lambda t: t.nn.RNNBase("FOO", 3, 4),
    "rnn_base_lstm": lambda t: run_module(t, layer(t, "RNNBase", "GRU", 3, 4), (5, 2, 3)),
    "gru_flatten_parameters": flattened,
    "lstm_state_names": lambda t: state_names(t, "LSTM", num_layers=2, proj_size=2,
                                              bidirectional=True),
    "gru_state_names_no_bias": lambda t: state_names(t, "GRU", bias=False, num_layers=2),
    "rnn_cell_state_names": lambda t: list(layer(t, "LSTMCell", 3, 4).state_dict()),
    "lstm_proj_load_state": load_back,
    "lstm_weight_norm": weight_norm_rnn,
    "rnn_retain_graph": rnn_retain,
    "rnn_double_input": lambda t: run_module(t, layer(t, "GRU", 3, 4).double(), (5, 2, 3)),
    "rnn_repr_all": lambda t: repr(layer(t, "RNN", 3, 4, 2, nonlinearity="relu", bias=False,
                                         batch_first=True, dropout=0.5, bidirectional=True)),
    "lstm_cell_repr": lambda t: repr(layer(t, "RNNCell", 3, 4, bias=False, nonlinearity="relu")),
    "packed_sorted": lambda t: packed(t, "LSTM", [5, 3, 2]),
    "packed_unsorted": lambda t: packed(t, "GRU", [2, 5, 3], enforce_sorted=False),
    "packed_unsorted_batch_first_bidir": lambda t: packed(
        t, "RNN", [2, 4, 4, 1], enforce_sorted=False, batch_first=True, bidirectional=True,
        num_layers=2),
    "packed_proj": lambda t: packed(t, "LSTM", [3, 1, 2], enforce_sorted=False, proj_size=2),
    "packed_must_be_sorted": lambda t: packed(t, "GRU", [2, 5, 3]),
    "pack_length_zero": lambda t: packed(t, "GRU", [3, 0]),
    "pad_packed_total_length_short": lambda t: t.nn.utils.rnn.pad_packed_sequence(
        t.nn.utils.rnn.pack_sequence([t.ones(4, 2), t.ones(2, 2)]), total_length=2),
    "pack_sequence_unsorted": lambda t: t.nn.utils.rnn.pack_sequence(
        [t.ones(2, 1), t.ones(4, 1)]),
    "pack_sequence_unsorted_allowed": lambda t: t.nn.utils.rnn.pad_packed_sequence(
        t.nn.utils.rnn.pack_sequence([t.arange(2.0), t.arange(4.0), t.arange(3.0)],
                                     enforce_sorted=False), batch_first=True, padding_value=-1),
    "packed_sequence_repr": lambda t: repr(t.nn.utils.rnn.pack_sequence(
        [t.arange(3.0), t.arange(2.0)])),
    "packed_to_double": lambda t: t.nn.utils.rnn.pack_sequence(
        [t.arange(3.0), t.arange(2.0)]).double().data,
    "packed_unsorted_fields": lambda t: tuple(t.nn.utils.rnn.pack_sequence(
        [t.arange(2.0), t.arange(3.0)], enforce_sorted=False))[1:],
    "pad_sequence_left": lambda t: t.nn.utils.rnn.pad_sequence(
        [t.arange(2.0), t.arange(4.0)], padding_side="left", padding_value=7),
    "pad_sequence_bad_side": lambda t: t.nn.utils.rnn.pad_sequence(
        [t.arange(2.0)], padding_side="middle"),
    "unpad_sequence": lambda t: t.nn.utils.rnn.unpad_sequence(
        t.arange(12.0).reshape(3, 2, 2), t.tensor([3, 1])),
    "unpack_sequence": lambda t: t.nn.utils.rnn.unpack_sequence(
        t.nn.utils.rnn.pack_sequence([t.arange(2.0), t.arange(3.0)], enforce_sorted=False)),
    "pack_lengths_2d": lambda t: t.nn.utils.rnn.pack_padded_sequence(
        t.ones(3, 2, 1), t.tensor([[3, 1]])),
    "pack_batch_sizes_throw": lambda t: t.nn.utils.rnn.PackedSequence(
        t.ones(3), t.tensor([2, 1])).batch_sizes,
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_recurrent_scenarios_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_outcome(SCENARIOS[name], rtol=1e-5, atol=1e-6)
