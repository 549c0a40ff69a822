#!/usr/bin/env bash
# Soak: does the daemon's memory stay flat over a long history? Replays a synthetic history of
# COMMITS commits (bench/generate_history.py, cached under build/bench-cache/ as bench/watch.sh
# does) with `watch --once` from an empty state dir, sampling the process's resident set size
# (VmRSS) and the number of commits recorded in the state store twice a second.
#
#   bench/soak.sh [COMMITS]        COMMITS defaults to 20000 (a month of aiter's pace many times over)
#
# Environment: AAW_BINARY (default build/aiter-api-watcher).
# Prints the RSS after each tenth of the commits and "flat" when the largest RSS of the second half
# of the run exceeds the largest of the first half by at most 10 % (+ 5 MB), else "GROWING" (exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
commits=${1:-20000}
binary=$(realpath "${AAW_BINARY:-build/aiter-api-watcher}")
[[ $commits =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/soak.sh [COMMITS]" >&2; exit 2; }
[ -x "$binary" ] || scripts/build.sh
. bench/synthetic_history.sh
cache=$(synthetic_history "$commits")
make_scratch "$cache"  # $work/config.json: the state and the log kept in the scratch directory
"$binary" watch --config "$work/config.json" --once >/dev/null 2>"$work/err" &
pid=$!
# Samples "commits_recorded rss_kb" until the process ends.
/usr/bin/python3 - "$pid" "$work/state/state.db" >"$work/samples" <<'PY'
import os, sqlite3, sys, time
pid, db = int(sys.argv[1]), sys.argv[2]
while True:
    try:
        with open("/proc/%d/status" % pid) as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        break
    recorded = 0
    if os.path.exists(db):
        try:
            connection = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=0.2)
            recorded = connection.execute("SELECT count(*) FROM commits").fetchone()[0]
            connection.close()
        except sqlite3.Error:
            pass
    print(recorded, rss, flush=True)
    time.sleep(0.5)
PY
wait "$pid" || { echo "bench/soak.sh: watch --once failed:" >&2; tail -n 20 "$work/err" >&2; exit 2; }
/usr/bin/python3 - "$work/samples" "$commits" <<'PY'
import sys
samples = [tuple(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]
total = int(sys.argv[2])
print("| commits recorded | RSS (MB) |")
print("|---|---|")
for tenth in range(1, 11):
    reached = [rss for recorded, rss in samples if recorded <= total * tenth // 10]
    if reached:
        print("| %d | %d |" % (total * tenth // 10, max(reached) // 1024))
first = [rss for recorded, rss in samples if recorded <= total // 2] or [0]
second = [rss for recorded, rss in samples if recorded > total // 2] or [0]
flat = max(second) <= max(first) * 1.1 + 5 * 1024
print("peak RSS first half %d MB, second half %d MB: %s" % (max(first) // 1024, max(second) // 1024,
                                                          "flat" if flat else "GROWING"))
sys.exit(0 if flat else 1)
PY
