#!/usr/bin/env bash
# Runs the image the way the original aiter_api_watcher.py was run (its README's `docker run`):
# host network and IPC, the GPU devices /dev/kfd and /dev/dri with the video and render groups,
# SYS_PTRACE, seccomp unconfined (which also lets bubblewrap sandbox the builds), and
# GITHUB_TOKEN passed by name from the environment, never on the command line.
#
#   docker/run.sh DIR [ARGS...]
#
# DIR (default: the current directory) holds aiter_api_watcher_config.json; it is mounted at
# /watch, so the state directory and the log file the config names relatively land in DIR, as
# they did beside the original script. ARGS replace the default `watch --config
# /watch/aiter_api_watcher_config.json`, e.g. `compare --config /watch/aiter_api_watcher_config.json OLD NEW`.
# The container runs as the calling user, so the files in DIR stay yours.
#
# Container names: the daemon in the background (AAW_DETACH=1) is named aiter-api-watcher; a
# one-off run (a compare, a status, a watch in the foreground) gets no fixed name (docker makes a
# unique one and --rm removes it), so it never conflicts with the daemon or another one-off run.
#
# Environment: AAW_IMAGE (default aiter-api-watcher), AAW_NAME (container name: default
# aiter-api-watcher with AAW_DETACH=1, none for a one-off run), AAW_DETACH=1 to run in the
# background with --restart unless-stopped, DOCKER (default docker).
set -euo pipefail

dir=${1:-.}
[ $# -gt 0 ] && shift
if [ ! -d "$dir" ]; then
  echo "docker/run.sh: error: directory '$dir': not found" >&2
  exit 2
fi
dir=$(cd "$dir" && pwd)
if [ $# -eq 0 ] && [ ! -f "$dir/aiter_api_watcher_config.json" ]; then
  echo "docker/run.sh: error: config '$dir/aiter_api_watcher_config.json': not found" \
    "(copy config/aiter.json there, or pass the arguments to run)" >&2
  exit 2
fi

docker_cmd=${DOCKER:-docker}
args=(run --network=host --ipc=host --cap-add=SYS_PTRACE --security-opt seccomp=unconfined
  --user "$(id -u):$(id -g)" -e GITHUB_TOKEN -v "$dir:/watch")

# The GPU devices and their groups, when this host has them (static extraction needs neither).
# Groups by number: the image's /etc/group need not know the host's render group.
for device in /dev/kfd /dev/dri; do
  if [ -e "$device" ]; then
    args+=(--device "$device")
  else
    echo "docker/run.sh: warning: no $device on this host: running without it" >&2
  fi
done
for group in video render; do
  gid=$(getent group "$group" | cut -d: -f3 || true)
  [ -n "$gid" ] && args+=(--group-add "$gid")
done

if [ "${AAW_DETACH:-0}" = 1 ]; then
  args+=(--name "${AAW_NAME:-aiter-api-watcher}" --detach --restart unless-stopped)
else
  [ -n "${AAW_NAME:-}" ] && args+=(--name "$AAW_NAME")
  args+=(--rm)
  [ -t 0 ] && [ -t 1 ] && args+=(-it)
fi

exec "$docker_cmd" "${args[@]}" "${AAW_IMAGE:-aiter-api-watcher}" "$@"
