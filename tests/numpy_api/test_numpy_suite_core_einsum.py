"""numpy's _core/tests/test_einsum.py scenarios: numpy's refusals of bad subscripts (too few
operands, subscripts beyond an operand's dimensions, bad ellipses and characters, output
labels repeated or absent from the inputs, mismatched collapsed dimensions), the optimize
comparisons (hadamard, index transformations, collapses, expansions, edge and random cases,
singleton broadcasting) with every optimize setting and explicit paths, sublist subscripts,
spaces, out= overlapping an operand, sums over every dtype; eager, compiled, differentiated."""
import itertools

import numpy as np

from tests.numpy_api.jax_suite import case, suite_tests

SIZES = dict(zip("abcdefghij", (2, 3, 4, 5, 2, 3, 4, 3, 2, 3)))
rng = np.random.default_rng(21)
OPTIMIZE = (False, True, "greedy", "optimal")


def _operands(subscripts):
    return [rng.standard_normal([SIZES[x] for x in term])
            for term in subscripts.split("->")[0].split(",")]


def _error_cases():
    pair, grid = np.array([0.0, 0.0]), np.arange(6.0).reshape(2, 3)
    out = []
    for opt in (False, True):
        out += [
            case(f"too-few-{opt}", lambda a, o=opt: np.einsum("", optimize=o), pair),
            case(f"operand-count-{opt}", lambda a, o=opt: np.einsum("", a, a, optimize=o),
                 np.array(0.0)),
            case(f"operand-count-comma-{opt}", lambda a, o=opt: np.einsum(",", a, optimize=o),
                 pair),
            case(f"subscripts-not-string-{opt}", lambda a, o=opt: np.einsum(0, a, optimize=o),
                 pair),
        ] + [case(f"bad-{s}-{opt}", lambda a, s=s, o=opt: np.einsum(s, a, optimize=o), x)
             for s, x in (("i", np.array(0.0)), ("ij", pair), ("...i", np.array(0.0)),
                          ("i...j", pair), ("i...", np.array(0.0)), ("ij...", pair),
                          ("i..", pair), (".i...", pair), ("j->..j", pair),
                          ("j->.j...", pair), ("i%...", pair), ("...j$", pair),
                          ("i->&", pair), ("i->ij", pair), ("ij->jij", grid[:, :2]),
                          ("ii", grid), ("ii->i", grid))]
        out.append(case(f"label-b-{opt}", lambda a, b, o=opt: np.einsum("aabcb,abc", a, b,
                                                                        optimize=o),
                        np.ones((3, 3, 4, 5, 6)), np.ones((3, 4, 5))))
    return out + [
        case("bad-order", lambda a: np.einsum("i", a, order="W"), pair),
        case("bad-casting", lambda a: np.einsum("i", a, casting="blah"), pair),
        case("bad-dtype", lambda a: np.einsum("i", a, dtype="bad_data_type"), pair),
        case("bad-keyword", lambda a: np.einsum("i", a, bad_arg=0), pair),
        case("bad-out", lambda a: np.einsum("i", a, out="test"), pair),
        case("dims-2d-for-i", lambda a: np.einsum("i", a), grid),
        case("dims-i-to-i", lambda a: np.einsum("i->i", a), grid),
        case("sublist-too-large", lambda a, b: np.einsum(a, [0, 52], b, [52, 2], [0, 2]),
             np.ones((2, 3)), np.ones((3, 4))),
        case("sublist-negative", lambda a, b: np.einsum(a, [-1, 5], b, [5, 2], [-1, 2]),
             np.ones((2, 3)), np.ones((3, 4))),
        case("path-invalid", lambda *m: np.einsum("ab,bc,cd,de->ae", *m, optimize=[
            "einsum_path", (2, 3), (0, 1)]), *_operands("ab,bc,cd,de")),
        case("path-invalid-trace", lambda *m: np.einsum("a,a,a->a", *m, optimize=[
            "einsum_path", (1,), (0, 1)]), *_operands("a,a,a")),
    ]


COMPARISONS = [
    "a,ab,abc->abc", "a,b,ab->ab", "ea,fb,gc,hd,abcd->efgh", "ea,fb,abcd,gc,hd->efgh",
    "abcd,ea,fb,gc,hd->efgh", "abhe,hidj,jgba,hiab,gab", "chd,bde,agbc,hiad,hgc,hgi,hiad",
    "bdhe,acad,hiab,agac,hibd", "ab,ab,c->", "ab,ab,c->c", "ab,ab,cd,cd->", "ab,ab,cd,cd->ac",
    "ab,ab,cd,cd,ef,ef->", "ab,cd,ef->abcdef", "ab,cd,ef->acdf", "ab,cd,de->abcde",
    "ab,cd,de->be", "ab,bcd,cd->abcd", "ab,bcd,cd->abd", "eb,cb,fb->cef", "dd,fb,be,cdb->cef",
    "bca,cdb,dbf,afc->", "dcc,fce,ea,dbf->ab", "fdf,cdd,ccd,afe->ae", "abcd,ad",
    "ed,fcd,ff,bcf->be", "baa,dcf,af,cde->be", "bd,db,eac->ace", "fff,fae,bef,def->abd",
    "efc,dbc,acf,fd->abe", "ba,ac,da->bcd", "ab,ab", "ab,ba", "abc,abc", "abc,bac", "abc,cba",
    "aab,fa,df,ecc->bde", "ecb,fef,bad,ed->ac", "bcf,bbb,fbf,fc->", "bb,ff,be->e",
    "bcb,bb,fc,fff->", "fbb,dfd,fc,fc->", "afd,ba,cc,dc->bf", "adb,bc,fa,cfc->d",
    "bbd,bda,fc,db->acf", "dba,ead,cad->bce", "aef,fbc,dca->bde",
]
SINGLETONS = [
    ("ijp,ipq,ikq->ijk", ((3, 1, 1), (3, 1, 3), (1, 3, 3))),
    ("jhcabhijaci,dfijejgh->fgje", ((1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1), (3, 1, 3, 1, 1, 1, 1, 2))),
    ("baegffahgc,hdggeff->dhg", ((2, 1, 4, 1, 1, 1, 1, 2, 1, 1), (1, 1, 1, 1, 4, 1, 1))),
    ("gah,cdbcghefg->ef", ((2, 3, 1), (1, 3, 1, 1, 1, 2, 1, 4, 1))),
    ("cacc,bcb->", ((1, 1, 1, 1), (1, 4, 1))),
]


def _comparison_cases():
    out = []
    for subscripts in COMPARISONS:
        operands = _operands(subscripts)
        for opt in OPTIMIZE:
            out.append(case(f"{subscripts}-{opt}", lambda *m, s=subscripts, o=opt:
                            np.einsum(s, *m, optimize=o), *operands))
    for subscripts, shapes in SINGLETONS:
        operands = [rng.standard_normal(s) for s in shapes]
        for opt in OPTIMIZE:
            out.append(case(f"singleton-{subscripts}-{opt}", lambda *m, s=subscripts, o=opt:
                            np.einsum(s, *m, optimize=o), *operands))
    return out


def _misc_cases():
    out = [
        case("ellipsis-broadcast", lambda a, b: np.einsum("ij...,j...->i...", a, b),
             np.ones((1, 2)), np.ones((2, 2, 1))),
        case("ellipsis-dot", lambda a, b: np.einsum("...i,...i", a, b, optimize="greedy"),
             np.array([1.0, 2, 3]), np.array([2.0, 3, 4])),
        case("buffered-reduction", lambda a, b: (np.einsum("ijklm,ijn,ijn->", a, b, b),
                                                 np.einsum("ijklm,ijn->", a, b, optimize=True)),
             np.ones((5, 12, 4, 2, 3), np.int64), np.ones((5, 12, 11), np.int64)),
        case("three-operand-loop", lambda a, b, c: np.einsum("x,yx,zx->xzy", a, b, c),
             np.arange(1, 3), np.arange(1, 5).reshape(2, 2), np.arange(1, 9).reshape(4, 2)),
        case("out-none", lambda a, b: np.einsum("i,j", a, b, out=None), np.array([1.0]),
             np.array([2.0])),
        case("0d-out", lambda a, o: (np.einsum("i,i->", a, a, out=o, optimize="optimal"), o),
             np.ones(7), np.array(0.0)),
        case("sublists", lambda a, b: [np.einsum(a, [0, k], b, [k, 2], [0, 2])
                                       for k in (20, 27, 51)], np.ones((2, 3)), np.ones((3, 4))),
        case("sublist-ellipsis", lambda a, b: np.einsum(a, [Ellipsis, 0], b, [Ellipsis, 0],
                                                        [Ellipsis]), np.ones((2, 3)),
             rng.standard_normal((2, 3))),
        case("small-bool", lambda a: np.einsum("...ij,...jk->...ik", a, a),
             np.ones((2, 1, 1), bool)),
        case("bool-out", lambda a, o: (np.einsum("...ij,...jk->...ik", a, a, out=o), o),
             np.ones((2, 1, 1), bool), np.zeros((2, 1, 1), bool)),
        case("out-is-operand", lambda a: np.einsum("...ij,...jk->...ik", a, a, out=a),
             np.arange(9.0).reshape(3, 3)),
        case("overlap", lambda a, b: (np.einsum("ij,jk->ik", a, b, out=b), b),
             np.arange(9.0).reshape(3, 3), np.arange(9.0).reshape(3, 3) / 2),
        case("path-explicit", lambda *m: np.einsum("dcc,fce,ea,dbf->ab", *m, optimize=[
            "einsum_path", (0, 2), (0, 2), (0, 1)]), *_operands("dcc,fce,ea,dbf")),
        case("path-internal-trace", lambda *m: np.einsum("cab,cdd->ab", *m, optimize=[
            "einsum_path", (1,), (0, 1)]), *_operands("cab,cdd")),
        case("sorting-26", lambda a: np.einsum(a, list(range(26))), rng.random((1,) * 26)),
        case("fixed-stride", lambda a, b: np.einsum("ijk,kl->jl", a, b),
             np.arange(27.0).reshape(3, 3, 3), np.arange(9.0).reshape(3, 3)),
        case("collapsing", lambda a: np.einsum("ii->i", a), np.arange(9.0).reshape(3, 3)),
        case("non-contiguous-out", lambda a, b: np.einsum("ij,jk->ki", a, b),
             rng.standard_normal((4, 3)), rng.standard_normal((3, 5))),
    ]
    for spaces in itertools.product(("", " "), repeat=4):
        out.append(case(f"spaces-{''.join('s' if x else '_' for x in spaces)}",
                        lambda a, s=spaces: np.einsum("{}...a{}->{}...a{}".format(*s), a),
                        np.array([[1.0]])))
    for dtype in ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8",
                  "c16"):
        a = np.arange(12).reshape(3, 4).astype(dtype)
        b = np.arange(4).astype(dtype)
        out += [
            case(f"sums-{dtype}", lambda a, b: (np.einsum("ij->i", a), np.einsum("ij->", a),
                                                np.einsum("ij,j->i", a, b),
                                                np.einsum("i,i", b, b), np.einsum("ii", a[:, :3]),
                                                np.einsum("ij->ji", a), np.einsum(",i->i", b[0],
                                                                                  b)), a, b),
            case(f"sums-dtype-{dtype}", lambda a: np.einsum("ij->i", a, dtype="f8",
                                                            casting="unsafe"), a),
        ]
    return out


# out= an operand: numpy's own call (the central differences) writes into the argument
CASES = [c._replace(grad=()) if c.name in ("out-is-operand", "overlap") else c
         for c in _error_cases() + _comparison_cases() + _misc_cases()]


test_eager, test_jit, test_grad = suite_tests(CASES)
