#!/usr/bin/env bash
# The tests that run threads against each other, built with ThreadSanitizer into build-tsan/ (or
# $AAW_TSAN_BUILD_DIR): the log reopened while another thread logs, the notification delivery
# thread, and the daemon under a storm of SIGHUPs while its delivery thread logs failures. Any
# report fails the run. Too slow for every CI run; run it after touching threads or logging.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${AAW_TSAN_BUILD_DIR:-build-tsan}
AAW_BUILD_DIR=$build_dir scripts/build.sh -DAAW_TSAN=ON
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1}
# setarch -R: TSan needs the address layout it expects, which high mmap randomisation breaks.
exec setarch "$(uname -m)" -R ctest --test-dir "$build_dir" --output-on-failure \
  -R "${1:-ReopeningWhileAnotherThreadLogs|DeliveryService|SighupStorm}"
