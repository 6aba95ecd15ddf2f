"""The import lines of pytorch/examples programs (dcgan's `import torch.backends.cudnn as
cudnn`, `import torch.nn.parallel`) run in a fresh interpreter as they do with torch."""
import os
import subprocess
import sys

import pytest

import gradjit

_IMPORTS = ["import {t}.backends.cudnn as cudnn; cudnn.benchmark = True; "
            "print(cudnn.benchmark, cudnn.is_available())",
            "import {t}.backends.mps; print({t}.backends.mps.is_available())",
            "from {t}.backends import cudnn; print(cudnn.deterministic)"]


@pytest.mark.parametrize("line", _IMPORTS)
def test_backend_flag_modules_import_as_torchs(line):
    root = os.path.dirname(os.path.dirname(os.path.abspath(gradjit.__file__)))
    runs = [subprocess.run([sys.executable, "-c", line.format(t=t)], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONPATH=root), timeout=120)
            for t in ("torch", "gradjit")]
    assert runs[1].returncode == 0, runs[1].stderr
    assert runs[0].stdout == runs[1].stdout
