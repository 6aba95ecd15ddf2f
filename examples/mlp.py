"""A two-layer perceptron's squared-error loss, written with numpy.

    gradjit dump examples/mlp.py:loss --arg 'f64[3,4]' --arg 'f64[4]' --arg 'f64[4,2]' \
        --arg 'f64[5,3]' --arg 'f64[5,2]' --argnums 0,1,2 --stage kernels
"""
import numpy as np


def loss(w1, b1, w2, x, y):
    hidden = np.tanh(x @ w1 + b1)
    prediction = hidden @ w2
    return np.mean((prediction - y) ** 2)
