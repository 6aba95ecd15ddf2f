"""The IR's text form: a canonical printer and a parser that reads back exactly what it prints.

    func @f(%x: f32[4,3], %y: f32[3]) -> (f32[]) {
      %0 = broadcast_to(%y) {shape=[4,3]} : f32[4,3]
      %1 = mul(%x, %0) : f32[4,3]
      %2 = reduce_sum(%1) {axes=[0,1], keepdims=false} : f32[]
      return %2
    }
"""
from __future__ import annotations

import json
import math
import re

from gradjit.ir.array_value import ArrayValue
from gradjit.ir.core import Function, Op, Value, canonical_params
from gradjit.ir.primitive import PRIMITIVES
from gradjit.ir.types import ALL_DTYPES, TensorType, dtype as resolve_dtype
from gradjit.ir.verify import check_params, check_type

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def print_function(fn: Function) -> str:
    names: dict[Value, str] = {}
    for i, p in enumerate(fn.params):
        name = p.name if p.name and _IDENT.match(p.name) else f"arg{i}"
        if name in names.values():
            name = f"arg{i}"
        names[p] = name
    counter = 0
    body = []
    for op in fn.ops:
        args = ", ".join(f"%{names[v]}" for v in op.inputs)
        line = f"{op.prim.name}({args})"
        if op.params:
            line += " {" + ", ".join(f"{k}={format_param(v)}" for k, v in op.params.items()) + "}"
        if op.out is not None:
            names[op.out] = str(counter)
            counter += 1
            line = f"%{names[op.out]} = {line} : {op.out.type}"
        if op.site:
            line += f" loc({json.dumps(op.site)})"
        body.append("  " + line)
    params = ", ".join(f"%{names[p]}: {p.type}" for p in fn.params)
    results = ", ".join(str(r.type) for r in fn.results)
    ret = "  return" + (" " + ", ".join(f"%{names[r]}" for r in fn.results) if fn.results else "")
    return "\n".join([f"func @{fn.name}({params}) -> ({results}) {{", *body, ret, "}"])


def format_param(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, complex):
        return f"complex({format_param(v.real)},{format_param(v.imag)})"
    if isinstance(v, str):
        return v if v in _DTYPE_NAMES else json.dumps(v)
    if isinstance(v, tuple):
        return "[" + ",".join(format_param(x) for x in v) + "]"
    if isinstance(v, ArrayValue):
        return v.text()
    raise TypeError(f"cannot print the param value {v!r}")


_WORDS = {"true": True, "false": False, "none": None}
_DTYPE_NAMES = {d.name for d in ALL_DTYPES}


# Params hold shapes and constants: numpy arrays have at most 64 dimensions, and what reads
# params later (canonical form, printing) may walk them recursively.
MAX_NESTING = 64


class ParseError(ValueError):
    """Malformed IR text; the message gives line and column."""


_TOKEN = re.compile(r"""
    (?P<space>[ \t]+|\#[^\n]*)
  | (?P<newline>\n)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<value>%[A-Za-z0-9_]+)
  | (?P<symbol>@[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<number>-?(?:inf\b|nan\b|\d+\.?\d*(?:[eE][-+]?\d+)?))
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>->|[(){}\[\],:=])
""", re.VERBOSE)


class _Parser:
    def __init__(self, text: str):
        self.tokens = []
        line, line_start, pos = 1, 0, 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise ParseError(f"line {line}, column {pos - line_start + 1}: "
                                 f"unexpected character {text[pos]!r}")
            kind = m.lastgroup
            if kind == "newline":
                line, line_start = line + 1, m.end()
            elif kind != "space":
                self.tokens.append((kind, m.group(), line, pos - line_start + 1))
            pos = m.end()
        self.tokens.append(("end", "", line, pos - line_start + 1))
        self.i = 0
        self.env: dict[str, Value] = {}

    def peek(self):
        return self.tokens[self.i]

    def error(self, message, token=None):
        _, text, line, col = token or self.peek()
        found = f"found {text!r}" if text else "found the end of the text"
        return ParseError(f"line {line}, column {col}: {message}, {found}")

    def take(self, kind=None, text=None):
        tok = self.peek()
        if (kind and tok[0] != kind) or (text and tok[1] != text):
            raise self.error(f"expected {text or kind}")
        self.i += 1
        return tok

    def accept(self, text):
        if self.peek()[1] == text:
            self.i += 1
            return True
        return False

    def function(self) -> Function:
        self.take("word", "func")
        name = self.take("symbol")[1][1:]
        self.take(text="(")
        params = []
        while not self.accept(")"):
            if params:
                self.take(text=",")
            tok = self.take("value")
            self.take(text=":")
            value = Value(self.type(), tok[1][1:])
            self.define(tok, value)
            params.append(value)
        self.take(text="->")
        self.take(text="(")
        declared = []
        while not self.accept(")"):
            if declared:
                self.take(text=",")
            declared.append(self.type())
        self.take(text="{")
        ops = []
        while self.peek()[1] != "return":
            ops.append(self.op())
        ret_tok = self.take("word", "return")
        results = []
        while self.peek()[0] == "value":
            results.append(self.use(self.take("value")))
            if not self.accept(","):
                break
        self.take(text="}")
        if self.peek()[0] != "end":
            raise self.error("expected the end of the text")
        if [r.type for r in results] != declared:
            raise self.error(f"@{name} declares results ({', '.join(map(str, declared))}) but "
                             f"returns ({', '.join(str(r.type) for r in results)})", ret_tok)
        return Function(name, params, ops, results)

    def op(self) -> Op:
        target = None
        if self.peek()[0] == "value":
            target = self.take("value")
            self.take(text="=")
        name_tok = self.take("word")
        prim = PRIMITIVES.get(name_tok[1])
        if prim is None:
            raise self.error("unknown primitive", name_tok)
        self.take(text="(")
        inputs = []
        while not self.accept(")"):
            if inputs:
                self.take(text=",")
            inputs.append(self.use(self.take("value")))
        params = {}
        if self.accept("{"):
            while not self.accept("}"):
                if params:
                    self.take(text=",")
                key = self.take("word")[1]
                self.take(text="=")
                params[key] = self.param()
        try:
            params = canonical_params(prim, params)
        except TypeError as error:
            raise self.error(str(error), name_tok) from None
        problem = check_params(prim, params)
        if problem:
            raise self.error(problem, name_tok)
        try:
            inferred = prim.infer(*(v.type for v in inputs), **params)
        except (TypeError, ValueError, OverflowError) as error:
            raise self.error(str(error), name_tok) from None
        out = None
        if target is not None:
            self.take(text=":")
            type_tok = self.peek()
            declared = self.type()
            if inferred != declared:
                raise self.error(f"{prim.name} gives {inferred}, the text declares {declared}",
                                 type_tok)
            out = Value(declared)
            self.define(target, out)
        elif inferred is not None:
            raise self.error(f"{prim.name} has a result; name it", name_tok)
        site = None
        if self.accept("loc"):
            self.take(text="(")
            site = self.string(self.take("string"))
            self.take(text=")")
        return Op(prim, inputs, params, out, site)

    def type(self) -> TensorType:
        tok = self.take("word")
        try:
            dt = resolve_dtype(tok[1])
        except TypeError:
            raise self.error("expected an element type", tok) from None
        self.take(text="[")
        dims = []
        while not self.accept("]"):
            if dims:
                self.take(text=",")
            dim = self.take("number")
            if not dim[1].isdigit():
                raise self.error("expected a non-negative integer extent", dim)
            dims.append(int(dim[1]))
        t = TensorType(tuple(dims), dt)
        problem = check_type(t)
        if problem:
            raise self.error(problem, tok)
        return t

    def param(self):
        """A param value; lists nest to any depth with an explicit stack, not recursion."""
        stack = []  # the lists still open, innermost last
        while True:
            if stack and stack[-1] and not self.accept(","):
                self.take(text="]")
                done = tuple(stack.pop())
            elif self.accept("["):
                if self.accept("]"):
                    done = ()
                elif len(stack) == MAX_NESTING:
                    raise self.error(f"lists nest at most {MAX_NESTING} deep")
                else:
                    stack.append([])
                    continue
            else:
                done = self.scalar_param()
            if not stack:
                return done
            stack[-1].append(done)

    def scalar_param(self):
        tok = self.peek()
        kind, text = tok[0], tok[1]
        if kind == "number":
            self.i += 1
            if text.lstrip("-") in ("inf", "nan"):
                return float(text)
            return float(text) if any(c in text for c in ".eE") else int(text)
        if kind == "string":
            self.i += 1
            return self.string(tok)
        if kind == "word" and text == "complex":  # complex(re,im)
            self.i += 1
            self.take(text="(")
            real = self.scalar_param()
            self.take(text=",")
            imag = self.scalar_param()
            self.take(text=")")
            return complex(real, imag)
        if kind == "word" and (text in _WORDS or text in _DTYPE_NAMES):
            self.i += 1
            return _WORDS.get(text, text)
        raise self.error("expected a param value")

    def string(self, tok) -> str:
        try:
            return json.loads(tok[1])
        except ValueError:
            raise self.error("malformed string", tok) from None

    def define(self, tok, value):
        if tok[1] in self.env:
            raise self.error(f"{tok[1]} is defined twice", tok)
        self.env[tok[1]] = value

    def use(self, tok) -> Value:
        if tok[1] not in self.env:
            raise self.error(f"{tok[1]} is used before it is defined", tok)
        return self.env[tok[1]]


def parse(text: str) -> Function:
    """Read a function from its text form (the inverse of `str(fn)`)."""
    if not isinstance(text, str):
        raise ParseError(f"line 1, column 1: IR text is a str, not {type(text).__name__}")
    return _Parser(text).function()
