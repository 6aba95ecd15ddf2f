"""Tests marked slow run only when asked for (`-m slow`); the default run keeps their fast
variants."""
import pytest


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
