"""RNN, LSTM, GRU and their cells against torch.nn with torch's weights loaded: outputs, final
states, gradients of inputs, initial states and every parameter; names, shapes, init bounds,
repr and errors; an LSTM differentiated inside gradjit.grad/jit."""
import warnings

import numpy as np
import pytest

import gradjit
from gradjit import nn
from gradjit.nn.functional.rnn import rnn
from tests.nn.helpers import close, copy_weights, randn, same_error, torch
from tests.nn.multi_output import compare_calls


def compare(gm, tm, x, state=None):
    """Same weights; the same results and the same gradients of input, states and parameters."""
    def call(module):
        def run(x, *state):
            return module(x) if not state else module(x, state[0] if len(state) == 1 else state)
        return run
    compare_calls(call(gm), call(tm), [x] + list(state or ()), gm, tm)


CONFIGS = [dict(), dict(num_layers=2), dict(bias=False), dict(batch_first=True),
           dict(bidirectional=True), dict(num_layers=3, bidirectional=True, batch_first=True),
           dict(num_layers=2, dropout=0.3)]


def layers(name, kwargs):
    if name == "RNN_relu":
        return (nn.RNN(3, 4, nonlinearity="relu", **kwargs),
                torch.nn.RNN(3, 4, nonlinearity="relu", **kwargs))
    return getattr(nn, name)(3, 4, **kwargs), getattr(torch.nn, name)(3, 4, **kwargs)


@pytest.mark.parametrize("name", ["RNN", "RNN_relu", "LSTM", "GRU"])
@pytest.mark.parametrize("kwargs", CONFIGS)
def test_sequence_layers_match_torch(name, kwargs):
    gm, tm = layers(name, kwargs)
    gm.eval(), tm.eval()  # dropout between layers is off in eval
    directions = 2 if kwargs.get("bidirectional") else 1
    states = directions * kwargs.get("num_layers", 1)
    x = randn(2, 5, 3) if kwargs.get("batch_first") else randn(5, 2, 3)
    compare(gm, tm, x)
    gm.zero_grad(), tm.zero_grad()
    h0 = [randn(states, 2, 4, seed=1)] + ([randn(states, 2, 4, seed=2)] if name == "LSTM"
                                          else [])
    compare(gm, tm, x, h0)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_input_matches_torch(name):
    for kwargs in (dict(), dict(num_layers=2, bidirectional=True, batch_first=True)):
        gm, tm = layers(name, kwargs)
        states = 4 if kwargs else 1
        compare(gm, tm, randn(5, 3))
        gm.zero_grad(), tm.zero_grad()
        h0 = [randn(states, 4, seed=1)] + ([randn(states, 4, seed=2)] if name == "LSTM" else [])
        compare(gm, tm, randn(5, 3), h0)


@pytest.mark.filterwarnings("ignore:LSTM with projections")  # torch's oneDNN note
@pytest.mark.parametrize("kwargs", [dict(proj_size=2), dict(proj_size=3, num_layers=2,
                                                            bidirectional=True)])
def test_lstm_projections_match_torch(kwargs):
    gm, tm = nn.LSTM(3, 5, **kwargs), torch.nn.LSTM(3, 5, **kwargs)
    states = 4 if kwargs.get("bidirectional") else 1
    assert [tuple(p.shape) for p in gm.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    compare(gm, tm, randn(4, 2, 3))
    gm.zero_grad(), tm.zero_grad()
    compare(gm, tm, randn(4, 2, 3), [randn(states, 2, kwargs["proj_size"], seed=1),
                                     randn(states, 2, 5, seed=2)])


@pytest.mark.parametrize("name, args", [("RNNCell", ()), ("RNNCell", (True, "relu")),
                                        ("RNNCell", (False,)), ("LSTMCell", ()),
                                        ("LSTMCell", (False,)), ("GRUCell", ()),
                                        ("GRUCell", (False,))])
def test_cells_match_torch(name, args):
    gm, tm = getattr(nn, name)(3, 4, *args), getattr(torch.nn, name)(3, 4, *args)
    compare(gm, tm, randn(2, 3))
    for shape in ((2,), ()):  # batched, then unbatched states
        gm.zero_grad(), tm.zero_grad()
        state = [randn(*shape, 4, seed=1)] + ([randn(*shape, 4, seed=2)] if name == "LSTMCell"
                                              else [])
        compare(gm, tm, randn(*shape, 3), state)


def test_cells_step_a_sequence_like_the_layer():
    """An LSTMCell looped over time gives the LSTM's outputs with the same weights."""
    layer, cell = nn.LSTM(3, 4), nn.LSTMCell(3, 4)
    cell.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})
    x = gradjit.tensor(randn(5, 2, 3))
    state = None
    for t in range(5):
        state = cell(x[t], state)
    close(state[0], torch.tensor(layer(x)[0][-1].detach().numpy()))


def test_dropout_between_layers_draws_in_training_only():
    gm = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = gradjit.tensor(randn(5, 2, 3))
    gradjit.manual_seed(0)
    a = gm(x)[0]
    b = gm(x)[0]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    gm.eval()
    assert np.array_equal(gm(x)[0].detach().numpy(), gm(x)[0].detach().numpy())
    tm = torch.nn.GRU(3, 4, num_layers=2, dropout=0.5).eval()
    copy_weights(gm, tm)
    close(gm(x)[0], tm(torch.tensor(x.numpy()))[0], 2e-5, 2e-6)


@pytest.mark.parametrize("name, args", [("LSTM", (3, 5, 2)), ("GRU", (3, 5)), ("RNN", (3, 5)),
                                        ("LSTMCell", (3, 5)), ("GRUCell", (3, 5)),
                                        ("RNNCell", (3, 5))])
def test_parameters_are_named_shaped_and_drawn_like_torch(name, args):
    gm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert [(n, tuple(p.shape)) for n, p in gm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert list(gm.state_dict()) == list(tm.state_dict())
    bound = 1 / np.sqrt(5)
    values = np.concatenate([p.detach().numpy().ravel() for p in gm.parameters()])
    assert np.abs(values).max() <= bound and np.abs(values).max() > 0.8 * bound
    assert abs(values.mean()) < 0.1 and abs(values.std() - bound / np.sqrt(3)) < 0.03


def test_all_weights_lists_each_layer_and_direction():
    gm, tm = nn.LSTM(3, 5, 2, bidirectional=True, proj_size=2), \
        torch.nn.LSTM(3, 5, 2, bidirectional=True, proj_size=2)
    assert [[tuple(p.shape) for p in ws] for ws in gm.all_weights] == \
        [[tuple(p.shape) for p in ws] for ws in tm.all_weights]
    assert gm.all_weights[1][0] is gm.weight_ih_l0_reverse
    gm.flatten_parameters()


@pytest.mark.parametrize("make", [
    lambda nn: nn.RNN(3, 4), lambda nn: nn.RNN(3, 4, 2, "relu", False, True, 0.5, True),
    lambda nn: nn.LSTM(3, 4, 2, proj_size=2, dropout=0.5, bidirectional=True, batch_first=True,
                       bias=False),
    lambda nn: nn.GRU(3, 4, num_layers=3), lambda nn: nn.RNNCell(3, 4, nonlinearity="relu"),
    lambda nn: nn.LSTMCell(3, 4, bias=False), lambda nn: nn.GRUCell(3, 4),
    lambda nn: nn.Sequential(nn.Embedding(10, 3), nn.LSTM(3, 4, batch_first=True))])
def test_repr_matches_torch(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(make(nn)) == repr(make(torch.nn))


def both(make):
    return lambda: make(nn, gradjit), lambda: make(torch.nn, torch)


@pytest.mark.parametrize("make", [
    lambda nn, t: nn.LSTM(3, 4)(t.ones(2, 2, 2, 3)),
    lambda nn, t: nn.RNN(3, 4)(t.ones(3)),
    lambda nn, t: nn.GRU(3, 4)(t.ones(2, 2, 2, 3)),
    lambda nn, t: nn.GRU(3, 4)(t.ones(5, 2, 4)),
    lambda nn, t: nn.LSTM(3, 4)(t.ones(5, 2, 3), (t.zeros(1, 3, 4), t.zeros(1, 2, 4))),
    lambda nn, t: nn.LSTM(3, 4)(t.ones(5, 2, 3), (t.zeros(1, 2, 4), t.zeros(2, 2, 4))),
    lambda nn, t: nn.LSTM(3, 4)(t.ones(5, 2, 3), (t.zeros(2, 4), t.zeros(1, 2, 4))),
    lambda nn, t: nn.LSTM(3, 4)(t.ones(5, 3), (t.zeros(1, 1, 4), t.zeros(1, 4))),
    lambda nn, t: nn.RNN(3, 4)(t.ones(5, 2, 3), t.zeros(2, 4)),
    lambda nn, t: nn.RNN(3, 4)(t.ones(5, 3), t.zeros(1, 1, 4)),
    lambda nn, t: nn.GRU(3, 4, 2)(t.ones(5, 2, 3), t.zeros(1, 2, 4)),
    lambda nn, t: nn.RNN(3, 4)(t.ones(5, 2, 3, dtype=t.float64)),
    lambda nn, t: nn.RNNCell(3, 4)(t.ones(2, 2, 3)),
    lambda nn, t: nn.RNNCell(3, 4)(t.ones(2, 3), t.ones(2, 2, 4)),
    lambda nn, t: nn.GRUCell(3, 4)(t.ones(2, 3), t.ones(2, 2, 4)),
    lambda nn, t: nn.LSTMCell(3, 4)(t.ones(2, 3), (t.ones(2, 4), t.ones(2, 2, 4))),
    lambda nn, t: nn.GRUCell(3, 4)(t.ones(2, 5)),
    lambda nn, t: nn.GRUCell(3, 4)(t.ones(2, 3), t.ones(3, 4)),
    lambda nn, t: nn.LSTMCell(3, 4)(t.ones(2, 3), (t.ones(2, 4), t.ones(2, 5))),
    lambda nn, t: nn.RNN(3, 4, nonlinearity="gelu"),
    lambda nn, t: nn.RNNCell(3, 4, nonlinearity="gelu")(t.ones(2, 3)),
    lambda nn, t: nn.LSTM(3, 4, dropout=1.5),
    lambda nn, t: nn.LSTM(3, 4, dropout=True),
    lambda nn, t: nn.LSTM(3, 4, bias=1),
    lambda nn, t: nn.LSTM(3, 4, batch_first=1),
    lambda nn, t: nn.LSTM(3.0, 4),
    lambda nn, t: nn.LSTM(0, 4),
    lambda nn, t: nn.LSTM(3, 4.0),
    lambda nn, t: nn.LSTM(3, 0),
    lambda nn, t: nn.LSTM(3, 4, 0),
    lambda nn, t: nn.LSTM(3, 4, proj_size=-1),
    lambda nn, t: nn.LSTM(3, 4, proj_size=4),
])
def test_errors_match_torch(make):
    same_error(*both(make))


def test_dropout_with_one_layer_warns_like_torch():
    with pytest.warns(UserWarning) as g_warning:
        nn.GRU(3, 4, dropout=0.2)
    with pytest.warns(UserWarning) as t_warning:
        torch.nn.GRU(3, 4, dropout=0.2)
    assert str(g_warning[0].message) == str(t_warning[0].message)


def test_lstm_forward_and_backward_compile_inside_grad_and_jit():
    """The time loop unrolls on traced tensors; gradients with respect to the input and to
    every weight equal torch's."""
    tm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    weights = [gradjit.tensor(p.detach().numpy()) for p in tm.parameters()]
    x = randn(4, 2, 3)

    def loss(x, *weights):
        zeros = gradjit.zeros(4, 2, 4)
        out, (h, c) = rnn("LSTM", x, (zeros, zeros), [weights[i:i + 4] for i in range(0, 16, 4)],
                          True, 2, 0.0, False, True)
        return (out * out).sum() + (c * h).sum()

    grads = gradjit.grad(loss, argnums=tuple(range(17)))(gradjit.tensor(x), *weights)
    t_x = torch.tensor(x, requires_grad=True)
    out, (h, c) = tm(t_x)
    t_loss = (out * out).sum() + (c * h).sum()
    t_loss.backward()
    close(grads[0], t_x.grad, 1e-4, 1e-5)
    for g, p in zip(grads[1:], tm.parameters()):
        close(g, p.grad, 1e-4, 1e-5)
    np.testing.assert_allclose(float(gradjit.jit(loss)(gradjit.tensor(x), *weights)),
                               float(t_loss.detach()), rtol=1e-5)
    module = nn.LSTM(3, 4, num_layers=2, bidirectional=True).requires_grad_(False)
    copy_weights(module, tm)
    t_x = torch.tensor(x, requires_grad=True)
    (tm(t_x)[0] ** 2).sum().backward()
    close(gradjit.grad(lambda x: (module(x)[0] ** 2).sum())(gradjit.tensor(x)), t_x.grad,
          1e-4, 1e-5)


def test_compiled_training_step_equals_eager_step_for_step():
    """gradjit.compile of forward, backward and an SGD step through an LSTM and a GRU."""
    def make():
        gradjit.manual_seed(3)
        lstm, gru = nn.LSTM(3, 4, batch_first=True), nn.GRU(4, 2, batch_first=True)
        opt = gradjit.optim.SGD([*lstm.parameters(), *gru.parameters()], lr=0.1)

        def step(x):
            out, _ = gru(lstm(x)[0])
            loss = (out[:, -1] ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss
        return step
    x = gradjit.tensor(randn(2, 5, 3))
    eager, compiled = make(), gradjit.compile(make())
    eager_losses = [float(eager(x)) for _ in range(3)]
    compiled_losses = [float(compiled(x)) for _ in range(3)]
    np.testing.assert_allclose(compiled_losses, eager_losses, rtol=1e-5)
    assert eager_losses[2] < eager_losses[0]
