#!/usr/bin/env bash
# The original script's method, on the same commits, for comparison: for every commit a fresh
# clone, a checkout, `python setup.py develop`, then one Python process per monitored function
# printing inspect.signature. (The original installed into the global environment; here it goes
# into a venv made once, so the machine is left as it was.)
#
#   bench/original_approach.sh REPO FUNCTIONS_FILE N_FUNCTIONS COMMIT...
#
# Prints one line per commit: "<sha> clone_ms build_ms extract_ms".
set -euo pipefail
repo=$1 functions_file=$2 n_functions=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
python="$work/venv/bin/python"
mapfile -t functions < <(head -n "$n_functions" "$functions_file")
now_ms() { date +%s%3N; }
for sha in "$@"; do
  t0=$(now_ms)
  rm -rf "$work/clone"
  git clone -q "$repo" "$work/clone"
  git -C "$work/clone" checkout -q "$sha"
  t1=$(now_ms)
  (cd "$work/clone" && "$python" setup.py -q develop >"$work/build.log" 2>&1)
  t2=$(now_ms)
  for f in "${functions[@]}"; do
    (cd "$work" && "$python" -c "import inspect, benchpkg; print(inspect.signature(benchpkg.$f))" >/dev/null)
  done
  t3=$(now_ms)
  echo "$sha $((t1 - t0)) $((t2 - t1)) $((t3 - t2))"
done
