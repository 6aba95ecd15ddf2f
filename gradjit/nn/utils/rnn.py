"""Batches of sequences of different lengths: padding them to one length, and PyTorch's
PackedSequence (the steps of every sequence, time-major, longest sequences first), which the
recurrent layers accept."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

import gradjit


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """data holds step t of the batch_sizes[t] longest sequences after step t - 1's;
    sorted_indices orders the batch by decreasing length (None if it came sorted)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    # PyTorch's casts of the data only: double(), float(), ..., byte()
    for _name, _dtype in (("double", "float64"), ("float", "float32"), ("half", "float16"),
                          ("long", "int64"), ("int", "int32"), ("short", "int16"),
                          ("char", "int8"), ("byte", "uint8")):
        def _cast(self, _dtype=_dtype):
            return self.to(dtype=getattr(gradjit, _dtype))
        _cast.__name__ = _cast.__qualname__ = _name
        locals()[_name] = _cast
    del _name, _dtype, _cast

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    return gradjit.empty_like(permutation).scatter_(0, permutation,
                                                    gradjit.arange(permutation.numel()))


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack (L_i, *) tensors into (max L, B, *) (or (B, max L, *)), padding_value after each
    (or before, with padding_side="left")."""
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        fill = gradjit.full((longest - s.shape[0], *s.shape[1:]), padding_value, dtype=s.dtype)
        padded.append(gradjit.cat([s, fill] if padding_side == "right" else [fill, s]))
    return gradjit.stack(padded, 0 if batch_first else 1)


def _lengths(lengths):
    if gradjit.is_tensor(lengths) and lengths.dim() != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu {lengths.dtype.legacy} "
                           "tensor")
    values = np.asarray(lengths.tolist() if gradjit.is_tensor(lengths) else lengths,
                        dtype=np.int64)
    if values.size and values.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    return values


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    lengths = _lengths(lengths)
    sorted_indices = None
    if enforce_sorted:
        if np.any(np.diff(lengths) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                               "pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
    else:
        order = np.argsort(-lengths, kind="stable")
        lengths, sorted_indices = lengths[order], gradjit.tensor(order)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    batch_sizes = (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(1)
    data = gradjit.cat([input[t, :size] for t, size in enumerate(batch_sizes.tolist())])
    return PackedSequence(data, gradjit.tensor(batch_sizes), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch in the order it was packed from, and its lengths."""
    batch_sizes = sequence.batch_sizes.tolist()
    longest = len(batch_sizes)
    if total_length is not None:
        if total_length < longest:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {longest}")
        longest = total_length
    data, batch = sequence.data, batch_sizes[0]
    steps, start = [], 0
    for size in batch_sizes + [0] * (longest - len(batch_sizes)):
        fill = gradjit.full((batch - size, *data.shape[1:]), padding_value, dtype=data.dtype)
        steps.append(gradjit.cat([data[start:start + size], fill]))
        start += size
    padded = gradjit.stack(steps)
    lengths = (np.asarray(batch_sizes)[None, :] > np.arange(batch)[:, None]).sum(1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.numpy()]
    return (padded.transpose(0, 1) if batch_first else padded), gradjit.tensor(lengths)


def pack_sequence(sequences, enforce_sorted=True):
    sequences = list(sequences)
    return pack_padded_sequence(pad_sequence(sequences), [s.shape[0] for s in sequences],
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of pad_sequence: each sequence cut back to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(length)] for seq, length in zip(padded_sequences, lengths)]


def unpack_sequence(packed_sequences):
    """The inverse of pack_sequence: the list of sequences, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
