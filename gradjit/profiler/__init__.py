"""torch.profiler: time the eager operations of a program (named as PyTorch's aten operators)
and the user's ranges in it, summarized as PyTorch's tables and Chrome traces."""
from gradjit.profiler.profiler import (ProfilerAction, ProfilerActivity, profile,  # noqa: F401
                                       schedule, supported_activities,
                                       tensorboard_trace_handler)
from gradjit.profiler.session import record_function  # noqa: F401

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "record_function"]
