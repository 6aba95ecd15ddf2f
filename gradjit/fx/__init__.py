"""torch.fx: programs captured as Graphs of Nodes by symbolic tracing, edited, and run again
as the Python code generated from them (GraphModule), or node by node (Interpreter)."""
from gradjit.fx.graph import Graph  # noqa: F401
from gradjit.fx.graph_module import GraphModule  # noqa: F401
from gradjit.fx.interpreter import Interpreter, Transformer  # noqa: F401
from gradjit.fx.node import Node, map_arg  # noqa: F401
from gradjit.fx.proxy import Proxy  # noqa: F401
from gradjit.fx._symbolic_trace import PH, Tracer, symbolic_trace, wrap  # noqa: F401
from gradjit.fx.subgraph_rewriter import replace_pattern  # noqa: F401
from gradjit.fx import passes, subgraph_rewriter  # noqa: F401

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter",
           "Transformer", "Node", "Proxy", "map_arg", "PH", "replace_pattern"]
