"""Tests marked slow run only when asked for (`-m slow`); the default run keeps their fast
variants. No test reads or writes the user's compile cache or cache key."""
import os
import shutil
import sys
import tempfile

import pytest

_HOME = tempfile.mkdtemp(prefix="gradjit-tests-")


def pytest_configure(config):
    """Before anything compiles (module-scoped fixtures and subprocesses included): no disk
    cache by default, and the XDG directories a test falls back on are this run's own."""
    os.environ["GRADJIT_CACHE_DIR"] = "off"
    os.environ["XDG_CACHE_HOME"] = os.path.join(_HOME, "cache")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")


def pytest_unconfigure(config):
    shutil.rmtree(_HOME, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    """Compile afresh: tests choose a cache directory explicitly, none reads or leaves object
    code in the user's cache."""
    monkeypatch.setenv("GRADJIT_CACHE_DIR", "off")


@pytest.fixture(autouse=True, scope="module")
def torch_distribution_checks_kept():
    """torch.compile (and torch.cond, which compiles) turns torch.distributions' argument
    checks off for the whole process on first use; later tests compare errors with them on."""
    yield
    if "torch" in sys.modules:
        sys.modules["torch"].distributions.Distribution.set_default_validate_args(True)
