"""README's table of the supported numpy names is the one the dispatch tables give
(`python -m tests.numpy_api.test_surface_table` rewrites it)."""
import re
import sys
from pathlib import Path

import numpy as np

from gradjit.ops.numpy_api import FUNCTIONS, UFUNCS, numpy_name, surface_table, ufuncs
from gradjit.tracer.constructors import NAMES

README = Path(__file__).parents[2] / "README.md"
SECTION = re.compile(r"(<!-- numpy-surface -->\n)(.*?)(\n<!-- /numpy-surface -->)", re.S)


def table() -> str:
    scipy = [f"scipy.special.{name}" for name in ufuncs.SCIPY]
    return surface_table({"Array construction": NAMES,
                          "scipy.special (once the program imports it)": scipy})


def test_readme_table_is_in_step_with_the_code():
    found = SECTION.search(README.read_text())
    assert found, "README.md lacks the <!-- numpy-surface --> section"
    assert found.group(2) == table(), "README's numpy table is stale: run " \
        "python -m tests.numpy_api.test_surface_table"


def test_every_listed_name_is_numpy_own():
    """Each table key is the numpy object its printed name reaches (np.linalg.inv is
    numpy.linalg.inv), so the README names what a user writes."""
    for func in list(FUNCTIONS) + list(UFUNCS):
        obj = np
        for part in numpy_name(func).split(".")[1:]:
            obj = getattr(obj, part)
        assert obj is func, numpy_name(func)


if __name__ == "__main__" and sys.argv[1:] == []:
    text = README.read_text()
    README.write_text(SECTION.sub(lambda m: m.group(1) + table() + m.group(3), text))
