"""The `gradjit` command: `gradjit dump FILE.py:FUNCTION --arg f32[2,2] ...` prints or writes
what the compiler made of a function at each stage; `gradjit demo` shows it on two examples;
`gradjit cache info|clear` shows or empties the disk cache."""
from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    from gradjit.dump.stages import FORMATS, STAGES
    parser = argparse.ArgumentParser(
        prog="gradjit", description="See what gradjit's compiler makes of a function.")
    commands = parser.add_subparsers(dest="command", required=True)
    dump = commands.add_parser(
        "dump", help="print each stage of compiling a function's gradient",
        description="Compile the gradient of FUNCTION (from FILE.py) for example arguments and "
                    "print, or write to --output, what each compiler stage made of it. A "
                    "function decorated with gradjit.grad/value_and_grad/jit is dumped as it is.",
        epilog="To see every compilation of a whole program, run it with GRADJIT_DUMP=DIR: each "
               "compiled trace writes all its stages to DIR.")
    dump.add_argument("target", metavar="FILE.py:FUNCTION")
    dump.add_argument("--arg", action="append", default=[], metavar="EXAMPLE",
                      help="one per positional argument: a type such as 'f32[2,2]' (filled "
                           "with fixed values in [0.5, 1.5)) or a Python expression such as "
                           "'np.arange(4.0)' (np is numpy)")
    dump.add_argument("--argnums", default="0",
                      help="the arguments to differentiate, e.g. 0,1 (default 0)")
    dump.add_argument("--stage", default="all",
                      help=f"{'|'.join(STAGES)}|all, or a comma-separated list (default all)")
    dump.add_argument("--format", default="text", choices=FORMATS,
                      help="text, Graphviz dot, or SVG drawn by Graphviz (IR and kernel stages)")
    dump.add_argument("--output", metavar="DIR",
                      help="write one file per stage into DIR instead of printing")
    dump.add_argument("--with-source", action="store_true",
                      help="map each op to the line of FILE.py it comes from")
    dump.add_argument("--latex", action="store_true", help="symbolic formulas in LaTeX")
    dump.add_argument("--transform", default="grad",
                      help="the transformation shown: grad (default), jvp, vjp, jacrev, jacfwd, "
                           "hessian or vmap; jvp and vjp use tangents and cotangents of ones, "
                           "vmap maps over every argument's axis 0")
    dump.add_argument("--symbolic", action="store_true",
                      help="compile with the sympy simplification of elementwise regions")
    commands.add_parser("demo", help="compile two small gradients and show every stage")
    cache = commands.add_parser(
        "cache", help="show or empty the disk cache of compiled code",
        description="info: where compiled object code is kept, how much, and the size limit "
                    "(GRADJIT_CACHE_SIZE); clear: remove every entry.")
    cache.add_argument("action", choices=["info", "clear"])
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            from gradjit.dump.demo import run_demo
            return run_demo()
        if args.command == "cache":
            return _cache(args.action)
        return _dump(args)
    except Exception as error:  # the message is the interface; tracebacks are for bugs
        print(f"gradjit {args.command}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


def _dump(args) -> int:
    from gradjit.dump.examples import example_argument, load_function
    from gradjit.dump.files import write_stages
    from gradjit.dump.lowered import lower
    from gradjit.dump.stages import Options, dump, stage_names
    argnums = _argnums(args.argnums)
    stage_names(args.stage, fmt=args.format)  # a misspelt stage fails before compiling
    f = load_function(args.target)
    _check_count(f, args.arg)
    examples = [example_argument(text, i) for i, text in enumerate(args.arg)]
    options = dict(stage=args.stage, argnums=argnums, format=args.format,
                   with_source=args.with_source, latex=args.latex, symbolic=args.symbolic,
                   transform=args.transform)
    if args.output is None:
        sys.stdout.write(dump(f, *examples, **options).rstrip("\n") + "\n")
        return 0
    lowered = lower(f, *examples, argnums=argnums, symbolic=args.symbolic,
                    transform=args.transform)
    for path in write_stages(lowered, args.output, lowered.name, args.stage, args.format,
                             Options(args.with_source, args.latex)):
        print(path)
    return 0


def _cache(action: str) -> int:
    from gradjit.runtime import cache
    if action == "clear":
        print(f"removed {cache.clear()} entries from {cache.cache_dir() or 'no cache'}")
        return 0
    found = cache.info()
    print(f"directory: {found['directory'] or 'none (GRADJIT_CACHE_DIR=off)'}\n"
          f"entries:   {found['entries']}\n"
          f"size:      {found['bytes'] / 2**20:.1f} MB of {found['limit'] / 2**20:.0f} MB "
          f"(GRADJIT_CACHE_SIZE)\n"
          f"key:       {found['key']}")
    return 0


def _check_count(f, texts):
    import inspect
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if not len(required) <= len(texts) <= len(positional):
        names = ", ".join(p.name for p in positional)
        raise ValueError(f"{f.__name__}({names}) needs one --arg per positional argument; "
                         f"got {len(texts)}")


def _argnums(text: str):
    try:
        numbers = tuple(int(n) for n in text.split(","))
    except ValueError:
        raise ValueError(f"--argnums {text!r} should be argument positions such as 0 or "
                         "0,1") from None
    return numbers[0] if len(numbers) == 1 else numbers
