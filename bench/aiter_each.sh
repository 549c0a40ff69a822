#!/usr/bin/env bash
# Replays aiter's whole first-parent history for each function of a list alone (`watch --once`
# from the first commit, static extraction, fresh state each time): what one function costs, since
# a set of functions costs at least what its slowest one does.
#
#   bench/aiter_each.sh AITER_GIT [LIST]
#
# AITER_GIT: a bare clone of ROCm/aiter. LIST: a config or function-list JSON (default
# bench/accuracy/aiter-vllm-surface.json, the aiter functions vLLM calls).
# Environment: AAW_BINARY (default build/aiter-api-watcher), AAW_BENCH_TOP (default 5: how many of
# the most expensive functions to list).
# Prints a Markdown row (functions, commits, wall time per function: max, 90th percentile,
# median, sum) and the most expensive functions with their wall time and the number of
# resolutions in Python the closing summary counts. One run per function: rerun the top ones with
# bench/aiter_history.sh for a median.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/aiter_each.sh AITER_GIT [LIST]" >&2; exit 2; }
repo=$(cd "$1" && pwd)
list=$(realpath "${2:-bench/accuracy/aiter-vllm-surface.json}")
binary=$(realpath "${AAW_BINARY:-build/aiter-api-watcher}")
top=${AAW_BENCH_TOP:-5}
[ -x "$binary" ] || scripts/build.sh
first=$(git --git-dir "$repo" rev-list --max-parents=0 --first-parent HEAD | tail -n 1)
commits=$(git --git-dir "$repo" rev-list --first-parent --count HEAD)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One config per function, numbered in the list's order, and the function's name beside it.
count=$(/usr/bin/python3 - "$list" "$work" "$repo" "$first" <<'PY'
import json, sys
listing, work, repo, first = sys.argv[1:]
functions = json.load(open(listing))["functions_to_monitor"]
for index, function in enumerate(functions):
    config = json.load(open("config/aiter.json"))
    config.update(functions_to_monitor=[function], repository_url=repo, start_commit=first,
                  state_dir="%s/%d/state" % (work, index),
                  log={"file": "%s/%d/watcher.log" % (work, index), "level": "info"})
    with open("%s/%d.json" % (work, index), "w") as f:
        json.dump(config, f)
    with open("%s/%d.name" % (work, index), "w") as f:
        f.write(function["import_statement"] + " | " + function["function_path"])
print(len(functions))
PY
)

results=$work/results
: >"$results"
for ((i = 0; i < count; i++)); do
  mkdir -p "$work/$i"
  if ! /usr/bin/time -f "%e" -o "$work/$i/time" "$binary" watch --config "$work/$i.json" --once \
      >"$work/$i/out" 2>"$work/$i/err"; then
    echo "bench/aiter_each.sh: watch --once failed for function $i of $list:" >&2
    tail -n 20 "$work/$i/err" >&2
    exit 2
  fi
  resolved=$(grep -o '[0-9]* function states resolved in Python' "$work/$i/out" | tail -n 1 | awk '{ print $1 }')
  printf '%s\t%s\t%s\n' "$(cat "$work/$i/time")" "${resolved:--}" "$(cat "$work/$i.name")" >>"$results"
  rm -rf "$work/$i/state"
done

echo "aiter history: $commits first-parent commits; $count functions of ${list#"$PWD"/}, each alone; $(uptime | sed 's/.*load/load/')"
echo "| functions | commits | max (s) | p90 (s) | median (s) | sum (s) |"
echo "|---|---|---|---|---|---|"
sort -n -k1,1 "$results" | awk -F'\t' '{ t[NR] = $1; s += $1 } END {
  p90 = int(NR * 0.9 + 0.999); if (p90 < 1) p90 = 1
  printf "| %d | %s | %.2f | %.2f | %.2f | %.1f |\n", NR, "'"$commits"'", t[NR], t[p90], t[int((NR + 1) / 2)], s }'
echo
echo "| most expensive | wall (s) | resolutions |"
echo "|---|---|---|"
sort -rn -k1,1 "$results" | head -n "$top" | awk -F'\t' '{ printf "| `%s` | %.2f | %s |\n", $3, $1, $2 }'
