import pytest


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    """Tests choose their cache directory explicitly; none touches the user's."""
    monkeypatch.setenv("GRADJIT_CACHE_DIR", "off")
