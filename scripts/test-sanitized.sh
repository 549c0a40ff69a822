#!/usr/bin/env bash
# The unit tests again, built with AddressSanitizer and UndefinedBehaviorSanitizer into build-asan/
# (or $AAW_ASAN_BUILD_DIR). Leaks that libgit2, libcurl and the embedded interpreter keep on
# purpose until exit are suppressed (tests/lsan.supp); anything else fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${AAW_ASAN_BUILD_DIR:-build-asan}
# Debug (-O0): the sanitized build is compiled in about half the time of an optimised one.
AAW_BUILD_DIR=$build_dir scripts/build.sh -DAAW_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
# handle_segv=0: a segfault stays a signal 11 (the runtime tests crash an import child on purpose
# and expect to see it die by that signal); it still fails any test it happens in.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:handle_segv=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" -LE integration "$@"
