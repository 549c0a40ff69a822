#!/usr/bin/python3
"""The straightforward way to replay a history, as a yardstick for `watch --once`.

    reference_replay.py REPO.git CONFIG.json [--commits N]

For every first-parent commit from the config's start_commit (else the root) to the head: resolve
every monitored function from scratch (the watcher's own resolution rules,
src/python/aaw_resolver.py, so that both find the same changes), parsing with `ast` each module it
needs, and diff its STATE with the last good one. The only thing kept from one commit to the next
is the summary of each parsed blob (an unchanged file is not parsed again, without bound): no
resolution, digest or verdict is reused. Git is read through one `git cat-file --batch-command`
child, one tree listing per directory and commit.

Prints "reference: C commits, F functions, N changes, P parses, B distinct blobs" on stdout.
Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "python"))
import aaw_resolver  # noqa: E402
import aaw_summary  # noqa: E402


class Git:
    """One `git cat-file --batch-command` child for the whole replay."""

    def __init__(self, repo):
        self.repo = repo
        self.child = subprocess.Popen(["git", "--git-dir", repo, "cat-file", "--batch-command", "--buffer"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def _ask(self, command):
        self.child.stdin.write(command.encode("utf-8", "surrogateescape") + b"\n")
        self.child.stdin.write(b"flush\n")
        self.child.stdin.flush()
        header = self.child.stdout.readline().decode().split()
        if len(header) < 3:  # "<name> missing" or "ambiguous"
            return None, None, None
        return header[0], header[1], int(header[2])

    def info(self, name):
        oid, kind, _ = self._ask("info " + name)
        return oid, kind

    def raw(self, name):
        """The bytes of the object `name`, None when there is none."""
        _, _, size = self._ask("contents " + name)
        if size is None:
            return None
        data = self.child.stdout.read(size)
        self.child.stdout.read(1)  # the newline after the contents
        return data

    def contents(self, oid):
        return self.raw(oid).decode("utf-8", "surrogateescape")

    def entries(self, tree):
        """{name: (oid, is_tree)} of a tree object (`commit:dir`), {} when there is none."""
        data = self.raw(tree)
        out, at = {}, 0
        while data and at < len(data):
            space, zero = data.index(b" ", at), data.index(b"\0", at)
            mode, name = data[at:space], data[space + 1:zero].decode("utf-8", "surrogateescape")
            out[name] = (data[zero + 1:zero + 21].hex(), mode == b"40000")
            at = zero + 21
        return out


class CommitHost:
    """aaw_resolver's host over one commit's tree, one directory listing at a time."""

    def __init__(self, git, commit, counter):
        self.git, self.commit, self.counter = git, commit, counter
        self.directories = {}

    def _entry(self, path):
        directory, _, name = path.rstrip("/").rpartition("/")
        if directory not in self.directories:
            self.directories[directory] = self.git.entries("%s:%s" % (self.commit, directory))
        return self.directories[directory].get(name)

    def find_blob(self, path):
        entry = self._entry(path)
        return entry[0] if entry and not entry[1] else None

    def is_directory(self, path):
        entry = self._entry(path)
        return bool(entry and entry[1])

    def read_blob(self, blob):
        self.counter["parses"] += 1
        self.counter["blobs"].add(blob)
        return self.git.contents(blob)


def first_parent_commits(repo, start):
    head = subprocess.run(["git", "--git-dir", repo, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    spec = [head] if not start else [head, "^" + start]
    listed = subprocess.run(["git", "--git-dir", repo, "rev-list", "--first-parent", "--reverse"] + spec,
                            check=True, capture_output=True, text=True).stdout.split()
    return ([start] if start else []) + listed


def _api(state):
    """What a change is about: the status, and the parameters and return of an ok state."""
    return state.get("status"), state.get("signature")


def replay(repo, config, limit):
    functions = config["functions_to_monitor"]
    static = config.get("static") or {}
    commits = first_parent_commits(repo, config.get("start_commit") or "")
    if limit:
        commits = commits[:limit]
    aaw_summary.set_cache_limit(1 << 40)  # each distinct blob parsed once, as a person would cache it
    git = Git(repo)
    counter = {"parses": 0, "blobs": set()}
    baseline, changes = [None] * len(functions), 0
    for commit in commits:
        session = aaw_resolver.Session(CommitHost(git, commit, counter), static.get("source_roots"),
                                       static.get("module_aliases"))
        states = [session.resolve_function(function)["state"] for function in functions]
        for i, state in enumerate(states):
            if state.get("status") == "extract_failed":
                continue  # the machinery failed: the next good state is compared with the last good one
            if baseline[i] is not None and _api(baseline[i]) != _api(state):
                changes += 1
            baseline[i] = state
    git.child.stdin.close()
    git.child.wait()
    return len(commits), len(functions), changes, counter["parses"], len(counter["blobs"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo")
    parser.add_argument("config")
    parser.add_argument("--commits", type=int, default=0, help="only the first N commits")
    args = parser.parse_args()
    with open(args.config) as f:
        config = json.load(f)
    commits, functions, changes, parses, blobs = replay(args.repo, config, args.commits)
    print("reference: %d commits, %d functions, %d changes, %d parses, %d distinct blobs"
          % (commits, functions, changes, parses, blobs))


if __name__ == "__main__":
    main()
