"""A tree of small text files in a temporary directory, for the tests of the repository checks."""

import pathlib
import tempfile
import unittest


def file_tree(test: unittest.TestCase, files: dict[str, str]) -> pathlib.Path:
    """Writes {relative path: text} under a temporary directory removed when `test` ends; its root."""
    root = pathlib.Path(test.enterContext(tempfile.TemporaryDirectory()))
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root
