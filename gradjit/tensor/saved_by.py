"""Which tensors PyTorch's backward node of an operation saves (its SavedVariables), so that
saved_tensors_hooks pack and unpack those alone, as often as PyTorch calls them, and an
inference tensor is refused where it would be saved."""
from __future__ import annotations

# PyTorch's nodes that save no tensor, their results alone, or their operands and results
# (derivatives.yaml, as its saved_tensors_hooks see them); a name without a number is
# Backward0's. Every other node saves its tensor operands, and a product each operand for the
# gradient of the other, so only when that one needs it.
_NOTHING = ("Add", "AsStrided", "AsStridedScatter", "Bernoulli", "BlockDiag", "Cat", "Ceil",
            "ChannelShuffle", "ClampBackward1", "ClampMin", "Clone", "ConstantPadNd", "Cumsum",
            "Deg2Rad", "DiagEmbed", "Diagonal", "DiagonalScatter", "Expand", "FftC2R", "Fill",
            "Flip", "Floor", "Frac", "Im2Col", "Index", "IndexPut", "Lerp", "Mean",
            "MeanBackward1", "MulBackward1", "NarrowCopy", "Neg", "NormalBackward1",
            "NormalBackward3", "Permute", "PixelShuffle", "PixelUnshuffle", "Rad2Deg", "Repeat",
            "ReshapeAlias", "Roll", "Rot90", "Round", "RoundBackward1", "Rsub", "Select",
            "SelectScatter", "Sign", "Slice", "SliceScatter", "Split", "SplitWithSizes",
            "Squeeze", "SqueezeBackward1", "SqueezeBackward2", "Stack", "Sub", "Sum",
            "SumBackward1", "T", "ToCopy", "Trace", "Transpose", "Tril", "Triu", "Trunc",
            "Unbind", "Unfold", "UnsafeSplit", "UnsafeView", "Unsqueeze", "UpsampleBicubic2D",
            "UpsampleBilinear2DAa", "UpsampleBilinear2D", "UpsampleLinear1D",
            "UpsampleNearest1D", "UpsampleNearestExact1D", "UpsampleTrilinear3D",
            "ViewAsComplex", "ViewAsReal", "View", "Zero")
_RESULT = ("Cholesky", "Exp2", "Exp", "Expm1", "Frexp", "Kthvalue", "LinalgCholeskyEx",
           "LinalgEig", "LinalgEigh", "LinalgInvEx", "LinalgLuFactorEx", "LinalgQr", "LinalgSvd",
           "LogSoftmax", "Max", "MedianBackward1", "Min", "Mode", "NanmedianBackward1",
           "NormBackward1", "Polar", "Reciprocal", "Relu", "Rsqrt", "SafeSoftmax", "Sigmoid",
           "Softmax", "Sort", "SortBackward1", "SpecialNdtri", "Sqrt", "Tan", "Tanh", "Topk")
_BOTH = ("AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "Amax", "Amin", "Aminmax",
         "BatchNormWithUpdate", "Cdist", "CholeskyInverse", "CholeskySolve", "Copysign",
         "CtcLoss", "Cummax", "Cummin", "Cumprod", "Dist", "Hypot", "IndexReduce", "Ldexp",
         "LinalgDet", "LinalgHouseholderProduct", "LinalgLstsq", "LinalgLuSolve", "LinalgPinv",
         "LinalgSlogdet", "LinalgSolveEx", "LinalgSolveTriangular", "LinalgVectorNorm",
         "Logcumsumexp", "Logsumexp", "MaxBackward1", "MaxPool2DWithIndices",
         "MaxPool3DWithIndices", "Median", "MinBackward1", "Nanmedian", "NativeBatchNorm",
         "NativeBatchNormLegit", "NativeGroupNorm", "NativeLayerNorm", "Ormqr", "Pdist",
         "PowBackward1", "Prod", "ProdBackward1", "ScatterReduce", "SegmentReduce", "Sgn",
         "SpecialErfcx", "SpecialI0E", "SpecialI1", "SpecialI1E", "SpecialLogNdtr", "Std",
         "StdMean", "TriangularSolve")
_PARTNERS = ("Mul", "Div")

SAVED = {name if name[-1].isdigit() else f"{name}Backward0": kind
         for names, kind in ((_NOTHING, "nothing"), (_RESULT, "result"), (_BOTH, "both"),
                             (_PARTNERS, "partners")) for name in names}


def hooked(node_name: str, edges) -> tuple[list[bool], bool]:
    """Per tensor operand whether backward saves it, and whether it saves the result."""
    kind = SAVED.get(node_name, "inputs")
    if kind == "partners":
        wanted = [e is not None for e in edges]
        return [any(w for j, w in enumerate(wanted) if j != i) for i in range(len(edges))], \
            False
    return [kind in ("inputs", "both")] * len(edges), kind in ("result", "both")


def saving_order(node_name: str, count: int) -> range:
    """The order in which PyTorch's node packs and unpacks its operands: as derivatives.yaml's
    formulas first name them, where a product's gradient of self names other first."""
    return range(count - 1, -1, -1) if SAVED.get(node_name) == "partners" else range(count)


def saves(node_name: str) -> tuple[bool, bool]:
    """Whether an operation made of several primitives saves its operands, and its results."""
    kind = SAVED.get(node_name, "inputs")
    return kind in ("inputs", "both", "partners"), kind in ("result", "both")


def refuse_inference(node_name: str, edges, args):
    """PyTorch's error where backward would save one of args that is an inference tensor."""
    inputs = hooked(node_name, edges)[0]
    if any(saved and getattr(a, "_inference", False) for a, saved in zip(args, inputs)):
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors "
            "created in inference mode in computation tracked by autograd. To work around "
            "this, you can make a clone to get a normal tensor and use it in autograd, or use "
            "`torch.no_grad()` instead of `torch.inference_mode()`.")
