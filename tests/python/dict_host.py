"""A host for the static resolver backed by a dict of files, as the C++ side's SourceTree is by a
commit: find_blob(path) -> blob id or None, is_directory(path) -> bool, read_blob(blob) -> text.
Blob ids are content hashes, so two trees sharing a file share its blob (and its cached summary).
It counts reads, so tests can see what was parsed."""

import hashlib


class DictHost:
    def __init__(self, files=None):
        self.files = {}
        self.objects = {}  # every text ever written, by blob id: git keeps old versions' blobs
        self.reads = []
        self.failing = set()  # paths whose lookup raises, as a missing git object does
        self.links = {}  # path -> the path a symbolic link there points to (its text)
        for path, text in (files or {}).items():
            self.write(path, text)

    def write(self, path, text):
        self.files[path] = text
        self.objects[self.blob_id(text)] = text

    def remove(self, path):
        del self.files[path]

    @staticmethod
    def blob_id(text):
        return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()

    def find_blob(self, path):
        if path in self.failing:
            raise OSError("object missing for '%s'" % path)
        if path in self.links:
            return {"link": self.blob_id(self.links[path])}
        text = self.files.get(path)
        return None if text is None else self.blob_id(text)

    def is_directory(self, path):
        if path in self.links:
            return {"link": self.blob_id(self.links[path])}
        prefix = path.rstrip("/") + "/"
        return any(name.startswith(prefix) for name in self.files)

    def read_blob(self, blob):
        self.reads.append(blob)
        if blob in self.objects:
            return self.objects[blob]
        for text in self.files.values():
            if self.blob_id(text) == blob:
                return text
        raise KeyError(blob)
