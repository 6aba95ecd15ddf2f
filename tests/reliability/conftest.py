import pytest


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    """Compile afresh: tests must not read (or leave) object code in the user's cache."""
    monkeypatch.setenv("GRADJIT_CACHE_DIR", "off")
