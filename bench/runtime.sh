#!/usr/bin/env bash
# Runtime extraction, per commit: checkout / build / extract, for 1 and for 50 monitored functions,
# beside the original script's method on the same commits (fresh clone, `setup.py develop`, one
# Python process per function: bench/original_approach.sh).
#
#   bench/runtime.sh [COMMITS]          COMMITS defaults to 10
#
# The history (bench/generate_runtime_history.py: a package with a real C extension and 50
# wrappers) is cached under build/bench-cache/. Our runs start from an empty state dir, with
# bisection off so every commit is built, and read the per-phase times from the debug log.
# Environment: AAW_BINARY (default build/aiter-api-watcher).
# Prints a Markdown table of medians (ms) per commit, excluding the first (venv creation, full build).
set -euo pipefail
cd "$(dirname "$0")/.."
commits=${1:-10}
binary=${AAW_BINARY:-build/aiter-api-watcher}
[[ $commits =~ ^[1-9][0-9]*$ ]] && [ "$commits" -ge 3 ] || { echo "usage: bench/runtime.sh [COMMITS >= 3]" >&2; exit 2; }
[ -x "$binary" ] || scripts/build.sh

generator_hash=$(sha1sum bench/generate_runtime_history.py | cut -c1-10)
cache="$PWD/build/bench-cache/runtime-c$commits-$generator_hash"
if [ ! -f "$cache/manifest.json" ]; then
  rm -rf "$cache"
  /usr/bin/python3 bench/generate_runtime_history.py "$cache" --commits "$commits" --functions 50
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t shas < <(git --git-dir "$cache/repo.git" rev-list --reverse --first-parent main)

median() { sort -n | awk '{ a[NR] = $0 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }

ours() {  # $1: number of functions; prints "checkout build extract" medians
  local n=$1
  /usr/bin/python3 - "$cache/config-$n.json" "$work/$n" <<'PY'
import json, os, sys
config = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2], exist_ok=True)
config["state_dir"] = sys.argv[2] + "/state"
config["log"] = {"file": sys.argv[2] + "/watcher.log", "level": "debug"}
json.dump(config, open(sys.argv[2] + "/config.json", "w"), indent=2)
PY
  if ! "$binary" watch --config "$work/$n/config.json" --once >"$work/$n/out" 2>&1; then
    echo "bench/runtime.sh: watch --once failed:" >&2
    tail -n 20 "$work/$n/out" >&2
    exit 2
  fi
  grep -o 'Runtime extraction of [0-9a-f]*: checkout [0-9]* ms, build [0-9]* ms ([a-z]*), extract [0-9]* ms' \
    "$work/$n/watcher.log" | tail -n +2 | awk '{ print $6, $9, $13 }' >"$work/$n/phases"
  [ -s "$work/$n/phases" ] || { echo "bench/runtime.sh: no timings in the log" >&2; exit 2; }
  echo "$(cut -d' ' -f1 "$work/$n/phases" | median) $(cut -d' ' -f2 "$work/$n/phases" | median)" \
       "$(cut -d' ' -f3 "$work/$n/phases" | median)"
}

original() {  # $1: number of functions; prints "clone build extract" medians
  bench/original_approach.sh "$cache/repo.git" "$cache/functions.txt" "$1" "${shas[@]}" | tail -n +2 >"$work/original-$1"
  echo "$(cut -d' ' -f2 "$work/original-$1" | median) $(cut -d' ' -f3 "$work/original-$1" | median)" \
       "$(cut -d' ' -f4 "$work/original-$1" | median)"
}

echo "| method | functions | checkout or clone (ms) | build (ms) | extract (ms) | total (ms) |"
echo "|---|---|---|---|---|---|"
for n in 1 50; do
  read -r c b e <<<"$(ours "$n")"
  echo "| aiter-api-watcher | $n | $c | $b | $e | $((c + b + e)) |"
  read -r c b e <<<"$(original "$n")"
  echo "| original method | $n | $c | $b | $e | $((c + b + e)) |"
done
echo "(medians over commits 2..$commits of a generated history; the first commit creates the venv and builds from scratch)"
