#!/usr/bin/env bash
# Quick start (1): install what is missing, build the binary (not the tests), and run the main job on
# the bundled config:
# continuous monitoring of ROCm/aiter's main branch (Ctrl-C stops it cleanly). Arguments are passed
# to aiter-api-watcher as they are, e.g.
#   scripts/run.sh compare --config config/aiter.json 9f212b6c8967ac0cb7faf22ef9582c656c61bd4e main
#   scripts/run.sh watch --config config/aiter.json --once
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --target aiter-api-watcher
if [ $# -eq 0 ]; then
  set -- watch --config config/aiter.json
fi
exec "${AAW_BUILD_DIR:-build}/aiter-api-watcher" "$@"
