"""torch.save / torch.load against PyTorch 2.13: files round-trip in gradjit, and files written
by either library load in the other with the same values, dtypes and structure."""
import collections
import io
import pickle
import zipfile

import numpy as np
import pytest
import torch

import gradjit


def saved(obj, library):
    buffer = io.BytesIO()
    library.save(obj, buffer)
    buffer.seek(0)
    return buffer


def assert_same(ours, theirs):
    if isinstance(theirs, torch.Tensor):
        assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
        assert ours.requires_grad == theirs.requires_grad
        np.testing.assert_array_equal(ours.detach().float().numpy(),
                                      theirs.detach().float().numpy())
    elif isinstance(theirs, dict):
        assert type(ours).__name__ == type(theirs).__name__ and list(ours) == list(theirs)
        for key in theirs:
            assert_same(ours[key], theirs[key])
    elif isinstance(theirs, (list, tuple)):
        assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
    else:
        assert repr(ours) == repr(theirs)


def sample(lib):
    return collections.OrderedDict(
        w=lib.arange(6.0).reshape(2, 3).t(),  # not contiguous
        half=lib.tensor([1.5, -2.0], dtype=lib.float16),
        bf=lib.tensor([1.5, 3.25], dtype=lib.bfloat16),
        ints=lib.tensor([[1, 2]], dtype=lib.int16), flags=lib.tensor([True, False]),
        scalar=lib.tensor(2.5, dtype=lib.float64), dtype=lib.float64, size=lib.Size([2, 3]),
        nested=[1, (2.5, "a"), {3: None, "t": lib.ones(2, dtype=lib.uint8)}],
        leaf=lib.zeros(2, requires_grad=True))


def test_files_go_both_ways_between_gradjit_and_torch():
    assert_same(torch.load(saved(sample(gradjit), gradjit)), sample(torch))
    assert_same(gradjit.load(saved(sample(torch), torch)), sample(torch))
    assert_same(gradjit.load(saved(sample(gradjit), gradjit)), sample(torch))


def test_paths_and_map_location(tmp_path):
    path = tmp_path / "weights.pt"
    gradjit.save({"x": gradjit.arange(4)}, path)
    for where in (None, "cpu", gradjit.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s):
        assert gradjit.load(path, map_location=where)["x"].tolist() == [0, 1, 2, 3]
    assert torch.load(str(path))["x"].tolist() == [0, 1, 2, 3]


def test_shared_tensor_loads_as_one():
    t = gradjit.ones(3)
    a, b = gradjit.load(saved([t, t], gradjit))
    assert a is b


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))


def test_model_state_dict_loads_into_a_fresh_model_of_either_library():
    gradjit.manual_seed(0)
    model, x = mlp(gradjit), gradjit.randn(5, 4)
    buffer = saved(model.state_dict(), gradjit)
    fresh = mlp(gradjit)
    fresh.load_state_dict(gradjit.load(buffer))
    assert gradjit.equal(fresh(x), model(x))
    buffer.seek(0)
    theirs = mlp(torch)
    theirs.load_state_dict(torch.load(buffer))
    np.testing.assert_allclose(theirs(torch.tensor(x.numpy())).detach().numpy(),
                               model(x).detach().numpy(), rtol=1e-6)


def test_parameters_keep_their_class():
    p = gradjit.nn.Parameter(gradjit.ones(2))
    back = gradjit.load(saved({"p": p}, gradjit))["p"]
    assert isinstance(back, gradjit.nn.Parameter) and back.requires_grad
    assert isinstance(torch.load(saved({"p": p}, gradjit))["p"], torch.nn.Parameter)


def test_optimizer_state_round_trips_and_training_continues_the_same():
    gradjit.manual_seed(1)
    model = mlp(gradjit)
    x = gradjit.randn(5, 4)

    def step(opt):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()

    opt = gradjit.optim.Adam(model.parameters(), lr=0.1)
    step(opt)
    weights = saved(model.state_dict(), gradjit)
    state = saved(opt.state_dict(), gradjit)
    assert_same(torch.load(saved(opt.state_dict(), gradjit)),
                torch.load(saved(opt.state_dict(), gradjit)))
    step(opt)
    expected = [p.detach().clone() for p in model.parameters()]
    model.load_state_dict(gradjit.load(weights))
    fresh = gradjit.optim.Adam(model.parameters(), lr=0.1)
    fresh.load_state_dict(gradjit.load(state))
    step(fresh)
    for p, e in zip(model.parameters(), expected):
        assert gradjit.equal(p.detach(), e)


class Custom:
    pass


def test_unknown_objects_are_refused_unless_weights_only_is_false():
    for library in (gradjit, torch):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            library.load(saved({"c": Custom()}, gradjit))
    assert isinstance(gradjit.load(saved({"c": Custom()}, gradjit), weights_only=False)["c"],
                      Custom)
    gradjit.serialization.add_safe_globals([Custom])
    assert Custom in gradjit.serialization.get_safe_globals()
    assert isinstance(gradjit.load(saved([Custom()], gradjit))[0], Custom)


def test_whole_modules_need_weights_only_false():
    model = mlp(gradjit)
    with pytest.raises(pickle.UnpicklingError):
        gradjit.load(saved(model, gradjit))
    back = gradjit.load(saved(model, gradjit), weights_only=False)
    x = gradjit.ones(1, 4)
    assert gradjit.equal(back(x), model(x))


def test_files_that_are_not_torch_archives_are_refused():
    with pytest.raises(RuntimeError, match="not a zip archive"):
        gradjit.load(io.BytesIO(pickle.dumps([1, 2])))
    empty = io.BytesIO()
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("x/other", "1")
    with pytest.raises(RuntimeError, match="no data.pkl"):
        gradjit.load(empty)


def test_traced_tensors_cannot_be_saved():
    @gradjit.jit
    def f(x):
        gradjit.save(x, io.BytesIO())
        return x

    with pytest.raises(RuntimeError, match="being traced"):
        f(gradjit.ones(2))
