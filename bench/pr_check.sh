#!/usr/bin/env bash
# Times the pull-request gate as ci/github/api-check.sh runs it: `compare --repo CHECKOUT
# --merge-base BASE HEAD --fail-on breaking --format github --summary F --sarif F` of the six
# default functions (config/aiter.json), read straight from a checkout (no mirror, no clone).
#
#   bench/pr_check.sh CHECKOUT [BASE] [HEAD] [RUNS]
#
# CHECKOUT is a clone of ROCm/aiter (`git clone /path/to/aiter.git CHECKOUT`). The defaults are
# aiter's #3891 (6a704ea9, which removed shuffle_weight's `arch`) against its parent. Prints one
# table row: median wall time over RUNS runs (default 5) and the peak RSS of the median run.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=${1:?usage: bench/pr_check.sh CHECKOUT [BASE] [HEAD] [RUNS]}
head=${3:-6a704ea9c6ca91377f0aabfcf67ac82ce0d147bf}
base=${2:-$head^}
runs=${4:-5}
binary=${AAW_BINARY:-build/aiter-api-watcher}
[ -x "$binary" ] || scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -c 'import json, sys; c = json.load(open("config/aiter.json")); c.update(state_dir=sys.argv[1] + "/state", log={"file": ""}); json.dump(c, open(sys.argv[1] + "/config.json", "w"))' "$work"

for _ in $(seq "$runs"); do
  rm -f "$work/summary.md"
  /usr/bin/time -f "%e %M" -o "$work/time" "$binary" compare --config "$work/config.json" --repo "$checkout" \
    --merge-base "$base" "$head" --fail-on breaking --format github --summary "$work/summary.md" \
    --sarif "$work/out.sarif" >/dev/null 2>"$work/err" || [ $? -eq 1 ] || { cat "$work/err" >&2; exit 2; }
  tail -n 1 "$work/time"
done | sort -n | awk '{ a[NR] = $0 } END { split(a[int((NR + 1) / 2)], m, " ");
  print "| case | wall time (s) | peak RSS (MB) |\n|---|---|---|";
  printf "| PR gate (annotations, summary, SARIF) from a checkout | %s | %.0f |\n", m[1], m[2] / 1024 }'
