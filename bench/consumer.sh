#!/usr/bin/env bash
# Times `discover` and `check` on a vLLM-sized consumer (bench/generate_consumer.py: vLLM's aiter
# call shapes plus plain files up to FILES) against a real aiter repository.
#
#   bench/consumer.sh REPOSITORY [FILES] [RUNS] [MENTION_EVERY]
#
# REPOSITORY is a URL or a local path, e.g. a bare clone of ROCm/aiter. Prints one table row per
# step: median wall time over RUNS runs (default 3) and the peak RSS of the median run, then the
# verdict counts of the last check. `check` runs warm (mirror cloned and cache.db filled by a
# first, untimed run) and includes the blame of every broken call.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${1:?usage: bench/consumer.sh REPOSITORY [FILES] [RUNS]}
files=${2:-2200}
runs=${3:-3}
mention=${4:-50}  # every Nth plain file names aiter, so it is parsed too (1: every file)
binary=${AAW_BINARY:-build/aiter-api-watcher}
[ -x "$binary" ] || scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 bench/generate_consumer.py "$work/consumer" --files "$files" --mention-every "$mention" >&2
"$binary" discover --consumer "$work/consumer" --write-config "$work/config.json" >/dev/null 2>&1
/usr/bin/python3 - "$repo" "$work" <<'PY'
import json, sys
config = json.load(open(sys.argv[2] + "/config.json"))
config["repository_url"] = sys.argv[1]
config["state_dir"] = sys.argv[2] + "/state"
json.dump(config, open(sys.argv[2] + "/config.json", "w"))
PY
"$binary" check --config "$work/config.json" --no-blame >/dev/null 2>&1 || true  # clones the mirror

run_once() {  # prints "seconds max_rss_kb"
  /usr/bin/time -f "%e %M" -o "$work/time" "$binary" "$@" >"$work/out" 2>"$work/err" || [ $? -eq 1 ] ||
    { cat "$work/err" >&2; exit 2; }
  tail -n 1 "$work/time"
}
median() { sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }

disc=$(for _ in $(seq "$runs"); do run_once discover --consumer "$work/consumer"; done | median)
summary=$(tail -n 1 "$work/out")
"$binary" discover --consumer "$work/consumer" --format json >"$work/discovered.json"
parsed=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files_scanned"])' "$work/discovered.json")
check=$(for _ in $(seq "$runs"); do run_once check --config "$work/config.json"; done | median)
verdicts=$(tail -n 1 "$work/out")
echo "| step | files | wall time (s) | peak RSS (MB) |"
echo "|---|---|---|---|"
printf '| discover | %s | %s | %d |\n' "$files" "${disc% *}" $(( ${disc#* } / 1024 ))
printf '| check (fetch, extract, bind, blame) | %s | %s | %d |\n' "$files" "${check% *}" $(( ${check#* } / 1024 ))
echo
echo "discover: $summary; $(grep -rl aiter "$work/consumer" | wc -l) files name aiter (parsed), $parsed scanned"
echo "check: $verdicts"
