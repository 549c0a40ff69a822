#!/usr/bin/env bash
# Times `check --since-pin` on a real vLLM checkout against a real aiter repository: the config
# `discover --write-config` writes for it, pinned where vLLM's docker/Dockerfile.rocm_base pins
# aiter (AITER_BRANCH). Runs RUNS times each, alternating, with the state dir's cache of answers
# removed first (cold: every consumer file parsed, the ops' registrations found) and kept (warm:
# what a second run, a daemon's next poll or a CI job with a kept state dir does). Prints wall
# time and CPU (user + system) per run, median and worst, and the verdict counts.
#
#   bench/vllm_check.sh VLLM_CHECKOUT AITER_GIT [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
vllm=${1:?usage: bench/vllm_check.sh VLLM_CHECKOUT AITER_GIT [RUNS]}
repo=${2:?usage: bench/vllm_check.sh VLLM_CHECKOUT AITER_GIT [RUNS]}
runs=${3:-5}
binary=${AAW_BINARY:-build/aiter-api-watcher}
[ -x "$binary" ] || scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pin=$(sed -n 's/^ARG AITER_BRANCH="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$vllm/docker/Dockerfile.rocm_base" | head -n 1)
[ -n "$pin" ] || { echo "no AITER_BRANCH in $vllm/docker/Dockerfile.rocm_base" >&2; exit 2; }
"$binary" discover --consumer "$vllm" --write-config "$work/config.json" >/dev/null 2>&1
/usr/bin/python3 - "$repo" "$work" "$pin" <<'PY'
import json, sys
config = json.load(open(sys.argv[2] + "/config.json"))
config["repository_url"] = sys.argv[1]
config["state_dir"] = sys.argv[2] + "/state"
config["consumer"]["pinned_commit"] = sys.argv[3] + "^{commit}"
json.dump(config, open(sys.argv[2] + "/config.json", "w"))
PY
check() { "$binary" check --config "$work/config.json" --since-pin --quiet; }
check >/dev/null 2>&1 || [ $? -eq 1 ] || { check; exit 2; }  # clones the mirror

run_once() {  # prints "wall cpu"
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$binary" check --config "$work/config.json" --since-pin \
    --quiet >"$work/out" 2>"$work/err" || [ $? -eq 1 ] || { cat "$work/err" >&2; exit 2; }
  tail -n 1 "$work/time" | awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }'
}
: >"$work/cold"
: >"$work/warm"
for _ in $(seq "$runs"); do
  rm -f "$work/state/cache.db" "$work/state/cache.db-wal" "$work/state/cache.db-shm"
  run_once >>"$work/cold"
  run_once >>"$work/warm"
done
stats() {  # FILE COLUMN -> "median / worst"
  cut -d' ' -f"$2" "$1" | sort -n | awk '{ a[NR] = $0 } END { printf "%s / %s", a[int((NR + 1) / 2)], a[NR] }'
}
echo "aiter pinned at $pin; $(grep -c . "$work/out") lines of report, last: $(tail -n 1 "$work/out")"
echo
echo "| cache | runs | wall (s), median / worst | CPU user+sys (s), median / worst |"
echo "|---|---|---|---|"
echo "| cold (cache.db removed) | $runs | $(stats "$work/cold" 1) | $(stats "$work/cold" 2) |"
echo "| warm | $runs | $(stats "$work/warm" 1) | $(stats "$work/warm" 2) |"
