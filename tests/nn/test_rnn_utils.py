"""nn.utils.rnn (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence) and
recurrent layers over PackedSequences against torch: data, batch sizes, orders, lengths, and
the gradients through packing and the layers."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from gradjit.nn.utils import rnn as U
from tests.nn.helpers import randn, same_error, torch
from tests.nn.multi_output import compare_calls

T = torch.nn.utils.rnn
X = randn(4, 3, 2)


def packed_parts(p):
    return [p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices]


@pytest.mark.parametrize("lengths, enforce_sorted", [([4, 2, 1], True), ([2, 4, 1], False),
                                                     ([1, 3, 4], False), ([4, 4, 4], True)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_packing_and_padding_match_torch(lengths, enforce_sorted, batch_first):
    x = X.transpose(1, 0, 2).copy() if batch_first else X

    def pack(u):
        return lambda x: packed_parts(u.pack_padded_sequence(
            x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted))
    compare_calls(pack(U), pack(T), [x])

    def round_trip(u):
        return lambda x: u.pad_packed_sequence(
            u.pack_padded_sequence(x, gradjit.tensor(lengths) if u is U else
                                   torch.tensor(lengths), batch_first, enforce_sorted),
            batch_first=batch_first, padding_value=-2.0, total_length=6)
    compare_calls(round_trip(U), round_trip(T), [x])


@pytest.mark.parametrize("kwargs", [dict(), dict(batch_first=True, padding_value=-1.0),
                                    dict(padding_side="left")])
def test_pad_sequence_matches_torch(kwargs):
    def pad(u):
        return lambda *seqs: u.pad_sequence(seqs, **kwargs)
    compare_calls(pad(U), pad(T), [randn(3, 2), randn(1, 2, seed=1), randn(4, 2, seed=2)])


def test_pack_sequence_matches_torch():
    def pack(u, **kwargs):
        return lambda *seqs: packed_parts(u.pack_sequence(seqs, **kwargs))
    seqs = [randn(4, 2), randn(2, 2, seed=1), randn(1, 2, seed=2)]
    compare_calls(pack(U), pack(T), seqs)
    compare_calls(pack(U, enforce_sorted=False), pack(T, enforce_sorted=False), seqs[::-1])


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kwargs", [dict(), dict(num_layers=2, bidirectional=True)])
@pytest.mark.parametrize("sorted_", [True, False])
def test_recurrent_layers_over_packed_sequences_match_torch(name, kwargs, sorted_):
    gm, tm = getattr(nn, name)(2, 3, **kwargs), getattr(torch.nn, name)(2, 3, **kwargs)
    lengths = [4, 2, 1] if sorted_ else [2, 4, 1]
    states = 4 if kwargs else 1

    def call(module, u):
        def run(x, *state):
            packed = u.pack_padded_sequence(x, lengths, enforce_sorted=sorted_)
            hidden = None if not state else state[0] if len(state) == 1 else state
            out, h = module(packed, hidden)
            return [packed_parts(out), h, u.pad_packed_sequence(out)]
        return run
    compare_calls(call(gm, U), call(tm, T), [X], gm, tm)
    gm.zero_grad(), tm.zero_grad()
    h0 = [randn(states, 3, 3, seed=1)] + ([randn(states, 3, 3, seed=2)] if name == "LSTM"
                                          else [])
    compare_calls(call(gm, U), call(tm, T), [X] + h0, gm, tm)


def both(make):
    return lambda: make(U, gradjit), lambda: make(T, torch)


@pytest.mark.parametrize("make", [
    lambda u, t: u.pack_padded_sequence(t.ones(3, 2, 1), [2, 3]),
    lambda u, t: u.pack_padded_sequence(t.ones(3, 2, 1), [0, 2], enforce_sorted=False),
    lambda u, t: u.pad_packed_sequence(u.pack_padded_sequence(t.ones(3, 2, 1), [3, 2]),
                                       total_length=2),
])
def test_errors_match_torch(make):
    same_error(*both(make))


def test_a_packed_input_of_other_rank_is_refused_like_torch():
    def run(nn, u, t):
        packed = u.pack_padded_sequence(t.ones(3, 2, 1, 2), [3, 2])
        return nn.GRU(2, 3)(packed)
    same_error(lambda: run(nn, U, gradjit), lambda: run(torch.nn, T, torch))
    assert np.array_equal(U.PackedSequence(gradjit.ones(2, 1), gradjit.tensor([1, 1]),
                                           gradjit.tensor([1, 0])).unsorted_indices.numpy(),
                          [1, 0])
