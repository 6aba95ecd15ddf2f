"""ShapeProp: a GraphModule run on example inputs, each node's result described (shape,
dtype, strides, ...) in node.meta['tensor_meta']."""
from __future__ import annotations

from typing import Any, NamedTuple

from gradjit.fx.interpreter import Interpreter
from gradjit.fx.node import map_aggregate


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result) -> TensorMetadata:
    import gradjit
    contiguous = result.is_contiguous()
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(),
                          gradjit.contiguous_format if contiguous else None, False, {})


class ShapeProp(Interpreter):
    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)

    def run_node(self, n):
        import gradjit
        result = super().run_node(n)
        found = []

        def describe(obj):
            if isinstance(obj, gradjit.Tensor):
                found.append(obj)
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, describe)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        return super().run(*args)
