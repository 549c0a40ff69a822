#!/usr/bin/env bash
# Formats every C++ file in place with the repository's .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files '*.cpp' '*.hpp' | xargs clang-format -i
