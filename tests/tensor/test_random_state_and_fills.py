"""Generator state (get_rng_state/set_rng_state, Generator.get_state/set_state, seed) and the
in-place random fills against PyTorch 2.13's CPU generator: same state bytes, same draws."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def both(seed, draw):
    torch.manual_seed(seed)
    gradjit.manual_seed(seed)
    return draw(gradjit), draw(torch)


def test_state_bytes_equal_pytorchs_after_draws():
    for draws in (lambda L: None, lambda L: L.rand(5), lambda L: L.randn(3),  # a cached normal
                  lambda L: [L.rand(1) for _ in range(700)]):  # past a refill of the table
        both(7, draws)
        ours, theirs = gradjit.get_rng_state(), torch.get_rng_state()
        assert ours.dtype == gradjit.uint8 and tuple(ours.shape) == (5056,)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_draws_after_set_rng_state_repeat_the_draws_after_get():
    gradjit.manual_seed(3)
    gradjit.randn(1)  # leaves the second of a pair cached
    state = gradjit.get_rng_state()
    first = [gradjit.randn(3), gradjit.rand(20), gradjit.randint(0, 9, (4,))]
    gradjit.set_rng_state(state)
    again = [gradjit.randn(3), gradjit.rand(20), gradjit.randint(0, 9, (4,))]
    for a, b in zip(first, again):
        assert gradjit.equal(a, b)


def test_states_move_between_the_libraries():
    torch.manual_seed(11)
    torch.randn(3)
    gradjit.set_rng_state(gradjit.tensor(torch.get_rng_state().numpy()))
    np.testing.assert_array_equal(gradjit.randn(5).numpy(), torch.randn(5).numpy())
    gradjit.rand(30)
    torch.set_rng_state(torch.from_numpy(gradjit.get_rng_state().numpy()))
    np.testing.assert_array_equal(gradjit.rand(5).numpy(), torch.rand(5).numpy())


def test_generator_objects_and_seed():
    g = gradjit.Generator().manual_seed(5)
    state = g.get_state()
    a = gradjit.rand(4, generator=g)
    assert gradjit.equal(gradjit.rand(4, generator=g.set_state(state)), a)
    np.testing.assert_array_equal(state.numpy(), torch.Generator().manual_seed(5).get_state())
    s = gradjit.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 64 and gradjit.initial_seed() == s
    assert gradjit.default_generator.initial_seed() == s
    assert gradjit.seed() != s  # 64 bits from the operating system


@pytest.mark.parametrize("state", [[1, 2], np.zeros(5056, np.uint8)], ids=["list", "array"])
def test_a_state_that_is_not_a_tensor_is_a_type_error(state):
    for library in (gradjit, torch):
        with pytest.raises(TypeError, match="expected a torch.ByteTensor, but got"):
            library.set_rng_state(state)


def test_bad_states_raise_pytorchs_errors():
    for library in (gradjit, torch):
        with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
            library.set_rng_state(library.zeros(5056))
        with pytest.raises(RuntimeError, match="CPUGeneratorImplState of size 5056 but found "
                                               "the input RNG state size to be 10"):
            library.set_rng_state(library.zeros(10, dtype=library.uint8))


FILLS = {
    "uniform_f32": (lambda L: L.empty(40).uniform_(-2.3, 5.1), 0),
    "uniform_few": (lambda L: L.empty(2, 3).uniform_(1, 3), 0),
    "uniform_f64": (lambda L: L.empty(40, dtype=L.float64).uniform_(-2.3, 5.1), 0),
    "uniform_f16": (lambda L: L.empty(40, dtype=L.float16).uniform_(-2, 5), 0),
    "uniform_bf16": (lambda L: L.empty(40, dtype=L.bfloat16).uniform_(**{"from": -2, "to": 5}),
                     0),
    "normal_few": (lambda L: L.empty(5).normal_(1.7, 0.3), 0),
    "normal_f32": (lambda L: L.empty(8, 5).normal_(1.7, 0.3), 1e-6),  # as randn's blocks
    "normal_f64": (lambda L: L.empty(40, dtype=L.float64).normal_(std=2.0), 0),
    "normal_f16": (lambda L: L.empty(40, dtype=L.float16).normal_(1.7, 0.3), 1e-3),
    "random_f32": (lambda L: L.empty(20).random_(), 0),
    "random_f64": (lambda L: L.empty(20, dtype=L.float64).random_(), 0),
    "random_f16": (lambda L: L.empty(20, dtype=L.float16).random_(), 0),
    "random_i64": (lambda L: L.empty(20, dtype=L.int64).random_(), 0),
    "random_i32": (lambda L: L.empty(20, dtype=L.int32).random_(), 0),
    "random_u8": (lambda L: L.empty(20, dtype=L.uint8).random_(), 0),
    "random_i8": (lambda L: L.empty(20, dtype=L.int8).random_(), 0),
    "random_bool": (lambda L: L.empty(20, dtype=L.bool).random_(), 0),
    "random_to": (lambda L: L.empty(20).random_(10), 0),
    "random_to_keyword": (lambda L: L.empty(20).random_(to=10), 0),
    "random_wide": (lambda L: L.empty(20, dtype=L.int64).random_(-5, 2 ** 40), 0),
    "random_from_to": (lambda L: L.empty(20, dtype=L.int64).random_(**{"from": 3, "to": 9}), 0),
    "geometric": (lambda L: L.empty(20).geometric_(0.3), 0),
    "geometric_int": (lambda L: L.empty(20, dtype=L.int64).geometric_(0.6), 0),
    "log_normal_few": (lambda L: L.empty(7).log_normal_(0.5, 0.2), 0),
    "log_normal": (lambda L: L.empty(40, dtype=L.float64).log_normal_(), 0),
    "cauchy": (lambda L: L.empty(20, dtype=L.float64).cauchy_(1, 2), 0),
}


@pytest.mark.parametrize("name", FILLS)
def test_fills_draw_pytorchs_numbers(name):
    fill, tolerance = FILLS[name]
    ours, theirs = both(5, fill)
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=tolerance)
    assert gradjit.rand(1).item() == torch.rand(1).item()  # the same words were used up


def test_fills_return_self_and_respect_a_generator():
    t = gradjit.empty(3)
    assert t.uniform_() is t and t.normal_() is t and t.random_(4) is t
    g = gradjit.Generator().manual_seed(2)
    np.testing.assert_array_equal(gradjit.empty(4).uniform_(generator=g).numpy(),
                                  torch.empty(4).uniform_(generator=torch.Generator()
                                                          .manual_seed(2)).numpy())


@pytest.mark.parametrize("call", [
    lambda L: L.empty(3).random_(5, 3), lambda L: L.empty(3).geometric_(1.5),
    lambda L: L.empty(3).log_normal_(0, -1), lambda L: L.empty(3).uniform_(3, 1),
    lambda L: L.empty(3).normal_(0, -1), lambda L: L.empty(3).cauchy_(0, -1),
    lambda L: L.empty(3, dtype=L.int64).uniform_(), lambda L: L.empty(3, dtype=L.uint8).normal_(),
    lambda L: L.empty(3, dtype=L.int64).log_normal_(),
    lambda L: L.empty(3, dtype=L.int64).cauchy_(),
])
def test_fill_errors_match_pytorch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))
