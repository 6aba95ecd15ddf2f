"""The saved-tensor-hooks, Extending PyTorch (custom Functions with setup_context, default
arguments, numpy inside forward, mark_non_differentiable) and autograd-mechanics tutorials
print PyTorch's numbers, and the hooks see PyTorch's saved tensors in its order. Left out:
Linear's packs (PyTorch's addmm saves only the operands the other's gradient needs)."""
import numpy as np
import pytest

import gradjit
from tests.examples.tutorial_runner import assert_same_output

SAVED_TENSOR_HOOKS = '''
import torch
torch.manual_seed(0)
a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
c = torch.ones(5, requires_grad=True)
d = a * b
e = d * c
print(d.grad_fn._saved_self is a, d.grad_fn._saved_other is b)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(y.grad_fn._saved_self.equal(x))
print(y.grad_fn._saved_self is x)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))
print(y is y.grad_fn._saved_result)
def pack_hook(x):
    print("Packing", x)
    return x
def unpack_hook(x):
    print("Unpacking", x)
    return x
a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
def pack_hook(tensor):
    return tensor.numel()
def unpack_hook(x):
    return torch.ones(x) * 7
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2)
print(y.grad_fn._saved_self)
y.sum().backward()
print(x.grad)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
print(y.grad_fn._saved_self)
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.save_on_cpu():
    y = x * x * x
y.sum().backward()
print(torch.allclose(x.grad, 3 * x * x))
class SelfDeletingTempFile():
    count = 0
    def __init__(self):
        SelfDeletingTempFile.count += 1
        self.name = SelfDeletingTempFile.count
store = {}
def pack_hook(tensor):
    temp_file = SelfDeletingTempFile()
    store[temp_file.name] = tensor.clone()
    return temp_file
def unpack_hook(temp_file):
    return store[temp_file.name]
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2).sin()
y.sum().backward()
print(len(store), torch.allclose(x.grad, 2 * x * torch.cos(x.pow(2))))
'''

EXTENDING_FUNCTION = '''
import torch
from torch.autograd import Function
torch.manual_seed(0)
class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias=None):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output
    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias
linear = LinearFunction.apply
class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant
    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.constant = constant
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None
class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result
from torch.autograd import gradcheck
input = (torch.randn(20,20,dtype=torch.double,requires_grad=True), torch.randn(30,20,dtype=torch.double,requires_grad=True))
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)
x = torch.randn(3, requires_grad=True)
y = MulConstant.apply(x, 2.5)
y.sum().backward()
print(x.grad)
x = torch.tensor(2., requires_grad=True)
y = my_cube(x)
g, = torch.autograd.grad(y, x, create_graph=True)
print(y, g, torch.autograd.grad(g, x)[0])
print(torch.func.grad(my_cube)(torch.tensor(2.0)) if False else '')
class NumpySort(torch.autograd.Function):
    generate_vmap_rule = True
    @staticmethod
    def forward(x, dim):
        import numpy as np
        x_np = x.cpu().numpy()
        ind = np.argsort(x_np, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x_np, ind, axis=dim)
        return (
            torch.tensor(result, device=x.device),
            torch.tensor(ind, device=x.device),
            torch.tensor(ind_inv, device=x.device),
        )
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim = inputs
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim
    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None
class NumpyTake(torch.autograd.Function):
    generate_vmap_rule = True
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        import numpy as np
        x_np = x.cpu().numpy()
        ind_np = ind.cpu().numpy()
        return torch.tensor(np.take_along_axis(x_np, ind_np, dim), device=x.device)
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim
    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
        return result, None, None, None
x = torch.randn(2, 3, requires_grad=True)
result = NumpySort.apply(x, 1)
print(result[0], result[1])
result[0].backward(torch.arange(6.0).reshape(2, 3))
print(x.grad)
x = torch.randn(2, 3)
def numpy_sort(x, dim=-1):
    result, _, _ = NumpySort.apply(x, dim)
    return result
print(numpy_sort(x))
'''  # noqa: E501 (the tutorial's lines)

AUTOGRAD_MECHANICS = '''
import torch
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x.sigmoid()
y.mul_(2) if False else None
a = torch.randn(4, requires_grad=True)
b = a.sigmoid()
c = b.clone()
b.add_(1)
try:
    b.sum().backward()
    print("ok")
except RuntimeError as e:
    print("RuntimeError", str(e)[:120])
x = torch.randn(4, requires_grad=True)
y = torch.sin(x)
y.add_(1) if False else None
z = x.exp()
z.mul_(2)
try:
    z.sum().backward()
except RuntimeError as e:
    print(str(e)[:200])
x = torch.randn(3, requires_grad=True)
x2 = x.detach()
print(x2._version, x._version)
x.data.mul_(2)
print(x._version)
y = x * 2
y.retain_grad()
z = (y * y).sum()
h = y.register_hook(lambda g: g * 10)
z.backward()
print(y.grad, x.grad)
h.remove()
print(torch.is_grad_enabled())
with torch.inference_mode():
    w = x * 2
print(w.requires_grad, w.is_inference())
torch.set_grad_enabled(False)
print((x * 2).requires_grad)
torch.set_grad_enabled(True)
@torch.no_grad()
def f(t):
    return t * 2
print(f(x).requires_grad)
z = torch.randn(3, dtype=torch.cfloat, requires_grad=True)
loss = (z * z.conj()).real.sum()
loss.backward()
print(torch.allclose(z.grad, 2 * z))
x = torch.randn(2, 2, requires_grad=True)
out = x.abs().sum()
out.backward()
print(x.grad)
x = torch.tensor([0.0, 1.0], requires_grad=True)
torch.sqrt(x).sum().backward()
print(x.grad)
x = torch.tensor([0.0, 2.0], requires_grad=True)
torch.norm(x).backward()
print(x.grad)
x = torch.zeros(2, requires_grad=True)
torch.norm(x).backward()
print(x.grad)
x = torch.tensor([1.0, 1.0, 0.5], requires_grad=True)
x.max().backward()
print(x.grad)
x = torch.tensor([1.0, 1.0, 0.5], requires_grad=True)
x.amax().backward()
print(x.grad)
x = torch.tensor([0.0, -0.0], requires_grad=True)
torch.relu(x).sum().backward(); print(x.grad)
'''


PROGRAMS = {
    'saved_tensor_hooks': SAVED_TENSOR_HOOKS,
    'extending_function': EXTENDING_FUNCTION,
    'autograd_mechanics': AUTOGRAD_MECHANICS,
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_tutorial_prints_torchs_numbers(name):
    assert_same_output(PROGRAMS[name])


def test_setup_context_sees_forwards_defaults():
    class Scale(gradjit.autograd.Function):
        @staticmethod
        def forward(x, factor=3.0, *, shift=1.0):
            return x * factor + shift

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.factor = inputs[1]

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.factor, None

    x = gradjit.ones(2, requires_grad=True)
    Scale.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="bias"):
        class Needs(Scale):
            @staticmethod
            def forward(x, bias):
                return x + bias
        Needs.apply(x)


def test_numpy_of_a_tensor_requiring_grad_under_no_grad():
    x = gradjit.ones(2, requires_grad=True)
    with gradjit.no_grad():
        np.testing.assert_array_equal(x.numpy(), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="requires grad"):
        x.numpy()


def test_saved_operand_unpacks_to_the_same_object_until_modified():
    a, b = gradjit.ones(3, requires_grad=True), gradjit.ones(3) * 2
    y = a * b
    assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
    b.add_(1)  # in place after saving: no longer the value backward reads
    assert y.grad_fn._saved_other is not b
    z = a.exp()
    assert z.grad_fn._saved_result is not z and z.grad_fn._saved_result.equal(z)


def test_raw_saved_tensor_hooks_once_and_before_backward():
    x = gradjit.ones(3, requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    with pytest.raises(TypeError, match="incompatible function arguments"):
        raw.register_hooks(1, lambda t: t)
    raw.register_hooks(lambda t: t * 3, lambda t: t)
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        raw.register_hooks(lambda t: t, lambda t: t)
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0, 6.0]  # 2 * the unpacked 3 * x
    with pytest.raises(RuntimeError, match="after it has been freed"):
        raw.register_hooks(lambda t: t, lambda t: t)
