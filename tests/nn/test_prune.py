"""torch.nn.utils.prune side by side with torch, along the pruning tutorial: seeded random
and magnitude pruning, structured pruning, iterative pruning in a container, global pruning,
custom masks, removal, the state dict, gradients and errors. Each run prints a transcript;
the two must be equal."""
import contextlib
import importlib
import io

import pytest

import gradjit
from tests.nn.helpers import torch


def _first(t, n=8):
    return t.detach().numpy().round(4).flatten().tolist()[:n]


def _lenet(nn):
    F = nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2).flatten(1)
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))
    return LeNet()


def _report(call):
    try:
        call()
    except Exception as error:  # the error is part of the transcript
        print(type(error).__name__, str(error)[:90])


def _tutorial(lib):
    nn, prune = lib.nn, importlib.import_module(f"{lib.__name__}.nn.utils.prune")
    lib.manual_seed(0)
    model = _lenet(nn)
    module = model.conv1
    prune.random_unstructured(module, name="weight", amount=0.3)
    print([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])
    print(_first(module.weight_mask), _first(module.weight), len(module._forward_pre_hooks))
    prune.l1_unstructured(module, name="bias", amount=3)
    print(_first(module.bias_mask), _first(module.bias))
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    print(_first(module.weight_mask.sum(dim=(1, 2, 3))))
    hook = next(h for h in module._forward_pre_hooks.values() if h._tensor_name == "weight")
    print([type(h).__name__ for h in hook], list(model.state_dict()))
    prune.remove(module, "weight")
    print([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])

    model = _lenet(nn)
    pairs = [(model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight"),
             (model.fc2, "weight"), (model.fc3, "weight")]
    prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=0.2)
    print([float(lib.sum(getattr(m, n) == 0)) for m, n in pairs])
    model(lib.randn(1, 1, 28, 28)).sum().backward()
    print(_first(model.conv1.weight_orig.grad))
    prune.random_structured(model.fc3, "weight", amount=4, dim=0)
    print(_first(model.fc3.weight_mask.sum(1)))
    prune.custom_from_mask(model.fc2, "bias", lib.arange(84) % 2)
    print(_first(model.fc2.bias_mask), prune.is_pruned(model), prune.is_pruned(nn.Linear(1, 1)))
    for bad in (lambda: prune.random_structured(nn.Linear(2, 2), "bias", amount=1, dim=0),
                lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5),
                lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=9),
                lambda: prune.remove(nn.Linear(2, 2), "weight"),
                lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount="x")):
        _report(bad)


@pytest.mark.parametrize("scenario", [_tutorial])
def test_transcript_matches_torch(scenario):
    transcripts = []
    for lib in (torch, gradjit):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            scenario(lib)
        transcripts.append(buffer.getvalue())
    assert transcripts[1] == transcripts[0]


def test_prune_of_a_tensor_and_importance_scores():
    prune = gradjit.nn.utils.prune
    t = gradjit.tensor([[0.5, -2.0], [0.1, 3.0]])
    pruned = prune.L1Unstructured(amount=2).prune(t)
    assert pruned.tolist() == [[0.0, -2.0], [0.0, 3.0]]
    layer = gradjit.nn.Linear(2, 2)
    scores = gradjit.tensor([[1.0, 0.0], [2.0, 3.0]])
    prune.l1_unstructured(layer, "weight", amount=1, importance_scores=scores)
    assert layer.weight_mask.tolist() == [[1.0, 0.0], [1.0, 1.0]]
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.l1_unstructured(gradjit.nn.Linear(2, 2), "weight", 1, gradjit.ones(3))
    with pytest.raises(TypeError, match="parameters must be an iterable of"):
        prune.global_unstructured([layer], prune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE'):
        prune.global_unstructured([(layer, "bias")], prune.RandomStructured, amount=1)


def test_containers_and_methods_refuse_what_does_not_fit():
    prune = gradjit.nn.utils.prune
    first = prune.L1Unstructured(amount=1)
    first._tensor_name = "weight"
    other = prune.L1Unstructured(amount=1)
    other._tensor_name = "bias"
    container = prune.PruningContainer(first)
    with pytest.raises(ValueError, match="acting on the parameter named 'weight'"):
        container.add_pruning_method(other)
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        container.add_pruning_method("l1")
    with pytest.raises(NotImplementedError, match="does not define compute_mask"):
        prune.BasePruningMethod().compute_mask(gradjit.ones(2), gradjit.ones(2))
    with pytest.raises(AttributeError, match="has no attribute 'pruning'"):
        assert gradjit.nn.utils.pruning is None
