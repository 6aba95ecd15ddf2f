"""torch.nn.utils: helpers around modules."""
from gradjit.nn.utils import rnn  # noqa: F401
