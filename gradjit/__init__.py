# The compiler's transformations (gradjit/tracer).
from gradjit.tracer import explain, grad, jit, stop_gradient, value_and_grad  # noqa: E402,F401
