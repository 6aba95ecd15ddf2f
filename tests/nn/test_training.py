"""Training with gradjit.nn matches torch step for step, and the functionals run inside the
compiler's transformations (grad/jit) with the eager gradients."""
import numpy as np

import gradjit
from gradjit import nn
from gradjit.nn import functional as F
from tests.nn.helpers import close, copy_weights, randn, torch


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 16),
                             lib.nn.Tanh(), lib.nn.Linear(16, 3))


def train(lib, model, x, y, steps=50, lr=0.1):
    """Plain SGD written by hand, as the tutorials do before they meet torch.optim."""
    loss_fn, losses = lib.nn.CrossEntropyLoss(), []
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        model.zero_grad()
        loss.backward()
        with lib.no_grad():
            for p in model.parameters():
                p.data -= lr * p.grad
        losses.append(loss.item())
    return losses


def test_mlp_trains_like_torch_for_50_steps():
    torch.manual_seed(0)  # the initial weights, so that the decrease checked is the same
    g, t = mlp(gradjit), mlp(torch)
    copy_weights(g, t)
    x, y = randn(32, 8), np.random.default_rng(1).integers(0, 3, 32)
    g_losses = train(gradjit, g, gradjit.tensor(x), gradjit.tensor(y))
    t_losses = train(torch, t, torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(g_losses, t_losses, rtol=1e-5)
    assert g_losses[-1] < 0.9 * g_losses[0]
    for p, tp in zip(g.parameters(), t.parameters()):
        close(p, tp, rtol=1e-4, atol=1e-5)


def convnet(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3, padding=1), lib.nn.ReLU(),
                             lib.nn.MaxPool2d(2), lib.nn.Flatten(), lib.nn.LayerNorm(36),
                             lib.nn.BatchNorm1d(36), lib.nn.Linear(36, 2))


def test_small_convnet_trains_like_torch():
    torch.manual_seed(0)
    g, t = convnet(gradjit), convnet(torch)
    copy_weights(g, t)
    x, y = randn(8, 1, 6, 6), np.random.default_rng(2).integers(0, 2, 8)
    g_losses = train(gradjit, g, gradjit.tensor(x), gradjit.tensor(y), steps=20)
    t_losses = train(torch, t, torch.tensor(x), torch.tensor(y), steps=20)
    np.testing.assert_allclose(g_losses, t_losses, rtol=1e-4)


def forward(params, x, y):
    """A conv net in functional style: the parameters are arguments."""
    h = F.conv2d(x, params["conv.weight"], params["conv.bias"], padding="same")
    h = F.max_pool2d(F.gelu(h), 2).flatten(1)
    h = F.layer_norm(h, (h.shape[1],), params["norm.weight"], params["norm.bias"])
    logits = F.linear(F.dropout(h, 0.5, training=False), params["fc.weight"], params["fc.bias"])
    return F.cross_entropy(logits, y, label_smoothing=0.1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.norm, self.fc = nn.Conv2d(2, 3, 3, padding="same"), nn.LayerNorm(12), \
            nn.Linear(12, 4)


def test_functionals_compile_with_the_eager_gradients():
    net = Net()
    params = dict(net.named_parameters())
    x, y = gradjit.tensor(randn(5, 2, 4, 4)), gradjit.tensor(np.array([0, 3, 1, 2, 3]))
    loss = forward(params, x, y)
    loss.backward()
    detached = {k: v.detach() for k, v in params.items()}
    compiled = gradjit.value_and_grad(forward)
    for _ in range(2):  # the second call runs the cached program
        value, grads = compiled(detached, x, y)
        close(value, loss, rtol=1e-5)
        for name, p in params.items():
            close(grads[name], p.grad, rtol=1e-4, atol=1e-6)
    close(gradjit.jit(forward)(detached, x, y), loss, rtol=1e-5)
    assert compiled.cache_info().misses == 1


def test_mlp_with_torch_optim_and_a_scheduler_trains_like_torch():
    """nn and optim together: Adam with weight decay and a step schedule, 50 steps."""
    torch.manual_seed(0)
    g, t = mlp(gradjit), mlp(torch)
    copy_weights(g, t)
    x, y = randn(32, 8), np.random.default_rng(2).integers(0, 3, 32)
    losses = []
    for lib, model, xs, ys in ((gradjit, g, gradjit.tensor(x), gradjit.tensor(y)),
                               (torch, t, torch.tensor(x), torch.tensor(y))):
        optimizer = lib.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-3)
        schedule = lib.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
        run = []
        for _ in range(50):
            optimizer.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(xs), ys)
            loss.backward()
            optimizer.step()
            schedule.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-4)
    assert losses[0][-1] < 0.7 * losses[0][0]
