#!/usr/bin/env bash
# Times `compare` of the six default functions (config/aiter.json) between two commits of a real
# repository: cold (empty state dir: the mirror is cloned first) and warm (mirror present, fetched).
#
#   bench/compare.sh REPOSITORY [OLD] [NEW] [RUNS]
#
# REPOSITORY is a URL or a local path, e.g. a bare clone of ROCm/aiter. Prints one table row per
# run kind: median wall time over RUNS runs (default 3) and the peak RSS of the median run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${1:?usage: bench/compare.sh REPOSITORY [OLD] [NEW] [RUNS]}
old=${2:-9f212b6c8967ac0cb7faf22ef9582c656c61bd4e}
new=${3:-main}
runs=${4:-3}
binary=${AAW_BINARY:-build/aiter-api-watcher}
[ -x "$binary" ] || scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The bundled config with the repository replaced and the state kept in the scratch directory.
/usr/bin/python3 - "$repo" "$work" <<'PY'
import json, sys
config = json.load(open("config/aiter.json"))
config["repository_url"] = sys.argv[1]
config["state_dir"] = sys.argv[2] + "/state"
config["log"]["file"] = ""
json.dump(config, open(sys.argv[2] + "/config.json", "w"))
PY

run_once() {  # prints "seconds max_rss_kb"
  /usr/bin/time -f "%e %M" -o "$work/time" "$binary" compare --config "$work/config.json" "$old" "$new" \
    >/dev/null 2>"$work/err" || [ $? -eq 1 ] || { cat "$work/err" >&2; exit 2; }
  tail -n 1 "$work/time"  # time prefixes a "Command exited with non-zero status" line
}

median() { sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }

cold=$(for _ in $(seq "$runs"); do rm -rf "$work/state"; run_once; done | median)
warm=$(for _ in $(seq "$runs"); do run_once; done | median)
echo "| case | wall time (s) | peak RSS (MB) |"
echo "|---|---|---|"
printf '| cold: clone mirror + compare | %s | %d |\n' "${cold% *}" $(( ${cold#* } / 1024 ))
printf '| warm: fetch + compare | %s | %d |\n' "${warm% *}" $(( ${warm#* } / 1024 ))
