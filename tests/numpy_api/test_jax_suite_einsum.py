"""np.einsum over the subscripts JAX's einsum tests use (repeated indices within an operand,
ellipses anywhere, implicit outputs, many operands, optimize strategies, int and complex
operands): compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_grad, check_jit

SIZES = {c: n for c, n in zip("abcdefghijklmnopqrstuvwxyz", [2, 3, 4, 2, 3, 4, 2, 3, 4, 2,
                                                              3, 4, 2, 3, 4, 2, 3, 4, 2, 3,
                                                              4, 2, 3, 4, 2, 3])}
SUBSCRIPTS = [
    "a,a", "a,a->", "a,a->a", "a,b", "a,b,c", "aa", "aa->a", "aab,bc->ac", "aab,bcc->ac",
    "ab,ab,c->c", "ab,b", "abc,bad->abcd", "abcdef,bcdfg->abcdeg", "ba,b", "ba,b->",
    "baa->ba", "cij,cjk->cik", "defab,fedbc->defac", "ea,fb,abcd,gc,hd->efgh",
    "fdf,cdd,ccd,afe->ae", "fff,fae,bef,def->abd", "i,j,k->ijk", "i->", "ii->", "ii->i",
    "iii->", "iii->i", "iij->i", "iijkk->i", "iijkk->ik", "iijkl->il", "ij,ij,jk->ik",
    "ij,ij->", "ij,ik,il->jkl", "ij,j->i", "ij,jk", "ij,jk,kl->il", "ij,jkl,klm", "ij->",
    "ij->ij", "iji,i->j", "ijj,k->ik", "ijk,j->i", "ijk->j", "ijk->ki", "ijk->kij",
    "ijkl,ijml->ijkm", "nij,jk->nik", "ntk,kd,dc->nc", "sa,shb->shab",
]
ELLIPSES = {  # subscripts -> operand shapes
    "...ab->...a": [(2, 3, 4)], "...abc,...abcd->...d": [(2, 3, 4, 2), (3, 4, 2, 3)],
    "...ij,...j": [(2, 3, 4), (4,)], "...ijk->...ki": [(2, 2, 3, 4)], "...ijk->ki": [(2, 3, 4)],
    "a...a": [(3, 2, 3)], "a...a->a...": [(3, 2, 4, 3)], "ab...,b->ab...": [(2, 3, 4), (3,)],
    "ab...,bc...->ac...": [(2, 3, 4), (3, 2, 4)], "abc...->cba...": [(2, 3, 4, 2)],
    "ij...,jk...->ik...": [(2, 3, 1), (3, 4, 5)],
}


def _operands(subscripts, dtype):
    inputs = subscripts.split("->")[0].split(",")
    return [arg(tuple(SIZES[c] for c in term), dtype) for term in inputs]


def _einsum(subscripts, optimize=False):
    return lambda *ops: np.einsum(subscripts, *ops, optimize=optimize)


CASES = ([case(s, _einsum(s), *_operands(s, "f8")) for s in SUBSCRIPTS]
         + [case(f"{s}-int", _einsum(s), *_operands(s, "i4")) for s in SUBSCRIPTS[::3]]
         + [case(f"{s}-c8", _einsum(s), *_operands(s, "c8")) for s in SUBSCRIPTS[1::3]]
         + [case(f"{s}-{how}", _einsum(s, how), *_operands(s, "f8"))
            for s in ("ea,fb,abcd,gc,hd->efgh", "ij,jk,kl->il", "fdf,cdd,ccd,afe->ae")
            for how in ("greedy", "optimal", True)]
         + [case(s, _einsum(s), *(arg(shape) for shape in shapes))
            for s, shapes in ELLIPSES.items()])


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
