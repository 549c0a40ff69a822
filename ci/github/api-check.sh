#!/usr/bin/env bash
# The script part of ci/github/api-check.yml, runnable anywhere: the API check of a pull request
# in a provider repository (aiter). One compare of the PR's head against its merge base with the
# base branch, read straight from the checkout (nothing fetched or written there), gives:
#   - GitHub annotations on stdout (errors at the changed def lines, at most 10 per kind),
#   - the Markdown job summary appended to $GITHUB_STEP_SUMMARY,
#   - SARIF for code scanning in $AAW_SARIF.
# Its exit code is compare's: 0 unless a deny change is not waived (1), or something went wrong
# (2). Environment (defaults in brackets):
#   AAW_BIN      the watcher [aiter-api-watcher]
#   AAW_CONFIG   the config: functions to monitor, levels, consumer [.github/aiter-api-watcher.json]
#   AAW_REPO     the checkout of the PR [.]
#   AAW_BASE     the base branch or commit [origin/main]
#   AAW_HEAD     the PR's head [HEAD]
#   AAW_SARIF    where to write SARIF [aiter-api-check.sarif]
#   AAW_FAIL_ON  which changes are deny by default: breaking or any [breaking]
#   GITHUB_STEP_SUMMARY  the job summary file (GitHub sets it) [none: no summary]
set -uo pipefail

bin="${AAW_BIN:-aiter-api-watcher}"
args=(compare --config "${AAW_CONFIG:-.github/aiter-api-watcher.json}" --repo "${AAW_REPO:-.}"
      --merge-base "${AAW_BASE:-origin/main}" "${AAW_HEAD:-HEAD}"
      --fail-on "${AAW_FAIL_ON:-breaking}" --format github --sarif "${AAW_SARIF:-aiter-api-check.sarif}")
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  args+=(--summary "$GITHUB_STEP_SUMMARY")
fi
"$bin" "${args[@]}"
status=$?
case $status in
  0) echo "aiter API check: no unwaived deny change" >&2 ;;
  1) echo "aiter API check: unwaived deny changes (see the annotations and the job summary)" >&2 ;;
  *) echo "aiter API check: could not complete (exit $status)" >&2 ;;
esac
exit $status
