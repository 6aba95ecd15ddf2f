"""The autograd tutorial's example: out = mean(3 * (x + 2)**2), whose gradient at x is
3 * (x + 2) / 2 (4.5 at x = 1).

    gradjit dump examples/seed.py:f --arg 'f32[2,2]' --stage symbolic
    gradjit dump examples/seed.py:f --arg 'np.ones((2, 2), np.float32)' --stage all
"""


def f(x):
    y = x + 2
    z = y * y * 3
    out = z.mean()
    return out
