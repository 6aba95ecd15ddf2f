"""The autograd graph of every OpInfo sample (float64, inputs that require grad) built by torch
and by gradjit, compared node by node: names, next_functions' length and order, None entries and
which leaf each AccumulateGrad holds. `python -m tests.autograd.graph_sweep [--only REGEX]
[--known]` prints each op's first difference and the tally."""
import argparse
import collections
import itertools
import re

import torch

import gradjit
from tests.torch_api import opinfo


def graph(outputs, leaves):
    """The graph reachable from the grad_fn of each output, as a list of node descriptions in
    depth-first order: (name, children), a child being the index of a node already listed, an
    AccumulateGrad as ("leaf", index in leaves) and an empty edge as None; shared nodes are
    listed once, so two graphs are equal exactly when their shapes are."""
    order, listed = [], {}
    positions = {id(leaf): i for i, leaf in enumerate(leaves)}

    def visit(node):
        if node is None:
            return None
        if type(node).__name__ == "AccumulateGrad":
            return "leaf", positions.get(id(node.variable), "other")
        if id(node) not in listed:
            listed[id(node)] = len(order)
            entry = [type(node).__name__, None]
            order.append(entry)
            entry[1] = tuple(visit(child) for child, _ in node.next_functions)
        return listed[id(node)]

    roots = tuple(visit(getattr(out, "grad_fn", None)) for out in outputs)
    return roots, [tuple(entry) for entry in order]


def difference(t_graph, g_graph):
    """The first node where gradjit's graph leaves torch's, in words, or None."""
    (t_roots, t_nodes), (g_roots, g_nodes) = t_graph, g_graph
    if t_roots != g_roots and not (t_nodes and g_nodes):
        return f"roots {g_roots}, torch {t_roots}"
    for t_node, g_node in zip(t_nodes, g_nodes):
        if t_node != g_node:
            return f"{g_node[0]}{g_node[1]}, torch {t_node[0]}{t_node[1]}"
    if len(t_nodes) != len(g_nodes) or t_roots != g_roots:
        return f"{len(g_nodes)} nodes, torch {len(t_nodes)}: " \
               f"{[n[0] for n in g_nodes]} vs {[n[0] for n in t_nodes]}"
    return None


def sample_difference(op, function, sample):
    """How gradjit's graph of one sample differs from torch's, or None; opinfo.Skip where the
    sample cannot be compared."""
    leaves = []  # laid out as torch's: a reshape's node name depends on the strides
    g_input, g_args, g_kwargs = (opinfo.to_gradjit(value, leaves, "K") for value in
                                 (sample.input, sample.args, sample.kwargs))
    if not leaves:
        raise opinfo.Skip("nothing requires grad")
    torch.manual_seed(0)
    try:
        t_out = op.op(sample.input, *sample.args, **sample.kwargs)
    except Exception as error:
        raise opinfo.Skip(f"torch raises {type(error).__name__}") from error
    gradjit.manual_seed(opinfo.seed(op))
    try:
        g_out = function(g_input, *g_args, **g_kwargs)
    except Exception as error:
        raise opinfo.Skip(f"gradjit raises {type(error).__name__}") from error
    t_outs, g_outs = opinfo.flatten(t_out), opinfo.flatten(g_out)
    if len(t_outs) != len(g_outs):
        raise opinfo.Skip("outputs differ in number")
    return difference(graph(t_outs, [t for t, _ in leaves]),
                      graph(g_outs, [g for _, g in leaves]))


def differences(op, samples=None):
    """(sample index, text) of each float64 sample whose graphs differ."""
    function = opinfo.gradjit_callable(op)
    if function is None or not op.supports_autograd or \
            not op.supports_dtype(torch.float64, "cpu"):
        return None
    found = []
    drawn = op.sample_inputs("cpu", torch.float64, requires_grad=True)
    for index, sample in enumerate(itertools.islice(drawn, samples)):
        try:
            text = sample_difference(op, function, sample)
        except opinfo.Skip:
            continue
        except Exception as error:  # describing a graph
            text = f"comparing raises {type(error).__name__}: {error}"
        if text:
            found.append((index, text))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="", help="regular expression on op names")
    parser.add_argument("--known", action="store_true", help="print KNOWN rows")
    options = parser.parse_args()
    counts = collections.Counter()
    for op in opinfo.in_scope():
        name = opinfo.full_name(op)
        if not re.search(options.only, name):
            continue
        found = differences(op)
        if found is None:
            continue
        counts["differing" if found else "matching"] += 1
        if found:
            index, text = found[0]
            if options.known:
                print(opinfo.known_row(name, f"#{index}: {text}"))
            else:
                print(f"{name} [#{index}/{len(found)}] {text}")
    print(f"# {dict(counts)}")


if __name__ == "__main__":
    main()
