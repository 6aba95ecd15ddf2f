"""Attributes swapped for a while (a profile's timing wrappers, a trace's Proxy-aware functions)
and put back as they were: an attribute that was inherited or absent is removed again."""
from __future__ import annotations

_ABSENT = object()


class Patches:
    def __init__(self):
        self._saved: list = []  # (namespace dict or owner, name, what was there) in order

    def __bool__(self):
        return bool(self._saved)

    def set(self, owner, name, value) -> None:
        """owner.name = value (owner a dict: owner[name] = value) until restore()."""
        if isinstance(owner, dict):
            self._saved.append((owner, name, owner.get(name, _ABSENT)))
            owner[name] = value
        else:
            self._saved.append((owner, name, vars(owner).get(name, _ABSENT)))
            setattr(owner, name, value)

    def restore(self) -> None:
        while self._saved:
            owner, name, original = self._saved.pop()
            if isinstance(owner, dict):
                if original is _ABSENT:
                    owner.pop(name, None)
                else:
                    owner[name] = original
            elif original is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
