"""torch.fx.passes: analyses and rewrites of GraphModules."""
from gradjit.fx.passes import shape_prop  # noqa: F401
