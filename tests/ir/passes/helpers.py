"""Passes are tested as IR text in, IR text out."""
import textwrap

from gradjit.ir import parse, verify


def run(pass_, text: str) -> str:
    out = verify(pass_(verify(parse(textwrap.dedent(text)))))
    return str(out)


def canonical(text: str) -> str:
    return str(parse(textwrap.dedent(text)))
