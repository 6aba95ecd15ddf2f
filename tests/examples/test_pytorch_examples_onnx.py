"""word_language_model imports torch.onnx and exports only on request: the import and
is_in_onnx_export answer as torch's; export without onnxscript fails as torch's does."""
import importlib.util
import sys
import types

import pytest
import torch
import torch.onnx

import gradjit
import gradjit.onnx
from tests.torch_reference import same_error


def test_onnx_imports_and_is_not_exporting():
    assert gradjit.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    assert gradjit.onnx is sys.modules["gradjit.onnx"]


@pytest.mark.skipif(importlib.util.find_spec("onnxscript") is not None,
                    reason="torch exports where onnxscript is installed")
def test_export_without_onnxscript_fails_as_torchs(tmp_path):
    path = str(tmp_path / "model.onnx")
    same_error(lambda: gradjit.onnx.export(gradjit.nn.Linear(2, 2), (gradjit.ones(1, 2),), path),
               lambda: torch.onnx.export(torch.nn.Linear(2, 2), (torch.ones(1, 2),), path))


def test_export_says_there_is_no_exporter(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "onnxscript", types.ModuleType("onnxscript"))
    with pytest.raises(NotImplementedError, match="no ONNX exporter"):
        gradjit.onnx.export(gradjit.nn.Linear(2, 2), (gradjit.ones(1, 2),),
                            str(tmp_path / "model.onnx"))
