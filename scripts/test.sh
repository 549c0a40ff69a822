#!/usr/bin/env bash
# Quick start (2): install what is missing, build, and run the whole test suite (unit and
# integration). Tests start their own git servers on 127.0.0.1 and need no other network.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh chromium zsh fish groff-base systemd docker-compose  # chromium: the HTML report's test in a headless browser; zsh, fish: the completion tests; groff: the manual page's; systemd, docker-compose: the operator files' test
scripts/build.sh
ctest --test-dir "${AAW_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" "$@"
