#!/usr/bin/env bash
# clang-tidy over the sources, using the compile commands of an existing build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${AAW_BUILD_DIR:-build}
git ls-files 'src/*.cpp' | xargs clang-tidy -p "$build_dir" --quiet
