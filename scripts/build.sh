#!/usr/bin/env bash
# Configures and builds into build/ (or $AAW_BUILD_DIR) against Debian's /usr/bin/python3.
# CI=true turns warnings into errors. `--target NAME` first builds that target only (scripts/run.sh
# builds just the binary, not the test suite); other arguments go to CMake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${AAW_BUILD_DIR:-build}
target=()
if [ "${1:-}" = "--target" ]; then
  target=(--target "$2")
  shift 2
fi
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython_EXECUTABLE=/usr/bin/python3 \
  -DAAW_WERROR="$werror" "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)" "${target[@]}"
