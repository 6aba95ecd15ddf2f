"""gradjit.dump and lower(): every stage on the tutorial's function and an MLP, the formula
checked with sympy, ops placed in their loops, Graphviz output, GRADJIT_DUMP files, errors."""
import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import gradjit
from gradjit.dump import STAGES, Lowered, Options, dump
from gradjit.dump import graph as G
from gradjit.dump.demo import mlp_loss, tutorial
from gradjit.dump.examples import load_function
from gradjit.dump.stages import render
from gradjit.ir import Function, parse
from tests.dump.lowerings import lowered as corpus_lowered
from tests.e2e.corpus import CASES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
X = np.ones((2, 2), np.float32)
rng = np.random.default_rng(3)
MLP_ARGS = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2)),
            rng.normal(size=(5, 3)), rng.normal(size=(5, 2)))


def formula_of(text: str, name: str) -> str:
    return re.search(rf"^{name} = (.*)$", text, re.M).group(1)


def test_tutorial_gradient_formula_is_3_times_x_plus_2_over_2():
    text = dump(tutorial, X, stage="symbolic")
    x = sp.Symbol("x")
    got = sp.sympify(formula_of(text, "d_x"), locals={"x": x})
    assert sp.simplify(got - 3 * (x + 2) / 2) == 0
    latex = formula_of(dump(tutorial, X, stage="symbolic", latex=True), "d_x")
    assert latex == r"\frac{3 \left(x + 2\right)}{2}"


def test_symbolic_stage_prints_matrix_structure_and_the_simplification():
    text = dump(mlp_loss, *MLP_ARGS, argnums=(0, 1, 2), stage="symbolic")
    assert formula_of(text, "d_w2").startswith("transpose(tanh(b1 + x @ w1)) @ ")
    assert formula_of(text, "d_b1").startswith("sum_i(")
    before, after = map(int, re.search(r"(\d+) ops -> (\d+) ops", text).groups())
    # The MLP gradient has no rewrite that keeps every bit (gradjit.ir.symbolic_exact)
    assert after == before and "func @mlp_loss" in text  # the simplified IR follows


def test_lower_gives_each_stage():
    lowered = gradjit.grad(tutorial).lower(X)
    assert isinstance(lowered, Lowered) and lowered.result_names == ["value", "d_x"]
    for fn in (lowered.traced, lowered.differentiated, lowered.optimized):
        assert isinstance(fn, Function)
    assert len(lowered.traced.results) == 1 and len(lowered.optimized.results) == 2
    assert "define void @\"tutorial_k0\"" in lowered.llvm_ir
    assert sorted(lowered.ptx) == ["tutorial_k0", "tutorial_k1"]
    assert all(".entry " + name in text for name, text in lowered.ptx.items())
    jitted = gradjit.jit(lambda x: x * 2).lower(X)
    assert jitted.differentiated is None and jitted.result_names == ["out0"]
    with pytest.raises(ValueError, match="no gradient stage"):
        dump(gradjit.jit(tutorial), X, stage="grad")


def test_all_stages_and_determinism():
    text = dump(tutorial, X, stage="all")
    titles = re.findall(r"^==== (\w+): ", text, re.M)
    assert titles == list(STAGES)
    assert dump(tutorial, X, stage="all") == text
    assert "loc(" not in text


def test_ir_with_source_names_lines_and_still_parses():
    seed = load_function(f"{EXAMPLES}/seed.py:f")
    text = dump(seed, X, stage="optimized", with_source=True)
    assert 'seed.py:10")  # y = x + 2' in text and "# z = y * y * 3" in text
    assert str(parse(text)) == str(gradjit.grad(seed).ir(X))


def test_kernels_stage_places_each_op_in_its_loops():
    lowered = gradjit.grad(tutorial).lower(X)
    numbers = {op.out: i for i, op in enumerate(o for o in lowered.optimized.ops if o.out)}
    places = {f"%{numbers[op.out]} {op.prim.name}": p for op, p in lowered.fused.places.items()}
    assert places == {"%0 full": ["constant"], "%1 add": ["tutorial_k0"],
                      "%2 mul": ["tutorial_k0"], "%3 full": ["constant"],
                      "%4 mul": ["tutorial_k0"], "%5 reduce_sum": ["tutorial_k0"],
                      "%6 full": ["constant"], "%7 div": ["tutorial_k1"],
                      "%8 full": ["constant"], "%9 mul": ["tutorial_k0"],
                      "%10 add": ["tutorial_k0"]}
    text = dump(tutorial, X, stage="kernels")
    assert "# loop over [4]: reads b0 = x; writes sum into b1 (temp, f32[1]), b3 = d_x" in text
    assert "# ops: %1 add, %2 mul, %4 mul, %5 reduce_sum, %9 mul, %10 add" in text


def test_kernels_stage_shows_recomputation_and_matrix_products():
    lowered = gradjit.grad(mlp_loss, argnums=(0, 1, 2)).lower(*MLP_ARGS)
    by_name = {op.prim.name: places for op, places in lowered.fused.places.items()}
    assert len(by_name["tanh"]) == 1  # stored once, read by both matrix products after it
    loops = {p for places in lowered.fused.places.values() for p in places}
    assert {p for p in loops if p.startswith("step")} == {
        f"step {i} (matmul)" for i, s in enumerate(lowered.fused.steps)
        if type(s).__name__ == "Matmul"}
    text = lowered.fused.describe(lowered.result_names)
    assert "# views, read in place by the loops:" in text and "reshape of b" in text


def column_centered(x):
    return np.sum((x - np.mean(x, axis=0)) ** 2 * x)


@pytest.mark.parametrize("f, args, argnums, recomputes", [
    (mlp_loss, MLP_ARGS, (0, 1, 2), False),  # the residual is stored by its square's loop
    (column_centered, (MLP_ARGS[3],), 0, True)])  # x - mean, in the value's and d_x's loops
def test_each_placed_elementwise_op_is_in_its_loops_body_and_some_are_recomputed(
        f, args, argnums, recomputes):
    lowered = gradjit.grad(f, argnums=argnums).lower(*args)
    kernels = {k.name: k for k in lowered.fused.program.kernels}
    recomputed = 0
    for op, places in lowered.fused.places.items():
        loops = [kernels[p] for p in places if p in kernels]
        if op.prim.kind == "elementwise":
            assert loops and all(any(i.op == op.prim.name for i in k.body) for k in loops)
        recomputed += len(loops) > 1
    assert (recomputed >= 1) == recomputes


def test_dot_graph_has_every_op_and_loop_clusters():
    lowered = gradjit.grad(tutorial).lower(X)
    text = dump(tutorial, X, stage="kernels", format="dot")
    assert text.startswith('digraph "tutorial" {') and text.rstrip().endswith("}")
    assert text.count("{") == text.count("}")
    assert len(re.findall(r"^\s+op\d+ \[", text, re.M)) == len(lowered.optimized.ops)
    assert 'label="tutorial_k0";' in text and 'label="tutorial_k1";' in text
    assert '"d_x"' in text
    with pytest.raises(ValueError, match="no graph form"):
        dump(tutorial, X, stage="llvm", format="dot")


def test_svg_needs_graphviz_and_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(G.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        dump(tutorial, X, stage="trace", format="svg")


@pytest.mark.skipif(G.shutil.which("dot") is None, reason="Graphviz is not installed")
def test_svg_is_drawn_by_graphviz():
    assert "<svg" in dump(tutorial, X, stage="optimized", format="svg")


def test_gradjit_dump_environment_variable_writes_every_stage(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADJIT_DUMP", str(tmp_path))

    def g(x):
        return np.sum(np.tanh(x) ** 2)

    gradjit.grad(g)(np.arange(3.0))
    gradjit.grad(g)(np.arange(4.0))  # a second compilation, to files of its own
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 2 * len(STAGES) and not any("error" in n for n in names)
    prefixes = {n.split(".")[0] for n in names}
    assert len(prefixes) == 2 and all(p.startswith("g-") for p in prefixes)
    python = next(p for p in tmp_path.glob("*.python.py") if "f64[4]" in p.read_text())
    assert "# tests/dump/test_stages.py" in python.read_text()


def test_bad_stage_and_format_are_named():
    with pytest.raises(ValueError, match="unknown stage 'grads'; choose from trace, grad"):
        dump(tutorial, X, stage="grads")
    with pytest.raises(ValueError, match="unknown format 'png'"):
        dump(tutorial, X, stage="trace", format="png")


SLOW_STAGES = {"ptx", "symbolic"}  # NVPTX code generation and sympy: about 0.1 s a function


def _render_every_stage(case, stages):
    lowered = corpus_lowered(case.name, 0)[0]
    for name in stages:
        assert render(lowered, name, "text", Options(with_source=True)).strip()
        if STAGES[name].graph is not None:
            assert render(lowered, name, "dot").startswith("digraph")
    places = lowered.fused.places
    assert set(places) >= {op for op in lowered.optimized.ops if op.out is None}
    assert all(places.values())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_fast_stage_renders_for_the_corpus(case):
    _render_every_stage(case, [n for n in STAGES if n not in SLOW_STAGES])


@pytest.mark.parametrize("case", CASES[::8], ids=lambda c: c.name)
def test_ptx_and_formulas_render_for_a_corpus_sample(case):
    _render_every_stage(case, SLOW_STAGES)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for i, c in enumerate(CASES) if i % 8],
                         ids=lambda c: c.name)
def test_ptx_and_formulas_render_for_the_rest_of_the_corpus(case):
    _render_every_stage(case, SLOW_STAGES)


def test_lowered_as_text_prints_the_ir_and_compile_runs_it():
    """jax.jit(f).lower(x) and its .compile(), in gradjit's terms: as_text() is the traced IR
    (grad's: after differentiation), the compiled program's the optimized IR that runs."""
    def f(x):
        return np.sin(x) * 2.0

    x = np.linspace(0.0, 1.0, 4)
    lowered = gradjit.jit(f).lower(x)
    assert lowered.as_text() == str(lowered.traced)
    assert "= sin(%x) : f64[4]" in lowered.as_text() and lowered.as_text().startswith("func @")
    compiled = lowered.compile()
    assert compiled.as_text() == str(lowered.optimized)
    np.testing.assert_allclose(compiled(x + 1.0), np.sin(x + 1.0) * 2.0)
    derivative = gradjit.grad(lambda x: f(x).sum()).lower(x)
    assert derivative.as_text() == str(derivative.differentiated)
    np.testing.assert_allclose(derivative.compile()(x), 2.0 * np.cos(x))
