"""torch.fx.replace_pattern: every match of a pattern's graph in a GraphModule's (its calls
and their arguments alike, its inputs any values) replaced by a copy of the replacement's."""
from __future__ import annotations

from typing import NamedTuple

from gradjit.fx.graph import Graph
from gradjit.fx.graph_module import GraphModule
from gradjit.fx.node import Node


class Match(NamedTuple):
    anchor: Node  # the pattern's result, where matching starts
    nodes_map: dict  # the pattern's nodes -> the graph's


def _graph_of(fn) -> Graph:
    if isinstance(fn, GraphModule):
        return fn.graph
    if isinstance(fn, Graph):
        return fn
    from gradjit.fx._symbolic_trace import symbolic_trace
    return symbolic_trace(fn).graph


def _matches(pn, gn, nodes_map) -> bool:
    """Whether the pattern's node pn matches the graph's value gn (extending nodes_map)."""
    if isinstance(pn, Node):
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if not isinstance(gn, Node):
            return False
        if pn.op != "placeholder" and (pn.op != gn.op or pn.target != gn.target or not
                                       _same_arguments(pn, gn, nodes_map)):
            return False
        nodes_map[pn] = gn
        return True
    if isinstance(pn, (list, tuple)):
        return type(pn) is type(gn) and len(pn) == len(gn) and \
            all(_matches(p, g, nodes_map) for p, g in zip(pn, gn))
    return type(pn) is type(gn) and pn == gn


def _same_arguments(pn, gn, nodes_map) -> bool:
    return len(pn.args) == len(gn.args) and pn.kwargs.keys() == gn.kwargs.keys() and \
        _matches(pn.args, gn.args, nodes_map) and \
        all(_matches(pn.kwargs[k], gn.kwargs[k], nodes_map) for k in pn.kwargs)


def _find(pattern: Graph, graph: Graph) -> list:
    """The non-overlapping matches, in program order, whose inner values nothing else uses."""
    output = next(n for n in pattern.nodes if n.op == "output")
    result = output.args[0]
    found, taken = [], set()
    for anchor in graph.nodes:
        nodes_map: dict = {}
        if anchor.op in ("placeholder", "output") or not _matches(result, anchor, nodes_map):
            continue
        inner = [g for p, g in nodes_map.items() if p.op != "placeholder"]
        if taken.intersection(inner) or any(
                user not in inner for g in inner if g is not anchor for user in g.users):
            continue
        taken.update(inner)
        found.append(Match(result, nodes_map))
    return found


def replace_pattern(gm: GraphModule, pattern, replacement) -> list:
    """Replace each match of pattern (a function, GraphModule or Graph) in gm by replacement's
    graph, inserted before the first use of the match's result; gm is recompiled."""
    pattern_graph, replacement_graph = _graph_of(pattern), _graph_of(replacement)
    graph = gm.graph
    inputs = [n for n in pattern_graph.nodes if n.op == "placeholder"]
    replacement_inputs = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    matches = _find(pattern_graph, graph)
    changed: dict = {}  # an earlier match's result -> its replacement, for inputs of later ones
    for match in matches:
        for p in inputs:
            match.nodes_map[p] = changed.get(match.nodes_map[p], match.nodes_map[p])
        val_map = {r: match.nodes_map[p] for r, p in zip(replacement_inputs, inputs)}
        anchor = match.nodes_map[match.anchor]
        users = [n for n in graph.nodes if n in anchor.users]
        with graph.inserting_before(users[0] if users else anchor.next):
            copied = graph.graph_copy(replacement_graph, val_map)
        anchor.replace_all_uses_with(copied)
        changed[anchor] = copied
        replaced = {g for p, g in match.nodes_map.items() if p.op != "placeholder"}
        for node in reversed(list(graph.nodes)):
            if node in replaced and not node.users:
                graph.erase_node(node)
    gm.recompile()
    return matches
