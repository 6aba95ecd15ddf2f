"""Sequence models (an embedding + LSTM tagger, a GRU over packed batches, a Transformer
encoder classifier) train with gradjit.optim like torch step for step, from torch's initial
weights."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import copy_weights, torch


def tagger(lib):
    class Tagger(lib.nn.Module):
        """The LSTM part-of-speech tagger of PyTorch's NLP tutorial, batched."""

        def __init__(self):
            super().__init__()
            self.embed = lib.nn.Embedding(20, 6)
            self.lstm = lib.nn.LSTM(6, 8, num_layers=2, batch_first=True, bidirectional=True)
            self.out = lib.nn.Linear(16, 5)

        def forward(self, tokens):
            return self.out(self.lstm(self.embed(tokens))[0]).log_softmax(-1)
    return Tagger()


def packed_gru(lib):
    class Classifier(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = lib.nn.Embedding(20, 6)
            self.gru = lib.nn.GRU(6, 8)
            self.out = lib.nn.Linear(8, 5)

        def forward(self, tokens):  # time-major, lengths 6, 3, 5, 2
            packed = lib.nn.utils.rnn.pack_padded_sequence(self.embed(tokens), [6, 3, 5, 2],
                                                           enforce_sorted=False)
            return self.out(self.gru(packed)[1][0]).unsqueeze(1).log_softmax(-1)
    return Classifier()


def encoder(lib):
    class Encoder(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = lib.nn.Embedding(20, 8)
            self.encoder = lib.nn.TransformerEncoder(
                lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2,
                enable_nested_tensor=False)
            self.out = lib.nn.Linear(8, 5)

        def forward(self, tokens):
            causal = lib.nn.Transformer.generate_square_subsequent_mask(tokens.shape[1])
            return self.out(self.encoder(self.embed(tokens), mask=causal)).log_softmax(-1)
    return Encoder()


def train(lib, model, tokens, tags, steps):
    optimizer = lib.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(steps):
        scores = model(tokens)
        loss = lib.nn.functional.nll_loss(scores.reshape(-1, 5), tags.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("make, steps, time_major", [(tagger, 50, False),
                                                     (packed_gru, 50, True),
                                                     (encoder, 30, False)])
def test_sequence_models_train_like_torch(make, steps, time_major):
    torch.manual_seed(0)
    g, t = make(gradjit), make(torch)
    copy_weights(g, t)
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 20, (6, 4) if time_major else (4, 6))
    tags = rng.integers(0, 5, (4, 1) if time_major else (4, 6))
    g_losses = train(gradjit, g, gradjit.tensor(tokens), gradjit.tensor(tags), steps)
    t_losses = train(torch, t, torch.tensor(tokens), torch.tensor(tags), steps)
    np.testing.assert_allclose(g_losses, t_losses, rtol=2e-4)
    assert g_losses[-1] < 0.5 * g_losses[0]
