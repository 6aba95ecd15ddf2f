"""Which tensors PyTorch's backward node of an operation saves (its SavedVariables), so that
saved_tensors_hooks pack and unpack those alone, as often as PyTorch calls them, and an
inference tensor is refused where it would be saved."""
from __future__ import annotations

_NOTHING = ("Add", "Sub", "Neg", "Sum", "Mean", "View", "T", "Clone", "Unsqueeze", "Squeeze",
            "Permute", "Transpose", "Expand")
_RESULT = ("Exp", "Tanh", "Sigmoid", "Relu", "Sqrt", "Rsqrt")
_INPUTS = ("Sin", "Cos", "Log", "Abs", "Pow", "Mm")
# a product saves each operand for the gradient of the other, so only when that one needs it
_PARTNERS = ("Mul", "Div")

SAVED = {f"{op}Backward0": kind for ops, kind in ((_NOTHING, "nothing"), (_RESULT, "result"),
                                                   (_INPUTS, "inputs"), (_PARTNERS, "partners"))
         for op in ops}
SAVED["SumBackward1"] = SAVED["MeanBackward1"] = "nothing"  # over dims


def hooked(node_name: str, edges) -> tuple[list[bool] | None, bool]:
    """Per tensor operand whether backward saves it (None: every one), and whether it saves
    the result; operations not in the table save every operand and the result."""
    kind = SAVED.get(node_name)
    if kind is None:
        return None, True
    if kind == "partners":
        wanted = [e is not None for e in edges]
        return [any(w for j, w in enumerate(wanted) if j != i) for i in range(len(edges))], \
            False
    return [kind == "inputs"] * len(edges), kind == "result"


def refuse_inference(node_name: str, edges, args):
    """PyTorch's error where backward would save one of args that is an inference tensor
    (an operation not in the table is let through)."""
    inputs = hooked(node_name, edges)[0]
    if inputs is not None and any(saved and getattr(a, "_inference", False)
                                  for a, saved in zip(args, inputs)):
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors "
            "created in inference mode in computation tracked by autograd. To work around "
            "this, you can make a clone to get a normal tensor and use it in autograd, or use "
            "`torch.no_grad()` instead of `torch.inference_mode()`.")
