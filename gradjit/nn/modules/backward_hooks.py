"""Module backward hooks, as PyTorch's full backward hooks: one call's tensor inputs and
outputs pass through identity nodes whose gradients are grad_input and grad_output.
`pre` hooks see grad_output before it enters the module (and may replace it); full hooks see
both once every input's gradient is known (and may replace grad_input)."""
from __future__ import annotations

import functools
import warnings

import gradjit
from gradjit.tensor.arith import apply


def _marked(t):
    return apply("BackwardHookFunctionBackward", lambda x: x, t)


def _differentiable(value) -> bool:
    return gradjit.is_tensor(value) and value.requires_grad


class BackwardHooks:
    """The hooks of one module call."""

    def __init__(self, module, full_hooks, pre_hooks):
        self.module, self.full_hooks, self.pre_hooks = module, full_hooks, pre_hooks
        self.grad_inputs: list = []
        self.grad_outputs: list = []
        self.inputs, self.inputs_waiting, self.outputs_waiting = (), 0, 0
        self.inputs_left = self.outputs_left = 0

    def wrap_inputs(self, args):
        args = list(args)
        self.inputs = tuple(args)
        self.grad_inputs = [None] * len(args)
        waiting = [i for i, a in enumerate(args) if _differentiable(a)]
        self.inputs_left = self.inputs_waiting = len(waiting)
        for i in waiting:
            args[i] = _marked(args[i])
            args[i].register_hook(functools.partial(self._input_grad, i))
        return tuple(args)

    def wrap_outputs(self, output):
        if not (gradjit.is_tensor(output) or isinstance(output, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor "
                          f"or a tuple of Tensors but received {type(output)}", stacklevel=3)
            self.abandoned = True  # as PyTorch's: the hooks then never run
            return output
        outs = output if isinstance(output, tuple) else (output,)
        self.grad_outputs = [None] * len(outs)
        waiting = [k for k, o in enumerate(outs) if _differentiable(o)]
        if len(waiting) > 1 and self.pre_hooks:
            raise NotImplementedError("backward pre-hooks of a module with several outputs "
                                      "that require grad are not supported")
        self.outputs_left = self.outputs_waiting = len(waiting)
        wrapped = list(outs)
        for k in waiting:
            wrapped[k] = _marked(outs[k])
            wrapped[k].register_hook(functools.partial(self._output_grad, k))
        return tuple(wrapped) if isinstance(output, tuple) else wrapped[0]

    def _output_grad(self, k, grad):
        """Each backward pass through the call counts its gradients afresh."""
        self.grad_outputs[k] = grad
        self.outputs_left -= 1
        if self.outputs_left:
            return None
        self.outputs_left = self.outputs_waiting
        for hook in list(self.pre_hooks.values()):
            replaced = hook(self.module, tuple(self.grad_outputs))
            if replaced is not None:
                self.grad_outputs = list(replaced if isinstance(replaced, tuple) else
                                         (replaced,))
        if not self.inputs_waiting:  # no input needs a gradient: the hooks run now
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            self._run_full_hooks()
            grad = self.grad_outputs[k]
            self.grad_outputs = [None] * len(self.grad_outputs)
            return grad
        return self.grad_outputs[k]

    abandoned = False

    def _input_grad(self, i, grad):
        if self.abandoned:
            return None
        self.grad_inputs[i] = grad
        self.inputs_left -= 1
        if self.inputs_left:
            return None
        self.inputs_left = self.inputs_waiting
        # the other tensor inputs' gradients are zeros, as PyTorch materializes them
        self.grad_inputs = [g if g is not None or not gradjit.is_tensor(a) else
                            gradjit.zeros_like(a) for g, a in zip(self.grad_inputs, self.inputs)]
        replaced = self._run_full_hooks()
        self.grad_inputs = [None] * len(self.grad_inputs)
        self.grad_outputs = [None] * len(self.grad_outputs)
        if replaced is None:
            return None
        if self.inputs_waiting > 1:
            raise NotImplementedError("a full backward hook can replace grad_input only of a "
                                      "module with one input that requires grad")
        return replaced[i]

    def _run_full_hooks(self):
        replaced = None
        for hook in list(self.full_hooks.values()):
            out = hook(self.module, tuple(self.grad_inputs), tuple(self.grad_outputs))
            if out is not None:
                replaced = out if isinstance(out, tuple) else (out,)
                if len(replaced) != len(self.grad_inputs):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input,"
                                       f" got {len(replaced)}, but expected "
                                       f"{len(self.grad_inputs)}")
                self.grad_inputs = list(replaced)
        return replaced
