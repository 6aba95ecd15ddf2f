"""PTX for every primitive, every kernel shape and a sample of the compiled-vs-eager corpus,
built by NVPTX in a subprocess (an LLVM fatal error there fails a test instead of killing
pytest), assembled by ptxas for sm_75, sm_80 and sm_90 (and sm_70 where a CUDA 12 ptxas is
installed); golden PTX for two small kernels.

`python -m tests.codegen.test_ptx_nvptx OUT_DIR [CORPUS_EVERY]` writes the PTX files;
`python -m tests.codegen.test_ptx_nvptx --golden` rewrites tests/golden/ptx."""
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import llvmlite
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "ptx"
ARCHS = ["sm_70", "sm_75", "sm_80", "sm_90"]
CORPUS_EVERY = 6  # the default run builds every 6th corpus function; the slow run all


# ---- the subprocess: what it builds ----

def _primitives():
    from gradjit.ir import PRIMITIVES
    from tests.codegen.helpers import many_ops
    from tests.codegen.test_primitives import CASES
    for name in sorted(PRIMITIVES):
        yield f"prim_{name}", many_ops(name, CASES[name]())[0], False


def _function(name, shapes, body, dt="f32"):
    from gradjit.ir import PRIMITIVES, Builder, TensorType
    from gradjit.ir import dtype as resolve
    with Builder(name) as b:
        xs = [b.param(TensorType(s, resolve(dt)), f"x{i}") for i, s in enumerate(shapes)]
        outs = body(PRIMITIVES, *xs)
    return b.build(list(outs))


def _shapes():
    """Kernels the primitive table's small cases do not reach."""
    yield "tree_and_stores", _function("tree", [(30, 1000)], lambda P, x: [
        P["reduce_sum"](P["exp"](x), axes=(1,), keepdims=False), P["tanh"](x),
        P["reduce_max"](x, axes=(0,), keepdims=False)]), False
    yield "chunked_partials", _function("chunked", [(70001,)], lambda P, x: [
        P["reduce_sum"](x, axes=(0,), keepdims=False)], "f64"), False
    yield "batched_matmul", _function("bmm", [(3, 20, 17), (3, 20, 9)], lambda P, a, b: [
        P["matmul"](P["transpose"](a, perm=(0, 2, 1)), b)], "f64"), False
    yield "scatter_deterministic", _function("scatter", [(6, 3), (8, 3)], lambda P, x, u: [
        P["scatter_add"](x, P["constant"](value=[5, 0, 5, 5, -1, 2, 0, 5], shape=(8,),
                                          dtype="i64"), u, axis=0)]), True


def golden_functions():
    """Two small kernels whose PTX is kept under tests/golden/ptx."""
    return {
        "scale_add_f32": _function("scale_add", [(1000,), (1000,)], lambda P, x, y: [
            P["add"](P["mul"](x, y), P["full"](value=1.0, shape=(1000,), dtype="f32"))]),
        "row_sum_f32": _function("row_sum", [(8, 512)], lambda P, x: [
            P["reduce_sum"](x, axes=(1,), keepdims=False)]),
    }


def _corpus(every):
    import gradjit
    from tests.e2e.corpus import CASES
    for case in CASES[::every]:
        for mode in ("value_and_grad", "jit"):
            f = (gradjit.value_and_grad(case.fn, argnums=case.argnums) if mode != "jit"
                 else gradjit.jit(case.fn))
            seen = set()
            for args in case.inputs:
                with np.errstate(all="ignore"):
                    fn = f.ir(*args)
                if str(fn) not in seen:
                    seen.add(str(fn))
                    yield f"corpus_{case.name}_{mode}_{len(seen)}", fn, False


def write_ptx(out: Path, corpus_every: int) -> None:
    from gradjit.codegen.fuse import fuse
    from gradjit.codegen.ptx.compile import lower_program
    from gradjit.codegen.ptx.grid import emit_module
    from gradjit.codegen.ptx.target import emit_ptx
    out.mkdir(parents=True, exist_ok=True)
    for name, fn, deterministic in [*_primitives(), *_shapes(), *_corpus(corpus_every)]:
        # Named after the file, so that kernel names differ across files (ptxas links them).
        _, kernels = lower_program(fuse(dataclasses.replace(fn, name=name), loop_products=False),
                                   deterministic)
        if kernels:
            (out / f"{name}.ptx").write_text(emit_ptx(str(emit_module(name, kernels, True))))
    write_golden(out / "golden")


def write_golden(directory: Path) -> None:
    from gradjit.codegen.ptx.compile import ptx_of
    directory.mkdir(parents=True, exist_ok=True)
    for name, fn in golden_functions().items():
        (ptx,) = ptx_of(fn).values()
        (directory / f"{name}.ptx").write_text(f"// llvmlite {llvmlite.__version__}\n{ptx}")


# ---- the tests ----

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("ptx")
    run = subprocess.run([sys.executable, "-m", "tests.codegen.test_ptx_nvptx", str(out),
                          str(CORPUS_EVERY)], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, f"the NVPTX build failed (rc {run.returncode}):\n{run.stderr}"
    return out


def test_nvptx_builds_every_primitive_and_kernel_shape(built):
    from gradjit.ir import PRIMITIVES
    names = {p.stem for p in built.glob("*.ptx")}
    # checked or computed on the host, no kernel
    kernel_free = {"guard"} | {n for n, p in PRIMITIVES.items() if p.kind == "library"} | \
        {"conj", "real", "imag", "complex"}  # complex values: host steps
    assert {f"prim_{n}" for n in PRIMITIVES} - names == {f"prim_{n}" for n in kernel_free}
    assert {"tree_and_stores", "chunked_partials", "batched_matmul"} <= names
    assert sum(n.startswith("corpus_") for n in names) >= 20


def test_ptx_targets_sm_70_and_ptx_isa_7_and_calls_nothing(built):
    for path in built.glob("*.ptx"):
        text = path.read_text()
        assert ".version 7.0\n.target sm_70\n.address_size 64" in text, path.name
        assert re.search(r"^\.visible \.entry \w+\(", text, re.M), path.name
        assert not re.search(r"^\s*call", text, re.M), f"{path.name} calls a function"


def test_reductions_use_shared_memory_and_barriers(built):
    tree = (built / "tree_and_stores.ptx").read_text()
    assert ".shared .align 16" in tree and "bar.sync" in tree
    matmul = (built / "batched_matmul.ptx").read_text()
    assert "ld.shared" in matmul and "bar.sync" in matmul
    assert "atom.global.add.f32" in (built / "prim_scatter_add.ptx").read_text() or \
        "atom.global.add.f64" in (built / "prim_scatter_add.ptx").read_text()


@pytest.mark.parametrize("arch", ARCHS)
def test_ptxas_assembles_every_kernel(built, arch, tmp_path):
    from gradjit.codegen.ptx.ptxas import assemble, ptxas_for
    if ptxas_for(arch) is None:
        pytest.skip(f"no ptxas for {arch}: install nvidia-cuda-nvcc-cu12 (the test extra) or "
                    "put CUDA's ptxas on PATH")
    assemble(sorted(built.glob("*.ptx")) + sorted(built.glob("golden/*.ptx")), arch,
             tmp_path / "all.cubin")
    assert (tmp_path / "all.cubin").stat().st_size > 0


@pytest.mark.parametrize("name", sorted(golden_functions()))
def test_golden_ptx(built, name):
    want = (GOLDEN / f"{name}.ptx").read_text()
    if not want.startswith(f"// llvmlite {llvmlite.__version__}\n"):
        pytest.skip(f"the golden PTX was made with {want.splitlines()[0][3:]}")
    got = (built / "golden" / f"{name}.ptx").read_text()
    assert got == want, ("the generated PTX changed: review it, then rewrite the goldens with "
                         "python -m tests.codegen.test_ptx_nvptx --golden")


@pytest.mark.slow
def test_nvptx_builds_and_ptxas_assembles_the_whole_corpus(tmp_path, request):
    from gradjit.codegen.ptx.ptxas import assemble, ptxas_for
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("slow: run with -m slow")
    run = subprocess.run([sys.executable, "-m", "tests.codegen.test_ptx_nvptx", str(tmp_path),
                          "1"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr
    for arch in [a for a in ARCHS if ptxas_for(a)]:
        assemble(sorted(tmp_path.glob("*.ptx")), arch, tmp_path / f"{arch}.cubin")


if __name__ == "__main__":
    if sys.argv[1:] == ["--golden"]:
        write_golden(GOLDEN)
    else:
        write_ptx(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else CORPUS_EVERY)
