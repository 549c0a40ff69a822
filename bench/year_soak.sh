#!/usr/bin/env bash
# A year of polls in minutes: does the daemon's disk stay flat? Upstream is a bare copy of aiter's
# real main (its 42 MB of history), to which COMMITS small commits are pushed in polls of 100
# (git fast-import, one file of aiter/ changed each, a monitored signature every 50th). Each poll
# is a new `watch --once` process (a restart every time), fetching into the same state dir; every
# 10th poll is preceded by a force-push that rewinds 50 commits, every 7th finds the remote gone
# (an outage: exit 2, then back). A "month" is a twelfth of the polls.
#
#   bench/year_soak.sh AITER_GIT [COMMITS]     COMMITS defaults to 20000 (200 polls)
#
# Environment: AAW_BINARY (default build/aiter-api-watcher), AAW_SOAK_DIR (default: a new temporary
# directory, removed at the end unless AAW_KEEP_TEMP=1).
# Prints, for each month, the commits pushed so far, the state dir's and the mirror's size (the
# mirror is part of the state dir), the largest RSS of that month's polls that did not repack and
# of those that did, and how many repacks ran so far; then "flat" when the state dir and the mirror
# end within 1.5x their size after the first month and the last month's peak RSS of polls without
# a repack within 1.2x (+ 10 MB) of the largest of the first three months', else "GROWING" (exit 1).
# A repack's helper (about 170 MB on aiter) writes one pack of every object, so its peak follows
# the repository, which the soak itself grows by half: it is shown, not judged.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/year_soak.sh AITER_GIT [COMMITS]" >&2; exit 2; }
aiter=$(cd "$1" && pwd)
commits=${2:-20000}
[[ $commits =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/year_soak.sh AITER_GIT [COMMITS]" >&2; exit 2; }
binary=$(realpath "${AAW_BINARY:-build/aiter-api-watcher}")
[ -x "$binary" ] || scripts/build.sh
work=${AAW_SOAK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/aaw-year-soak.XXXXXX")}
[ -n "${AAW_SOAK_DIR:-}" ] || [ "${AAW_KEEP_TEMP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
per_poll=100
polls=$(((commits + per_poll - 1) / per_poll))
month=$(((polls + 11) / 12))

git clone -q --bare --no-local --single-branch --branch main "$aiter" "$work/upstream.git"
/usr/bin/python3 - "$work/config.json" "$work" <<'PY'
import json, sys
functions = json.load(open("bench/aiter/aiter-35.json"))
functions = functions["functions_to_monitor"] if isinstance(functions, dict) else functions
functions.append({"import_statement": "from aiter.aaw_soak import soak", "function_path": "soak"})
config = {"repository_url": sys.argv[2] + "/upstream.git", "functions_to_monitor": functions,
          "state_dir": sys.argv[2] + "/state", "log": {"file": sys.argv[2] + "/watcher.log"}}
json.dump(config, open(sys.argv[1], "w"), indent=1)
PY

# Pushes $1 commits on main with fast-import: aiter/aaw_soak.py, whose soak() gains a parameter
# every 50th commit, or one of a few filler modules.
n=0
push_commits() {
  /usr/bin/python3 - "$1" "$n" <<'PY' | git -C "$work/upstream.git" fast-import --quiet
import sys
count, start = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout.buffer
def data(text):
    raw = text.encode()
    out.write(b"data %d\n" % len(raw) + raw + b"\n")
for i in range(start, start + count):
    out.write(b"commit refs/heads/main\n")
    out.write(b"committer soak <soak@example.com> %d +0000\n" % (1700000000 + i * 1500))
    data("soak commit %d" % i)
    if i == start:
        out.write(b"from refs/heads/main^0\n")
    if i % 50 == 0:
        params = ", ".join("p%d=None" % k for k in range(i // 50 % 40))
        out.write(b"M 100644 inline aiter/aaw_soak.py\n")
        data("def soak(x%s):\n    return x\n" % (", " + params if params else ""))
    else:
        out.write(b"M 100644 inline aiter/aaw_soak_filler_%d.py\n" % (i % 7))
        data("VALUE = %d\n" % i)
PY
  n=$((n + $1))
}

size_mb() { du -sb "$1" 2>/dev/null | awk '{printf "%.1f", $1 / 1e6}'; }

echo "| month | commits pushed | state_dir MB | mirror MB | peak RSS MB | peak RSS MB, polls that repacked | repacks |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
first_state="" first_mirror="" first_rss=0 last_rss=0 month_rss=0 month_repack_rss=0 repacks=0
for poll in $(seq 1 "$polls"); do
  if [ $((poll % 10)) -eq 0 ]; then
    git -C "$work/upstream.git" update-ref refs/heads/main "$(git -C "$work/upstream.git" rev-parse main~50)"
  fi
  push_commits "$per_poll"
  if [ $((poll % 7)) -eq 0 ]; then
    mv "$work/upstream.git" "$work/upstream.away"
    "$binary" watch --config "$work/config.json" --once >/dev/null 2>&1 && { echo "the outage was not seen" >&2; exit 1; }
    mv "$work/upstream.away" "$work/upstream.git"
  fi
  /usr/bin/time -f "%M" -o "$work/rss" "$binary" watch --config "$work/config.json" --once >"$work/poll.out" \
    2>"$work/poll.err" || { tail -5 "$work/poll.err" >&2; exit 1; }
  rss=$(tail -1 "$work/rss")
  # From each poll's own output: watcher.log rotates, so counting there loses the older repacks.
  repacked=$(grep -c "Repacked the mirror" "$work/poll.out" || true)
  repacks=$((repacks + repacked))
  if [ "$repacked" -gt 0 ]; then
    month_repack_rss=$((rss > month_repack_rss ? rss : month_repack_rss))
  else
    month_rss=$((rss > month_rss ? rss : month_rss))
  fi
  if [ $((poll % month)) -eq 0 ] || [ "$poll" -eq "$polls" ]; then
    state=$(size_mb "$work/state") mirror=$(size_mb "$work/state/mirrors")
    echo "| $(((poll + month - 1) / month)) | $n | $state | $mirror | $((month_rss / 1024)) | $((month_repack_rss / 1024)) | $repacks |"
    [ -n "$first_state" ] || { first_state=$state first_mirror=$mirror; }
    [ $(((poll + month - 1) / month)) -gt 3 ] || first_rss=$((month_rss > first_rss ? month_rss : first_rss))
    last_rss=$month_rss month_rss=0 month_repack_rss=0
  fi
done
/usr/bin/python3 - "$first_state" "$state" "$first_mirror" "$mirror" "$first_rss" "$last_rss" <<'PY'
import sys
s0, s1, m0, m1, r0, r1 = map(float, sys.argv[1:])
flat = s1 <= 1.5 * s0 and m1 <= 1.5 * m0 and r1 <= 1.2 * r0 + 10240
print("%s: state_dir %.1f -> %.1f MB (%.2fx), mirror %.1f -> %.1f MB (%.2fx), peak RSS %.0f -> %.0f MB"
      % ("flat" if flat else "GROWING", s0, s1, s1 / s0, m0, m1, m1 / m0, r0 / 1024, r1 / 1024))
sys.exit(0 if flat else 1)
PY
