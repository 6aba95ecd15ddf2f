"""torch.onnx's surface that programs touch without exporting (word_language_model imports it
and exports only on request): export needs onnxscript, as PyTorch's exporter does, and gradjit
has no ONNX exporter behind it."""


def is_in_onnx_export() -> bool:
    return False


def export(model, args=(), f=None, **kwargs):
    import onnxscript  # noqa: F401  (absent: the ModuleNotFoundError PyTorch's export raises)
    raise NotImplementedError("torch.onnx.export: gradjit has no ONNX exporter; save the "
                              "model's state_dict with torch.save, or export it with PyTorch")
