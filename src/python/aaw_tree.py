"""One commit's tree as a resolution reads it: the host's answers (find_blob, is_directory,
read_blob, read_skeleton) cached for one call, the module summaries through aaw_summary's cache,
and what each function's resolution consulted (the files and directories it probed, the names it
asked of each module), so the caller can reuse its state while none of them changes.
Pure standard library, Python 3.9+.
"""

import re

import aaw_bindings
import aaw_digest
import aaw_model
import aaw_summary
from aaw_packaging import DECLARED, ROOTS, roots_digest
from aaw_values import HostFailure, SyntaxFailure, TooDeep, Unfollowed

# A line number in a detail: "path:12" or "line 12".
_QUOTED_LINE = re.compile(r":\d|\bline \d")


class Tree:
    def __init__(self, host):
        self.host = host
        self.blobs = {}        # path -> blob id or None
        self.directories = {}  # path -> bool
        self.summaries = {}    # blob id -> aaw_model.Scope or aaw_model.ParseFailure, for this call
        # The event lists of the import-target lookups under way (aaw_resolver.Session.import_target):
        # every probe is noted in each, so a later function meeting the same statement replays them.
        self.recorders = []
        # While above 0, names are asked for their identity only (aaw_digest.identity_of): what a
        # decorator is bound to, not its parameters.
        self.identity = 0
        self.lookups = None
        self.start_function()

    def start_function(self):
        """What one function's resolution consulted; the caches above are shared by all."""
        self.consulted = {}       # path -> blob id or None
        self.consulted_dirs = {}  # path -> bool
        self.asked = {}           # path -> names looked up in that module, for digests
        self.partly = {}          # path -> pseudo-names of what was read of a file that is no module

    def blob(self, path):
        """The id of the file at `path`, None when there is none; raises Unfollowed for a symbolic
        link (the host's {"link": id})."""
        if path in self.blobs:
            blob = self.blobs[path]
        else:
            blob = self.call_host("find_blob", path, "look up '%s'" % path)
            if blob is not None and not isinstance(blob, str) and not _is_link(blob):
                raise HostFailure("cannot look up '%s': find_blob returned %s"
                                  % (path, type(blob).__name__))
            self.blobs[path] = blob
        self.note(("b", path, blob))
        if _is_link(blob):
            raise Unfollowed(path)
        return blob

    def is_directory(self, path):
        """Whether a directory is at `path`; raises Unfollowed for a symbolic link, which may lead
        to one (the host's {"link": id}, noted as a file probe so its change is seen)."""
        if _is_link(self.blobs.get(path)):
            self.blob(path)
        if path in self.directories:
            found = self.directories[path]
        else:
            found = self.call_host("is_directory", path, "look up '%s'" % path)
            if _is_link(found):
                self.blobs[path] = found
                self.blob(path)
            found = self.directories[path] = bool(found)
        self.note(("d", path, found))
        return found

    def summary(self, module):
        blob = module.blob
        if blob is None:
            return aaw_model.EMPTY_SCOPE
        summary = self.summaries.get(blob)
        if summary is None:
            summary = aaw_summary.summary_of(blob, lambda _: self.text(module), self._skeleton_reader(module))
            self.summaries[blob] = summary
        if isinstance(summary, aaw_model.ParseFailure):
            where = module.path if summary.line is None else "%s:%d" % (module.path, summary.line)
            raise (TooDeep if summary.too_deep else SyntaxFailure)("%s: %s" % (where, summary.message))
        return summary

    def _skeleton_reader(self, module):
        """read_skeleton for aaw_summary.summary_of when the host has one, else None."""
        if getattr(self.host, "read_skeleton", None) is None:
            return None
        return lambda _: self.call_host("read_skeleton", module.blob,
                                        "read '%s' (blob %s)" % (module.path, module.blob))

    def text(self, module):
        """The module's whole text, from the host (not cached here: summaries are)."""
        text = self.call_host("read_blob", module.blob, "read '%s' (blob %s)" % (module.path, module.blob))
        if not isinstance(text, str):
            raise HostFailure("cannot read '%s': read_blob returned %s" % (module.path, type(text).__name__))
        return text

    def ask(self, module, name):
        if module.blob is None:
            return
        if self.recorders:
            self.note(("a", module.path, name))
            return
        # The common case, inlined (_note without recorders): every function asks thousands.
        if self.identity and not name.startswith("<"):
            name = aaw_digest.identity_of(name)
        asked = self.asked.get(module.path)
        if asked is None:
            asked = self.asked[module.path] = set()
        asked.add(name)

    def read_partly(self, path, name):
        """Notes that only the part `name` (aaw_bindings' pseudo-names: a macro of a header, an entry
        of a JSON file) was read of the file at `path`: its probe carries the digest of those parts."""
        self.partly.setdefault(path, set()).add(name)

    def note(self, event):
        """What this function's resolution looked at: ("b", path, blob) a file probe, ("d", path,
        found) a directory probe, ("a", path, name) a name asked of a module (for its digest)."""
        kind, path, value = event
        if kind == "b":
            self.consulted.setdefault(path, value)
        elif kind == "d":
            self.consulted_dirs.setdefault(path, value)
        else:
            self.asked.setdefault(path, set()).add(value)
        for recorder in self.recorders:
            recorder.append(event)

    def consulted_entries(self):
        """What this function's resolution looked at, as resolve_all reports it."""
        consulted = [self._consulted_entry(path, blob) for path, blob in self.consulted.items()]
        # Directory probes say whether the directory was there, so a caller re-checking them
        # notices one appearing or disappearing (namespace packages).
        return consulted + [{"path": path, "blob": None, "directory": found}
                            for path, found in self.consulted_dirs.items()]

    def _consulted_entry(self, path, blob):
        """A file probe, with the digest of what resolution read there: the bindings of the names
        it asked about (or the module's whole API surface when it asked about none)."""
        if _is_link(blob):
            return {"path": path, "blob": blob["link"], "link": True, "digest": None, "names": []}
        summary = self.summaries.get(blob) if blob is not None else None
        asked = self.asked.get(path)
        names = sorted(asked) if asked else []
        partly = self.partly.get(path)
        if partly and blob is not None:
            names = sorted(partly)
            return {"path": path, "blob": blob, "names": names,
                    "digest": aaw_bindings.partial_digest(blob, names, self._lookups())}
        declared = DECLARED.get((path, blob)) if summary is None and blob is not None else None
        if declared is not None:
            # A packaging file: resolution read only the roots it declares (release edits keep them).
            return {"path": path, "blob": blob, "digest": roots_digest(declared), "names": [ROOTS + path]}
        if summary is None or not names:
            return {"path": path, "blob": blob, "digest": None, "names": []}
        return {"path": path, "blob": blob, "digest": aaw_digest.safe_digest(summary, names), "names": names}

    def _lookups(self):
        """The tree as the digests of partly read files read it, for this call."""
        if self.lookups is None:
            self.lookups = aaw_bindings.Lookups(self.host)
            self.lookups.blobs = self.blobs
        return self.lookups

    def ask_positions_quoted_by(self, detail):
        """Asks for the positions in the modules whose lines `detail` quotes ("m.py:12", "(line 12)
        in m.py"); in every module asked when it quotes a line but names none of them."""
        if not _QUOTED_LINE.search(detail):
            return
        quoted = [names for path, names in self.asked.items() if path in detail]
        for names in quoted or self.asked.values():
            names.add(aaw_digest.POSITIONS)

    def call_host(self, callback, argument, what):
        try:
            return getattr(self.host, callback)(argument)
        except RecursionError:
            raise  # our depth, not the host's failure
        except Exception as error:  # aaw_host.HostError, or anything a test host raises
            raise HostFailure("cannot %s: %s" % (what, error)) from None


def _is_link(answer):
    """Whether a host's answer to find_blob or is_directory is a symbolic link's ({"link": id})."""
    return isinstance(answer, dict) and isinstance(answer.get("link"), str)
