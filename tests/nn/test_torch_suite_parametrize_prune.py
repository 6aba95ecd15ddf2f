"""nn.utils.parametrize and nn.utils.prune as PyTorch's own nn tests exercise them
(test_parametrization.py, test_pruning.py): registering, chaining, inverting, removing,
copying and their errors; pruning methods, iterative and global pruning; each scenario run in
gradjit and torch and compared."""
import copy
import pickle

import pytest

from tests.nn.helpers import same_outcome

pytest.importorskip("torch.nn.utils.prune")  # torch imports the submodule only when asked


def linear(t):
    t.manual_seed(0)
    return t.nn.Linear(3, 3)


def parametrizations(t):
    """Parametrization modules by name, defined in library `t`."""
    class Skew(t.nn.Module):
        def forward(self, x):
            x = x.tril(-1)
            return x - x.T

    class Resize(t.nn.Module):
        def forward(self, x):
            return x[[0]]

    class Double(t.nn.Module):
        def forward(self, x):
            return x * 2

        def right_inverse(self, x):
            return x / 2

    class Split(t.nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, x):
            return x, t.zeros_like(x)

    class ToLong(t.nn.Module):
        def forward(self, x):
            return x

        def right_inverse(self, x):
            return x.long()

    class RowInverse(t.nn.Module):
        def forward(self, x):
            return x

        def right_inverse(self, x):
            return x[0]

    class ToDouble(t.nn.Module):
        def forward(self, x):
            return x.double()

    class NoInverse(t.nn.Module):
        def forward(self, x):
            return x

        def right_inverse(self, x):
            raise NotImplementedError

    class NotATensor(t.nn.Module):
        def forward(self, x):
            return 3

    class InverseNotATensor(t.nn.Module):
        def forward(self, x):
            return x

        def right_inverse(self, x):
            return 3

    class InverseListOfInt(t.nn.Module):
        def forward(self, x):
            return x

        def right_inverse(self, x):
            return [3]
    return {cls.__name__: cls for cls in (Skew, Resize, Double, Split, ToLong, RowInverse,
                                          ToDouble, NoInverse, NotATensor, InverseNotATensor,
                                          InverseListOfInt)}


def register(t, name, tensor="weight", module=None, **options):
    module = linear(t) if module is None else module
    parametrization = parametrizations(t)[name]()
    return t.nn.utils.parametrize.register_parametrization(module, tensor, parametrization,
                                                           **options)


def described(module):
    return (module.weight, repr(module), list(module.state_dict()), type(module).__name__,
            [n for n, _ in module.named_parameters()])


def removed(t, name, leave_parametrized):
    module = register(t, name)
    t.nn.utils.parametrize.remove_parametrizations(module, "weight", leave_parametrized)
    return described(module), hasattr(module, "parametrizations")


def with_buffer(t):
    module = linear(t)
    module.register_buffer("table", t.ones(3, 3))
    register(t, "Skew", tensor="table", module=module)
    return module.table, list(module.state_dict()), [n for n, _ in module.named_buffers()]


def assigned(t, name):
    module = register(t, name)
    module.weight = t.ones(3, 3)
    return [v for _, v in module.parametrizations.weight.named_parameters()], module.weight


def cached(t):
    module = register(t, "Double")
    with t.nn.utils.parametrize.cached():
        inside = module.weight is module.weight
    return inside, module.weight is module.weight


def gradients(t):
    module = register(t, "Skew")
    module(t.ones(2, 3)).sum().backward()
    return module.parametrizations.weight.original.grad, module.bias.grad


def deepcopied(t):
    module = register(t, "Double")
    clone = copy.deepcopy(module)
    return (described(clone), clone.parametrizations.weight.original is
            module.parametrizations.weight.original)


def transferred(t):
    target = t.nn.Linear(3, 3)
    t.nn.utils.parametrize.transfer_parametrizations_and_params(register(t, "Double"), target)
    return described(target)


def appended(t, name, **options):
    module = register(t, "Double")
    register(t, name, module=module, **options)
    return module.weight, module.parametrizations.weight.unsafe


def first(t, name):
    return register(t, name)


PARAMETRIZE = {
    "skew": lambda t: described(register(t, "Skew")),
    "double_and_its_original": lambda t: (described(register(t, "Double")),
                                          register(t, "Double").parametrizations.weight.original),
    "split_original": lambda t: described(register(t, "Split")),
    "resize_refused": lambda t: register(t, "Resize"),
    "resize_unsafe": lambda t: register(t, "Resize", unsafe=True).weight,
    "inverse_changes_dtype": lambda t: register(t, "ToLong"),
    "inverse_changes_shape": lambda t: register(t, "RowInverse"),
    "missing_tensor": lambda t: register(t, "Skew", tensor="nothing"),
    "attribute_not_a_tensor": lambda t: (lambda m: (setattr(m, "scale", 3), register(
        t, "Skew", tensor="scale", module=m)))(linear(t)),
    "buffer": with_buffer,
    "remove_leaving_the_original": lambda t: removed(t, "Double", False),
    "remove_leaving_the_value": lambda t: removed(t, "Double", True),
    "remove_split_leaving_the_value": lambda t: removed(t, "Split", True),
    "remove_split_leaving_the_original": lambda t: removed(t, "Split", False),
    "remove_unparametrized": lambda t: t.nn.utils.parametrize.remove_parametrizations(
        linear(t), "weight"),
    "remove_other_tensor": lambda t: t.nn.utils.parametrize.remove_parametrizations(
        register(t, "Skew"), "bias"),
    "is_parametrized": lambda t: (lambda m: [t.nn.utils.parametrize.is_parametrized(m, *n)
                                             for n in ((), ("weight",), ("bias",))])(
        register(t, "Skew")),
    "type_before_parametrizations": lambda t: t.nn.utils.parametrize.
    type_before_parametrizations(register(t, "Skew")).__name__,
    "assign_through_right_inverse": lambda t: assigned(t, "Double"),
    "assign_split": lambda t: assigned(t, "Split"),
    "assign_without_inverse": lambda t: assigned(t, "NoInverse"),
    "two_tensors_parametrized": lambda t: described(register(t, "Double",
                                                             module=register(t, "Skew"))),
    "cached": cached,
    "gradients": gradients,
    "deepcopy": deepcopied,
    "pickle_refused": lambda t: pickle.dumps(register(t, "Double")),
    "load_state_dict": lambda t: (lambda m: (m.load_state_dict(register(t, "Double")
                                                               .state_dict()), m.weight))(
        register(t, "Double")),
    "double": lambda t: register(t, "Double").double().weight,
    "transfer": transferred,
    "sequential_parametrization": lambda t: t.nn.utils.parametrize.register_parametrization(
        linear(t), "weight", t.nn.Sequential(parametrizations(t)["Double"](),
                                             parametrizations(t)["Skew"]())).weight,
    "empty_list": lambda t: t.nn.utils.parametrize.ParametrizationList([], t.ones(1)),
    "follows_training_mode": lambda t: (lambda m: register(t, "Skew", module=m)
                                        .parametrizations.weight[0].training)(linear(t).eval()),
    **{f"append_{name}": (lambda t, name=name: appended(t, name))
       for name in ("Skew", "ToDouble", "Resize", "RowInverse", "NoInverse", "NotATensor",
                    "InverseNotATensor")},
    **{f"append_unsafe_{name}": (lambda t, name=name: appended(t, name, unsafe=True))
       for name in ("ToDouble", "Resize")},
    **{f"first_{name}": (lambda t, name=name: first(t, name))
       for name in ("NotATensor", "InverseNotATensor", "InverseListOfInt", "ToDouble")},
}


def prune(t):
    return t.nn.utils.prune


def pruning_state(module):
    return ([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()],
            module.weight, len(module._forward_pre_hooks))


def dense(t):
    t.manual_seed(0)
    return t.nn.Linear(4, 3)


def conv(t):
    t.manual_seed(0)
    return t.nn.Conv2d(2, 3, 2)


def pruned(t, method, module, *args, **kwargs):
    t.manual_seed(1)
    return pruning_state(getattr(prune(t), method)(module, *args, **kwargs))


def twice(t, first_step, second_step):
    module = dense(t)
    first_step(module)
    second_step(module)
    return pruning_state(module), type(next(iter(module._forward_pre_hooks.values()))).__name__


def global_pruning(t, amount, names=("weight", "weight")):
    a, b = dense(t), conv(t)
    prune(t).global_unstructured([(a, names[0]), (b, names[1])],
                                 pruning_method=prune(t).L1Unstructured, amount=amount)
    return getattr(a, names[0]), getattr(b, names[1])


def pruned_gradient(t):
    module = dense(t)
    prune(t).l1_unstructured(module, "weight", 0.5)
    module(t.ones(2, 4)).sum().backward()
    return module.weight_orig.grad


PRUNE = {
    "random_unstructured": lambda t: pruned(t, "random_unstructured", dense(t), "weight", 0.5),
    "random_unstructured_count": lambda t: pruned(t, "random_unstructured", dense(t), "weight",
                                                  3),
    "l1_unstructured": lambda t: pruned(t, "l1_unstructured", dense(t), "weight", 0.5),
    "l1_unstructured_scores": lambda t: pruned(t, "l1_unstructured", dense(t), "weight", 4,
                                               importance_scores=t.arange(12.0).reshape(3, 4)),
    "l1_unstructured_nothing": lambda t: pruned(t, "l1_unstructured", dense(t), "weight", 0),
    "amount_above_one": lambda t: pruned(t, "l1_unstructured", dense(t), "weight", 1.5),
    "amount_negative": lambda t: pruned(t, "l1_unstructured", dense(t), "weight", -1),
    "amount_above_size": lambda t: pruned(t, "l1_unstructured", dense(t), "weight", 20),
    "amount_not_a_number": lambda t: pruned(t, "l1_unstructured", dense(t), "weight", "a"),
    "random_structured": lambda t: pruned(t, "random_structured", dense(t), "weight", 0.5,
                                          dim=0),
    "ln_structured": lambda t: pruned(t, "ln_structured", conv(t), "weight", 0.5, n=2, dim=0),
    "ln_structured_inf": lambda t: pruned(t, "ln_structured", conv(t), "weight", 1,
                                          n=float("inf"), dim=1),
    "ln_structured_minus_inf": lambda t: pruned(t, "ln_structured", conv(t), "weight", 1,
                                                n=float("-inf"), dim=-1),
    "ln_structured_vector": lambda t: pruned(t, "ln_structured", dense(t), "bias", 1, n=1,
                                             dim=0),
    "identity": lambda t: pruned(t, "identity", dense(t), "bias"),
    "custom_from_mask": lambda t: pruned(t, "custom_from_mask", dense(t), "bias",
                                         t.tensor([0, 1, 1])),
    "custom_from_mask_wrong_shape": lambda t: pruned(t, "custom_from_mask", dense(t), "bias",
                                                     t.ones(4)),
    "iterative": lambda t: twice(t, lambda m: prune(t).l1_unstructured(m, "weight", 0.25),
                                 lambda m: prune(t).l1_unstructured(m, "weight", 0.5)),
    "iterative_structured_then_not": lambda t: twice(
        t, lambda m: prune(t).ln_structured(m, "weight", 1, n=2, dim=0),
        lambda m: prune(t).l1_unstructured(m, "weight", 0.5)),
    "remove": lambda t: twice(t, lambda m: prune(t).l1_unstructured(m, "weight", 0.5),
                              lambda m: prune(t).remove(m, "weight")),
    "remove_unpruned": lambda t: prune(t).remove(dense(t), "weight"),
    "is_pruned": lambda t: (lambda m: (prune(t).is_pruned(m), prune(t).identity(m, "bias"),
                                       prune(t).is_pruned(m))[::2])(dense(t)),
    "global": lambda t: global_pruning(t, 0.5),
    "global_count": lambda t: global_pruning(t, 5, ("weight", "bias")),
    "global_structured_method": lambda t: prune(t).global_unstructured(
        [(dense(t), "weight")], pruning_method=prune(t).LnStructured, amount=1),
    "global_not_iterable": lambda t: prune(t).global_unstructured(
        3, pruning_method=prune(t).L1Unstructured, amount=1),
    "gradient": pruned_gradient,
    "state_dict": lambda t: list(prune(t).l1_unstructured(dense(t), "weight", 0.5)
                                 .state_dict()),
    "compute_mask": lambda t: prune(t).L1Unstructured(0.5).compute_mask(
        t.arange(6.0).reshape(2, 3), t.ones(2, 3)),
}

SCENARIOS = {**{f"parametrize_{k}": v for k, v in PARAMETRIZE.items()},
             **{f"prune_{k}": v for k, v in PRUNE.items()}}


@pytest.mark.parametrize("name", SCENARIOS)
def test_parametrize_and_prune_match_torch(name):
    same_outcome(SCENARIOS[name], rtol=1e-5, atol=1e-6)
