#!/usr/bin/env bash
# Times `watch --config F --once` (static extraction) over a synthetic aiter-like history from an
# empty state dir, then checks the recorded changes against the planted ones.
#
#   bench/watch.sh [COMMITS]            COMMITS defaults to 3000
#
# The history (bench/generate_history.py: 200 modules, 50 monitored functions, 5% of the commits
# change a monitored signature, seed 1) is cached under build/bench-cache/<params>-<generator hash>.
# Environment: AAW_BINARY (default build/aiter-api-watcher), AAW_BENCH_RUNS (default 3),
# AAW_BENCH_TIMEOUT seconds a run (default 3600).
# Prints a Markdown table row (median wall time over the runs, peak RSS of the median run) and
# "changes: N found, M expected, OK|MISMATCH". Exit: 0 ok (or check not possible), 1 mismatch, 2 error.
set -euo pipefail
cd "$(dirname "$0")/.."
commits=${1:-3000}
runs=${AAW_BENCH_RUNS:-3}
limit=${AAW_BENCH_TIMEOUT:-3600}
binary=${AAW_BINARY:-build/aiter-api-watcher}
[[ $commits =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/watch.sh [COMMITS]" >&2; exit 2; }
[ -x "$binary" ] || scripts/build.sh

# The generated history, reused while the parameters and the generator are unchanged.
. bench/synthetic_history.sh
cache=$(synthetic_history "$commits")

make_scratch "$cache"  # $work/config.json: the state and the log kept in the scratch directory
n_functions=$(/usr/bin/python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["functions_to_monitor"]))' \
  "$work/config.json")

run_once() {  # prints "seconds max_rss_kb"; every run starts from an empty state dir
  rm -rf "$work/state" "$work/watcher.log"*
  if ! timeout "$limit" /usr/bin/time -f "%e %M" -o "$work/time" \
      "$binary" watch --config "$work/config.json" --once >"$work/out" 2>"$work/err"; then
    echo "bench/watch.sh: '$binary watch --config $work/config.json --once' failed:" >&2
    tail -n 20 "$work/err" >&2
    exit 2
  fi
  tail -n 1 "$work/time"
}

median() { sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }

results=$(for _ in $(seq "$runs"); do run_once; done)
best=$(median <<<"$results")
seconds=${best% *}
rss_kb=${best#* }
echo "| commits | functions | wall time (s) | commits/s | peak RSS (MB) |"
echo "|---|---|---|---|---|"
awk -v c="$commits" -v f="$n_functions" -v s="$seconds" -v k="$rss_kb" \
  'BEGIN { printf "| %d | %d | %.2f | %.0f | %d |\n", c, f, s, (s > 0 ? c / s : 0), k / 1024 }'

# The state of the last run holds every recorded change: compare with the planted ones.
if "$binary" history --config "$work/config.json" --format json >"$work/history.json" 2>"$work/history.err"; then
  /usr/bin/python3 - "$work/history.json" "$cache/expected_changes.txt" <<'PY'
import collections, json, sys
try:
    found = [(c["commit"].lower(), c["function_path"]) for c in json.load(open(sys.argv[1]))["changes"]]
except (ValueError, KeyError, TypeError) as error:
    print("changes: not checked (history --format json gave no changes list: %s)" % error)
    sys.exit(0)
expected = [tuple(line.split()[:2]) for line in open(sys.argv[2]) if line.strip() and not line.startswith("#")]
width = min([40] + [len(c) for c, _ in found])  # tolerate abbreviated commit ids
found = collections.Counter((c[:width], f) for c, f in found)
expected = collections.Counter((c[:width], f) for c, f in expected)
ok = found == expected
print("changes: %d found, %d expected, %s" % (sum(found.values()), sum(expected.values()), "OK" if ok else "MISMATCH"))
if not ok:
    for label, diff in (("missing", expected - found), ("unexpected", found - expected)):
        for (commit, path), n in sorted(diff.items())[:10]:
            print("  %s: %s %s%s" % (label, commit, path, " (x%d)" % n if n > 1 else ""), file=sys.stderr)
        if len(diff) > 10:
            print("  ... %d more %s" % (len(diff) - 10, label), file=sys.stderr)
    sys.exit(1)
PY
else
  echo "changes: not checked (history --format json failed: $(head -n 1 "$work/history.err"))"
fi
