"""numpy's surface through gradjit's transformations (traced_sweep.py): the first docstring
example with a float64 input of every documented np, np.linalg and np.fft function, and each of
ndarray's methods on a float64 matrix, gives numpy's values under gradjit.jit on the default
backend, central differences' gradients under gradjit.grad, and numpy's per-example values
under gradjit.vmap. KNOWN lists what still differs, with the start of its problem; each is
checked to differ still, so that the list stays true."""
import pytest

from tests.numpy_api.traced_sweep import MODES, first_calls, problem

_DECISION = "raises BatchingError: vmap: a Python decision"
KNOWN = {
    # ndarray.choose of a plain index array runs numpy's C method, which cannot take a
    # traced value (np.choose can)
    ("ndarray.choose", "jit"): "raises TracerArrayConversionError",
    ("ndarray.choose", "grad"): "raises TracerArrayConversionError",
    ("ndarray.choose", "vmap"): "raises TracerArrayConversionError",
    # item() gives a Python float, which carries no gradient (as PyTorch's item())
    ("ndarray.item", "grad"): "gradient of input 0 differs",
    ("ndarray.item", "vmap"): _DECISION,
    # the result's shape, or the path, depends on each example's values
    ("ndarray.nonzero", "vmap"): _DECISION,
    ("np.bincount", "vmap"): _DECISION,
    ("np.histogramdd", "vmap"): _DECISION,
    ("np.linalg.eig", "vmap"): _DECISION,  # real or complex result, by the values
    ("np.linalg.eigvals", "vmap"): _DECISION,
    ("np.roots", "vmap"): _DECISION,
    ("np.polydiv", "vmap"): _DECISION,
    # a check of the values (zero weights, all-NaN slices, monotonic bins, rank) that raises
    # numpy's error is a Python decision: vmap traces one example and cannot check the others
    ("np.average", "vmap"): _DECISION,
    ("np.nanargmax", "vmap"): _DECISION,
    ("np.nanargmin", "vmap"): _DECISION,
    ("np.digitize", "vmap"): _DECISION,
    ("np.linalg.lstsq", "vmap"): _DECISION,
    ("np.polyfit", "vmap"): _DECISION,
    # text, masked arrays and memory layout: no traced counterpart
    ("np.array2string", "jit"): "raises NotSupported",
    ("np.array_repr", "jit"): "raises TypeError: gradjit does not take masked arrays",
    ("np.einsum_path", "jit"): "'  Complete contraction",  # its report formats FLOP counts
    ("np.may_share_memory", "jit"): "raises NotSupported",
}
CALLS = first_calls()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_transformed_call_gives_numpys_values_and_gradients(name):
    found = {mode: problem(mode, CALLS[name]) for mode in MODES
             if (name, mode) not in KNOWN}
    assert not {mode: text for mode, text in found.items() if text}


@pytest.mark.parametrize("name, mode", sorted(KNOWN))
def test_known_difference_is_still_there(name, mode):
    found = problem(mode, CALLS[name])
    assert found, "agrees now: remove it from KNOWN"
    assert found.startswith(KNOWN[name, mode]), found


def test_the_sweep_covers_numpys_surface():
    assert len(CALLS) >= 220 and sum(name.startswith("ndarray.") for name in CALLS) >= 45
