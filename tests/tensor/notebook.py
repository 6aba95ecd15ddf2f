"""Replaying tutorial cells: run each with `import gradjit as torch` for `import torch`, and
collect what Jupyter shows (printed text and the value of the last expression)."""
from __future__ import annotations

import ast
import contextlib
import io
import re
import textwrap
from dataclasses import dataclass


@dataclass
class Cell:
    printed: str
    value: object

    @property
    def shown(self) -> str:
        return repr(self.value)


class Notebook:
    def __init__(self):
        self.namespace: dict = {}

    def run(self, source: str) -> Cell:
        source = textwrap.dedent(source).replace("import torch", "import gradjit as torch")
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        out = io.StringIO()
        value = None
        with contextlib.redirect_stdout(out):
            exec(compile(tree, "<cell>", "exec"), self.namespace)
            if last is not None:
                expr = ast.Expression(last.value)
                value = eval(compile(expr, "<cell>", "eval"), self.namespace)
        return Cell(out.getvalue(), value)

    def __getitem__(self, name):
        return self.namespace[name]


_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)(e[+-]\d+)?")


def skeleton(text: str) -> str:
    """Printed form with every number replaced by '#' and runs of spaces collapsed: what a
    cell that prints random numbers must still match."""
    return re.sub(r"\[ +", "[", re.sub(r" +", " ", _NUMBER.sub("#", text)))
