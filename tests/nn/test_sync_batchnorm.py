"""nn.SyncBatchNorm against torch in one process: constructor and repr, forward values,
gradients and running statistics, its own input checks, convert_sync_batchnorm and
state_dicts shared with BatchNorm."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")

CONSTRUCTORS = [
    lambda nn: nn.SyncBatchNorm(3), lambda nn: nn.SyncBatchNorm(4, 1e-3, None),
    lambda nn: nn.SyncBatchNorm(2, affine=False, track_running_stats=False),
    lambda nn: nn.SyncBatchNorm(5, momentum=0.3, process_group=None, bias=False),
]


@pytest.mark.parametrize("make", CONSTRUCTORS)
def test_constructor_repr_and_state_dict_keys(make):
    got, want = make(gradjit.nn), make(torch.nn)
    assert repr(got) == repr(want)
    assert list(got.state_dict()) == list(want.state_dict())
    assert (got.bias is None) == (want.bias is None) and got.process_group is None


def _state(library, module, state):
    module.load_state_dict({k: library.tensor(v) for k, v in state.items()})
    return module


@pytest.mark.parametrize("make", CONSTRUCTORS)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(6, 3, 5), (4, 3), (2, 3, 2, 3)])
def test_forward_gradients_and_running_statistics(make, training, shape):
    reference = make(torch.nn)
    channels = reference.num_features
    shape = (shape[0], channels, *shape[2:])
    state = {k: v.numpy() + 0.25 * (k != "num_batches_tracked") for k, v in
             reference.state_dict().items()}
    data = np.random.default_rng(3).standard_normal(shape)
    results = {}
    for library in (gradjit, torch):
        module = _state(library, make(library.nn), state).double().train(training)
        out, grads = weighted_gradients(library, lambda t, x: module(module(x)), [data],
                                        np.float64)
        buffers = {k: v.numpy() for k, v in module.state_dict().items()}
        results[library] = out.detach().numpy(), grads[0].numpy(), buffers
    (got, got_grad, got_buffers), (want, want_grad, want_buffers) = results.values()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-8, atol=1e-10)
    for key in want_buffers:
        np.testing.assert_allclose(got_buffers[key], want_buffers[key], rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda t: t.nn.SyncBatchNorm(3)(t.ones(3)),
    lambda t: t.nn.SyncBatchNorm(3)(t.ones(())),
    lambda t: t.nn.SyncBatchNorm(0)(t.ones(4, 0, 2)),
    lambda t: t.nn.SyncBatchNorm(3)(t.ones(1, 3)),
])
def test_input_errors(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_a_refused_batch_still_counts():
    counts = []
    for library in (gradjit, torch):
        module = library.nn.SyncBatchNorm(3)
        with pytest.raises(ValueError):
            module(library.ones(1, 3))
        counts.append(int(module.num_batches_tracked))
    assert counts[0] == counts[1] == 1


def _model(nn):
    return nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3, momentum=None),
                         nn.InstanceNorm2d(3),
                         nn.Sequential(nn.Flatten(), nn.BatchNorm1d(12, affine=False)),
                         nn.SyncBatchNorm(12, bias=False))


def test_convert_sync_batchnorm_keeps_the_state():
    models = {}
    for library in (gradjit, torch):
        library.manual_seed(0)
        model = _model(library.nn).eval()
        norm = model[1]
        converted = library.nn.SyncBatchNorm.convert_sync_batchnorm(model, process_group=None)
        assert converted is model  # the container is kept, its BatchNorms replaced
        assert converted[1].weight is norm.weight and converted[1].running_mean is \
            norm.running_mean and not converted[1].training
        models[library] = converted
    assert repr(models[gradjit]) == repr(models[torch])
    assert list(models[gradjit].state_dict()) == list(models[torch].state_dict())
    state = {k: v.numpy() for k, v in models[torch].state_dict().items()}
    _state(gradjit, models[gradjit], state)
    data = np.random.default_rng(4).standard_normal((5, 2, 2, 2)).astype(np.float32)
    for training in (False, True):
        outs = [m.train(training)(lib.tensor(data)).detach().numpy()
                for lib, m in models.items()]
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


def test_convert_of_a_batchnorm_itself():
    for library in (gradjit, torch):
        norm = library.nn.BatchNorm3d(2, eps=1e-2, affine=False)
        converted = library.nn.SyncBatchNorm.convert_sync_batchnorm(norm)
        assert type(converted).__name__ == "SyncBatchNorm" and converted.eps == 1e-2
        assert converted.weight is None and converted.running_var is norm.running_var


def test_state_dict_loads_into_batchnorm_and_back():
    state = {k: v.numpy() * 2 + 1 for k, v in torch.nn.BatchNorm2d(4).state_dict().items()}
    sync = _state(gradjit, gradjit.nn.SyncBatchNorm(4), state)
    plain = gradjit.nn.BatchNorm2d(4)
    plain.load_state_dict(sync.state_dict())
    data = gradjit.randn(3, 4, 2, 2)
    np.testing.assert_array_equal(sync.eval()(data).detach().numpy(),
                                  plain.eval()(data).detach().numpy())
    assert isinstance(sync, gradjit.nn.modules.batchnorm.SyncBatchNorm)
