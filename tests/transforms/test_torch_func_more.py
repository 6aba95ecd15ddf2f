"""torch.func's model-ensembling names (stack_module_state with vmap over functional_call),
linearize, functionalize and replace_all_batch_norm_modules_, against torch.func."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import same_error, torch


def _ensemble(lib):
    lib.manual_seed(0)
    models = [lib.nn.Sequential(lib.nn.Linear(6, 5), lib.nn.ReLU(), lib.nn.Linear(5, 3))
              for _ in range(4)]
    data = lib.randn(4, 7, 6)
    params, buffers = lib.func.stack_module_state(models)

    def fmodel(p, b, x):
        return lib.func.functional_call(models[0], (p, b), (x,))
    per_model = lib.func.vmap(fmodel)(params, buffers, data)
    shared = lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, data[0])
    loops = [lib.stack([m(x) for m, x in zip(models, data)]),
             lib.stack([m(data[0]) for m in models])]
    keys = list(params)
    first = params[keys[0]]
    return (keys, tuple(first.shape), first.requires_grad, first.is_leaf,
            per_model.detach().numpy(), shared.detach().numpy(),
            [t.detach().numpy() for t in loops])


def test_stack_module_state_ensembles_as_torch():
    got, want = _ensemble(gradjit), _ensemble(torch)
    assert got[:4] == want[:4]
    for g, w in zip(got[4:6], want[4:6]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[4], got[6][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[5], got[6][1], rtol=1e-5, atol=1e-6)


ERRORS = {
    "none": lambda L: L.func.stack_module_state([]),
    "modes": lambda L: L.func.stack_module_state([L.nn.Linear(2, 2), L.nn.Linear(2, 2).eval()]),
    "classes": lambda L: L.func.stack_module_state([L.nn.Linear(2, 2), L.nn.Tanh()]),
    "requires-grad": lambda L: L.func.stack_module_state(
        [L.nn.Linear(2, 2), L.nn.Linear(2, 2).requires_grad_(False)]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_stack_module_state_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_linearize_functionalize_and_batch_norm_replacement():
    results = []
    for lib in (torch, gradjit):
        out, jvp_fn = lib.func.linearize(lib.sin, lib.tensor([0.0, 1.0]))
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
        lib.func.replace_all_batch_norm_modules_(net)
        double = lib.func.functionalize(lambda x: x.mul_(2))
        results.append((out.numpy().round(6).tolist(),
                        jvp_fn(lib.tensor([1.0, 2.0])).numpy().round(5).tolist(),
                        net[1].running_mean, net[1].track_running_stats,
                        tuple(net(lib.ones(5, 3)).shape), double(lib.ones(2)).tolist()))
    assert results[0] == results[1]
    same_error(lambda: gradjit.func.functionalize(abs, remove="views"),
               lambda: torch.func.functionalize(abs, remove="views"))


def test_outputs_that_do_not_depend_on_the_inputs_keep_the_tensor_type():
    """A bias's Jacobian is the identity whatever the input: under vmap it is stacked from a
    constant, and it stays a Tensor as torch.func gives it."""
    def jacobians(lib, func):
        lib.manual_seed(0)
        net = lib.nn.Linear(4, 3)
        params = {k: v.detach() for k, v in net.named_parameters()}

        def single(p, x):
            return func.functional_call(net, p, (x.unsqueeze(0),)).squeeze(0)
        x = lib.randn(5, 4)
        return func.vmap(func.jacrev(single), (None, 0))(params, x), func.jvp(
            lambda p: lib.ones(2) + 0 * p.sum(), (params["bias"],), (params["bias"],))
    ours, theirs = jacobians(gradjit, gradjit.func), jacobians(torch, torch.func)
    for key in ("weight", "bias"):
        assert isinstance(ours[0][key], gradjit.Tensor)
        np.testing.assert_allclose(ours[0][key].numpy(), theirs[0][key].numpy(), atol=1e-6)
    assert all(isinstance(t, gradjit.Tensor) for t in ours[1])
