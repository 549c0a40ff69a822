# Sourced by bench/watch.sh and bench/soak.sh: the synthetic aiter-like history they replay.
#
#   synthetic_history COMMITS      -> prints the cache directory (repo.git, config.json,
#                                     expected_changes.txt, manifest.json), generating it if needed
#   make_scratch CACHE             -> sets `work`: a scratch directory (removed at exit) holding
#                                     config.json, CACHE's config with its state and log inside it
#
# The history (bench/generate_history.py: 200 modules, 50 monitored functions, 5% of the commits
# change a monitored signature, seed 1) is cached under build/bench-cache/<params>-<generator hash>.

synthetic_history() {
  local commits=$1 modules=200 functions=50 touch_rate=0.05 seed=1 generator_hash cache
  generator_hash=$(sha1sum bench/generate_history.py | cut -c1-10)
  cache="$PWD/build/bench-cache/c$commits-m$modules-f$functions-t$touch_rate-s$seed-$generator_hash"
  if [ ! -f "$cache/manifest.json" ]; then  # manifest.json is written last: its absence means incomplete
    rm -rf "$cache"
    mkdir -p "$(dirname "$cache")"
    /usr/bin/python3 bench/generate_history.py "$cache" --commits "$commits" --modules "$modules" \
      --functions "$functions" --touch-rate "$touch_rate" --seed "$seed" >&2
  else
    echo "using cached history $cache" >&2
  fi
  echo "$cache"
}

make_scratch() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  /usr/bin/python3 - "$1/config.json" "$work" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["state_dir"] = sys.argv[2] + "/state"
config["log"]["file"] = sys.argv[2] + "/watcher.log"
json.dump(config, open(sys.argv[2] + "/config.json", "w"), indent=2)
PY
}
