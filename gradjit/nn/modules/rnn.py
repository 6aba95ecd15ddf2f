"""RNN, LSTM and GRU (multi-layer, bidirectional, batch_first, unbatched input, LSTM
projections) and their single-step cells, with PyTorch's parameter names, shapes, initialization
and checks; the math is in nn.functional.rnn."""
from __future__ import annotations

import math
import numbers
import warnings

import gradjit
from gradjit.nn import init
from gradjit.nn.functional import rnn as R
from gradjit.nn.modules.module import Module
from gradjit.nn.parameter import Parameter
from gradjit.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _check_sizes(input_size, hidden_size, bias):
    if not isinstance(bias, bool):
        raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
    if not isinstance(input_size, int):
        raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")


def _uniform_init(module):
    """PyTorch's recurrent initialization: every weight and bias U(-1/sqrt(hidden), ..)."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None,
                 dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: "
                            f"{type(batch_first).__name__}")
        _check_sizes(input_size, hidden_size, bias)
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        self._all_weights = [self._add_weights(layer, suffix, device, dtype)
                             for layer in range(num_layers)
                             for suffix in ("", "_reverse")[:2 if bidirectional else 1]]
        self.reset_parameters()

    def _add_weights(self, layer, suffix, device, dtype):
        """Register one layer and direction's parameters in PyTorch's order; return their
        names."""
        gates = _GATES[self.mode] * self.hidden_size
        out_size = self.proj_size or self.hidden_size
        in_size = self.input_size if layer == 0 else out_size * (2 if self.bidirectional else 1)
        shapes = {"weight_ih": (gates, in_size), "weight_hh": (gates, out_size)}
        if self.bias:
            shapes.update(bias_ih=(gates,), bias_hh=(gates,))
        if self.proj_size:
            shapes["weight_hr"] = (self.proj_size, self.hidden_size)
        names = []
        for kind, shape in shapes.items():
            names.append(f"{kind}_l{layer}{suffix}")
            setattr(self, names[-1], Parameter(gradjit.empty(shape, device=device,
                                                             dtype=dtype)))
        return names

    reset_parameters = _uniform_init

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    @property
    def _flat_weights_names(self):
        # PyTorch's private names, which d2l's seq2seq initialization iterates
        return [name for names in self._all_weights for name in names]

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    def flatten_parameters(self):
        """Kept for PyTorch's API: the weights are separate tensors already."""

    def _check_input(self, input):
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _state_shapes(self, input):
        """(h,) or LSTM's (h, c) shapes for a time-major batch; h is projected if proj_size."""
        sizes = (self.proj_size or self.hidden_size, self.hidden_size)
        return [(self.num_layers * (2 if self.bidirectional else 1), input.shape[1], size)
                for size in sizes[:2 if self.mode == "LSTM" else 1]]

    def _zero_states(self, input):
        return tuple(gradjit.zeros(shape, dtype=input.dtype, device=input.device)
                     for shape in self._state_shapes(input))

    def _run(self, input, hx, name):
        """Shared forward: batch and time-major the input, fill in zero states, run, and
        return outputs and states in the caller's layout. `hx` is a tuple of states or None."""
        if isinstance(input, PackedSequence):
            return self._run_packed(input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             f"{'tensor ' if name == 'RNN' else ''}instead")
        batched = input.dim() == 3
        if batched and self.batch_first:
            input = input.transpose(0, 1)
        elif not batched:
            input = input.unsqueeze(1)
        if hx is None:
            hx = self._zero_states(input)
        else:
            self._check_state_dims(hx, batched)
            hx = hx if batched else tuple(h.unsqueeze(1) for h in hx)
        self._check_input(input)
        self._check_hidden(input, hx)
        output, states = R.rnn(self.mode, input, hx, self.all_weights, self.bias,
                               self.num_layers, self.dropout, self.training, self.bidirectional)
        if not batched:
            return output.squeeze(1), tuple(h.squeeze(1) for h in states)
        if self.batch_first:
            # PyTorch's RNN and GRU kernels transpose their output in place, LSTM's does not
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        return output, states

    def _run_packed(self, packed, hx):
        """A PackedSequence: run the padded batch (longest first) with each sequence's
        length, and pack the outputs again; given states are in the caller's batch order, as
        are the returned ones."""
        if packed.data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {packed.data.dim()}")
        input, lengths = pad_packed_sequence(PackedSequence(packed.data, packed.batch_sizes))
        if hx is None:
            hx = self._zero_states(input)
        elif packed.sorted_indices is not None:
            hx = tuple(h.index_select(1, packed.sorted_indices) for h in hx)
        self._check_input(input)
        self._check_hidden(input, hx)
        output, states = R.rnn(self.mode, input, hx, self.all_weights, self.bias,
                               self.num_layers, self.dropout, self.training, self.bidirectional,
                               lengths.numpy())
        data = pack_padded_sequence(output, lengths).data
        if packed.unsorted_indices is not None:
            states = tuple(h.index_select(1, packed.unsorted_indices) for h in states)
        return PackedSequence(data, packed.batch_sizes, packed.sorted_indices,
                              packed.unsorted_indices), states

    def _check_hidden(self, input, hx):
        for index, (h, expected) in enumerate(zip(hx, self._state_shapes(input))):
            if tuple(h.shape) != expected:
                which = f"[{index}]" if self.mode == "LSTM" else ""
                raise RuntimeError(f"Expected hidden{which} size {expected}, got "
                                   f"{list(h.shape)}")

    def _check_state_dims(self, hx, batched):
        dims = 3 if batched else 2
        if any(h.dim() != dims for h in hx):
            kind = "batched 3-D" if batched else "unbatched 2-D"
            if len(hx) == 1:
                raise RuntimeError(f"For {kind} input, hx should also be {dims}-D but got "
                                   f"{hx[0].dim()}-D tensor")
            raise RuntimeError(f"For {kind} input, hx and cx should also be {dims}-D but got "
                               f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")

    def _forward_one_state(self, input, hx=None):
        """RNN's and GRU's forward (RNNBase itself has none, as in PyTorch)."""
        name = "GRU" if self.mode == "GRU" else "RNN"
        output, states = self._run(input, None if hx is None else (hx,), name)
        return output, states[0]

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        for name, default in (("proj_size", 0), ("num_layers", 1), ("bias", True),
                              ("batch_first", False), ("dropout", 0), ("bidirectional", False)):
            if getattr(self, name) != default:
                text += f", {name}={getattr(self, name)}"
        return text


def _refuse_projection(kwargs):
    """RNN and GRU take LSTM's arguments but proj_size."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError("RNNBase.__init__() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")


class RNN(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None,
                 **kwargs):
        _refuse_projection(kwargs)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(f"RNN_{nonlinearity.upper()}", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, device=device, dtype=dtype)

    forward = RNNBase._forward_one_state


class LSTM(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)

    def forward(self, input, hx=None):
        return self._run(input, None if hx is None else tuple(hx), "LSTM")


class GRU(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, **kwargs):
        _refuse_projection(kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)

    forward = RNNBase._forward_one_state


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        like = dict(device=device, dtype=dtype)
        self.weight_ih = Parameter(gradjit.empty(num_chunks * hidden_size, input_size, **like))
        self.weight_hh = Parameter(gradjit.empty(num_chunks * hidden_size, hidden_size, **like))
        self.bias_ih = Parameter(gradjit.empty(num_chunks * hidden_size, **like)) \
            if bias else None
        self.bias_hh = Parameter(gradjit.empty(num_chunks * hidden_size, **like)) \
            if bias else None
        self.reset_parameters()

    reset_parameters = _uniform_init

    def _batched(self, input, hx, hidden_name):
        """Check dims as PyTorch's cells do and give input and states a batch dimension.
        Returns (batched?, input, states)."""
        name = self._get_name()
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        for index, h in enumerate(hx or ()):
            if h.dim() not in (1, 2):
                which = hidden_name if hidden_name == "hidden" else f"hx[{index}]"
                raise ValueError(f"{name}: Expected {which} to be 1D or 2D, got {h.dim()}D "
                                 "instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = gradjit.zeros(input.shape[0], self.hidden_size, dtype=input.dtype,
                                  device=input.device)
            hx = (zeros,) * (2 if hidden_name == "hx" else 1)
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx)
        return batched, input, hx

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        batched, input, (hx,) = self._batched(input, None if hx is None else (hx,), "hidden")
        cells = {"tanh": R.rnn_tanh_cell, "relu": R.rnn_relu_cell}
        if self.nonlinearity not in cells:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = cells[self.nonlinearity](input, hx, *self._weights())
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        batched, input, hx = self._batched(input, None if hx is None else tuple(hx), "hx")
        h, c = R.lstm_cell(input, hx, *self._weights())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        batched, input, (hx,) = self._batched(input, None if hx is None else (hx,), "hidden")
        out = R.gru_cell(input, hx, *self._weights())
        return out if batched else out.squeeze(0)
