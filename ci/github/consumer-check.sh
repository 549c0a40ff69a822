#!/usr/bin/env bash
# The script part of ci/github/consumer-check.yml: a consumer repository (vLLM) checks every call
# it makes into the provider (aiter) against the provider's main, nightly. Prints the check as
# Markdown into the job summary and as JSON into $AAW_CHECK_JSON; exits 1 when a call breaks.
# Environment (defaults in brackets):
#   AAW_BIN         the watcher [aiter-api-watcher]
#   AAW_CONFIG      the config: repository_url of the provider, consumer.path [.github/aiter-api-watcher.json]
#   AAW_COMMIT      the provider commit to check against [the config's branch, fetched]
#   AAW_CHECK_JSON  where to write the check document [aiter-consumer-check.json]
#   GITHUB_STEP_SUMMARY  the job summary file [none]
set -uo pipefail

bin="${AAW_BIN:-aiter-api-watcher}"
config="${AAW_CONFIG:-.github/aiter-api-watcher.json}"
commit=()
[ -n "${AAW_COMMIT:-}" ] && commit=("$AAW_COMMIT")
"$bin" check --config "$config" --format json "${commit[@]}" > "${AAW_CHECK_JSON:-aiter-consumer-check.json}"
status=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ "$status" -le 1 ]; then
  "$bin" check --config "$config" --format markdown --no-blame "${commit[@]}" >> "$GITHUB_STEP_SUMMARY" || true
fi
exit $status
