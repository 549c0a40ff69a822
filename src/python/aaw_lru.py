"""A bounded map that forgets the least recently used entry first.

Every cache of the Python half that is not bounded by bytes (parsed def headers, rendered
signatures, parsed import statements, packaging roots, checked bodies) is one of these: a daemon
runs for months, and each keeps only the entries that versions of a file still share.
Pure standard library, Python 3.9+.
"""

from collections import OrderedDict


class Lru:
    __slots__ = ("limit", "_entries")

    def __init__(self, limit: int):
        self.limit = limit
        self._entries = OrderedDict()

    def get(self, key):
        """The value kept under `key` (now the most recently used), or None."""
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key, value) -> None:
        """Keeps `value` under `key`, forgetting the least recently used entry past the limit."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.limit:
            self._entries.popitem(last=False)

    def remember(self, key, make):
        """The value kept under `key`, else make(key), kept. A None from make is not kept."""
        value = self.get(key)
        if value is None:
            value = make(key)
            if value is not None:
                self.put(key, value)
        return value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
