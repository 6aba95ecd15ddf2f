"""torch.export.export against PyTorch 2.13: the ATen graph of a module (parameters and
buffers lifted to inputs), its signature and printout, and .module() computing the module's
outputs again."""
import numpy as np
import pytest
import torch

import gradjit

X = np.linspace(-1, 1, 72, dtype=np.float32).reshape(2, 1, 6, 6)


def _small(L):
    class Small(L.nn.Module):
        def __init__(self):
            super().__init__()
            L.manual_seed(0)
            self.linear = L.nn.Linear(4, 3)

        def forward(self, x):
            return L.relu(self.linear(x)) + 1, x.sum()
    return Small(), (L.tensor(X.reshape(-1)[:8].reshape(2, 4)),)


def _network(L):
    F = L.nn.functional

    class Network(L.nn.Module):
        def __init__(self):
            super().__init__()
            L.manual_seed(0)
            self.conv, self.bn = L.nn.Conv2d(1, 2, 3), L.nn.BatchNorm2d(2)
            self.fc = L.nn.Linear(8, 3)
            self.register_buffer("scale", L.ones(3))

        def forward(self, x):
            y = L.flatten(F.max_pool2d(F.relu(self.bn(self.conv(x))), 2), 1)
            z = self.fc(y) * self.scale - 1
            z = z / 2 + z.sum(dim=1, keepdim=True) + z.mean()
            w = z.view(-1).reshape(2, 3).t().transpose(0, 1)
            return (F.softmax(w, dim=-1), L.cat([w, w], 0), w[0], w[:, 1:], L.matmul(w, w.t()),
                    F.log_softmax(w, 1), w @ w.t(), F.gelu(w), w.sigmoid(), -w, w.pow(2),
                    F.dropout(w, 0.5, False), w.unsqueeze(0), w.permute(1, 0),
                    w.max(dim=1).values, w.argmax(1), w.clamp(min=0), 1 - w,
                    w.reshape(w.shape[0], -1))
    return Network().eval(), (L.tensor(X),)


def _exported(L, make):
    model, args = make(L)
    return model, args, L.export.export(model, args)


def _without_stack_traces(text):
    return [line for line in text.splitlines()
            if "# File:" not in line and "# No stacktrace" not in line and line.strip()]


@pytest.mark.parametrize("make", [_small, _network])
def test_graph_signature_and_module_as_torch(make):
    (g_model, g_args, g), (_, t_args, t) = _exported(gradjit, make), _exported(torch, make)
    assert str(g.graph) == str(t.graph)
    assert str(g.graph_signature) == str(t.graph_signature)
    assert _without_stack_traces(str(g)) == _without_stack_traces(str(t))
    assert (g.graph_signature.user_inputs, g.graph_signature.parameters,
            g.graph_signature.buffers) == (t.graph_signature.user_inputs,
                                           t.graph_signature.parameters,
                                           t.graph_signature.buffers)
    assert list(g.state_dict) == list(t.state_dict)
    ours, theirs, eager = g.module()(*g_args), t.module()(*t_args), g_model(*g_args)
    for a, b, c in zip(ours, theirs, eager):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_array_equal(a.detach().numpy(), c.detach().numpy())


def test_exported_program_is_not_called_directly_as_torch():
    from tests.torch_reference import same_error
    g, t = _exported(gradjit, _small)[2], _exported(torch, _small)[2]
    same_error(lambda: g(gradjit.ones(2, 4)), lambda: t(torch.ones(2, 4)))


def test_module_code_reads_state_as_attributes():
    module = _exported(gradjit, _small)[2].module()
    code = module.code
    assert "linear_weight = self.linear.weight" in code
    assert "torch.ops.aten.linear.default(x, linear_weight, linear_bias)" in code
