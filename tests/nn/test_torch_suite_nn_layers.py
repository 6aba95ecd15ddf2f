"""Layers and losses as PyTorch's own nn tests exercise them (test_nn.py: transformer layers
with fixed weights, recurrent cells, loss arguments and shapes): values and the gradients of a
weighted sum compared with torch, or the same error."""

import numpy as np
import pytest

from tests.nn.helpers import same_outcome


def grads_of(t, out, *leaves):
    """out's values and the gradients of its weighted sum with respect to `leaves`."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = sum(
        (o * t.linspace(0.5, 1.5, o.numel(), dtype=t.float64).reshape(o.shape).to(o.dtype)).sum()
        for o in outs
        if o.requires_grad
    )
    if leaves and total != 0:
        total.backward()
    return [o.detach() for o in outs], [leaf.grad for leaf in leaves]


def cosine_weights(module):
    """Every parameter set to cos(0, 1, 2, ...) in its own shape, as test_nn.py's fixed
    transformer weights."""
    for p in module.parameters():
        p.data.copy_(p.data.new_tensor(np.cos(np.arange(p.numel())).reshape(tuple(p.shape))))
    return module


ACTIVATIONS = {
    "relu": lambda t: "relu",
    "gelu": lambda t: "gelu",
    "F_gelu": lambda t: t.nn.functional.gelu,
    "GELU": lambda t: t.nn.GELU(),
    "F_relu": lambda t: t.nn.functional.relu,
}


def decoder_inputs(t, batch_first):
    rng = np.random.default_rng(0)
    tgt, mem = rng.random((3, 2, 4)), rng.random((5, 2, 4))
    if batch_first:
        tgt, mem = tgt.transpose(1, 0, 2), mem.transpose(1, 0, 2)
    return t.tensor(tgt, dtype=t.float32), t.tensor(mem, dtype=t.float32)


def decoder(t, activation, batch_first, layers=0, norm=False, masks=()):
    layer = cosine_weights(
        t.nn.TransformerDecoderLayer(
            4, 2, 16, 0.0, ACTIVATIONS[activation](t), batch_first=batch_first
        )
    )
    model = (
        layer
        if not layers
        else t.nn.TransformerDecoder(layer, layers, norm=t.nn.LayerNorm(4) if norm else None)
    )
    tgt, mem = decoder_inputs(t, batch_first)
    tgt.requires_grad_()
    keys = {}
    if "tgt" in masks:
        keys["tgt_key_padding_mask"] = t.tensor([[False, False, True], [False, True, True]])
    if "memory" in masks:
        keys["memory_key_padding_mask"] = t.tensor([[False] * 4 + [True], [False] * 3 + [True] * 2])
    return grads_of(t, model(tgt, mem, **keys), tgt, *model.parameters())


TRANSFORMER = {
    f"decoder_layer_{act}_{'bf' if bf else 'sf'}": (lambda t, act=act, bf=bf: decoder(t, act, bf))
    for act in ACTIVATIONS
    for bf in (False, True)
}
TRANSFORMER.update(
    {
        "decoder_layer_tgt_padding": lambda t: decoder(t, "relu", False, masks=("tgt",)),
        "decoder_layer_memory_padding": lambda t: decoder(t, "relu", True, masks=("memory",)),
        "decoder_two_layers": lambda t: decoder(t, "relu", False, layers=2),
        "decoder_six_layers_norm": lambda t: decoder(t, "gelu", True, layers=6, norm=True),
        "decoder_padding_norm": lambda t: decoder(t, "relu", False, 2, True, ("tgt", "memory")),
    }
)


def cell(t, kind, bias, steps=3, hidden=5):
    t.manual_seed(0)
    module = getattr(t.nn, kind)(4, hidden, bias=bias)
    x = t.randn(3, 4, requires_grad=True)
    hx = t.randn(3, hidden)
    state = (hx, t.randn(3, hidden)) if kind == "LSTMCell" else hx
    for _ in range(steps):
        state = module(x, state)
    return grads_of(t, state, x, *module.parameters())


def cell_refuses(t, kind, x_shape, h_shape, c_shape=(3, 20)):
    module = getattr(t.nn, kind)(10, 20)
    hx = t.zeros(h_shape)
    return module(t.zeros(x_shape), (hx, t.zeros(c_shape)) if kind == "LSTMCell" else hx)


RECURRENT = {
    **{
        f"{kind}_bias_{bias}": (lambda t, kind=kind, bias=bias: cell(t, kind, bias))
        for kind in ("RNNCell", "GRUCell", "LSTMCell")
        for bias in (True, False)
    },
    "RNNCell_relu_zero_hidden": lambda t: (
        t.nn.RNNCell(10, 0, nonlinearity="relu")(t.zeros(3, 10), t.zeros(3, 0)).shape
    ),
    "GRUCell_zero_hidden": lambda t: t.nn.GRUCell(10, 0)(t.zeros(3, 10), t.zeros(3, 0)).shape,
    **{
        f"{kind}_{what}": (lambda t, kind=kind, shapes=shapes: cell_refuses(t, kind, *shapes))
        for kind in ("RNNCell", "GRUCell", "LSTMCell")
        for what, shapes in (
            ("batch_broadcast", ((3, 10), (1, 20))),
            ("hidden_broadcast", ((3, 10), (3, 1))),
            ("input_broadcast", ((3, 1), (3, 20))),
        )
    },
    "LSTMCell_cell_state_broadcast": lambda t: cell_refuses(
        t, "LSTMCell", (3, 10), (3, 20), (1, 20)
    ),
    "LSTMCell_input_size": lambda t: cell_refuses(t, "LSTMCell", (3, 11), (3, 20)),
    "LSTMCell_hidden_size": lambda t: cell_refuses(t, "LSTMCell", (3, 10), (3, 21)),
    **{
        f"{name}_hidden_size_refused": (lambda t, make=make: make(t))
        for name, make in (
            (
                "LSTM",
                lambda t: t.nn.LSTM(10, 20, batch_first=True)(
                    t.zeros(2, 3, 10), (t.zeros(1, 2, 19), t.zeros(1, 2, 19))
                ),
            ),
            (
                "LSTM_proj",
                lambda t: t.nn.LSTM(10, 20, batch_first=True, proj_size=10)(
                    t.zeros(2, 3, 10), (t.zeros(1, 2, 19), t.zeros(1, 2, 19))
                ),
            ),
            (
                "GRU",
                lambda t: t.nn.GRU(10, 20, batch_first=True)(t.zeros(2, 3, 10), t.zeros(1, 2, 19)),
            ),
            (
                "RNN",
                lambda t: t.nn.RNN(10, 20, batch_first=True)(t.zeros(2, 3, 10), t.zeros(1, 2, 19)),
            ),
        )
    },
    **{
        f"{name}_input_size_refused": (
            lambda t, name=name: getattr(t.nn, name)(10, 20, batch_first=True)(t.zeros(2, 3, 3))
        )
        for name in ("LSTM", "GRU", "RNN")
    },
}


@pytest.mark.parametrize("name", TRANSFORMER)
def test_transformer_layers_match_torch(name):
    same_outcome(TRANSFORMER[name], rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", RECURRENT)
def test_recurrent_layers_match_torch(name):
    same_outcome(RECURRENT[name], rtol=1e-5, atol=1e-6)


def transformer_call(t, enc_shape=(6, 3, 8), dec_shape=(4, 3, 8), **masks):
    """nn.Transformer(8, 2) on inputs of these shapes with masks made by `masks`' makers."""
    t.manual_seed(0)
    model = t.nn.Transformer(8, 2, 1, 1, 16, 0.0)
    made = {k: make(t, model) for k, make in masks.items()}
    return model(t.zeros(enc_shape), t.zeros(dec_shape), **made).shape


def square(n):
    return lambda t, model: model.generate_square_subsequent_mask(n)


def padding(*shape):
    return lambda t, model: t.zeros(shape, dtype=t.bool)


TRANSFORMER_ARGUMENTS = {
    "encoder_batch": lambda t: transformer_call(t, enc_shape=(6, 7, 8)),
    "decoder_batch": lambda t: transformer_call(t, dec_shape=(4, 7, 8)),
    "encoder_features": lambda t: transformer_call(t, enc_shape=(6, 3, 5)),
    "decoder_features": lambda t: transformer_call(t, dec_shape=(4, 3, 5)),
    "src_mask": lambda t: transformer_call(t, src_mask=square(7)),
    "tgt_mask": lambda t: transformer_call(t, tgt_mask=square(5)),
    "memory_mask": lambda t: transformer_call(t, memory_mask=lambda t, m: t.zeros(5, 7)),
    "src_key_padding_mask": lambda t: transformer_call(t, src_key_padding_mask=padding(7, 7)),
    "tgt_key_padding_mask": lambda t: transformer_call(t, tgt_key_padding_mask=padding(7, 5)),
    "memory_key_padding_mask": lambda t: transformer_call(t, memory_key_padding_mask=padding(7, 7)),
    "right_masks": lambda t: transformer_call(
        t, src_mask=square(6), tgt_mask=square(4), src_key_padding_mask=padding(3, 6)
    ),
    "wrong_nhead": lambda t: t.nn.Transformer(8, 3, 1, 1, 16, 0.0),
    **{
        f"{name}_activation_{act}": (
            lambda t, name=name, act=act, sizes=sizes: repr(
                getattr(t.nn, name)(*sizes, act if act == "abc" else getattr(t.nn.functional, act))
            )
        )
        for name, sizes in (
            ("Transformer", (8, 2, 1, 1, 16, 0.0)),
            ("TransformerEncoderLayer", (8, 2, 16, 0.0)),
            ("TransformerDecoderLayer", (8, 2, 16, 0.0)),
        )
        for act in ("relu", "gelu", "abc")
    },
}


def recurrent_call(t, mode, input_shape, hidden_shape, cell_shape=None, proj_size=0):
    model = getattr(t.nn, mode)(3, 5, 2, **({"proj_size": proj_size} if proj_size else {}))
    hidden = t.zeros(hidden_shape)
    if mode == "LSTM":
        hidden = (hidden, t.zeros(cell_shape or hidden_shape))
    return model(t.zeros(input_shape), hidden)[0].shape


RECURRENT_ARGUMENTS = {  # sizes (seq 6, batch 4, input 3, hidden 5, layers 2); 7 fits nothing
    f"{mode}_{what}": (lambda t, mode=mode, shapes=shapes: recurrent_call(t, mode, *shapes))
    for mode in ("RNN", "GRU", "LSTM")
    for what, shapes in (
        ("input_batch", ((6, 7, 3), (2, 4, 5))),
        ("hidden_batch", ((6, 4, 3), (2, 7, 5))),
        ("input_size", ((6, 4, 7), (2, 4, 5))),
        ("hidden_size", ((6, 4, 3), (2, 4, 7))),
        ("hidden_layers", ((6, 4, 3), (7, 4, 5))),
        ("right", ((6, 4, 3), (2, 4, 5))),
    )
}
RECURRENT_ARGUMENTS.update(
    {
        f"LSTM_proj_{what}": (
            lambda t, shapes=shapes: recurrent_call(t, "LSTM", *shapes, proj_size=2)
        )
        for what, shapes in (
            ("input_batch", ((6, 7, 3), (2, 4, 2), (2, 4, 5))),
            ("hidden_batch", ((6, 4, 3), (2, 7, 2), (2, 7, 5))),
            ("input_size", ((6, 4, 7), (2, 4, 2), (2, 4, 5))),
            ("hidden_size", ((6, 4, 3), (2, 4, 7), (2, 4, 7))),
            ("hidden_layers", ((6, 4, 3), (7, 4, 2), (7, 4, 5))),
            ("h_is_hidden_size", ((6, 4, 3), (2, 4, 5), (2, 4, 5))),
            ("cell_size", ((6, 4, 3), (2, 4, 2), (7, 4, 5))),
            ("right", ((6, 4, 3), (2, 4, 2), (2, 4, 5))),
        )
    }
)
RECURRENT_ARGUMENTS.update(
    {
        f"{mode}_proj_size": (lambda t, mode=mode: getattr(t.nn, mode)(30, 20, 2, proj_size=10))
        for mode in ("RNN", "GRU")
    }
)


def recurrent_run(
    t,
    mode,
    bias,
    bidirectional,
    batch_first,
    packed,
    proj_size=0,
    nonlinearity=None,
    zero_hidden=False,
):
    """Output, final state and every gradient of a two-layer recurrent net in float64, as
    test_nn.py's CPU side of its cuDNN comparison runs it."""
    t.manual_seed(0)
    extra = {"proj_size": proj_size} if proj_size else {}
    if nonlinearity:
        extra["nonlinearity"] = nonlinearity
    rnn = getattr(t.nn, mode)(
        4, 3, 2, bias=bias, bidirectional=bidirectional, batch_first=batch_first, **extra
    ).double()
    dirs = 2 if bidirectional else 1
    x = t.randn((5, 4, 4) if batch_first else (4, 5, 4), dtype=t.float64, requires_grad=True)
    h = t.randn(2 * dirs, 5, proj_size or 3, dtype=t.float64, requires_grad=True)
    c = t.randn(2 * dirs, 5, 3, dtype=t.float64, requires_grad=True)
    if zero_hidden:
        h, c = (v.detach().zero_().requires_grad_() for v in (h, c))
    inputs = (
        t.nn.utils.rnn.pack_padded_sequence(x, t.tensor([4, 3, 3, 2, 1]), batch_first=batch_first)
        if packed
        else x
    )
    out, state = rnn(inputs, (h, c) if mode == "LSTM" else h)
    out = out.data if packed else out
    return grads_of(
        t,
        (out, *(state if mode == "LSTM" else (state,))),
        x,
        h,
        *((c,) if mode == "LSTM" else ()),
        *rnn.parameters(),
    )


RECURRENT_VALUES = {
    f"{mode}_b{int(bias)}_d{int(bi)}_f{int(bf)}_p{int(packed)}": (
        lambda t, args=(mode, bias, bi, bf, packed): recurrent_run(t, *args)
    )
    for mode in ("RNN", "GRU", "LSTM")
    for bias in (True, False)
    for bi in (True, False)
    for bf in (True, False)
    for packed in (True, False)
}
RECURRENT_VALUES.update(
    {
        f"LSTM_proj_d{int(bi)}_p{int(packed)}": (
            lambda t, bi=bi, packed=packed: recurrent_run(t, "LSTM", True, bi, False, packed, 2)
        )
        for bi in (True, False)
        for packed in (True, False)
    }
)
RECURRENT_VALUES.update(
    {
        f"RNN_{nonlinearity}": (
            lambda t, nl=nonlinearity: recurrent_run(
                t, "RNN", True, False, False, False, nonlinearity=nl
            )
        )
        for nonlinearity in ("tanh", "relu")
    }
)


def initial_state_is_zeros(t, mode, proj_size=0, bidirectional=False):
    t.manual_seed(0)
    extra = {"proj_size": proj_size} if proj_size else {}
    rnn = getattr(t.nn, mode)(6, 4, 2, bidirectional=bidirectional, **extra).double()
    dirs = 2 if bidirectional else 1
    x = t.randn(3, 5, 6, dtype=t.float64)
    h = t.zeros(2 * dirs, 5, proj_size or 4, dtype=t.float64)
    given = rnn(x, (h, t.zeros(2 * dirs, 5, 4, dtype=t.float64)) if mode == "LSTM" else h)
    return given, rnn(x)


RECURRENT_VALUES.update(
    {
        f"{mode}_initial_state": (lambda t, mode=mode: initial_state_is_zeros(t, mode))
        for mode in ("RNN", "GRU", "LSTM")
    }
)
RECURRENT_VALUES.update(
    {
        f"LSTM_proj_initial_state_d{int(bi)}": (
            lambda t, bi=bi: initial_state_is_zeros(t, "LSTM", 2, bi)
        )
        for bi in (True, False)
    }
)


@pytest.mark.parametrize("name", TRANSFORMER_ARGUMENTS)
def test_transformer_arguments_match_torch(name):
    same_outcome(TRANSFORMER_ARGUMENTS[name])


@pytest.mark.parametrize("name", RECURRENT_ARGUMENTS)
def test_recurrent_arguments_match_torch(name):
    same_outcome(RECURRENT_ARGUMENTS[name])


@pytest.mark.parametrize("name", RECURRENT_VALUES)
def test_recurrent_values_and_gradients_match_torch(name):
    same_outcome(RECURRENT_VALUES[name], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("steps", [2, 13, 100, 4097])
@pytest.mark.parametrize("bounds", [(0.5, 1.5), (-3.3, 7.1), (1e-3, 123.4)])
def test_linspace_weights_are_torch_bit_for_bit(bounds, steps, dtype):
    """The gradient weights above come from linspace: torch's kernel rounds each step once."""
    same_outcome(lambda t: t.linspace(*bounds, steps, dtype=getattr(t, dtype)))
