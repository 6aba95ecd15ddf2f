"""PyTorch's complex-number suite (test_complex.py and the complex cases of test_torch.py)
side by side with torch: arithmetic and functions of complex64/complex128 values including
infinities, NaNs and signed zeros, promotion with real tensors and Python complex numbers,
real/imag views and their writes, view_as_real/view_as_complex, conversions to Python
numbers, gradients of real-valued losses, and the refusals of ordering operations."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

Z = np.array([1 + 2j, -3 + 0.5j, 0j, complex(np.inf, 1), complex(1, np.nan), -0.0 - 0.0j])
SCENARIOS = scenario = Scenarios()


def complex_functions(dt):
    def run(lib):
        z = lib.tensor(Z[:3], dtype=getattr(lib, dt))
        return (z.real, z.imag, z.abs(), z.angle(), z.conj().resolve_conj(), z.conj_physical(),
                lib.view_as_real(z), lib.view_as_complex(lib.view_as_real(z)), z.sgn(),
                z.reciprocal(), z.exp(), z.log(), z.sqrt(), z * z, z / (z + 1), z.pow(2),
                z ** 0.5, z.tanh(), z.sin(), lib.dot(z, z), lib.vdot(z, z), z.sum(), z.prod(),
                z.cumsum(0), z.var(), z.mean())
    run.__name__ = f"functions_{dt}"
    scenario(run)


for _dt in ("complex64", "complex128"):
    complex_functions(_dt)


@scenario
def special_values(lib):
    z = lib.tensor(Z)
    return (z.abs(), z.isnan(), z.isinf(), z.isfinite(), z == z,
            lib.isclose(z, z, equal_nan=True), z.sum(), z.mean())


@scenario
def comparisons_with_numbers(lib):
    z = lib.tensor(Z[:3])
    return z == 1 + 2j, z != 0, z == lib.tensor(1 + 2j), lib.equal(z, z.clone())


@scenario
def promotion(lib):
    return ((lib.tensor([1j]) + lib.tensor([1.0], dtype=lib.float64)).dtype,
            (lib.tensor([1.0]) * 1j).dtype, (lib.tensor([1], dtype=lib.int64) + 1j).dtype,
            (lib.tensor([1j], dtype=lib.complex64) + lib.tensor(1.0, dtype=lib.float64)).dtype,
            lib.tensor(1j).dtype, lib.complex(lib.tensor(1.0), lib.tensor(2.0)),
            lib.polar(lib.tensor(2.0), lib.tensor(0.5)), lib.full((2,), 1j),
            lib.zeros(2, dtype=lib.complex64).fill_(1 + 1j), lib.linspace(0, 1 + 1j, 3),
            lib.arange(3) * (1 + 1j))


@scenario
def real_and_imag_writes(lib):
    z = lib.tensor(Z[:3]).clone()
    z.real = lib.tensor([9.0, 9.0, 9.0])
    z.imag[0] = -1
    x = lib.tensor([1.0, 2.0])
    return z, x.real, x.real is x


@scenario
def imag_of_a_real_tensor(lib):
    return lib.tensor([1.0, 2.0]).imag


@scenario
def view_as_complex_of_strided_pairs(lib):
    return lib.view_as_complex(lib.arange(8.0).reshape(4, 2)[::2])


@scenario
def view_as_complex_needs_pairs(lib):
    return lib.view_as_complex(lib.arange(6.0).reshape(2, 3))


@scenario
def python_numbers(lib):
    z = lib.tensor(Z[:3])
    return (z.tolist(), z[0].item(), complex(z[1]), complex(lib.tensor(1.5)),
            complex(lib.tensor(2)), complex(lib.tensor(True)), float(lib.tensor(1 + 0j)),
            int(lib.tensor(3 + 0j)))


def refusal(name, call):
    def run(lib):
        return call(lib, lib.tensor([1j, 2]))
    run.__name__ = name
    scenario(run)


for _name, _call in {
        "float_of_complex": lambda L, z: float(z[0]),
        "int_of_complex": lambda L, z: int(z[0]),
        "index_of_complex": lambda L, z: [0, 1][z[0]],
        "complex_of_many": lambda L, z: complex(z),
        "less_than": lambda L, z: z < z,
        "max": lambda L, z: z.max(),
        "sort": lambda L, z: z.sort(),
        "clamp": lambda L, z: z.clamp(0, 1),
        "backward_of_complex_output":
            lambda L, z: (z.requires_grad_() * 2).sum().backward()}.items():
    refusal(_name, _call)


@scenario
def gradients_of_real_losses(lib):
    z = lib.tensor(Z[:2], requires_grad=True)
    w = lib.tensor([2 - 1j, 0.5j], dtype=lib.complex128, requires_grad=True)
    ((z * w.conj()).real.sum() + z.abs().sum() + (w * w).imag.sum()).backward()
    return z.grad, w.grad


@scenario
def conjugate_is_lazy(lib):
    z = lib.tensor([1j]).conj()
    return z.is_conj(), z.resolve_conj().is_conj()


@scenario
def view_as_real_of_a_conjugate(lib):
    return lib.view_as_real(lib.tensor([1j]).conj())


NO_CONJ_BIT = ("gradjit conjugates eagerly: conj() returns the conjugated values, with no "
               "conjugate bit to resolve")
DIFFERENCES = {"conjugate_is_lazy": NO_CONJ_BIT, "view_as_real_of_a_conjugate": NO_CONJ_BIT}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_complex_scenario_matches_torch(name):
    check(SCENARIOS[name])
