"""Module summaries by blob id, cached: an unchanged file is never parsed twice.

A summary (aaw_model.Scope, or ParseFailure when the text does not parse) is made by aaw_collector
from the module's text, or from its skeleton (function bodies blanked line for line by the C++ side,
src/extract/static/python_skeleton.cpp), or adopted pickled from the process that parses ahead. One
SummaryCache owns the summaries, the bodies and headers known to parse, and the counts of what
parsing cost; the module-level functions are those of the cache the process uses.
Pure standard library, Python 3.9+.
"""

import ast
import gc
import pickle
from collections import OrderedDict
from typing import Optional, Union

import aaw_digest
import aaw_lru
import aaw_model
from aaw_collector import BodyNeeded, summarize
from aaw_model import ParseFailure, Scope
from aaw_nodes import body_facts, first_positional, text_hints

# The cache is bounded by an estimate of the bytes its summaries hold: about this many times the
# source text they were made from (docs/performance.md, "Bounded caches").
_BYTES_PER_CHARACTER = 10
_DEFAULT_LIMIT_BYTES = 32 << 20
# Distinct blobs are counted up to this many, past which the set stops growing: a daemon runs for months.
_DISTINCT_LIMIT = 1 << 14
# What the function bodies known to parse say (body_facts), by hash((is_async, text)), and the first
# parameter of the blanked headers known to parse, by hash(header). A body or header that did not
# change since an earlier version of its file is not parsed again.
_VERIFIED_LIMIT = 1 << 16


class SummaryCache:
    """Summaries by blob id, least recently used first, bounded by their estimated bytes."""

    def __init__(self, limit_bytes: Optional[int] = None):
        self._summaries = OrderedDict()  # blob id -> (summary, its estimated bytes)
        self._cached_bytes = 0
        self._limit_bytes = _DEFAULT_LIMIT_BYTES
        self._verified = aaw_lru.Lru(_VERIFIED_LIMIT)
        # What parsing cost so far: texts summarised and how many distinct blobs they were, of them
        # skeletons, the function bodies parsed on their own to check them, and the summaries
        # adopted from the process that parses ahead instead of parsed here.
        self._parses = self._skeletons = self._bodies_parsed = self._adopted = 0
        self._distinct = set()
        self.set_limit(limit_bytes)

    def cached(self, blob: str) -> "Optional[Union[Scope, ParseFailure]]":
        """The summary of `blob` when it is cached (and then the most recently used), else None."""
        entry = self._summaries.get(blob)
        if entry is None:
            return None
        self._summaries.move_to_end(blob)
        return entry[0]

    def summary_of(self, blob: str, read, read_skeleton=None) -> "Union[Scope, ParseFailure]":
        """The cached summary of `blob`, else read(blob)'s text summarised and cached.

        read_skeleton(blob), when given, is the module's skeleton (the C++ side's skeleton_of):
        {"complete": True, "text": the text with each def's body blanked line for line, "bodies":
        [{"def_line", "async", "text"}]}, or {"complete": False, "text": the whole text}. Parsing the
        skeleton costs a fraction of parsing the module, and the summary is the same: each blanked
        body is checked to parse on its own (once per distinct body), and anything that does not
        parse sends the whole text to the parser, so a syntax error in a body is reported as
        before. What a def's body says (returns_first_argument, replaces_without_wraps) is read when
        it is checked."""
        summary = self.cached(blob)
        if summary is None:
            summary, characters, adopted = self._summarize_blob(blob, read, read_skeleton)
            self._count_parse(blob, adopted)
            self.remember(blob, summary, characters)
        return summary

    def pickled_summary(self, blob: str, read, read_skeleton=None):
        """(the pickle of blob's summary, characters of source it was made from), parsed afresh:
        what the process that parses ahead sends (src/core/ports/summary_prefetch.hpp); the main
        interpreter adopts it instead of parsing."""
        summary, characters, adopted = self._summarize_blob(blob, read, read_skeleton)
        self._count_parse(blob, adopted)
        return pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL), characters

    def remember(self, blob: str, summary: "Union[Scope, ParseFailure]", characters: int = 0) -> None:
        """Caches `summary` made from `characters` of source text, evicting the least recently used
        summaries past the limit (the newest is kept even alone past it: the caller is using it)."""
        previous = self._summaries.pop(blob, None)
        if previous is not None:
            self._cached_bytes -= previous[1]
        cost = 256 + _BYTES_PER_CHARACTER * characters
        self._summaries[blob] = (summary, cost)
        self._cached_bytes += cost
        self._evict()
        # Cached summaries live long and hold no cycles: keep the cyclic collector from walking them
        # over and over (reference counting still frees the ones the cache lets go). Collect first:
        # frozen cyclic garbage is never freed, and some is made all the time (each ast.dump() call
        # leaves a cycle), which would make memory grow with every commit. The collection walks only
        # what is not frozen yet.
        gc.collect()
        gc.freeze()

    def clear(self) -> None:
        self._summaries.clear()
        self._verified.clear()
        self._cached_bytes = 0

    def size(self) -> int:
        return len(self._summaries)

    def set_limit(self, limit_bytes: Optional[int]) -> None:
        """Bounds the cache to about `limit_bytes` (None: the default, 32 MiB); evicts at once."""
        self._limit_bytes = _DEFAULT_LIMIT_BYTES if limit_bytes is None else max(0, int(limit_bytes))
        self._evict()

    def stats(self) -> dict:
        """{"parses", "distinct_blobs", "skeletons", "bodies_parsed", "adopted", "cached",
        "cached_bytes", "limit_bytes"}: parses / distinct_blobs is 1.0 when no text was parsed twice
        (distinct_blobs stops at 16,384)."""
        return {"parses": self._parses, "distinct_blobs": len(self._distinct), "skeletons": self._skeletons,
                "bodies_parsed": self._bodies_parsed, "adopted": self._adopted, "cached": len(self._summaries),
                "cached_bytes": self._cached_bytes, "limit_bytes": self._limit_bytes}

    def _evict(self) -> None:
        while self._cached_bytes > self._limit_bytes and len(self._summaries) > 1:
            _, (_, cost) = self._summaries.popitem(last=False)
            self._cached_bytes -= cost

    def _count_parse(self, blob: str, adopted: bool) -> None:
        if adopted:
            self._adopted += 1
        else:
            self._parses += 1
        if len(self._distinct) < _DISTINCT_LIMIT:
            self._distinct.add(blob)

    def _summarize_blob(self, blob, read, read_skeleton):
        """(summary, characters of source it was made from, whether it was made ahead elsewhere).
        read_skeleton may hand over a summary made ahead ({"pickled", "characters"}) instead of the
        skeleton: it is adopted, and only if it is damaged is the skeleton asked for."""
        text = None
        if read_skeleton is not None:
            skeleton = read_skeleton(blob)
            if isinstance(skeleton, dict) and isinstance(skeleton.get("pickled"), bytes):
                summary = _unpickled(skeleton)
                if summary is not None:
                    return summary, int(skeleton.get("characters") or 0), True
                skeleton = read_skeleton(blob)  # the one made ahead was handed over once
            if isinstance(skeleton, dict) and skeleton.get("complete"):
                summary = self._from_skeleton(skeleton)
                if summary is not None:
                    self._skeletons += 1
                    return summary, len(skeleton["text"]) + sum(len(body["text"]) for body in skeleton["bodies"]), False
            elif isinstance(skeleton, dict) and isinstance(skeleton.get("text"), str):
                text = skeleton["text"]
        if text is None:
            text = read(blob)
        return summarize(text), len(text) if isinstance(text, str) else 0, False

    def _from_skeleton(self, skeleton) -> "Optional[Scope]":
        """The summary of a module from its skeleton, or None when the whole text must decide (a
        body, a blanked header or the skeleton does not parse)."""
        bodies = {}
        for body in skeleton["bodies"]:
            facts = self._body_facts_of(body["async"], body["text"])
            if facts is None:
                return None
            header = body.get("header")
            first_parameter = None
            if header is not None:
                header = header.encode("utf-8", "surrogateescape")
                first_parameter = self._first_parameter_of(header)
                if first_parameter is None:
                    return None
            bodies[body["def_line"]] = (facts, header, first_parameter)
        for kept in skeleton.get("headers", ()):  # a body kept on its header's line: read from the node
            header = kept["header"].encode("utf-8", "surrogateescape")
            first_parameter = self._first_parameter_of(header)
            if first_parameter is None:
                return None
            bodies[kept["def_line"]] = (None, header, first_parameter)
        try:
            summary = summarize(skeleton["text"], bodies)
        except BodyNeeded:
            return None
        return None if isinstance(summary, ParseFailure) else summary

    def _body_facts_of(self, is_async: bool, text: str):
        """What a blanked body says (body_facts), or None when it does not parse on its own or is
        too deep to read: then the whole text decides. Read here, beside the parse, at the stack
        depth the parse had, and kept with the body's hash so an unchanged body is neither parsed
        nor read again."""
        def read():
            self._bodies_parsed += 1
            return body_facts(_parse_body(is_async, text), text_hints(text, 2))  # below _parse_body's def line
        return self._checked_once(hash((is_async, text)), read)

    def _first_parameter_of(self, header: bytes) -> Optional[str]:
        """The name of the first positional parameter of a def whose header a skeleton blanked (""
        when it has none), or None when the header does not parse on its own: then the whole text
        decides. Kept with the header's hash, as a body's facts are."""
        return self._checked_once(hash(header), lambda: first_positional(aaw_model.parse_header(header)[0]))

    def _checked_once(self, key, read):
        """read()'s answer, kept under key, or None when what it parses does not parse."""
        answer = self._verified.get(key)
        if answer is not None:
            return answer
        collecting = gc.isenabled()
        gc.disable()
        try:
            answer = read()
        except (SyntaxError, ValueError, UnicodeError, RecursionError, MemoryError):
            return None
        finally:
            if collecting:
                gc.enable()
        self._verified.put(key, answer)
        return answer


def _unpickled(offered) -> "Optional[Union[Scope, ParseFailure]]":
    """The summary in read_skeleton's {"pickled": bytes, "characters": int} (one made ahead by this
    same code in a process of ours, reading the same mirror), or None when it is damaged."""
    try:
        summary = pickle.loads(offered["pickled"])
    except Exception:  # pylint: disable=broad-except  (any damage: parse here instead)
        return None
    return summary if isinstance(summary, (Scope, ParseFailure)) else None


def _parse_body(is_async: bool, text: str):
    """A def named _ with this body (its lines as they were, indented as they were)."""
    header = "async def _():\n" if is_async else "def _():\n"
    return ast.parse((header + text).encode("utf-8", "surrogateescape")).body[0]


# The cache of this process: every resolution and digest reads summaries through it.
CACHE = SummaryCache()
cached = CACHE.cached
summary_of = CACHE.summary_of
pickled_summary = CACHE.pickled_summary
remember = CACHE.remember
set_cache_limit = CACHE.set_limit
stats = CACHE.stats


def clear_cache() -> None:
    """Forgets every summary, and the parsed headers and digests' renderings kept beside them."""
    CACHE.clear()
    aaw_model.PARSED_HEADERS.clear()
    aaw_digest.HEADER_DUMPS.clear()
