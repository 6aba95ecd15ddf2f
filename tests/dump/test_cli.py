"""The `gradjit` command run for real, in a subprocess, on the example files: dump to stdout
(the same text twice), to files and Graphviz, errors, and the demo."""
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import sympy as sp

ROOT = Path(__file__).resolve().parents[2]


def gradjit(*args, env=None, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "gradjit", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env={**os.environ, **(env or {})})


def test_console_script_is_declared():
    scripts = metadata.entry_points(group="console_scripts")
    assert any(s.name == "gradjit" and s.value == "gradjit.cli:main" for s in scripts)


def test_dump_all_stages_of_the_seed_example_is_deterministic():
    args = ("dump", "examples/seed.py:f", "--arg", "f32[2,2]", "--stage", "all",
            "--with-source")
    first, second = gradjit(*args), gradjit(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    text = first.stdout
    assert re.findall(r"^==== (\w+):", text, re.M) == [
        "trace", "grad", "optimized", "kernels", "llvm", "ptx", "symbolic", "python"]
    assert 'loc("examples/seed.py:10")  # y = x + 2' in text
    assert ".visible .entry f_k0(" in text and 'define void @"f_k0"' in text
    formula = re.search(r"^d_x = (.*)$", text, re.M).group(1)
    x = sp.Symbol("x")
    assert sp.simplify(sp.sympify(formula, locals={"x": x}) - 3 * (x + 2) / 2) == 0


def test_dump_to_files_as_graphviz_with_example_values(tmp_path):
    done = gradjit("dump", "examples/mlp.py:loss", "--arg", "np.ones((3, 4))",
                   "--arg", "f64[4]", "--arg", "f64[4,2]", "--arg", "f64[5,3]",
                   "--arg", "np.zeros((5, 2))", "--argnums", "0,2",
                   "--stage", "grad,kernels", "--format", "dot", "--output", str(tmp_path))
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["loss.grad.dot", "loss.kernels.dot"]
    assert done.stdout.split() == [str(tmp_path / name) for name in files]
    assert '"d_w2"' in (tmp_path / "loss.kernels.dot").read_text()
    svg = gradjit("dump", "examples/seed.py:f", "--arg", "f32[3]", "--stage", "trace",
                  "--format", "svg")
    if shutil.which("dot") is None:
        assert svg.returncode == 1 and "apt-get install graphviz" in svg.stderr
    else:
        assert svg.returncode == 0 and "<svg" in svg.stdout


def test_errors_are_one_clear_line():
    missing = gradjit("dump", "examples/seed.py:g", "--arg", "f32[2]")
    assert missing.returncode == 1
    assert missing.stderr.strip() == ("gradjit dump: ValueError: examples/seed.py defines no "
                                      "'g'; its functions: f")
    bad_arg = gradjit("dump", "examples/seed.py:f", "--arg", "q64[2]")
    assert bad_arg.returncode == 1 and "gradjit has no dtype 'q64'" in bad_arg.stderr
    narrow = gradjit("dump", "examples/seed.py:f", "--arg", "bf16[2]")  # eager-only dtype
    assert narrow.returncode == 1 and "does not compile bfloat16" in narrow.stderr
    assert gradjit("dump", "examples/seed.py:f", "--stage", "kernel").returncode == 1
    assert gradjit("dump").returncode == 2  # argparse: the target is required


def test_demo_checks_its_gradients_and_is_quick():
    done = gradjit("demo")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(": OK") == 2 and "d_x = 3*(x + 2)/2" in done.stdout
    assert "[[4.5, 4.5], [4.5, 4.5]]" in done.stdout
    assert len(done.stdout.splitlines()) < 120


def test_output_files_stay_in_the_directory_whatever_the_function_is_called(tmp_path, capsys):
    from gradjit.cli import main
    source = tmp_path / "hostile.py"
    source.write_text("import numpy as np\n\ndef f(x):\n    return np.sin(x).sum()\n\n"
                      "f.__name__ = '../../escaped/\\x00..\\\\name'\n")
    out = tmp_path / "a" / "b"
    assert main(["dump", f"{source}:f", "--arg", "f32[3]", "--stage", "trace,kernels",
                 "--output", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == ["______escaped_____name.kernels.txt", "______escaped_____name.trace.ir"]
    everything = sorted(p.name for p in tmp_path.rglob("*") if p.is_file())
    assert everything == sorted(["hostile.py", *written])
    assert sorted(capsys.readouterr().out.split()) == [str(out / name) for name in written]


def test_bad_argument_types_say_what_is_wrong(capsys):
    from gradjit.cli import main
    for text, message in [
            ("f32[-1]", "--arg 'f32[-1]': a type's extents are non-negative integers"),
            ("f32[2.5]", "--arg 'f32[2.5]': a type's extents are non-negative integers"),
            ("f99[2]", "--arg 'f99[2]': gradjit has no dtype 'f99'"),
            ("f64[4294967296,4294967296]", "more than can be addressed")]:
        assert main(["dump", "examples/seed.py:f", "--arg", text]) == 1
        assert message in capsys.readouterr().err


def test_svg_of_several_stages_is_refused_without_an_output_directory(capsys, tmp_path):
    from gradjit.cli import main
    args = ["dump", "examples/seed.py:f", "--arg", "f32[3]", "--format", "svg"]
    assert main(args) == 1
    assert "several stages as SVG are not one SVG document" in capsys.readouterr().err
    if shutil.which("dot") is not None:
        assert main(args + ["--output", str(tmp_path)]) == 0
        assert all(p.read_text().startswith("<?xml") or "<svg" in p.read_text()
                   for p in tmp_path.iterdir())
