#!/usr/bin/env bash
# Replays aiter's real first-parent history (`watch --once` from its first commit, static
# extraction, fresh state each run) for several function lists, beside the Python reference
# (bench/reference_replay.py) on the same history.
#
#   bench/aiter_history.sh AITER_GIT [LIST...]
#
# AITER_GIT: a bare clone of ROCm/aiter. LIST: names among 6 35 35r 86 init modules (default: 6 35
# 86 init modules): 6 = config/aiter.json, 35 = bench/aiter/aiter-35.json, 35r =
# bench/aiter/aiter-35-routing.json (its first 34 and routing.routing), 86 =
# bench/accuracy/aiter-vllm-surface.json, init = bench/aiter/aiter-init.json (every public function
# `import aiter` gives), modules = bench/aiter/aiter-modules.json (every public function of every
# aiter module), stubs = bench/aiter/aiter-stubs.json (every compile_ops stub under aiter/ops/, with
# its compiled binding); bench/aiter_functions.py makes the last three from a snapshot.
# Environment: AAW_BINARY (default build/aiter-api-watcher), AAW_BENCH_RUNS (default 3),
# AAW_BENCH_COMMITS (default: all; the first N first-parent commits only), AAW_BENCH_FROM (default 1:
# the replay starts at the Nth first-parent commit, so with AAW_BENCH_COMMITS it replays commits N
# to AAW_BENCH_COMMITS; e.g. AAW_BENCH_FROM=1814 replays the last 1,000 of aiter's 2,813),
# AAW_BENCH_REFERENCE (default "6 35 86": the lists the reference also runs for, once each; "" none),
# AAW_BENCH_EXTRACTOR (default: the config's, static; static+import measures import confirmation),
# AAW_BENCH_BINARIES (default: AAW_BINARY alone; "A B ...": binaries compared in alternating runs,
# one row each, the first one's first: the machine's pace moves within minutes, so only runs side by
# side compare), AAW_BENCH_PARSE_AHEAD (default: the config's, on; "false" runs one process, whose
# times move less).
# Prints one Markdown row per list: median wall time over the runs, its CPU time (user + sys) and
# peak RSS (of the daemon and the helper that parses ahead: CPU summed, RSS the larger of the two
# peaks, as wait4 gives them), the helper's own peak RSS (from the closing summary line), the
# parses per distinct blob of the watcher's Python half, the changes recorded, and the
# reference's wall and CPU time (its git child included), changes and the speed-up on each.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/aiter_history.sh AITER_GIT [LIST...]" >&2; exit 2; }
repo=$(cd "$1" && pwd); shift
lists=${*:-6 35 86 init modules}
runs=${AAW_BENCH_RUNS:-3}
binary=$(realpath "${AAW_BINARY:-build/aiter-api-watcher}")
binaries=()
for b in ${AAW_BENCH_BINARIES:-$binary}; do binaries+=("$(realpath "$b")"); done
reference_lists=${AAW_BENCH_REFERENCE-6 35 86}
[ -x "$binary" ] || scripts/build.sh
first=$(git --git-dir "$repo" rev-list --max-parents=0 --first-parent HEAD | tail -n 1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The history to replay: the whole of it, or a repository borrowing aiter's objects whose main
# stops at the Nth first-parent commit.
history=$repo
if [ -n "${AAW_BENCH_COMMITS:-}" ]; then
  history=$work/history.git
  git init -q --bare "$history"
  echo "$repo/objects" >"$history/objects/info/alternates"
  head=$(git --git-dir "$repo" rev-list --first-parent --reverse HEAD | sed -n "${AAW_BENCH_COMMITS}p")
  git --git-dir "$history" update-ref refs/heads/main "$head"
  git --git-dir "$history" symbolic-ref HEAD refs/heads/main
fi
from=${AAW_BENCH_FROM:-1}
if [ "$from" -gt 1 ]; then
  first=$(git --git-dir "$history" rev-list --first-parent --reverse HEAD | sed -n "${from}p")
  [ -n "$first" ] || { echo "bench/aiter_history.sh: AAW_BENCH_FROM=$from is past the last commit" >&2; exit 2; }
fi
commits=$(($(git --git-dir "$history" rev-list --first-parent --count HEAD) - from + 1))

list_file() {
  case $1 in
    6) echo config/aiter.json ;;
    35) echo bench/aiter/aiter-35.json ;;
    35r) echo bench/aiter/aiter-35-routing.json ;;
    86) echo bench/accuracy/aiter-vllm-surface.json ;;
    init) echo bench/aiter/aiter-init.json ;;
    modules) echo bench/aiter/aiter-modules.json ;;
    stubs) echo bench/aiter/aiter-stubs.json ;;
    *) echo "bench/aiter_history.sh: unknown list '$1' (6, 35, 35r, 86, init, modules, stubs)" >&2; exit 2 ;;
  esac
}

make_config() {  # LIST_FILE DIR: the default config monitoring that list, on the history
  /usr/bin/python3 - "$1" "$2" "$history" "$first" "${AAW_BENCH_EXTRACTOR:-}" "${AAW_BENCH_PARSE_AHEAD:-}" <<'PY'
import json, sys
config = json.load(open("config/aiter.json"))
config["functions_to_monitor"] = json.load(open(sys.argv[1]))["functions_to_monitor"]
config.update(repository_url=sys.argv[3], start_commit=sys.argv[4], state_dir=sys.argv[2] + "/state",
              log={"file": sys.argv[2] + "/watcher.log", "level": "info"})
if sys.argv[5]:
    config["extractor"] = sys.argv[5]
if sys.argv[6]:
    config.setdefault("static", {})["parse_ahead"] = sys.argv[6] == "true"
json.dump(config, open(sys.argv[2] + "/config.json", "w"), indent=1)
PY
}

run_once() {  # DIR BINARY: "wall cpu rss_kb"; every run starts from an empty state dir
  rm -rf "$1/state" "$1/watcher.log"*
  if ! /usr/bin/time -f "%e %U %S %M" -o "$1/time" "$2" watch --config "$1/config.json" --once \
      >"$1/out" 2>"$1/err"; then
    echo "bench/aiter_history.sh: watch --once failed for $1:" >&2
    tail -n 20 "$1/err" >&2
    exit 2
  fi
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$1/time"
}

median() { sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }

if [ "${#binaries[@]}" -gt 1 ]; then
  for i in "${!binaries[@]}"; do echo "[$((i + 1))] ${binaries[$i]}"; done
fi
echo "aiter history: $commits first-parent commits from ${first:0:12}; $(uptime | sed 's/.*load/load/')"
echo "| functions | commits | wall (s) | CPU (s) | peak RSS (MB) | helper's peak RSS (MB) | parses / distinct blobs | changes | reference wall (s) | reference CPU (s) | reference changes | speed-up |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for list in $lists; do
  dir=$work/$list
  mkdir -p "$dir"
  file=$(list_file "$list")
  make_config "$file" "$dir"
  n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["functions_to_monitor"]))' "$file")
  for run in $(seq "$runs"); do
    for i in "${!binaries[@]}"; do
      run_once "$dir" "${binaries[$i]}" >>"$dir/runs.$i"
      [ "$run" = "$runs" ] || continue  # what the last run recorded is what the row reports
      cp "$dir/out" "$dir/out.$i"
      "${binaries[$i]}" history --config "$dir/config.json" --format json |
        /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["changes"]))' >"$dir/changes.$i"
    done
  done
  ref_wall=- ref_cpu=- ref_changes=-
  if [[ " $reference_lists " == *" $list "* ]]; then
    ref=$(/usr/bin/time -f "%e %U %S" -o "$dir/ref_time" /usr/bin/python3 bench/reference_replay.py "$history" \
      "$dir/config.json")
    read -r ref_wall ref_user ref_sys <"$dir/ref_time"
    ref_cpu=$(awk -v u="$ref_user" -v s="$ref_sys" 'BEGIN { printf "%.2f", u + s }')
    ref_changes=$(awk '{ print $6 }' <<<"$ref")
  fi
  for i in "${!binaries[@]}"; do
    read -r wall cpu rss <<<"$(median <"$dir/runs.$i")"
    # "... N module parses of M distinct blobs" from the last run's closing summary.
    parses=$(grep -o '[0-9]* module parses of [0-9]* distinct blobs' "$dir/out.$i" | tail -n 1 |
      awk '{ printf "%d / %d", $1, $5 }' || true)
    # "..., its peak RSS N MB": the helper that parses ahead, from the same line ("-" when none ran).
    helper_rss=$(grep -o 'its peak RSS [0-9]* MB' "$dir/out.$i" | tail -n 1 | awk '{ print $4 }' || true)
    speedup=-
    if [ "$ref_wall" != - ]; then
      speedup=$(awk -v r="$ref_wall" -v w="$wall" -v rc="$ref_cpu" -v c="$cpu" \
        'BEGIN { printf "%.1f× (CPU %.1f×)", (w > 0 ? r / w : 0), (c > 0 ? rc / c : 0) }')
    fi
    label=$n
    [ "${#binaries[@]}" -gt 1 ] && label="$n [$((i + 1))]"
    awk -v n="$label" -v c="$commits" -v w="$wall" -v u="$cpu" -v k="$rss" -v h="${helper_rss:--}" \
      -v p="${parses:--}" -v ch="$(cat "$dir/changes.$i")" -v rw="$ref_wall" -v ru="$ref_cpu" -v rc="$ref_changes" \
      -v s="$speedup" \
      'BEGIN { printf "| %s | %d | %.2f | %.2f | %d | %s | %s | %d | %s | %s | %s | %s |\n", n, c, w, u, k / 1024, h, p, ch, rw, ru, rc, s }'
  done
done
