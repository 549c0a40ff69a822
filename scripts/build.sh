#!/usr/bin/env bash
# Configures and builds into build/ (or $AAW_BUILD_DIR) against Debian's /usr/bin/python3.
# CI=true turns warnings into errors.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${AAW_BUILD_DIR:-build}
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython_EXECUTABLE=/usr/bin/python3 \
  -DAAW_WERROR="$werror" "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
