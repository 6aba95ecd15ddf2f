"""Losses for the distributed tests, importable by the workers."""
import numpy as np


def mean_squares(w, x, y):
    return np.mean((np.tanh(x @ w) - y) ** 2)


def sum_squares(w, x, y):
    return np.sum((np.tanh(x @ w) - y) ** 2)


def mlp(params, x, y):
    hidden = np.tanh(x @ params["w1"] + params["b1"])
    out = hidden @ params["w2"] + params["b2"]
    return np.mean(np.logaddexp(0.0, -y * out))
