"""PyTorch's named-tuple return suite (test_namedtuple_return_api.py) side by side with torch:
each operation that returns torch.return_types.* gives the kind, the field names and the
values torch does, positionally and by name; out= tuples come back as the kind, holding the
given tensors; the results pickle and copy."""
import copy
import pickle

import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

A = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.5, 0.25, 4.0]])
SCENARIOS = scenario = Scenarios()
CALLS = {
    "max": lambda L, a: a.max(0), "max_keepdim": lambda L, a: L.max(a, 1, keepdim=True),
    "min": lambda L, a: L.min(a, 0), "median": lambda L, a: a.median(0),
    "nanmedian": lambda L, a: L.nanmedian(a, 1), "mode": lambda L, a: L.mode(a, 0),
    "kthvalue": lambda L, a: a.kthvalue(2, 0), "sort": lambda L, a: L.sort(a, 0),
    "sort_stable": lambda L, a: a.sort(stable=True), "topk": lambda L, a: a.topk(2),
    "topk_smallest": lambda L, a: L.topk(a, 1, 0, largest=False),
    "cummax": lambda L, a: L.cummax(a, 0), "cummin": lambda L, a: a.cummin(1),
    "aminmax": lambda L, a: L.aminmax(a), "aminmax_dim": lambda L, a: a.aminmax(dim=0),
    "frexp": lambda L, a: L.frexp(a), "frexp_method": lambda L, a: a.frexp(),
    "slogdet": lambda L, a: L.slogdet(a), "linalg_slogdet": lambda L, a: L.linalg.slogdet(a),
    "qr": lambda L, a: L.qr(a), "linalg_qr": lambda L, a: L.linalg.qr(a),
    "geqrf": lambda L, a: L.geqrf(a), "svd": lambda L, a: L.svd(a),
    "linalg_svd": lambda L, a: L.linalg.svd(a), "linalg_eigh": lambda L, a: L.linalg.eigh(a @ a.T),
    "linalg_inv_ex": lambda L, a: L.linalg.inv_ex(a),
    "linalg_cholesky_ex": lambda L, a: L.linalg.cholesky_ex(a @ a.T + L.eye(3, dtype=a.dtype)),
    "linalg_lu_factor": lambda L, a: L.linalg.lu_factor(a),
    "linalg_lu_factor_ex": lambda L, a: L.linalg.lu_factor_ex(a, pivot=True),
    "linalg_lu": lambda L, a: L.linalg.lu(a),
    "lu_unpack": lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)),
    "linalg_ldl_factor": lambda L, a: L.linalg.ldl_factor(a @ a.T),
    "linalg_ldl_factor_ex": lambda L, a: L.linalg.ldl_factor_ex(a @ a.T),
    "linalg_solve_ex": lambda L, a: L.linalg.solve_ex(a, a),
    "linalg_lstsq": lambda L, a: L.linalg.lstsq(a, a),
    "triangular_solve": lambda L, a: L.triangular_solve(a, a.triu()),
    "histogram": lambda L, a: L.histogram(a, 4), "histogram_method": lambda L, a: a.histogram(3),
}


def named_result(name, call):
    """The kind, field names and values of call's result, and each field read by name."""
    def run(lib):
        result = call(lib, lib.tensor(A))
        names = type(result).__match_args__
        return (type(result).__name__, names, len(result), list(result),
                [getattr(result, n) for n in names], isinstance(result, tuple))
    run.__name__ = name
    scenario(run)


for _name, _call in CALLS.items():
    named_result(_name, _call)


@scenario
def linalg_eig(lib):
    values, vectors = lib.linalg.eig(lib.tensor(A))
    result = lib.linalg.eig(lib.tensor(A))
    return type(result).__name__, type(result).__match_args__, values.abs().sort().values


@scenario
def max_out_tuple(lib):
    values, indices = lib.empty(3), lib.empty(3, dtype=lib.long)
    result = lib.max(lib.tensor(A), 0, out=(values, indices))
    return type(result).__name__, result.values is values, result.indices is indices, values


@scenario
def sort_out_tuple(lib):
    values, indices = lib.empty(3, 3), lib.empty(3, 3, dtype=lib.long)
    result = lib.sort(lib.tensor(A), 1, out=(values, indices))
    return type(result).__name__, result.values is values, values, indices


@scenario
def results_pickle_and_copy(lib):
    result = lib.tensor(A).max(0)
    again = pickle.loads(pickle.dumps(result))
    return (type(again).__name__, again.values, again.indices, type(copy.deepcopy(result)).__name__,
            copy.copy(result).indices)


@scenario
def results_are_tuples(lib):
    result = lib.tensor([1.0, 3.0]).max(0)
    first, second = result
    return result == (first, second), result.count(first), result.index(second), result[-1]


@scenario
def results_print(lib):
    return (repr(lib.tensor([1.0, 3.0]).max(0)), repr(lib.tensor([[1.0, 3.0]]).sort(1)),
            repr(type(lib.tensor([1.0]).min(0))).rpartition(".")[2])


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_named_result_matches_torch(name):
    check(SCENARIOS[name])
