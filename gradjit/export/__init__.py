"""torch.export: a module traced through all of its submodules on example inputs into a graph
of ATen calls, its parameters, buffers and constant tensors lifted to inputs
(ExportedProgram); .module() runs the program again as a GraphModule."""
from __future__ import annotations

import enum
import operator
from dataclasses import dataclass

from gradjit.export.aten import aten_call, index_calls
from gradjit.fx import Graph, GraphModule, Tracer
from gradjit.fx.node import map_aggregate, map_arg
from gradjit.fx.proxy import Attribute, Proxy
from gradjit.fx.passes.shape_prop import ShapeProp, TensorMetadata
from gradjit.fx.passes.shape_prop import _extract_tensor_metadata as _describe

_ABBREVIATIONS = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
                  "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
                  "bool": "b8", "complex64": "c64", "complex128": "c128"}


class InputKind(enum.Enum):
    USER_INPUT = 1
    PARAMETER = 2
    BUFFER = 3
    CONSTANT_TENSOR = 4


class OutputKind(enum.Enum):
    USER_OUTPUT = 1


@dataclass
class TensorArgument:
    name: str


@dataclass
class InputSpec:
    kind: InputKind
    arg: TensorArgument
    target: str | None
    persistent: bool | None = None


@dataclass
class OutputSpec:
    kind: OutputKind
    arg: TensorArgument
    target: str | None


class ExportGraphSignature:
    def __init__(self, input_specs, output_specs):
        self.input_specs, self.output_specs = input_specs, output_specs

    def _targets(self, kind) -> tuple:
        return tuple(s.target for s in self.input_specs if s.kind is kind)

    user_inputs = property(lambda self: tuple(s.arg.name for s in self.input_specs
                                              if s.kind is InputKind.USER_INPUT))
    parameters = property(lambda self: self._targets(InputKind.PARAMETER))
    buffers = property(lambda self: self._targets(InputKind.BUFFER))
    user_outputs = property(lambda self: tuple(s.arg.name for s in self.output_specs))

    def __str__(self):
        inputs = [f"{s.arg.name}: {s.kind.name}" +
                  (f" target={s.target!r}" if s.target is not None else "") +
                  (f" persistent={s.persistent}" if s.persistent is not None else "")
                  for s in self.input_specs]
        outputs = [f"{s.arg.name}: {s.kind.name}" for s in self.output_specs]
        return "\n# inputs\n" + "".join(line + "\n" for line in inputs) + \
            "\n# outputs\n" + "".join(line + "\n" for line in outputs)


def _holds_tensor(value) -> bool:
    import gradjit
    found = []
    map_aggregate(value, lambda v: found.append(v) if isinstance(v, gradjit.Tensor) else None)
    return bool(found)


class _ConcreteProxy(Proxy):
    """A Proxy with the value it stands for on the example inputs: Python's control flow,
    len() and iteration see that value, and attributes that hold no tensor (shape, ndim)
    are that value's: the program is specialized to the example's shapes."""

    def __init__(self, node, tracer, value):
        super().__init__(node, tracer)
        self.value = value

    def __getattr__(self, k):
        if k.startswith("_"):
            return super().__getattr__(k)  # (refused, as a Proxy refuses it)
        attr = getattr(self.value, k)
        if callable(attr):
            return Attribute(self, k)
        return self.tracer.create_proxy("call_function", getattr, (self, k), {})

    def __bool__(self):
        return bool(self.value)

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return (self[i] for i in range(len(self.value)))


class _Specializing(Tracer):
    """Traces through every module on the example inputs; calls whose results hold no tensor
    are computed, not recorded."""

    def __init__(self, example_args):
        super().__init__()
        self._inputs = list(example_args)

    def is_leaf_module(self, m, module_qualified_name) -> bool:
        return False

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        values = map_aggregate((tuple(args), dict(kwargs)), lambda a: a.value if isinstance(
            a, _ConcreteProxy) else a)
        if kind == "placeholder":
            value = self._inputs.pop(0) if self._inputs else args[0]
        elif kind == "get_attr":
            value = _fetch(self.root, target)
        elif kind == "call_method":
            value = getattr(values[0][0], target)(*values[0][1:], **values[1])
        else:
            value = target(*values[0], **values[1])
        if kind.startswith("call") and not _holds_tensor(value):
            return value
        node = self.create_node(kind, target, self.create_arg(tuple(args)),
                                self.create_arg(dict(kwargs)), name, type_expr)
        return _ConcreteProxy(node, self, value)


def _fetch(module, target):
    """module's attribute at the dotted path target, past the tracer's Module.__getattr__."""
    for atom in target.split("."):
        state = vars(module)
        tables = [state[t] for t in ("_parameters", "_buffers", "_modules")
                  if atom in state.get(t, ())]
        module = tables[0][atom] if tables else getattr(module, atom)
    return module


def _annotation(meta) -> str:
    if not isinstance(meta, TensorMetadata):
        return ""
    dtype = _ABBREVIATIONS.get(str(meta.dtype).split(".")[-1], str(meta.dtype))
    return f'"{dtype}[{", ".join(str(d) for d in meta.shape)}]"'


class ExportedProgram:
    def __init__(self, graph_module, graph_signature, state_dict, constants, outputs):
        self.graph_module, self.graph_signature = graph_module, graph_signature
        self.state_dict, self.constants = state_dict, constants
        self.range_constraints: dict = {}
        self._outputs = outputs  # the program's output structure over its output nodes

    @property
    def graph(self) -> Graph:
        return self.graph_module.graph

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use "
                           "`exported_program.module()` instead.")

    def module(self) -> GraphModule:
        """The program as a GraphModule over the user's inputs, its state as attributes."""
        g, env, state = Graph(), {}, {**self.state_dict, **self.constants}
        targets = {s.arg.name: s.target for s in self.graph_signature.input_specs}
        for node in self.graph.nodes:
            if node.op == "placeholder" and targets[node.name] is None:
                env[node] = g.placeholder(node.name)
            elif node.op == "placeholder":
                env[node] = g.create_node("get_attr", targets[node.name],
                                          name=targets[node.name].replace(".", "_"))
            elif node.op != "output":
                env[node] = g.node_copy(node, env.__getitem__)
        g.output(map_arg(self._outputs, env.__getitem__))
        return GraphModule(state, g)

    def __str__(self):
        lines = self.graph_module.code.strip("\n").rstrip().split("\n")
        metas = {n.name: n.meta.get("tensor_meta") for n in self.graph.nodes}
        params = ", ".join(["self"] + [f"{n.name}: {_annotation(metas[n.name])}"
                                       for n in self.graph.nodes if n.op == "placeholder"])
        body = [f"def forward({params}):", "    # No stacktrace found for following nodes"]
        for line in lines[1:]:
            name, sep, rest = line.strip().partition(" = ")
            note = _annotation(metas.get(name)) if sep else ""
            body.append(f"    {name}: {note} = {rest}" if note else line)
        code = "\n".join(" " * 8 + line for line in body)
        signature = str(self.graph_signature).replace("\n", "\n    ")
        return (f"ExportedProgram:\n    class GraphModule(torch.nn.Module):\n{code}\n    \n"
                f"Graph signature: {signature}\nRange constraints: {self.range_constraints}\n")


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False,
           preserve_module_call_signature=()) -> ExportedProgram:
    """mod traced on the example args (shapes specialized to theirs) into an
    ExportedProgram."""
    inputs = (*args, *(kwargs or {}).values())
    traced = GraphModule(mod, _Specializing(inputs).trace(mod), type(mod).__name__)
    ShapeProp(traced).propagate(*inputs)
    return _Lifting(mod, traced).program()


class _Lifting:
    """The traced graph rewritten for export: state as leading inputs (p_, b_, c_), calls
    as ATen's, values that hold no tensor folded into constants."""

    def __init__(self, mod, traced):
        self.mod, self.traced = mod, traced
        self.graph, self.env, self.specs = Graph(), {}, []
        self.items: dict = {}  # a call of several results -> the getitem node of each

    def _lift(self, prefix, kind, target, persistent=None, meta=None):
        node = self.graph.placeholder(prefix + target.replace(".", "_"))
        node.meta["tensor_meta"] = meta
        self.specs.append(InputSpec(kind, TensorArgument(node.name), target, persistent))
        return node

    def program(self) -> ExportedProgram:
        params = dict(self.mod.named_parameters())
        buffers = dict(self.mod.named_buffers())
        kept = self.mod.state_dict(keep_vars=True)
        lifted = {t: self._lift("p_", InputKind.PARAMETER, t, None, _describe(v))
                  for t, v in params.items()}
        lifted.update({t: self._lift("b_", InputKind.BUFFER, t, t in kept, _describe(v))
                       for t, v in buffers.items()})
        constants = {n.target: getattr(self.traced, n.target) for n in self.traced.graph.nodes
                     if n.op == "get_attr" and n.target not in lifted}
        lifted.update({t: self._lift("c_", InputKind.CONSTANT_TENSOR, t, None, _describe(v))
                       for t, v in constants.items()})
        for node in self.traced.graph.nodes:
            if node.op == "placeholder":
                self.env[node] = self._lift("", InputKind.USER_INPUT, node.target, None,
                                            node.meta.get("tensor_meta"))
                self.specs[-1].target = None
            elif node.op == "get_attr":
                self.env[node] = lifted[node.target]
            elif node.op == "output":
                outputs = map_arg(node.args[0], self.env.__getitem__)
            else:
                self.env[node] = self._call(node)
        flat = []
        map_arg(outputs, flat.append)
        self.graph.output(tuple(flat))
        signature = ExportGraphSignature(
            self.specs, [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(n.name), None)
                         for n in flat])
        state = {**params, **{t: v for t, v in buffers.items() if t in kept}}
        constants.update({t: v for t, v in buffers.items() if t not in kept})
        return ExportedProgram(GraphModule({}, self.graph), signature, state, constants,
                               outputs)

    def _call(self, node):
        """node's call, its arguments mapped, as ATen calls."""
        meta = node.meta.get("tensor_meta")
        args = map_arg(node.args, self.env.__getitem__)
        kwargs = map_arg(node.kwargs, self.env.__getitem__)
        base = args[0] if args else None
        if node.target in (operator.getitem, getattr) and base in self.items:  # one of several
            index = {"values": 0, "indices": 1}.get(args[1], args[1])
            return self.items[base][index]
        if node.target is operator.getitem and isinstance(
                getattr(node.args[0], "meta", {}).get("tensor_meta"), TensorMetadata):
            calls = index_calls(args[0], args[1])
            if calls is not None:
                out = args[0]
                for op, rest in calls:
                    out = self._made(op, [out, *rest], meta)
                return out
        call = aten_call(node.op, node.target, args, kwargs)
        if call is None:
            return self.graph.create_node(node.op, node.target, args, kwargs, node.name)
        made = self._made(*call, meta)
        if isinstance(meta, tuple) and not isinstance(meta, TensorMetadata):
            # each result taken at once, as PyTorch's export takes them
            self.items[made] = [self._made(operator.getitem, [made, i], m, "getitem")
                                for i, m in enumerate(meta)]
        return made

    def _made(self, op, args, meta, name=None):
        made = self.graph.create_node("call_function", op, tuple(args), {},
                                      name=name or op.name)
        if meta is not None:
            made.meta["tensor_meta"] = meta
        return made
