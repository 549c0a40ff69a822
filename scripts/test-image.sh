#!/usr/bin/env bash
# The image tested for real, with no image registry: a Debian 12 base made with debootstrap from
# the Debian mirror apt already uses, imported into a private dockerd (its own socket, data root
# and exec root; no bridge, no iptables; stopped by its PID at the end), docker/Dockerfile built
# on it, then, with the built image:
#   - its user, working directory and volume;
#   - `compare` of two commits of a local repository (static extraction);
#   - the HEALTHCHECK of a running `watch`: healthy, unhealthy while the repository is away,
#     healthy again when it is back; its report.dir page; SIGTERM ends it with exit code 0;
#   - a runtime-mode build and `compare` inside, started by docker/run.sh with the original
#     tool's run flags.
#   - docker/compose.yaml validated by docker-compose (it needs the host's GPU devices to run).
# Installs what it needs (docker.io, debootstrap, docker-compose) with apt-get. Needs root (dockerd, debootstrap).
# Keeps its directory when it fails, or always with AAW_KEEP_TEMP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$SECONDS

say() { echo "test-image: [$((SECONDS - started))s] $*"; }
fail() {
  echo "test-image: FAILED: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || fail "needs root (dockerd, debootstrap)"
scripts/install-deps.sh docker.io debootstrap docker-compose

work=$(mktemp -d "${TMPDIR:-/tmp}/aaw-image-test.XXXXXX")
chmod 755 "$work"
docker_bin=/usr/bin/docker  # docker.io's client, the version of its daemon (not another one on PATH)
export DOCKER_HOST="unix://$work/docker.sock"
dockerd_pid=""
base_image=aaw-test/debian:12
image=aaw-test/aiter-api-watcher

docker() { "$docker_bin" "$@"; }

stop_dockerd() {
  [ -n "$dockerd_pid" ] || return 0
  docker ps -aq 2>/dev/null | xargs -r "$docker_bin" rm -f >/dev/null 2>&1 || true
  kill -TERM "$dockerd_pid" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 "$dockerd_pid" 2>/dev/null || break
    sleep 0.5
  done
  kill -KILL "$dockerd_pid" 2>/dev/null || true
  wait "$dockerd_pid" 2>/dev/null || true
  dockerd_pid=""
}

cleanup() {
  local code=$?
  stop_dockerd
  # debootstrap and dockerd leave mounts behind when they are interrupted.
  findmnt -rn -o TARGET | grep "^$work/" | sort -r | while read -r mount; do umount -l "$mount" || true; done
  if [ "$code" -eq 0 ] && [ "${AAW_KEEP_TEMP:-0}" != 1 ]; then
    rm -rf "$work"
  else
    echo "test-image: kept its data in $work" >&2
  fi
  say "done (exit $code)"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The mirror apt uses for bookworm: deb822 sources first, then the one-line format.
debian_mirror() {
  /usr/bin/python3 - <<'PY'
import glob, re
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for stanza in open(path).read().split("\n\n"):
        fields = dict(l.split(":", 1) for l in stanza.splitlines() if ":" in l and not l.startswith("#"))
        suites = fields.get("Suites", "").split()
        if "bookworm" in suites and "main" in fields.get("Components", "").split():
            print(fields["URIs"].split()[0]); raise SystemExit
for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        m = re.match(r"deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s", line)
        if m:
            print(m.group(1)); raise SystemExit
print("http://deb.debian.org/debian")
PY
}

make_base() {
  local mirror
  mirror=$(debian_mirror)
  say "debootstrap Debian 12 (bookworm, minbase) from $mirror"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
  tar -C "$work/rootfs" --numeric-owner -c . | docker import - "$base_image" >/dev/null
  rm -rf "$work/rootfs"
}

start_dockerd() {
  say "starting a private dockerd on $work/docker.sock"
  mkdir -p "$work/docker-data" "$work/docker-exec"
  dockerd --host "$DOCKER_HOST" --data-root "$work/docker-data" --exec-root "$work/docker-exec" \
    --pidfile "$work/dockerd.pid" --bridge none --iptables=false --ip-masq=false \
    >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 120); do
    docker version >/dev/null 2>&1 && return 0
    kill -0 "$dockerd_pid" 2>/dev/null || { tail -20 "$work/dockerd.log"; fail "dockerd exited"; }
    sleep 0.5
  done
  fail "dockerd did not answer within 60 s"
}

build_image() {
  say "docker build -f docker/Dockerfile (base $base_image)"
  docker build --network host --build-arg BASE="$base_image" -f docker/Dockerfile -t "$image" . \
    >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "docker build"; }
  # .dockerignore keeps build output and state out of the context (882 MB without it).
  local context
  context=$(grep -o 'Sending build context to Docker daemon *[0-9.]*[kMG]B' "$work/build.log" | awk '{print $NF}')
  say "build context: $context; image: $(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1e6}')"
  case "$context" in
    *kB | [0-9]MB | [0-9].*MB | [0-4][0-9]MB | [0-4][0-9].*MB) ;;
    *) fail "build context is $context: .dockerignore lets build output in" ;;
  esac
}

check_compose() {
  RENDER_GID=109 docker-compose -f docker/compose.yaml config -q || fail "docker/compose.yaml is not valid"
  if docker-compose -f docker/compose.yaml config -q 2>/dev/null; then
    fail "docker/compose.yaml accepted an unset RENDER_GID"
  fi
  say "docker/compose.yaml: valid"
}

check_image_config() {
  local user workdir volumes
  user=$(docker image inspect -f '{{.Config.User}}' "$image")
  workdir=$(docker image inspect -f '{{.Config.WorkingDir}}' "$image")
  volumes=$(docker image inspect -f '{{json .Config.Volumes}}' "$image")
  [ "$user" = aaw ] || fail "image user is '$user', expected aaw"
  [ "$workdir" = /watch ] || fail "working directory is '$workdir', expected /watch"
  [ "$volumes" = '{"/watch":{}}' ] || fail "volumes are $volumes, expected /watch"
  [ "$(docker run --rm --network none "$image" --version)" = "aiter-api-watcher 0.1.0" ] || fail "--version"
  [ "$(docker run --rm --network none --entrypoint id "$image" -u)" = 10001 ] || fail "not running as uid 10001"
  say "image: user $user (uid 10001), workdir $workdir, volume /watch"
}

# A package with one function, in a bare repository: `scale` gains a required parameter in the
# second commit (breaking). setup.py makes it buildable in runtime mode.
make_repository() {
  local repo=$work/src
  git init -q -b main "$repo"
  mkdir -p "$repo/wpkg"
  printf 'from setuptools import setup\n\nsetup(name="wpkg", version="0.1", packages=["wpkg"])\n' >"$repo/setup.py"
  printf 'from .core import *\n' >"$repo/wpkg/__init__.py"
  printf 'def scale(x, factor=2):\n    return x * factor\n' >"$repo/wpkg/core.py"
  git -C "$repo" add -A
  git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m "first"
  first=$(git -C "$repo" rev-parse HEAD)
  printf 'def scale(x, y, factor=2):\n    return x * y * factor\n' >"$repo/wpkg/core.py"
  git -C "$repo" -c user.name=t -c user.email=t@t commit -q -am "scale takes y"
  second=$(git -C "$repo" rev-parse HEAD)
}

# DIR/upstream.git and DIR/aiter_api_watcher_config.json, owned by OWNER (uid[:gid]).
make_watch_dir() {
  local dir=$1 owner=$2 extra=${3:-}
  mkdir -p "$dir"
  git clone -q --bare "$work/src" "$dir/upstream.git"
  cat >"$dir/aiter_api_watcher_config.json" <<JSON
{
  "repository_url": "/watch/upstream.git",
  "functions_to_monitor": [{"import_statement": "import wpkg", "function_path": "wpkg.scale"}],
  "check_interval_seconds": 1,
  "build": {"env": {}, "timeout_seconds": 600}$extra
}
JSON
  chown -R "$owner" "$dir"
}

test_compare() {
  say "compare in the image (static extraction, no network)"
  make_watch_dir "$work/compare" 10001:10001
  local out code=0
  out=$(docker run --rm --network none -v "$work/compare:/watch" "$image" \
    compare --config /watch/aiter_api_watcher_config.json "$first" "$second" 2>&1) || code=$?
  echo "$out" | sed 's/^/    /'
  [ "$code" -eq 1 ] || fail "compare exited $code, expected 1 (changes found)"
  grep -q "API change detected for wpkg.scale between $first and $second (breaking)" <<<"$out" ||
    fail "compare did not report the breaking change"
}

health_of() { docker inspect -f '{{.State.Health.Status}}' aaw-test-health 2>/dev/null || echo gone; }

wait_health() {
  local want=$1 limit=$2
  for _ in $(seq 1 "$limit"); do
    [ "$(health_of)" = "$want" ] && { say "health: $want"; return 0; }
    sleep 1
  done
  docker logs --tail 20 aaw-test-health 2>&1 | sed 's/^/    /'
  fail "health is '$(health_of)' after ${limit}s, expected $want"
}

test_healthcheck() {
  say "watch with the HEALTHCHECK (every 2 s; stale after 3 check intervals of 1 s)"
  make_watch_dir "$work/health" 10001:10001 ', "report": {"dir": "report"}'
  docker run -d --name aaw-test-health --network none -v "$work/health:/watch" \
    --health-interval 2s --health-timeout 20s --health-start-period 0s --health-retries 1 "$image" >/dev/null
  wait_health healthy 120
  [ -s "$work/health/report/index.html" ] || fail "report.dir: no report/index.html after a poll"
  grep -q 'wpkg.scale' "$work/health/report/index.html" || fail "the report does not name wpkg.scale"
  mv "$work/health/upstream.git" "$work/health/upstream.git.away"
  wait_health unhealthy 90
  mv "$work/health/upstream.git.away" "$work/health/upstream.git"
  wait_health healthy 90
  docker stop -t 60 aaw-test-health >/dev/null
  local code
  code=$(docker inspect -f '{{.State.ExitCode}}' aaw-test-health)
  [ "$code" -eq 0 ] || fail "watch exited $code on SIGTERM, expected 0"
  grep -q "Stopping on request" "$work/health/aiter_api_watcher.log" || fail "no 'Stopping on request' in the log"
  docker rm aaw-test-health >/dev/null
  say "SIGTERM: exit 0, state and log kept in the mounted /watch"
}

test_runtime() {
  say "runtime mode inside, started by docker/run.sh (setup.py develop in the venv, then inspect)"
  make_watch_dir "$work/runtime" "$(id -u):$(id -g)" ', "sandbox": {"kind": "auto", "network": false}'
  local out code=0
  out=$(DOCKER=$docker_bin AAW_IMAGE=$image AAW_NAME=aaw-test-runtime docker/run.sh "$work/runtime" \
    compare --config /watch/aiter_api_watcher_config.json --extractor runtime "$first" "$second" 2>&1) || code=$?
  echo "$out" | sed 's/^/    /'
  [ "$code" -eq 1 ] || fail "runtime compare exited $code, expected 1 (changes found)"
  grep -q "API change detected for wpkg.scale between $first and $second (breaking)" <<<"$out" ||
    fail "runtime compare did not report the breaking change"
  [ -x "$work/runtime/aiter-api-watcher-state/venv/bin/python" ] || fail "no venv in state_dir"
}

check_compose
start_dockerd
make_base
build_image
check_image_config
make_repository
test_compare
test_healthcheck
test_runtime
say "all image checks passed"
