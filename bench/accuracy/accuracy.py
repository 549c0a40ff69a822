#!/usr/bin/env python3
"""Accuracy of static extraction on a real package's history, against runtime truth.

For every first-parent commit of REPO (a bare git repository, e.g. a fetched pure-Python package):
  - truth: the commit's tree is extracted and each monitored function imported and read with
    inspect.signature in a child /usr/bin/python3 (bench/accuracy/truth_child.py, the runtime
    extractor's own code); cached per commit under --cache;
  - static: aiter-api-watcher replays the whole history (`watch --once` from the first commit)
    and its state store gives every function's state at every commit, and the changes it reported.
Then, per (commit, function) where the commit imports at all:
  - agreement: both ok with the same parameter names, kinds and defaults (compared by value when
    both are literals; a default spelled as a name statically is taken as agreeing), or both not
    there (missing); annotations are not compared (source text vs what Python prints);
  - false changes: the tool reported a change (any severity but annotation) where the truth did not
    change, and false "function removed" in particular;
  - missed changes: the truth changed (names, kinds, defaults by value, appeared, disappeared) and
    the tool reported nothing for that function at that commit;
  - flagged: the tool says itself that it cannot vouch for its answer: an `ok` state with
    `"unverified": "<reason>"`, or `unresolved` (but not "not found in the tree", which is read as
    "absent" above); "agree or flagged" counts the pairs that agree or are flagged;
  - plain ok disagreeing: an `ok` state without the flag whose parameter names, kinds or default
    presence differ from the truth (or the truth has no signature, or is absent): a wrong answer
    given as right. Plain ok states differing from the truth only in a literal default's value are
    counted apart, and so are the remaining unflagged disagreements (static missing or absent where
    the truth is not, or no static state).
--last N judges only the last N first-parent commits (the replay then starts at the first of them),
for histories too long to replay whole.
usage: accuracy.py --binary BIN --repo REPO.git --functions F.json [--branch main] [--cache DIR]
                   [--jobs 2] [--last N] [--json OUT] [--show N]
"""

import argparse
import ast
import concurrent.futures
import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "src" / "python"))
import aaw_runtime  # noqa: E402  (the runtime extractor's code: which packages the functions import)


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True, text=True).stdout


def first_parent_commits(repo, branch):
    return git(repo, "rev-list", "--first-parent", "--reverse", branch).split()


def source_root(tree, tops):
    """Where an installed copy would import from: src/ when the package lives there."""
    for top in tops:
        if (tree / "src" / top).is_dir() or (tree / "src" / (top + ".py")).is_file():
            return tree / "src"
    return tree


def truth_at(repo, commit, functions_file, tops, cache):
    cached = cache / (commit + ".json")
    if cached.exists():
        return json.loads(cached.read_text())
    with tempfile.TemporaryDirectory(prefix="aaw-truth-") as tmp:
        tree = pathlib.Path(tmp) / "tree"
        tree.mkdir()
        archive = subprocess.run(["git", "--git-dir", repo, "archive", commit], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        out = pathlib.Path(tmp) / "states.json"
        try:
            subprocess.run(["/usr/bin/python3", "-s", str(HERE / "truth_child.py"), str(source_root(tree, tops)),
                            functions_file, str(out)], cwd=tmp, capture_output=True, timeout=120,
                           env={"PATH": "/usr/bin:/bin", "HOME": tmp, "PYTHONDONTWRITEBYTECODE": "1"})
            states = json.loads(out.read_text()) if out.exists() else None
        except subprocess.TimeoutExpired:
            states = None
    cached.write_text(json.dumps(states))
    return states


def static_states(binary, repo, branch, functions, start, workdir, extractor="static"):
    """The tool's states and changes over the replay, the time the replay took, and its closing
    summary of the extraction's work (the "Static extraction: ..." line)."""
    config = {"repository_url": repo, "branch": branch, "functions_to_monitor": functions,
              "start_commit": start, "state_dir": str(workdir / "state"), "log": {"file": ""},
              "extractor": extractor}
    config_file = workdir / "config.json"
    config_file.write_text(json.dumps(config))
    started = time.monotonic()
    run = subprocess.run([binary, "watch", "--config", str(config_file), "--once"], capture_output=True, text=True)
    seconds = time.monotonic() - started
    if run.returncode != 0:
        sys.exit("watch failed (%d): %s" % (run.returncode, run.stderr[-2000:]))
    work = [line.split(" - ", 3)[-1] for line in (run.stdout + run.stderr).splitlines()
            if "Static extraction:" in line]
    db = sqlite3.connect(str(workdir / "state" / "state.db"))
    states = {}
    for sha, by_function in stored_states(db):
        for (statement, path), text in by_function.items():
            states[(sha, statement, path)] = json.loads(text)
    changes = {}
    for sha, path, statement, text in db.execute(
            "SELECT c.sha, f.function_path, f.import_statement, ch.json FROM changes ch "
            "JOIN commits c ON c.sequence = ch.commit_sequence JOIN functions f ON f.id = ch.function_id"):
        changes[(sha, statement, path)] = json.loads(text)
    return states, changes, seconds, (work[-1] if work else "")


def stored_states(db):
    """(sha, {(import_statement, function_path): STATE json}) of every commit in the state store. A
    commit with a keyframe (schema version 4) holds only the rows that changed since the commit
    before it: its states are its keyframe's with the rows of each commit after it on top."""
    rows = {}
    for sequence, statement, path, text in db.execute(
            "SELECT cs.commit_sequence, f.import_statement, f.function_path, s.json FROM commit_states cs "
            "JOIN functions f ON f.id = cs.function_id JOIN states s ON s.id = cs.state_id"):
        rows.setdefault(sequence, {})[(statement, path)] = text
    keyframe_column = any(row[1] == "keyframe" for row in db.execute("PRAGMA table_info(commits)"))
    query = "SELECT sequence, sha, %s FROM commits ORDER BY sequence" % ("keyframe" if keyframe_column else "NULL")
    current = {}
    for sequence, sha, keyframe in db.execute(query):
        if keyframe is None:
            current = dict(rows.get(sequence, {}))
        else:
            current.update(rows.get(sequence, {}))
        yield sha, dict(current)


# ---- comparing ------------------------------------------------------------------------------------

def literal(text):
    try:
        return True, ast.literal_eval(text)
    except Exception:
        return False, None


def defaults_agree(static_default, runtime_default):
    if same_printed_value(static_default, runtime_default):
        return True
    if static_default is None or runtime_default is None:
        return False
    # A name or an expression statically (BLOCK_SIZE, sys.maxsize, object()): its value is what
    # Python printed; nothing static can contradict it.
    return not literal(static_default)[0]


def shape(state):
    """What a caller meets: ("ok", [(name, kind, default)]), or ("absent",), or None (unknown)."""
    if state is None:
        return None
    status = state.get("status")
    if status == "ok":
        return ("ok", [(p["name"], p["kind"], p["default"]) for p in state["signature"]["parameters"]])
    if status == "missing":
        return ("absent",)
    if status == "unresolved" and "not found in the tree" in state.get("detail", ""):
        return ("absent",)  # the whole package is gone: nothing is importable, as the truth says
    if status == "unresolved":
        return ("unreadable",)
    return None


def flagged(static_state):
    """The tool's own reason for not vouching for its answer, or None."""
    if static_state is None:
        return None
    status = static_state.get("status")
    if status == "ok" and static_state.get("unverified"):
        return "unverified: %s" % static_state["unverified"]
    if status == "unresolved" and "not found in the tree" not in static_state.get("detail", ""):
        return "unresolved: %s" % static_state.get("detail", "")
    return None


def plain_ok_mismatch(static_state, truth_shape):
    """For a plain ok static state (no unverified flag): "shape" when its parameter names, kinds or
    default presence differ from the truth's (or the truth is not ok), "default" when only a literal
    default's value differs, None when it agrees. Not a plain ok state: None."""
    if static_state is None or static_state.get("status") != "ok" or static_state.get("unverified"):
        return None
    static_shape = shape(static_state)
    if same(static_shape, truth_shape):
        return None
    if truth_shape is None or truth_shape[0] != "ok":
        return "shape"
    a, b = static_shape[1], truth_shape[1]
    if len(a) != len(b) or any(x[0] != y[0] or x[1] != y[1] or (x[2] is None) != (y[2] is None)
                               for x, y in zip(a, b)):
        return "shape"
    return "default"


def same(static_shape, truth_shape):
    if static_shape is None or truth_shape is None or static_shape[0] != truth_shape[0]:
        return False
    if static_shape[0] in ("absent", "unreadable"):
        # Not there, or there with no signature Python can read (an exception class): both say so.
        return True
    a, b = static_shape[1], truth_shape[1]
    return len(a) == len(b) and all(x[0] == y[0] and x[1] == y[1] and defaults_agree(x[2], y[2])
                                    for x, y in zip(a, b))


def never_named(name, kind):
    """Parameters no caller passes by name: renaming them breaks no call (as the tool's diff)."""
    mangled = len(name) > 3 and name[0] == "_" and name[1] != "_" and "__" in name[2:] and not name.endswith("__")
    return kind in ("VAR_POSITIONAL", "VAR_KEYWORD", "POSITIONAL_ONLY") or mangled


def truth_changed(before, after):
    """Whether a caller could notice a difference between two truth shapes."""
    if before is None or after is None:
        return False
    if before[0] != after[0]:
        return True
    if before[0] in ("absent", "unreadable"):
        return False
    a, b = before[1], after[1]
    if len(a) != len(b):
        return True
    for x, y in zip(a, b):
        if x[1] != y[1] or (x[0] != y[0] and not (never_named(*x[:2]) and never_named(*y[:2]))):
            return True
        if not same_printed_value(x[2], y[2]):
            return True
    return False


def same_printed_value(a, b):
    """Two defaults as Python printed them: the same text, or literals of the same value."""
    if a == b:
        return True
    if a is None or b is None:
        return False
    a_ok, a_value = literal(a)
    b_ok, b_value = literal(b)
    return a_ok and b_ok and a_value == b_value and type(a_value) is type(b_value)


def counted_change(change):
    """A change the tool asserts (breaking, behavioural, compatible); annotation-only changes are
    spelling, and `unknown` ones are the tool saying it cannot tell (reported apart)."""
    return change is not None and any(c["severity"] not in ("annotation", "unknown") for c in change["changes"])


def unknown_change(change):
    return change is not None and not counted_change(change) and any(c["severity"] == "unknown"
                                                                      for c in change["changes"])


def evaluate(commits, functions, truth, states, changes):
    """Agreement on every (commit, function) the truth can judge; false and missed changes only
    between two consecutive commits that both import (a change is judged against the commit the
    tool diffed it with)."""
    report = {"pairs": 0, "agree": 0, "flagged": 0, "flagged_agreeing": 0, "agree_or_flagged": 0,
              "skipped_commits": 0, "judged_steps": 0, "false_changes": [], "false_removals": [],
              "missed_changes": [], "unknown_changes": [], "disagreements": [], "flagged_pairs": [],
              "plain_ok_disagreements": [], "plain_ok_default_differences": [], "other_disagreements": []}
    previous = None  # the truth shapes at the previous commit, when it imported
    for commit in commits:
        t = truth.get(commit)
        if t is None or all(s.get("status") == "import_error" for s in t):
            report["skipped_commits"] += 1
            previous = None
            continue
        shapes = {}
        for f, truth_state in zip(functions, t):
            key = (commit, f["import_statement"], f["function_path"])
            name = f["function_path"]
            if truth_state.get("status") in ("import_error", "extract_failed"):
                continue  # that function's module does not import at this commit: nothing to judge
            truth_shape = shape(truth_state)
            shapes[name] = truth_shape
            static_state = states.get(key)
            report["pairs"] += 1
            agree = same(shape(static_state), truth_shape)
            reason = flagged(static_state)
            if agree:
                report["agree"] += 1
            else:
                report["disagreements"].append((commit, name, static_state, truth_state))
            if reason is not None:
                report["flagged"] += 1
                report["flagged_agreeing"] += agree
                report["flagged_pairs"].append((commit, name, reason))
            if agree or reason is not None:
                report["agree_or_flagged"] += 1
            mismatch = plain_ok_mismatch(static_state, truth_shape)
            if mismatch == "shape":
                report["plain_ok_disagreements"].append((commit, name, static_state, truth_state))
            elif mismatch == "default":
                report["plain_ok_default_differences"].append((commit, name, static_state, truth_state))
            elif not agree and reason is None:
                # Unflagged and not ok: the tool says missing (or has no state) where the truth differs.
                report["other_disagreements"].append((commit, name, static_state, truth_state))
            before = previous.get(name) if previous is not None else None
            if before is None or truth_shape is None:
                continue
            report["judged_steps"] += 1
            change = changes.get(key)
            really = truth_changed(before, truth_shape)
            if counted_change(change) and not really:
                report["false_changes"].append((commit, name, change["changes"]))
                if any(c["kind"] == "function_removed" for c in change["changes"]):
                    report["false_removals"].append((commit, name))
            if really and change is None:
                report["missed_changes"].append((commit, name, before, truth_shape))
            if unknown_change(change):
                report["unknown_changes"].append((commit, name, change["changes"], really))
        previous = shapes
    return report


def signature_text(state):
    """A state in one short line: (a, b=1, /, *, c) for ok states, else status: detail."""
    if state is None:
        return "(no state)"
    if state.get("status") != "ok":
        return ("%s: %s" % (state.get("status"), state.get("detail", "")))[:200]
    parameters = state["signature"]["parameters"]
    text, star = [], False
    for i, p in enumerate(parameters):
        if p["kind"] == "KEYWORD_ONLY" and not star:
            text.append("*")
        star = star or p["kind"] in ("KEYWORD_ONLY", "VAR_POSITIONAL")
        prefix = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}.get(p["kind"], "")
        text.append(prefix + p["name"] + ("" if p["default"] is None else "=" + p["default"]))
        if p["kind"] == "POSITIONAL_ONLY" and (i + 1 == len(parameters) or parameters[i + 1]["kind"] != "POSITIONAL_ONLY"):
            text.append("/")
    flag = " [unverified: %s]" % state["unverified"] if state.get("unverified") else ""
    return ("(%s)%s" % (", ".join(text), flag))[:300]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--functions", required=True)
    parser.add_argument("--branch", default="main")
    parser.add_argument("--cache", default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--last", type=int, default=None,
                        help="judge only the last N first-parent commits (the replay starts at the first of them)")
    parser.add_argument("--json", default=None, help="write the whole report here")
    parser.add_argument("--show", type=int, default=10, help="examples of each kind to print")
    parser.add_argument("--extractor", default="static",
                        help="the tool's extractor: static, or static+import (confirmation by import)")
    args = parser.parse_args()
    repo = os.path.abspath(args.repo)
    functions = json.loads(pathlib.Path(args.functions).read_text())["functions_to_monitor"]
    name = pathlib.Path(repo).name.removesuffix(".git")
    cache = pathlib.Path(args.cache or HERE / ".cache" / name)
    cache.mkdir(parents=True, exist_ok=True)
    functions_file = cache / "functions.json"
    functions_file.write_text(json.dumps(functions))
    commits = first_parent_commits(repo, args.branch)
    history = len(commits)
    if args.last is not None:
        if args.last < 1:
            sys.exit("--last needs a positive number")
        commits = commits[-args.last:]
    tops = aaw_runtime.top_level_names(functions)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        truths = list(pool.map(lambda c: truth_at(repo, c, str(functions_file), tops, cache), commits))
    truth = dict(zip(commits, truths))
    with tempfile.TemporaryDirectory(prefix="aaw-accuracy-") as tmp:
        states, changes, seconds, work = static_states(os.path.abspath(args.binary), repo, args.branch, functions,
                                                       commits[0], pathlib.Path(tmp), args.extractor)
    report = evaluate(commits, functions, truth, states, changes)
    pct = 100.0 * report["agree"] / max(report["pairs"], 1)
    pct_flagged = 100.0 * report["agree_or_flagged"] / max(report["pairs"], 1)
    report["summary"] = {
        "package": name, "branch": args.branch, "commits": len(commits), "history_commits": history,
        "first_commit": commits[0], "last_commit": commits[-1], "skipped_commits": report["skipped_commits"],
        "functions": len(functions), "pairs": report["pairs"], "agree": report["agree"], "agreement_pct": pct,
        "flagged": report["flagged"], "flagged_agreeing": report["flagged_agreeing"],
        "agree_or_flagged": report["agree_or_flagged"], "agree_or_flagged_pct": pct_flagged,
        "plain_ok_disagreeing": len(report["plain_ok_disagreements"]),
        "plain_ok_default_value_differences": len(report["plain_ok_default_differences"]),
        "other_unflagged_disagreeing": len(report["other_disagreements"]),
        "judged_steps": report["judged_steps"], "false_changes": len(report["false_changes"]),
        "false_removals": len(report["false_removals"]), "missed_changes": len(report["missed_changes"]),
        "unknown_changes": len(report["unknown_changes"]), "extractor": args.extractor,
        "replay_seconds": round(seconds, 1)}
    print("%s: %d commits%s (%d skipped: nothing imports), %d functions" %
          (name, len(commits), " (the last of %d)" % history if len(commits) < history else "",
           report["skipped_commits"], len(functions)))
    print("  extractor %s: replay %.1f s; %s" % (args.extractor, seconds, work))
    print("  agreement: %d / %d (commit, function) pairs = %.2f %%" % (report["agree"], report["pairs"], pct))
    print("  flagged by the tool (unverified ok, or unresolved): %d (%d of them agree anyway)" %
          (report["flagged"], report["flagged_agreeing"]))
    print("  agree or flagged: %d / %d = %.2f %%" % (report["agree_or_flagged"], report["pairs"], pct_flagged))
    print("  plain ok disagreeing (names, kinds or default presence): %d; plain ok with another literal default: %d"
          % (len(report["plain_ok_disagreements"]), len(report["plain_ok_default_differences"])))
    print("  other unflagged disagreeing (static missing or absent, or no state): %d" % len(report["other_disagreements"]))
    print("  (commit, function) steps judged for changes: %d" % report["judged_steps"])
    print("  false changes: %d (false 'function removed': %d)" %
          (len(report["false_changes"]), len(report["false_removals"])))
    print("  missed changes: %d" % len(report["missed_changes"]))
    print("  'unknown' changes (the tool cannot tell): %d, of which %d where the truth did change" %
          (len(report["unknown_changes"]), sum(1 for u in report["unknown_changes"] if u[3])))
    by_function = {}
    for commit, fn, static_state, truth_state in report["disagreements"]:
        by_function.setdefault(fn, []).append((commit, static_state, truth_state))
    for fn, items in sorted(by_function.items(), key=lambda kv: -len(kv[1]))[:args.show]:
        commit, static_state, truth_state = items[0]
        print("  disagree %4d x %s, e.g. at %s:\n      static %s\n      truth  %s" %
              (len(items), fn, commit[:12], json.dumps(static_state)[:300], json.dumps(truth_state)[:300]))
    for label, key in (("plain ok disagreeing", "plain_ok_disagreements"),
                       ("plain ok, other default", "plain_ok_default_differences"),
                       ("other unflagged", "other_disagreements")):
        grouped = {}
        for commit, fn, static_state, truth_state in report[key]:
            grouped.setdefault(fn, []).append((commit, static_state, truth_state))
        for fn, items in sorted(grouped.items(), key=lambda kv: -len(kv[1]))[:args.show]:
            commit, static_state, truth_state = items[0]
            print("  %s %4d x %s, e.g. at %s:\n      static %s\n      truth  %s" %
                  (label, len(items), fn, commit[:12], signature_text(static_state), signature_text(truth_state)))
    flags = {}
    for commit, fn, reason in report["flagged_pairs"]:
        flags.setdefault(fn, []).append((commit, reason))
    for fn, items in sorted(flags.items(), key=lambda kv: -len(kv[1]))[:args.show]:
        print("  flagged %4d x %s, e.g. at %s: %s" % (len(items), fn, items[0][0][:12], items[0][1][:200]))
    for commit, fn, kinds in report["false_changes"][:args.show]:
        print("  false change %s %s: %s" % (commit[:12], fn, json.dumps(kinds)[:300]))
    for commit, fn, before, after in report["missed_changes"][:args.show]:
        print("  missed %s %s:\n      before %s\n      after  %s" % (commit[:12], fn, str(before)[:250], str(after)[:250]))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
