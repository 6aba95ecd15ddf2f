"""torch.nn.utils.parametrize, weight and spectral normalization (both APIs) side by side with
torch: printed modules, state-dict keys, values, gradients, right_inverse, caching, removal
and errors. Each scenario prints; the two transcripts must be equal."""
import contextlib
import io
import warnings

import pytest

import gradjit
from tests.nn.helpers import torch


def _report(call):
    try:
        call()
    except Exception as error:  # the error is part of the transcript
        print(type(error).__name__, str(error)[:80])


def _parametrize(lib):
    nn, P = lib.nn, lib.nn.utils.parametrize
    lib.manual_seed(0)

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Double(nn.Module):
        def forward(self, X):
            return X * 2

    class FirstTwo(nn.Module):
        def forward(self, X):
            return X[:2]

    class Positive(nn.Module):
        def forward(self, X):
            return X.exp()

        def right_inverse(self, Y):
            return Y.log()

    layer = nn.Linear(3, 3)
    P.register_parametrization(layer, "weight", Symmetric())
    print(layer, list(layer.state_dict()), [n for n, _ in layer.named_parameters()])
    print(type(layer).__name__, type(layer).__mro__[1].__name__, P.is_parametrized(layer),
          P.is_parametrized(layer, "bias"), tuple(layer.parametrizations.weight.original.shape))
    A = layer.weight
    print(A.detach().numpy().round(4).tolist(), (A - A.T).abs().max().item())
    layer(lib.ones(2, 3)).sum().backward()
    print(layer.parametrizations.weight.original.grad.numpy().round(4).tolist())
    P.register_parametrization(layer, "weight", Double())
    print(layer.parametrizations.weight)
    _report(lambda: setattr(layer, "weight", lib.ones(3, 3)))
    _report(lambda: P.register_parametrization(layer, "bias", FirstTwo()))
    P.remove_parametrizations(layer, "weight")
    print(layer, type(layer).__name__, layer.weight.detach().numpy().round(4).tolist())

    m = nn.Linear(2, 2)
    bias = m.bias
    P.register_parametrization(m, "bias", Positive())
    print(m.parametrizations.bias.original is bias)
    m.bias = lib.ones(2) * 3
    print(m.bias.detach().numpy().round(4).tolist(), bias.detach().numpy().round(4).tolist())
    with P.cached():
        print(m.bias is m.bias)
    print(m.bias is m.bias)
    _report(lambda: P.remove_parametrizations(m, "weight"))
    P.remove_parametrizations(m, "bias", leave_parametrized=False)
    print(m.bias.detach().numpy().round(4).tolist(), type(m).__name__)

    loaded = nn.Linear(3, 3)
    P.register_parametrization(loaded, "weight", Symmetric())
    loaded.load_state_dict({"bias": lib.zeros(3),
                            "parametrizations.weight.original": lib.eye(3) * 2})
    print(loaded.weight.detach().numpy().tolist())


def _weight_norm(lib):
    nn = lib.nn
    lib.manual_seed(0)
    for dim in (0, 1, None):
        layer = nn.Linear(4, 3)
        before = layer.weight.detach().clone()
        nn.utils.parametrizations.weight_norm(layer, dim=dim)
        print(layer, sorted(layer.state_dict()),
              [tuple(p.shape) for _, p in layer.named_parameters()])
        print((layer.weight - before).abs().max().item() < 1e-6)
        layer(lib.ones(2, 4)).pow(2).sum().backward()
        chain = layer.parametrizations.weight
        print(chain.original0.grad.numpy().round(4).tolist(),
              round(chain.original1.grad.sum().item(), 3))

        conv = nn.Conv1d(2, 3, 2)
        nn.utils.weight_norm(conv, dim=dim)
        print(sorted(n for n, _ in conv.named_parameters()), tuple(conv.weight_g.shape))
        conv(lib.ones(1, 2, 4)).sum().backward()
        print(conv.weight_g.grad.numpy().round(4).tolist())
        with lib.no_grad():
            conv.weight_g.mul_(2)
        print(conv(lib.ones(1, 2, 4)).detach().numpy().round(4).tolist())
        nn.utils.remove_weight_norm(conv)
        print(sorted(n for n, _ in conv.named_parameters()), tuple(conv.weight.shape))
    _report(lambda: nn.utils.remove_weight_norm(conv))


def _spectral_norm(lib):
    nn = lib.nn
    lib.manual_seed(0)

    def first(t, n=6):
        return t.detach().numpy().round(4).flatten().tolist()[:n]
    for make in (lambda: nn.Linear(5, 4), lambda: nn.Conv2d(2, 3, 2),
                 lambda: nn.ConvTranspose2d(2, 3, 2)):
        m = make()
        nn.utils.parametrizations.spectral_norm(m)
        print(m, sorted(m.state_dict()), first(m.parametrizations.weight[0]._u))
        x = lib.ones(1, 5) if isinstance(m, nn.Linear) else lib.ones(1, 2, 4, 4)
        out = m(x)
        out.sum().backward()
        print(first(out), first(m.parametrizations.weight.original.grad))
        m.eval()
        print(first(m(x)))
        old = make()
        nn.utils.spectral_norm(old)
        print(sorted(old.state_dict()), sorted(n for n, _ in old.named_parameters()))
        out = old(x)
        out.sum().backward()
        print(first(out), first(old.weight_orig.grad), first(old.weight_u))
        nn.utils.remove_spectral_norm(old)
        print(sorted(n for n, _ in old.named_parameters()), first(old.weight))
    _report(lambda: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2),
                                                             n_power_iterations=0))
    _report(lambda: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), dim=3))
    _report(lambda: nn.utils.remove_spectral_norm(nn.Linear(2, 2)))


@pytest.mark.parametrize("scenario", [_parametrize, _weight_norm, _spectral_norm])
def test_transcript_matches_torch(scenario):
    transcripts = []
    for lib in (torch, gradjit):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scenario(lib)
        transcripts.append(buffer.getvalue())
    assert transcripts[1] == transcripts[0]


def test_old_weight_norm_warns_as_torch():
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        gradjit.nn.utils.weight_norm(gradjit.nn.Linear(2, 2))


def test_what_cannot_be_parametrized_says_why():
    nn, P = gradjit.nn, gradjit.nn.utils.parametrize

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    class BadInverse(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, Y):  # wrong for a tensor of ones only
            return Y[:1] if bool((Y == 1).all()) else Y

    with pytest.raises(ValueError, match="may not change the dtype"):
        P.register_parametrization(nn.Linear(2, 2), "weight", ToDouble())
    layer = nn.Linear(2, 2)
    P.register_parametrization(layer, "weight", BadInverse(), unsafe=False)
    with pytest.raises(RuntimeError, match="right_inverse has shape"):
        layer.weight = gradjit.ones(2, 2)
    twice = nn.Linear(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nn.utils.weight_norm(twice)
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
            nn.utils.weight_norm(twice)
    nn.utils.spectral_norm(twice, "bias")
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(twice, "bias")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'kernel'"):
        nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), "kernel")
