"""nn behaviours that PyTorch's tutorials rely on, compared with torch."""
import numpy as np
import pytest
import torch

import gradjit


def _per_sample_grads(t, x, y, w):
    func = t.func

    def loss(w, sample, target):
        logits = sample.unsqueeze(0) @ w
        return t.nn.functional.nll_loss(logits.log_softmax(1), target.unsqueeze(0))
    return func.vmap(func.grad(loss), in_dims=(None, 0, 0))(w, x, y)


def test_nll_loss_per_sample_gradients_under_vmap():
    # the per-sample-gradients tutorial: vmap(grad(loss)) over (sample, class index) pairs
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((6, 4), np.float32), rng.standard_normal((4, 3), np.float32)
    y = rng.integers(0, 3, 6)
    got = _per_sample_grads(gradjit, gradjit.tensor(x), gradjit.tensor(y), gradjit.tensor(w))
    want = _per_sample_grads(torch, torch.tensor(x), torch.tensor(y), torch.tensor(w))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_module_to_meta_moves_parameters():
    texts = []
    for t in (torch, gradjit):
        t.manual_seed(0)
        layer = t.nn.Linear(3, 2).to("meta")
        texts.append((str(layer.weight.device), repr(layer.weight), repr(layer.bias)))
    assert texts[0] == texts[1]


def _meta_then_assign(t):
    t.manual_seed(0)
    source = t.nn.Linear(3, 2)
    with t.device("meta"):
        template = t.nn.Linear(3, 2)
    drawn_after = t.rand(2)  # building on meta drew nothing from the generator
    printed = repr(template.weight)
    keys = template.load_state_dict(source.state_dict(), assign=True)
    return (printed, str(keys), str(template.weight.device), type(template.weight).__name__,
            template.weight.requires_grad, drawn_after.numpy().tolist(),
            np.round(template(t.ones(1, 3)).detach().numpy(), 5).tolist(),
            str(t.zeros(1).device))


def test_module_built_on_meta_then_loaded_with_assign():
    # "Tips for loading an nn.Module from a checkpoint": with torch.device('meta'), assign=True
    assert _meta_then_assign(gradjit) == _meta_then_assign(torch)


def test_assign_keeps_the_modules_requires_grad():
    got, want = [], []
    for t, out in ((gradjit, got), (torch, want)):
        layer = t.nn.Linear(2, 2)
        layer.load_state_dict({"weight": t.zeros(2, 2), "bias": t.ones(2)}, assign=True)
        out += [type(layer.weight).__name__, layer.weight.requires_grad, layer.bias.tolist()]
    assert got == want


def _rnn_node_names(t):
    t.manual_seed(0)
    layers = [t.nn.LSTM(3, 3), t.nn.LSTM(3, 3, num_layers=2), t.nn.LSTM(3, 3, bias=False),
              t.nn.LSTM(3, 3).double(), t.nn.LSTM(3, 3, proj_size=2), t.nn.GRU(3, 3),
              t.nn.LSTM(3, 3, bidirectional=True), t.nn.LSTM(3, 3, batch_first=True)]
    names = []
    for layer in layers:
        out, hidden = layer(t.randn(4, 2, 3, dtype=layer.weight_ih_l0.dtype))
        h = hidden[0] if isinstance(hidden, tuple) else hidden
        names.append((type(out.grad_fn).__name__, type(h.grad_fn).__name__))
    return names


def test_recurrent_output_grad_fn_names():
    # the sequence-models tutorial prints an LSTM's output: grad_fn=<MkldnnRnnLayerBackward0>
    assert _rnn_node_names(gradjit) == _rnn_node_names(torch)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 0, "max_norm": 1.0},
                                    {"scale_grad_by_freq": True, "norm_type": 1.0},
                                    {"max_norm": 0.5, "norm_type": 3.0, "padding_idx": -2}])
def test_embedding_options_as_torch(kwargs):
    # the word-embeddings tutorial's nn.Embedding, with the options its docs list
    index = np.array([[0, 2, 0, 5], [5, 5, 1, 2]])
    weight = np.random.default_rng(1).standard_normal((7, 3)).astype(np.float32)
    results = []
    for t in (gradjit, torch):
        layer = t.nn.Embedding.from_pretrained(t.tensor(weight), freeze=False, **kwargs)
        out = layer(t.tensor(index))
        (out * t.arange(3.0)).sum().backward()
        results.append((repr(layer), type(out.grad_fn).__name__, out.detach().numpy(),
                        layer.weight.grad.numpy(), layer.weight.detach().numpy()))
    (r1, n1, *a1), (r2, n2, *a2) = results
    assert (r1, n1) == (r2, n2)
    for x, y in zip(a1, a2):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)


def test_embedding_argument_errors_as_torch():
    from tests.torch_reference import same_error
    for call in (lambda t: t.nn.functional.embedding(t.tensor([0]), t.zeros(3, 2), padding_idx=3),
                 lambda t: t.nn.Embedding(3, 2, _weight=t.zeros(2, 2))):
        same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("flags", [{"size_average": False}, {"reduce": False},
                                   {"size_average": True, "reduce": True}])
@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy", "mse_loss", "l1_loss",
                                  "smooth_l1_loss", "kl_div"])
def test_deprecated_size_average_and_reduce(name, flags):
    # the spatial-transformer tutorial's test loop: F.nll_loss(output, target, size_average=False)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = np.array([0, 2, 1, 2]) if name in ("nll_loss", "cross_entropy") else \
        rng.standard_normal((4, 3)).astype(np.float32)
    outs = []
    for t in (gradjit, torch):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            outs.append(getattr(t.nn.functional, name)(t.tensor(x), t.tensor(y), **flags))
    np.testing.assert_allclose(outs[0].numpy(), outs[1].numpy(), rtol=1e-6)


def test_positional_weight_and_ignore_index_keep_torchs_order():
    x, y = np.eye(3, dtype=np.float32) * 2, np.array([0, 1, 2])
    got = gradjit.nn.functional.cross_entropy(gradjit.tensor(x), gradjit.tensor(y), None, None, 1)
    want = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(y), None, None, 1)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_nearest_grid_sample_gives_the_grid_a_zero_gradient():
    grads = []
    for t in (gradjit, torch):
        grid = t.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(1, 2, 2, 2),
                        requires_grad=True)
        t.nn.functional.grid_sample(t.ones(1, 1, 3, 3), grid, mode="nearest",
                                    align_corners=False).sum().backward()
        grads.append(grid.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_data_parallel_without_gpus_runs_the_module():
    # the DCGAN tutorial imports torch.nn.parallel and wraps its nets when GPUs are present
    import gradjit.nn.parallel as gparallel
    texts = []
    for t, parallel in ((gradjit, gparallel), (torch, torch.nn.parallel)):
        t.manual_seed(0)
        wrapped = parallel.DataParallel(t.nn.Linear(2, 1), device_ids=[])
        out = wrapped(t.ones(3, 2))
        texts.append((repr(wrapped), list(wrapped.state_dict()),
                      np.round(out.detach().numpy(), 5).tolist()))
    assert texts[0] == texts[1]


def test_align_corners_warning_points_at_the_callers_line():
    # grid_sample runs under gradjit's autocast wrapper; the warning still names this file
    import warnings
    files = []
    for t in (gradjit, torch):
        theta = t.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grid = t.nn.functional.affine_grid(theta, (1, 1, 2, 2))
            t.nn.functional.grid_sample(t.ones(1, 1, 2, 2), grid)
        files.append([w.filename for w in caught])
    assert files[0] == files[1] == [__file__, __file__]
