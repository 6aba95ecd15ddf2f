"""torch.rnn_tanh, rnn_relu, lstm and gru (the recurrent layers' kernels: a flat weight list,
padded or packed input) and their single-step cells, over nn.functional's recurrence."""
from __future__ import annotations

from gradjit.nn.functional import rnn as R
from gradjit.nn.functional.rnn import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell  # noqa: F401
from gradjit.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence


def _grouped(params, has_biases, num_layers, bidirectional):
    """The flat list as (w_ih, w_hh[, b_ih, b_hh][, w_hr]) per layer and direction; what is
    left over after weights and biases is LSTM's projection."""
    groups = num_layers * (2 if bidirectional else 1)
    size = len(params) // groups
    return [list(params[i * size:(i + 1) * size]) for i in range(groups)]


def _sequence(mode, input, second, rest):
    """Both overloads: (input, hx, params, has_biases, layers, dropout, train, bidirectional,
    batch_first) and the packed (data, batch_sizes, hx, params, ..., bidirectional)."""
    packed = not isinstance(second, (list, tuple)) if mode == "LSTM" else \
        not second.is_floating_point()
    if packed:
        hx, params, has_biases, layers, p, train, bidirectional = rest
        padded, lengths = pad_packed_sequence(PackedSequence(input, second))
        hx = tuple(hx) if mode == "LSTM" else (hx,)
        out, states = R.rnn(mode, padded, hx, _grouped(params, has_biases, layers,
                                                       bidirectional),
                            has_biases, layers, p, train, bidirectional, lengths.numpy())
        return pack_padded_sequence(out, lengths).data, states
    params, has_biases, layers, p, train, bidirectional, batch_first = rest
    hx = tuple(second) if mode == "LSTM" else (second,)
    if batch_first:
        input = input.transpose(0, 1)
    out, states = R.rnn(mode, input, hx, _grouped(params, has_biases, layers, bidirectional),
                        has_biases, layers, p, train, bidirectional)
    return (out.transpose(0, 1) if batch_first else out), states


def _layer(mode):
    def layer(input, second, *rest):
        out, states = _sequence(mode, input, second, rest)
        return (out, *states)
    layer.__name__ = layer.__qualname__ = mode.lower()
    return layer


rnn_tanh, rnn_relu, lstm, gru = map(_layer, ("RNN_TANH", "RNN_RELU", "LSTM", "GRU"))

__all__ = ["gru", "gru_cell", "lstm", "lstm_cell", "rnn_relu", "rnn_relu_cell", "rnn_tanh",
           "rnn_tanh_cell"]
