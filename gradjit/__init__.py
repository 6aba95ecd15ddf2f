"""gradjit: a PyTorch-compatible tensor library (`import gradjit as torch`) and an autodiff
compiler from Python to native loops."""
from gradjit import autograd, cuda, fft, linalg  # noqa: F401
from gradjit.tensor import Generator, Size, Tensor, device, dtype  # noqa: F401
from gradjit.tensor.dtypes import bool_ as bool  # noqa: F401
from gradjit.tensor.dtypes import float32, float64, int32, int64  # noqa: F401
from gradjit.tensor.dtypes import (bfloat16, finfo, float16, iinfo, int8, int16,  # noqa: F401
                                   uint8, uint16, uint32, uint64)
from gradjit.tensor.dtypes import float16 as half  # noqa: F401
from gradjit.tensor.dtypes import complex64, complex128  # noqa: F401
from gradjit.tensor.dtypes import complex64 as cfloat  # noqa: F401
from gradjit.tensor.dtypes import complex128 as cdouble  # noqa: F401
from gradjit.tensor.dtypes import complex32  # noqa: F401
from gradjit.tensor.dtypes import complex32 as chalf  # noqa: F401
from gradjit.tensor.dtypes import int16 as short  # noqa: F401
from gradjit.tensor.dtypes import float32 as float  # noqa: F401
from gradjit.tensor.dtypes import float64 as double  # noqa: F401
from gradjit.tensor.dtypes import get_default_dtype  # noqa: F401
from gradjit.tensor.dtypes import int32 as int  # noqa: F401
from gradjit.tensor.dtypes import int64 as long  # noqa: F401
from gradjit.tensor.factories import (arange, as_tensor, asarray, empty,  # noqa: F401
                                      empty_like, eye, from_numpy, full, full_like, linspace,
                                      ones, ones_like, tensor, zeros, zeros_like)
from gradjit.tensor.random import (bernoulli, initial_seed, manual_seed,  # noqa: F401
                                   multinomial, normal, rand, rand_like, randint, randn,
                                   randn_like, randperm)
from gradjit.tensor.random import (default_generator, get_rng_state, seed,  # noqa: F401
                                   set_rng_state)
from gradjit.tensor.functions import *  # noqa: F401,F403
from gradjit.tensor.functions import _assert  # noqa: F401
from gradjit.tensor.functions import with_out as _with_out
from gradjit.tensor import legacy_linalg as _legacy
from gradjit.tensor import linalg as _linalg
from gradjit.tensor.complex import complex, polar, view_as_complex, view_as_real  # noqa: F401
from gradjit.tensor.control_flow import cond, while_loop  # noqa: F401
from gradjit.tensor.dlpack import from_dlpack, to_dlpack  # noqa: F401
from gradjit.tensor.spectral import istft, stft  # noqa: F401
from gradjit.tensor.composite_functions import *  # noqa: F401,F403
from gradjit.tensor.activations import (celu, celu_, hardshrink, prelu,  # noqa: F401
                                         rrelu, rrelu_, selu, selu_, threshold, threshold_)
from gradjit.tensor.linalg import det, logdet, pinverse  # noqa: F401
from gradjit.tensor.linalg import torch_slogdet as slogdet  # noqa: F401
from gradjit.tensor.grad_mode import (enable_grad, inference_mode,  # noqa: F401
                                      is_grad_enabled, is_inference_mode_enabled, no_grad,
                                      set_grad_enabled)
from gradjit.tensor.printing import set_printoptions  # noqa: F401
from gradjit.tensor.memory_format import (channels_last, channels_last_3d,  # noqa: F401
                                          contiguous_format, memory_format, preserve_format)
from gradjit.runtime.cache import set_cache_limit  # noqa: F401
from gradjit.serialization import load, save  # noqa: F401
from gradjit.tensor.defaults import *  # noqa: F401,F403
from gradjit.tensor.linalg_householder import geqrf, orgqr, ormqr  # noqa: F401
from gradjit.tensor.linalg_lu import lu_unpack  # noqa: F401
from gradjit.tensor.lobpcg import lobpcg  # noqa: F401
from gradjit.tensor.linalg_lu import torch_lu as lu  # noqa: F401
from gradjit.tensor.linalg_lu import torch_lu_solve as lu_solve  # noqa: F401
from gradjit.tensor.windows import *  # noqa: F401,F403
from gradjit.tensor.copies import *  # noqa: F401,F403
from gradjit.tensor.deprecated import *  # noqa: F401,F403
from gradjit.tensor.strided import *  # noqa: F401,F403
from gradjit.tensor.storage import *  # noqa: F401,F403
from gradjit.tensor.lowrank import *  # noqa: F401,F403
from gradjit.tensor.segments import *  # noqa: F401,F403
from gradjit.tensor.count_draws import *  # noqa: F401,F403
from gradjit.tensor.foreach import *  # noqa: F401,F403
from gradjit.tensor.layout import jagged, layout, sparse_coo, sparse_csr, strided  # noqa: F401
from gradjit.tensor.reparam_grads import _dirichlet_grad, _standard_gamma_grad  # noqa: F401
from gradjit.tensor.legacy_types import CPU_TYPES as _CPU_TYPES
from gradjit.tensor.legacy_types import set_default_tensor_type  # noqa: F401
from gradjit.tensor.special_numeric import igamma, igammac  # noqa: F401
globals().update(_CPU_TYPES)

__version__ = "0.1.0"
from math import e, inf, nan, pi  # noqa: E402,F401
newaxis = None  # torch.newaxis, as numpy's: indexing with it inserts a dimension of size 1

# The compiler's transformations (gradjit/tracer).
from gradjit.tracer import (CapturedArrayChanged, check_captures, checkpoint,  # noqa: E402,F401
                            closure_convert, custom_gradient, custom_jvp, custom_vjp,
                            linear_transpose, named_call, remat,
                            debug_captures, elementwise_grad, explain, grad, hessian, jacfwd,
                            jacobian, jacrev, jit, jvp, linearize, stop_gradient,
                            value_and_grad, vjp, vmap)
# HIPS autograd's names: primitive/defvjp/defjvp and its differential operators
from gradjit.tracer import (defjvp, defvjp, deriv, grad_and_aux, grad_named,  # noqa: E402,F401
                            hessian_tensor_product, hessian_vector_product,
                            holomorphic_grad, make_ggnvp, make_hvp, make_jvp, make_vjp,
                            multigrad_dict, primitive, tensor_jacobian_product,
                            vector_jacobian_product)
from gradjit.func import namespace_vmap as vmap  # noqa: E402,F401,F811
from gradjit.dump import dump, lower  # noqa: E402,F401
from gradjit.dump.files import write_when_asked as _write_when_asked  # noqa: E402
from gradjit.tracer.api import COMPILE_OBSERVERS as _COMPILE_OBSERVERS  # noqa: E402
_COMPILE_OBSERVERS.append(_write_when_asked)  # GRADJIT_DUMP, without the tracer importing dump
from gradjit.tracer.api import EAGER_GRAPH as _EAGER_GRAPH  # noqa: E402
from gradjit.autograd.compiled import record as _record_compiled  # noqa: E402
_EAGER_GRAPH.append(_record_compiled)  # compiled calls on requires_grad Tensors join the tape
from gradjit.debug import NanError, debug_nans  # noqa: E402,F401
from gradjit import func, special  # noqa: E402,F401
# PyTorch's next chapter, written against the public Tensor API.
from gradjit import distributions, nn, optim  # noqa: E402,F401
from gradjit import sparse  # noqa: E402,F401
from gradjit.sparse import sparse_coo_tensor, sparse_csr_tensor  # noqa: E402,F401
from gradjit.nn.torch_namespace import *  # noqa: E402,F401,F403
from gradjit.nn.torch_native import *  # noqa: E402,F401,F403
from gradjit.nn.torch_recurrent import *  # noqa: E402,F401,F403
from gradjit import compiler  # noqa: E402,F401
from gradjit import torchscript as _torchscript  # noqa: E402
# gradjit.jit stays the compile function; it also answers torch.jit's names (jit.script, ...)
for _name in _torchscript.__all__:
    setattr(jit, _name, getattr(_torchscript, _name))
from gradjit.compiler import compile  # noqa: E402,F401
from gradjit import amp, cpu  # noqa: E402,F401
# torch's older linear-algebra names that take out= (the Tensor methods do not)
(cholesky, cholesky_inverse, cholesky_solve, qr, svd, triangular_solve, inverse) = (
    _with_out(aten, fn) for aten, fn in (
        ("linalg_cholesky_ex", _legacy.cholesky), ("cholesky_inverse", _legacy.cholesky_inverse),
        ("cholesky_solve", _legacy.cholesky_solve), ("linalg_qr", _legacy.qr),
        ("_linalg_svd", _legacy.svd), ("triangular_solve", _legacy.triangular_solve),
        ("linalg_inv_ex", _linalg.inverse)))
from gradjit.amp import GradScaler, autocast  # noqa: E402,F401
from gradjit.amp.state import *  # noqa: E402,F401,F403
from gradjit.amp.policy import install as _install_autocast  # noqa: E402
_install_autocast()  # last: every module holding a listed op is loaded by now
import sys as _sys  # noqa: E402
from gradjit.tracer.torch_surface import install as _install_torch_surface  # noqa: E402
# torch's functions see traced numpy arguments as Tensors (after autocast, wrapping its wrappers)
from gradjit.tracer.torch_surface import subclasses as _subclasses  # noqa: E402
_install_torch_surface((_sys.modules[__name__], nn.functional, linalg, special, fft, distributions,
                        *_subclasses(distributions.Distribution)),
                       ("gradjit.tensor.", "gradjit.nn.", "gradjit.special",
                        "gradjit.distributions."))


_LOADED_ON_USE = {"accelerator", "backends", "distributed", "export", "functional", "fx", "masked",
                  "multiprocessing", "nested", "onnx", "profiler", "quasirandom", "random",
                  "signal", "test_util", "testing", "utils", "version"}


def __getattr__(name):
    """torch.utils, torch.testing, ... load when first used: most programs never touch them."""
    if name in _LOADED_ON_USE:
        import importlib
        return importlib.import_module(f"gradjit.{name}")
    raise AttributeError(f"module 'gradjit' has no attribute {name!r}")
# JAX's names beyond the transformations (`import gradjit as jax`)
from gradjit import lax, tree, tree_util  # noqa: E402,F401
from gradjit.tracer.eager import (ShapeDtypeStruct, block_until_ready,  # noqa: E402,F401
                                  device_put, devices, disable_jit, eval_shape)
from gradjit.dump.jaxpr import make_jaxpr  # noqa: E402,F401
