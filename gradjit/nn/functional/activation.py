"""Activations, dropout, embedding lookups and normalization as compositions of Tensor ops."""
from __future__ import annotations

import math

import gradjit
from gradjit.sparse.embedding import rows as sparse_rows
from gradjit.tensor import activations as _kernels
from gradjit.tensor import graph
from gradjit.tensor.refusals import refuse_integers
from gradjit.tracer.leaves import is_traced
from gradjit.warn import warn_past_wrappers


def linear(input, weight, bias=None):
    """input @ weight.T + bias, as PyTorch records it: one addmm, on a contiguous input
    flattened to a matrix and viewed back when it is not one."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if bias is None:
        return input.matmul(weight.t())
    if input.dim() == 2:
        return gradjit.addmm(bias, input, weight.t())
    if not input.is_contiguous():
        # PyTorch folds only a contiguous input into one addmm; it adds the bias to another's
        # product in place, in the product's dtype
        out = input.matmul(weight.t())
        return out + (bias if bias.dtype == out.dtype else bias.to(out.dtype))
    flat = input.reshape(-1, input.shape[-1]) if input.dim() else input
    return gradjit.addmm(bias, flat, weight.t()).view(*input.shape[:-1], weight.shape[0])


def bilinear(input1, input2, weight, bias=None):
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    for dim, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {dim}: "
                               f"got {a} and {b}")
    for which, (given, expected) in (("input1", (input1.shape[-1], weight.shape[1])),
                                     ("input2", (input2.shape[-1], weight.shape[2])),
                                     ("bias", (None if bias is None else bias.shape[0],
                                               weight.shape[0]))):
        if given is not None and given != expected:
            raise RuntimeError(f"bilinear(): {which} size does not match weight size: got "
                               f"{given} but expected {expected}")
    # PyTorch's: one trilinear product of the inputs flattened to matrices, viewed back
    flat1, flat2 = (x.reshape(-1, x.shape[-1]) for x in (input1, input2))
    out = gradjit.autograd.composite(
        "TrilinearBackward0", lambda a, w, b: gradjit.einsum("ni,oij,nj->no", a, w, b),
        flat1, weight, flat2).reshape(*input1.shape[:-1], weight.shape[0])
    return out if bias is None else out + bias


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


_NEGATIVE_SLOPE_IN_PLACE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead. File an issue at "
    "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
    "backward calculation with negative slope")


def leaky_relu(input, negative_slope=0.01, inplace=False):
    def out():
        return gradjit.autograd.composite("LeakyReluBackward0", lambda x: gradjit.where(
            x > 0, x, x * negative_slope), input)
    if not inplace:
        return out()
    if negative_slope < 0 and input.requires_grad:
        # PyTorch's in-place backward reads the sign from the result, which a negative slope
        # flips, so it refuses rather than differentiate wrongly
        return input.copy_(graph.refuse_gradient(out(), graph.Node.named("LeakyReluBackward1"),
                                                 _NEGATIVE_SLOPE_IN_PLACE, [input]))
    return input._update(out, "LeakyReluBackward1")


leaky_relu = _kernels.floating_kernel("leaky_relu_cpu", leaky_relu)


def relu6(input, inplace=False):
    return _kernels.hardtanh(input, 0.0, 6.0, inplace)


# The kernels PyTorch keeps in torch._C._nn, with their signatures.
hardtanh, elu, selu, celu, threshold, rrelu = (_kernels.hardtanh, _kernels.elu, _kernels.selu,
                                               _kernels.celu, _kernels.threshold,
                                               _kernels.rrelu)
silu, mish, hardsigmoid, hardswish = (_kernels.silu, _kernels.mish, _kernels.hardsigmoid,
                                      _kernels.hardswish)
softplus, logsigmoid, glu, prelu = (_kernels.softplus, _kernels.logsigmoid, _kernels.glu,
                                    _kernels.prelu)
hardshrink, softshrink, gelu = _kernels.hardshrink, _kernels.softshrink, _kernels.gelu


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def _softmax_dim(name, ndim, dim):
    if dim is not None:
        return dim
    warn_past_wrappers(f"Implicit dimension choice for {name} has been deprecated. Change the "
                       "call to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("softmax", input.dim(), dim)
    return (input if dtype is None else input.to(dtype)).softmax(dim)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("softmin", input.dim(), dim)
    return (-(input if dtype is None else input.to(dtype))).softmax(dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("log_softmax", input.dim(), dim)
    return (input if dtype is None else input.to(dtype)).log_softmax(dim)


def dropout(input, p=0.5, training=True, inplace=False):
    """input * mask / (1 - p), the mask kept with probability 1 - p, drawn as PyTorch draws
    it (a bernoulli like input), so a seeded run drops the same elements. Inside
    gradjit.grad/jit, training mode raises: the trace would replay one mask."""
    return masked_dropout(input, p, training, inplace,
                          lambda: gradjit.bernoulli(input.detach(), 1 - p))


def masked_dropout(input, p, training, inplace, draw_mask):
    """The steps every dropout form shares: `draw_mask()` gives the kept positions (ones),
    scaled here by 1 / (1 - p) and multiplied in."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    noise = draw_mask().div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def padding_index(padding_idx, num_embeddings, name):
    """padding_idx checked and made non-negative (`name` is how each caller's message spells
    it, as PyTorch's do)."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(f"{name} must be within num_embeddings")
    return padding_idx % num_embeddings


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of `weight`; the row at padding_idx gets no gradient from this lookup; with
    max_norm the rows looked up are first renormalized in place; with scale_grad_by_freq each
    row's gradient is divided by how often the batch names it. sparse: weight's gradient is
    a sparse COO tensor of the rows looked up."""
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype not in (gradjit.int64, gradjit.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {input.type()} instead "
                           "(while checking arguments for embedding)")
    padding_idx = padding_index(padding_idx, weight.shape[0], "Padding_idx")
    # checked on concrete indices only: under tracing it would be a guard on data
    if input.numel() and not is_traced(input) and \
            bool(((input < 0) | (input >= weight.shape[0])).any()):
        raise IndexError("index out of range in self")
    if is_traced(input):  # the lookup's run-time bounds check takes -n..-1 as counted from the end
        input = gradjit.where(input < 0, input - weight.shape[0], input)
    if max_norm is not None:
        from gradjit.nn.functional.embedding_bag import _renorm_
        _renorm_(weight, input.contiguous(), max_norm, norm_type)

    if sparse and not is_traced(weight):  # traced, the gradient stays dense: no sparse IR
        return sparse_rows(weight, input, padding_idx, "EmbeddingBackward0", scale_grad_by_freq)

    def lookup(weight):
        out = weight[input]
        if scale_grad_by_freq:
            counts = gradjit.bincount(input.reshape(-1), minlength=weight.shape[0])[input]
            share = (1.0 / counts).to(out.dtype).unsqueeze(-1)
            out = out * share + (out * (1 - share)).detach()  # same values, scaled gradient
        if padding_idx is None:
            return out
        return gradjit.where((input == padding_idx).unsqueeze(-1), out.detach(), out)
    return gradjit.autograd.composite("EmbeddingBackward0", lookup, weight)


def one_hot(tensor, num_classes=-1):
    if tensor.dtype is not gradjit.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes <= 0 and not tensor.numel():
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1
    if tensor.numel() and (int(tensor.min()) < 0 or int(tensor.max()) >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes." if
                           int(tensor.min()) >= 0 else "Class values must be non-negative.")
    return (tensor.unsqueeze(-1) == gradjit.arange(num_classes)).long()


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    normalized_shape = tuple(normalized_shape)
    if not normalized_shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(normalized_shape)}")
    if tuple(input.shape[input.dim() - len(normalized_shape):]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    check_mixed_dtypes(input, weight, bias)
    refuse_integers("LayerNormKernelImpl", input)

    def normalize(input, weight, bias):
        mean = input.mean(dims, keepdim=True)
        var = input.var(dims, correction=0, keepdim=True)
        out = (input - mean) * (var + eps).rsqrt()
        if weight is not None:
            out = out * weight
        out = out if bias is None else out + bias
        # float parameters on a half/bfloat16 input give the input's dtype, as torch's kernel
        return out if out.dtype == input.dtype else out.to(input.dtype)
    return gradjit.autograd.composite("NativeLayerNormBackward0", normalize, input, weight, bias)


def check_mixed_dtypes(input, *parameters):
    """PyTorch's CPU normalizations take parameters of the input's dtype, or float32 ones for
    a half/bfloat16 input; the first parameter given decides which is meant."""
    given = [p for p in parameters if p is not None]
    if not given or given[0].dtype == input.dtype:
        for p in given:
            if p.dtype != input.dtype:
                raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found "
                                   f"{p.dtype.legacy}")
        return
    if any(p.dtype != gradjit.float32 for p in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in (gradjit.float16, gradjit.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _batch_norm_checks(input, running_mean, running_var, weight, bias, training, eps):
    """PyTorch's checks of batch_norm's arguments, in its order and with its errors."""
    if training and input.shape[0] * math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {input.shape}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if not training and (running_mean is None or running_var is None):
        name = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{name} must be defined in evaluation mode")
    if input.numel():
        for name, t in (("running_mean", running_mean), ("running_var", running_var),
                        ("weight", weight), ("bias", bias)):
            if t is not None and t.numel() != input.shape[1]:
                raise RuntimeError(f"{name} should contain {input.shape[1]} elements not "
                                   f"{t.numel()}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalize over every dim but the channels (dim 1). Training uses the batch's
    statistics and moves the running ones towards them (the variance unbiased). An empty
    input (no rows or no channels) comes back as an empty copy that depends on weight and bias,
    whose sizes PyTorch does not check then."""
    refuse_integers("batch_norm", input)
    _batch_norm_checks(input, running_mean, running_var, weight, bias, training, eps)
    check_mixed_dtypes(input, weight, bias, running_mean, running_var)
    return normalize_batch(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def normalize_batch(input, running_mean, running_var, weight, bias, training, momentum, eps):
    """batch_norm's arithmetic without its argument checks (instance_norm's kernel takes an
    eps of 0)."""
    if not input.numel():
        out = input.clone()
        out = out if weight is None else out * weight[:1].sum()
        return out if bias is None else out + bias[:1].sum()
    dims = (0, *range(2, input.dim()))
    channel = (1, -1) + (1,) * (input.dim() - 2)
    if training:
        count = input.numel() // input.shape[1]
        mean, var = input.mean(dims), input.var(dims, correction=0)
        with gradjit.no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
            if running_var is not None:
                unbiased = var.detach() * (count / (count - 1))
                running_var.mul_(1 - momentum).add_(unbiased * momentum)
    else:
        mean, var = running_mean, running_var

    def normalize(input, weight, bias):
        out = (input - mean.reshape(channel)) * (var.reshape(channel) + eps).rsqrt()
        if weight is not None:
            out = out * weight.reshape(channel)
        out = out if bias is None else out + bias.reshape(channel)
        # float parameters on a half/bfloat16 input give the input's dtype, as torch's kernel
        return out if out.dtype == input.dtype else out.to(input.dtype)
    return gradjit.autograd.composite("NativeBatchNormBackward0", normalize, input, weight, bias)


def _in_place(fn):
    """F.relu_ and its kin: the activation with inplace=True."""
    def in_place(input, *args, **kwargs):
        return fn(input, *args, inplace=True, **kwargs)
    in_place.__name__ = in_place.__qualname__ = fn.__name__ + "_"
    return in_place


relu_, elu_, leaky_relu_, hardtanh_, threshold_, selu_, celu_, rrelu_ = map(_in_place, (
    relu, elu, leaky_relu, hardtanh, threshold, selu, celu, rrelu))
