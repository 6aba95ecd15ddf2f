"""torch.return_types: the named tuples of (values, indices) and of the factorizations, one
class per kind, printed as PyTorch prints them."""
import collections
import functools


@functools.cache
def return_type(kind, fields=("values", "indices")):
    """The class torch.return_types.<kind>; one per kind, so a compiled call, which rebuilds
    its result from the class, returns the kind the eager call does."""
    def __repr__(self):
        items = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{kind}(\n{items})"
    def __reduce__(self):  # the class is made on demand, so pickle rebuilds it by its kind
        return rebuild, (kind, fields, tuple(self))
    return type(kind, (collections.namedtuple(kind, fields),), {
        "__repr__": __repr__, "__reduce__": __reduce__, "__slots__": ()})


def rebuild(kind, fields, values):
    """An unpickled result: its kind's class made again from its values."""
    return return_type(kind, fields)(*values)
