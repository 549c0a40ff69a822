#!/usr/bin/env bash
# The back-fill of functions added to the config later, on aiter's real history: replays aiter's
# whole first-parent history (`watch --once` from its first commit, static extraction) without
# every 7th function of a list (five of the 35-function list), then starts again with the whole
# list, which back-fills the five over every processed commit. Checks that their back-filled
# history is the one a replay that monitored them from the start records, field for field, and
# prints the back-fill's time (median of the runs, and the worst) and the daemon's peak RSS.
#
#   bench/backfill.sh AITER_GIT [LIST]
#
# AITER_GIT: a bare clone of ROCm/aiter. LIST: a config or function list (default
# bench/aiter/aiter-35.json). Environment: AAW_BINARY (default build/aiter-api-watcher),
# AAW_BENCH_RUNS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/backfill.sh AITER_GIT [LIST]" >&2; exit 2; }
repo=$(cd "$1" && pwd)
list=$(realpath "${2:-bench/aiter/aiter-35.json}")
runs=${AAW_BENCH_RUNS:-3}
binary=$(realpath "${AAW_BINARY:-build/aiter-api-watcher}")
[ -x "$binary" ] || scripts/build.sh
first=$(git --git-dir "$repo" rev-list --max-parents=0 --first-parent HEAD | tail -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# full.json, part.json (without every 7th function) and dropped.json in DIR.
write_configs() {
  /usr/bin/python3 - "$list" "$repo" "$first" "$1" <<'PY'
import json, sys
lst, repo, first, out = sys.argv[1:]
fns = json.load(open(lst))["functions_to_monitor"]
cfg = {"repository_url": repo, "branch": "main", "start_commit": first, "extractor": "static",
       "state_dir": "state", "log": {"file": "watch.log"}, "functions_to_monitor": fns}
json.dump(cfg, open(out + "/full.json", "w"))
dropped = [f for i, f in enumerate(fns) if i % 7 == 3]
json.dump(dict(cfg, functions_to_monitor=[f for f in fns if f not in dropped]), open(out + "/part.json", "w"))
json.dump(dropped, open(out + "/dropped.json", "w"))
PY
}

# The changes of the dropped functions in HISTORY, without the back-fill mark, one JSON per line.
changes_of() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
dropped = {f["function_path"] for f in json.load(open(sys.argv[1]))}
for c in json.load(open(sys.argv[2]))["changes"]:
    if c["function_path"] in dropped:
        c.pop("backfilled", None)
        print(json.dumps(c, sort_keys=True))
PY
}

# The reference: the whole list monitored from the start.
mkdir -p "$work/reference"
write_configs "$work/reference"
(cd "$work/reference" && cp full.json config.json && "$binary" --quiet watch --config config.json --once &&
  "$binary" history --config config.json --format json >history.json)
changes_of "$work/reference/dropped.json" "$work/reference/history.json" | sort >"$work/reference.txt"

times=()
for run in $(seq "$runs"); do
  dir=$work/run$run
  mkdir -p "$dir"
  write_configs "$dir"
  (cd "$dir" && cp part.json config.json && "$binary" --quiet watch --config config.json --once &&
    cp full.json config.json &&
    /usr/bin/time -f "%M" -o rss "$binary" watch --config config.json --once >out 2>&1 &&
    "$binary" history --config config.json --format json >history.json)
  line=$(grep -o "Back-filled .*" "$dir/out")
  times+=("$(sed -E 's/.* in ([0-9.]+) s:.*/\1/' <<<"$line")")
  changes_of "$dir/dropped.json" "$dir/history.json" | sort >"$dir/changes.txt"
  if ! cmp -s "$dir/changes.txt" "$work/reference.txt"; then
    echo "bench/backfill.sh: run $run: the back-filled history differs from the replay's:" >&2
    diff "$work/reference.txt" "$dir/changes.txt" | head >&2
    exit 1
  fi
  echo "run $run: $line; peak RSS $(($(cat "$dir/rss") / 1024)) MB"
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "| functions back-filled | commits | changes (same as a replay) | median s | worst s |"
echo "|---|---|---|---|---|"
echo "| $(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/run1/dropped.json") |" \
  "$(git --git-dir "$repo" rev-list --first-parent --count HEAD) | $(wc -l <"$work/reference.txt") |" \
  "$(sed -n "$(((runs + 1) / 2))p" <<<"$sorted") | $(tail -n 1 <<<"$sorted") |"
