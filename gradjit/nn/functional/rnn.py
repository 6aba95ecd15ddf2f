"""The recurrent cells (Elman tanh/relu, LSTM, GRU) and the multi-layer, bidirectional sequence
loop over them, with PyTorch's gate order, written with Tensor operations: under autograd and
inside gradjit.grad/jit the time loop unrolls into one graph."""
from __future__ import annotations

import numpy as np

import gradjit
from gradjit.nn.functional.activation import dropout, linear


def _check_cell_args(input, hiddens, hidden_size, input_size):
    """PyTorch's checks of a cell's batched input against its weights and hidden states."""
    if input.shape[1] != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                           f"{input_size}")
    for index, hx in enumerate(hiddens):
        if input.shape[0] != hx.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{index} "
                               f"batch size {hx.shape[0]}")
        if hx.shape[1] != hidden_size:
            raise RuntimeError(f"hidden{index} has inconsistent hidden_size: got {hx.shape[1]}, "
                               f"expected {hidden_size}")


def _check_hidden_dtype(h, w_hh, b_hh):
    """PyTorch multiplies the hidden state by its weight in an addmm where there is a bias,
    which names the mismatch so (a plain matmul does otherwise)."""
    if b_hh is not None and h.dtype != w_hh.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {h.dtype.legacy} "
                           f"and {w_hh.dtype.legacy}")


def _hidden_gates(h, w_hh_t, b_hh):
    """The hidden state's contribution to the gates; the weight comes transposed once per
    sequence, and b_hh is None where it was folded into the input gates."""
    out = h.matmul(w_hh_t)
    return out if b_hh is None else out + b_hh


def _elman(activation):
    def step(gates_in, state, w_hh_t, b_hh, w_hr_t=None):
        return activation(gates_in + _hidden_gates(state[0], w_hh_t, b_hh)),
    return step


def _lstm_step(gates_in, state, w_hh_t, b_hh, w_hr_t=None):
    """Gates in PyTorch's order: input, forget, cell, output; then the optional projection."""
    h, c = state
    i, f, g, o = (gates_in + _hidden_gates(h, w_hh_t, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr_t is None else h.matmul(w_hr_t)), c


def _gru_step(gates_in, state, w_hh_t, b_hh, w_hr_t=None):
    """Gates in PyTorch's order: reset, update, new; the reset gate scales the hidden part of
    the new gate, bias included (so GRU's b_hh is never folded into the input gates)."""
    h = state[0]
    in_r, in_z, in_n = gates_in.chunk(3, -1)
    h_r, h_z, h_n = _hidden_gates(h, w_hh_t, b_hh).chunk(3, -1)
    r, z = (in_r + h_r).sigmoid(), (in_z + h_z).sigmoid()
    n = (in_n + r * h_n).tanh()
    return n + z * (h - n),


STEPS = {"RNN_TANH": _elman(gradjit.tanh), "RNN_RELU": _elman(gradjit.relu), "LSTM": _lstm_step,
         "GRU": _gru_step}


def _cell(mode, input, state, w_ih, w_hh, b_ih, b_hh):
    _check_cell_args(input, state, w_hh.shape[1], w_ih.shape[1])
    _check_hidden_dtype(state[0], w_hh, b_hh)
    return STEPS[mode](linear(input, w_ih, b_ih), state, w_hh.t(), b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("RNN_TANH", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("RNN_RELU", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("LSTM", input, tuple(hx), w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("GRU", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def _direction(step, gates_in, state, w_hh_t, b_hh, w_hr_t, reverse, active, node):
    """Run one direction of one layer over time; the input projection of every step is
    precomputed as one matmul. Where `active[t]` is False (past a sequence's end) the state
    stays, so the forward pass stops at each sequence's last step and the reverse pass starts
    there. Returns the outputs in time order and the final state."""
    outputs, steps_in = [], gates_in.unbind(0)
    for t in reversed(range(gates_in.shape[0])) if reverse else range(gates_in.shape[0]):
        new = step(steps_in[t], state, w_hh_t, b_hh, w_hr_t)
        state = new if active is None else \
            tuple(gradjit.where(active[t], n, old) for n, old in zip(new, state))
        outputs.append(new[0])
    if reverse:
        outputs.reverse()
    return gradjit.autograd.composite(node, lambda *o: gradjit.stack(o), *outputs), state


def _layer_node(mode, input, w_hr, lengths):
    """The grad_fn name of one direction's outputs: PyTorch runs a float32 LSTM layer without
    projections or packing as one oneDNN op on the CPU, else stacks the steps."""
    fused = mode == "LSTM" and w_hr is None and lengths is None and \
        input.dtype is gradjit.float32
    return "MkldnnRnnLayerBackward0" if fused else "StackBackward0"


def rnn(mode, input, hx, weights, has_biases, num_layers, dropout_p, training, bidirectional,
        lengths=None):
    """The sequence form of every recurrent layer, time-major: input (L, N, in); hx a tuple of
    (h0,) or (h0, c0), each (num_layers * directions, N, size); weights a list per layer and
    direction of (w_ih, w_hh[, b_ih, b_hh][, w_hr]); lengths, if given, each sequence's length
    (outputs past it are not meaningful). Returns the last layer's outputs and the final
    states, stacked as hx is."""
    step, directions = STEPS[mode], 2 if bidirectional else 1
    if mode != "LSTM":  # (PyTorch's LSTM takes another kernel on the CPU)
        _check_hidden_dtype(hx[0], weights[0][1], weights[0][3] if has_biases else None)
    active = None if lengths is None else \
        [gradjit.tensor(np.asarray(lengths)[:, None] > t) for t in range(input.shape[0])]
    finals = [[] for _ in hx]
    layer_input = input
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w_ih, w_hh, *rest = weights[index]
            b_ih, b_hh = rest[:2] if has_biases else (None, None)
            w_hr = rest[-1] if len(rest) % 2 else None
            gates_in = linear(layer_input, w_ih, b_ih)
            if b_hh is not None and mode != "GRU":  # one add for the sequence, not per step
                gates_in, b_hh = gates_in + b_hh, None
            out, state = _direction(step, gates_in, tuple(h[index] for h in hx), w_hh.t(),
                                    b_hh, None if w_hr is None else w_hr.t(), direction == 1,
                                    active, _layer_node(mode, input, w_hr, lengths))
            outputs.append(out)
            for kept, value in zip(finals, state):
                kept.append(value)
        layer_input = outputs[0] if directions == 1 else gradjit.cat(outputs, -1)
        if dropout_p and training and layer < num_layers - 1:
            layer_input = dropout(layer_input, dropout_p, training=True)
    return layer_input, tuple(gradjit.stack(kept) for kept in finals)
