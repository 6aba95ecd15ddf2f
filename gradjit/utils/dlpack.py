"""torch.utils.dlpack: the DLPack exchange of gradjit/tensor/dlpack.py under PyTorch's name."""
from gradjit.tensor.dlpack import DLDeviceType, from_dlpack, to_dlpack  # noqa: F401
