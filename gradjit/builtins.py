"""autograd.builtins: tuple, list, dict, isinstance and type. gradjit traces Python's own
containers (a tuple of traced values is a tuple), so these are Python's builtins."""
from builtins import dict, isinstance, list, tuple, type  # noqa: F401
