"""Static resolution of the monitored functions' signatures at one commit: the entry points.

Called from C++ (src/extract/static/static_extractor.cpp) with a host that reads the commit's tree:
find_blob(path) -> blob id or None, is_directory(path) -> bool, read_blob(blob_id) -> text, and
optionally read_skeleton(blob_id) (aaw_summary.SummaryCache.summary_of says what it returns). The
code is never imported or executed. The binding model is aaw_model.py, the resolution rules
aaw_resolver.py, the STATE objects aaw_signature.py.
Pure standard library, Python 3.9+.
"""

import time
from typing import Any, Dict, List

import aaw_bindings
import aaw_digest
import aaw_packaging
import aaw_resolver
import aaw_summary


def resolve_all(args: Dict[str, Any], host: Any) -> List[Dict[str, Any]]:
    """One {"state": STATE, "consulted": [{"path", "blob", ...}], "seconds"} per entry of
    args["functions"] (seconds: what its resolution took, the modules parsed for it first included).

    args = {"functions": [{"import_statement", "function_path"}], "known_blobs": {path: blob or
    None}, "known_directories": {path: bool}, "source_roots": [dir, ...], "module_aliases": {old:
    new}}: known_* are answers the caller already has for this tree, used instead of asking the
    host again; source_roots (default: the root, src/, then what packaging files declare) and
    module_aliases are the config's static.* keys; cache_bytes bounds the cache of parsed modules
    (static.cache_mb)."""
    functions = args.get("functions") if isinstance(args, dict) else None
    if not isinstance(functions, list):
        raise TypeError("resolve_all expects {'functions': [...]}")
    _bound_cache(args)
    session = aaw_resolver.Session(host, args.get("source_roots"), args.get("module_aliases"))
    known_blobs = args.get("known_blobs")
    if isinstance(known_blobs, dict):
        session.tree.blobs.update(known_blobs)
    known_directories = args.get("known_directories")
    if isinstance(known_directories, dict):
        session.tree.directories.update(known_directories)
    resolved = []
    for function in functions:
        start = time.perf_counter()
        result = session.resolve_function(function)
        result["seconds"] = time.perf_counter() - start
        resolved.append(result)
    return resolved


def locate_all(args: Dict[str, Any], host: Any) -> List[Any]:
    """Where each entry of args["functions"] is defined: {"file", "line"} of the def it resolves
    to (the class for a constructor without its own __init__), or None when it resolves to no
    definition. args as resolve_all's; never cached, since a moved def keeps its digest."""
    functions = args.get("functions") if isinstance(args, dict) else None
    if not isinstance(functions, list):
        raise TypeError("locate_all expects {'functions': [...]}")
    session = aaw_resolver.Session(host, args.get("source_roots"), args.get("module_aliases"))
    out = []
    for function in functions:
        resolved = session.resolve_function(function)
        found = session.location if resolved["state"].get("status") == "ok" else None
        out.append(None if found is None else {"file": found[0], "line": found[1]})
    return out


def module_digests(args: Dict[str, Any], host: Any) -> List[Any]:
    """The digest of each {"blob", "names"} in args["queries"] (aaw_digest.digest), in order, or
    for a query {"blob", "name_sets": [[name, ...], ...]} the list of the digests of each set:
    what the caller compares to decide whether a changed file can change a resolution at all.
    Each distinct blob is parsed once while it stays in the cache (args["cache_bytes"] bounds it)."""
    _bound_cache(args)
    out = []
    lookups = aaw_bindings.Lookups(host)  # for the queries that read a module's binding through its files
    for query in args.get("queries", []):
        if "name_sets" in query:  # one blob, many sets of names: one digest per set
            out.append([_digest_of(query["blob"], names, host, lookups) for names in query["name_sets"]])
        else:
            out.append(_digest_of(query["blob"], query.get("names"), host, lookups))
    return out


def module_outlines(args: Dict[str, Any], host: Any) -> List[Any]:
    """aaw_digest.outline of each blob in args["blobs"], in order: enough for the caller to know
    most digests of a changed module without asking for each set of names one by one."""
    _bound_cache(args)
    read_skeleton = getattr(host, "read_skeleton", None)
    return [aaw_digest.outline(aaw_summary.summary_of(blob, host.read_blob, read_skeleton))
            for blob in args.get("blobs", [])]


def pickled_summary(args: Dict[str, Any], host: Any) -> Dict[str, Any]:
    """For the process that parses ahead (src/core/ports/summary_prefetch.hpp): {"pickled": bytes,
    "characters"} of args["blob"] (aaw_summary.pickled_summary), or {"error"} when it cannot be
    read: the main interpreter then parses it itself."""
    try:
        pickled, characters = aaw_summary.pickled_summary(args["blob"], host.read_blob,
                                                          getattr(host, "read_skeleton", None))
    except Exception as error:  # pylint: disable=broad-except  (that blob is parsed in the main one)
        return {"error": "%s: %s" % (type(error).__name__, error)}
    return {"pickled": pickled, "characters": characters}


def star_additions(args: Dict[str, Any], host: Any) -> List[Any]:
    """args = {"checks": [{"path", "before", "after", "asks": [[name, ...], ...]}], "source_roots",
    "module_aliases", "cache_bytes"}, with the host of the tree where `after` is: per check, per
    ask, aaw_resolver.Session.star_additions's answer (None, or the consulted entries to add)."""
    _bound_cache(args)
    session = aaw_resolver.Session(host, args.get("source_roots"), args.get("module_aliases"))
    return [session.star_additions(check["path"], check["before"], check["after"], check["asks"])
            for check in args.get("checks", [])]


def _digest_of(blob: str, names: Any, host: Any, lookups: Any) -> Any:
    names = sorted(names or ())
    if aaw_bindings.is_partial(names):  # what a stub reads of C++ sources and optCompilerConfig.json
        return aaw_bindings.partial_digest(blob, names, lookups)
    if len(names) == 1 and names[0].startswith(aaw_packaging.ROOTS):  # a packaging file's roots
        return aaw_packaging.declared_roots_digest(names[0][len(aaw_packaging.ROOTS):], blob, host.read_blob)
    summary = aaw_summary.summary_of(blob, host.read_blob, getattr(host, "read_skeleton", None))
    return aaw_digest.safe_digest(summary, names)


def _bound_cache(args: Dict[str, Any]) -> None:
    if "cache_bytes" in args:
        aaw_summary.set_cache_limit(args["cache_bytes"])


def stats(args: Any = None, host: Any = None) -> Dict[str, int]:
    """What parsing cost so far (aaw_summary.stats): parses, distinct_blobs, cached, cached_bytes,
    limit_bytes."""
    return aaw_summary.stats()
