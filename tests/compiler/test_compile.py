"""gradjit.compile (torch.compile under `import gradjit as torch`): a training step (forward,
backward, optimizer step, zero_grad) compiled into one program equals the eager step, step for
step, in gradjit and in PyTorch 2.13; compiled modules' gradients reach the caller's graph;
calls that read values into Python run eagerly and say why."""
import numpy as np
import pytest
import torch as real

import gradjit
import gradjit as torch

RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 8)).astype(np.float32)
Y = RNG.integers(0, 3, 32)


def model(t):
    t.manual_seed(0)
    return t.nn.Sequential(t.nn.Linear(8, 16), t.nn.ReLU(), t.nn.Linear(16, 16), t.nn.Tanh(),
                           t.nn.Linear(16, 3))


def torch_copy(m):
    ref = model(real)
    with real.no_grad():
        for p, q in zip(ref.parameters(), m.parameters()):
            p.copy_(real.tensor(q.detach().numpy()))
    return ref


def training(t, m, opt_cls, kw):
    opt = opt_cls(m.parameters(), **kw)
    loss_fn = t.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(m(x), y)
        loss.backward()
        opt.step()
        return loss
    return step, opt


@pytest.mark.parametrize("optimizer, options", [
    ("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01))])
def test_a_compiled_training_step_equals_eager_gradjit_and_torch(optimizer, options):
    eager, compiled_model = model(torch), model(torch)
    ref = torch_copy(eager)
    eager_step, _ = training(torch, eager, getattr(torch.optim, optimizer), options)
    step, opt = training(torch, compiled_model, getattr(torch.optim, optimizer), options)
    compiled = torch.compile(step)
    ref_step, _ = training(real, ref, getattr(real.optim, optimizer), options)
    x, y = torch.tensor(X), torch.tensor(Y)
    for _ in range(20):
        want, got = eager_step(x, y).item(), compiled(x, y).item()
        theirs = ref_step(real.tensor(X), real.tensor(Y)).item()
        assert got == pytest.approx(want, rel=1e-5) and got == pytest.approx(theirs, rel=1e-5)
        for p, q, r in zip(compiled_model.parameters(), eager.parameters(), ref.parameters()):
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), atol=2e-6)
            np.testing.assert_allclose(p.detach().numpy(), r.detach().numpy(), atol=2e-6)
    # one trace before the optimizer has state, one for every later step
    assert compiled.program.cache_info()[0] == 2 and compiled.eager_calls == 0
    state = opt.state[next(compiled_model.parameters())]
    assert set(state) == ({"momentum_buffer"} if optimizer == "SGD"
                          else {"step", "exp_avg", "exp_avg_sq"})
    if optimizer == "Adam":
        assert state["step"].item() == 20.0


def test_grads_and_state_are_updated_in_place():
    m = model(torch)
    step, opt = training(torch, m, torch.optim.SGD, dict(lr=0.1, momentum=0.9))
    compiled = torch.compile(step)
    x, y = torch.tensor(X), torch.tensor(Y)
    compiled(x, y)
    weight = next(m.parameters())
    grad, buf = weight.grad, opt.state[weight]["momentum_buffer"]
    storage = weight.detach().numpy()
    compiled(x, y)
    assert weight.grad is grad and opt.state[weight]["momentum_buffer"] is buf
    assert np.shares_memory(weight.detach().numpy(), storage)
    assert not np.array_equal(storage, model(torch)[0].weight.detach().numpy())


def test_a_changed_learning_rate_is_part_of_the_cache_key():
    m, ref = model(torch), model(torch)
    step, opt = training(torch, m, torch.optim.SGD, dict(lr=0.1))
    ref_step, ref_opt = training(torch, ref, torch.optim.SGD, dict(lr=0.1))
    compiled = torch.compile(step)
    x, y = torch.tensor(X), torch.tensor(Y)
    for lr in (0.1, 0.05, 0.01):
        opt.param_groups[0]["lr"] = ref_opt.param_groups[0]["lr"] = lr
        assert compiled(x, y).item() == pytest.approx(ref_step(x, y).item(), rel=1e-6)
    np.testing.assert_allclose(m[0].weight.detach().numpy(), ref[0].weight.detach().numpy(),
                               atol=1e-6)
    assert compiled.program.cache_info()[0] == 3


def test_a_compiled_module_joins_the_callers_graph():
    eager, m = model(torch), model(torch)
    compiled = torch.compile(m)
    assert type(compiled).__name__ == "OptimizedModule" and compiled._orig_mod is m
    assert [n for n, _ in compiled.named_parameters()][0] == "_orig_mod.0.weight"
    loss_fn = torch.nn.CrossEntropyLoss()
    out = compiled(torch.tensor(X))
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    loss_fn(out, torch.tensor(Y)).backward()
    loss_fn(eager(torch.tensor(X)), torch.tensor(Y)).backward()
    ref = torch_copy(eager)
    real.nn.CrossEntropyLoss()(ref(real.tensor(X)), real.tensor(Y)).backward()
    for p, q, r in zip(m.parameters(), eager.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-6)
        np.testing.assert_allclose(p.grad.numpy(), r.grad.numpy(), atol=1e-6)


def test_module_compile_compiles_in_place():
    m, eager = model(torch), model(torch)
    m.compile()
    x = torch.tensor(X)
    np.testing.assert_allclose(m(x).detach().numpy(), eager(x).detach().numpy(), atol=1e-6)
    assert m._compiled_call.program.cache_info()[0] == 1


def test_decorator_forms_and_the_torch_alias():
    assert torch.compile is gradjit.compile

    @torch.compile
    def f(x):
        return (x * 2).sin()

    @torch.compile(fullgraph=True, dynamic=False, mode="max-autotune")
    def g(x):
        return (x * 2).sin()
    x = torch.tensor(X)
    want = real.sin(real.tensor(X) * 2).numpy()
    np.testing.assert_allclose(f(x).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(g(x).numpy(), want, rtol=1e-6)
    assert f.program.cache_info()[0] == 1


def test_reading_a_value_into_python_runs_the_call_eagerly_and_says_why(capsys):
    m = model(torch)
    step, _ = training(torch, m, torch.optim.SGD, dict(lr=0.1))

    def logged(x, y):
        loss = step(x, y)
        print(f"loss {loss.item():.4f}")
        return loss
    compiled = torch.compile(logged)
    eager = model(torch)
    eager_step, _ = training(torch, eager, torch.optim.SGD, dict(lr=0.1))
    x, y = torch.tensor(X), torch.tensor(Y)
    for _ in range(3):
        assert compiled(x, y).item() == eager_step(x, y).item()
    assert capsys.readouterr().out.count("loss ") == 3  # printed by each (eager) call
    assert compiled.eager_calls == 3
    text = gradjit.explain(compiled)
    assert "3 call(s) ran eagerly" in text and "item()" in text and "loss.item()" in text
    strict = torch.compile(logged, fullgraph=True)
    with pytest.raises(gradjit.compiler.GraphBreak, match="fullgraph=True"):
        strict(x, y)


def test_is_compiling_and_the_eager_backend():
    seen = []

    def f(x):
        seen.append(torch.compiler.is_compiling())
        return x + 1
    torch.compile(f)(torch.tensor(X))
    torch.compile(f, backend="eager")(torch.tensor(X))
    assert seen == [True, False] and not torch.compiler.is_compiling()
    with pytest.raises(ValueError, match="unknown backend"):
        torch.compile(f, backend="tvm")
    with pytest.raises(TypeError, match="function or a Module"):
        torch.compile(3)


def test_random_draws_run_the_call_eagerly_with_fresh_numbers():
    drop = torch.nn.Dropout(0.5)
    compiled = torch.compile(drop)
    x = torch.ones(64)
    torch.manual_seed(3)
    masks = [compiled(x).numpy().copy() for _ in range(2)]
    torch.manual_seed(3)
    eager = [drop(x).numpy().copy() for _ in range(2)]
    np.testing.assert_array_equal(masks, eager)  # the numbers an uncompiled run draws
    assert not np.array_equal(masks[0], masks[1])
    assert "random numbers were drawn" in gradjit.explain(compiled)
    drop.eval()  # no draws: the evaluation forward compiles
    np.testing.assert_array_equal(compiled(x).numpy(), x.numpy())
    assert compiled._compiled.program.cache_info()[0] == 1 and compiled._compiled.eager_calls == 2


def test_grad_mode_is_part_of_the_cache_key():
    m = model(torch)
    compiled = torch.compile(m)
    x = torch.tensor(X)
    with torch.no_grad():
        assert not compiled(x).requires_grad
    assert compiled(x).requires_grad
    assert compiled._compiled.program.cache_info()[0] == 2


STATS = {"steps": torch.zeros(())}


def test_tensors_in_a_global_dict_are_state():
    def count(x):
        STATS["steps"] += 1
        return x * STATS["steps"]
    compiled = torch.compile(count)
    x = torch.ones(2)
    assert [compiled(x).tolist() for _ in range(3)] == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    assert STATS["steps"].item() == 3.0 and compiled.program.cache_info()[0] == 1


def test_batchnorm_in_training_updates_its_running_statistics_when_compiled():
    """Under grad/jit the buffer update is refused; gradjit.compile writes it back, as torch."""
    ours, theirs = gradjit.nn.BatchNorm1d(3), real.nn.BatchNorm1d(3)
    compiled = gradjit.compile(ours)
    x = np.random.default_rng(1).standard_normal((8, 3)).astype(np.float32)
    for _ in range(3):
        out, want = compiled(gradjit.tensor(x * 2 + 1)), theirs(real.tensor(x * 2 + 1))
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(ours, name).numpy(), getattr(theirs, name).numpy(),
                                   rtol=1e-5)
    assert int(ours.num_batches_tracked) == 3
    assert compiled._compiled.eager_calls == 0


def test_indexing_with_an_argument_gives_tensors_inside_compile():
    """x[i] with an index Tensor known only at run time is a Tensor inside compile, so its
    Tensor methods (flatten(1), an Embedding then Flatten) work there as eagerly."""
    torch.manual_seed(0)
    embed = torch.nn.Embedding(10, 4)

    def f(x, i):
        return (x[i].flatten(1) ** 2).sum() + embed(i).flatten(1).sum() + x[i[0], 1:].sum() + \
            x[:, i[1, 0]].sum()
    x = torch.tensor(X[:10, :4].copy(), requires_grad=True)
    i = torch.tensor(Y[:15].reshape(5, 3))
    compiled, eager = torch.compile(f)(x, i), f(x, i)
    np.testing.assert_allclose(compiled.item(), eager.item(), rtol=1e-6)
    for want, got in zip(torch.autograd.grad(eager, x), torch.autograd.grad(compiled, x)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
