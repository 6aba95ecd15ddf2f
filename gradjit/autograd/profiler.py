"""torch.autograd.profiler: the profiler's older names."""
from gradjit.profiler.events import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401
from gradjit.profiler.session import profile, record_function  # noqa: F401
