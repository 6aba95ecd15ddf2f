"""The tutorial "Learning PyTorch with Examples": the third-order polynomial fit to sin(x) in
every version (tensors with manual gradients, autograd, a custom autograd Function, nn, optim,
a custom Module, the dynamic net with random depth) prints PyTorch's losses and coefficients."""
import pytest

from tests.examples.tutorial_runner import assert_same_output

EXAMPLES_TENSOR = '''
import math
import torch
torch.manual_seed(0)
dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 200, dtype=dtype)
y = torch.sin(x)
a = torch.randn((), dtype=dtype); b = torch.randn((), dtype=dtype)
c = torch.randn((), dtype=dtype); d = torch.randn((), dtype=dtype)
lr = 1e-6
for t in range(500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        print(t, loss)
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum(); grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum(); grad_d = (grad_y_pred * x ** 3).sum()
    a -= lr * grad_a; b -= lr * grad_b; c -= lr * grad_c; d -= lr * grad_d
print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
'''

EXAMPLES_AUTOGRAD = '''
import math
import torch
torch.manual_seed(0)
dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 200, dtype=dtype)
y = torch.sin(x)
a = torch.randn((), dtype=dtype, requires_grad=True)
b = torch.randn((), dtype=dtype, requires_grad=True)
c = torch.randn((), dtype=dtype, requires_grad=True)
d = torch.randn((), dtype=dtype, requires_grad=True)
lr = 1e-6
for t in range(500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= lr * a.grad; b -= lr * b.grad; c -= lr * c.grad; d -= lr * d.grad
        a.grad = None; b.grad = None; c.grad = None; d.grad = None
print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
'''

EXAMPLES_LEGENDRE = '''
import math
import torch
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)
torch.manual_seed(0)
dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 200, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
learning_rate = 5e-6
for t in range(300):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad; b -= learning_rate * b.grad
        c -= learning_rate * c.grad; d -= learning_rate * d.grad
        a.grad = None; b.grad = None; c.grad = None; d.grad = None
print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
'''

EXAMPLES_NN = '''
import math
import torch
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-6
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
print(model)
'''  # noqa: E501 (the tutorial's lines)

EXAMPLES_OPTIM = '''
import math
import torch
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(optimizer)
'''

EXAMPLES_MODULE_AND_DYNAMIC = '''
import math
import torch
import random
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3'
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))
    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)
model = Polynomial3()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(200):
    loss = criterion(model(x), y)
    if t % 100 == 99:
        print(t, loss.item())
    optimizer.zero_grad(); loss.backward(); optimizer.step()
print(model.string())
random.seed(0)
model = DynamicNet()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(300):
    loss = criterion(model(x), y)
    if t % 100 == 99:
        print(t, loss.item())
    optimizer.zero_grad(); loss.backward(); optimizer.step()
print(list(model.named_parameters())[0])
'''  # noqa: E501 (the tutorial's lines)


PROGRAMS = {
    'examples_tensor': EXAMPLES_TENSOR,
    'examples_autograd': EXAMPLES_AUTOGRAD,
    'examples_legendre': EXAMPLES_LEGENDRE,
    'examples_nn': EXAMPLES_NN,
    'examples_optim': EXAMPLES_OPTIM,
    'examples_module_and_dynamic': EXAMPLES_MODULE_AND_DYNAMIC,
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_tutorial_prints_torchs_numbers(name):
    assert_same_output(PROGRAMS[name])
