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
#     tool's run flags, beside the daemon docker/run.sh started detached (a one-off run must not
#     take the daemon's container name);
#   - docker/compose.yaml up in static mode, with no GPU and no RENDER_GID, polling until stopped
#     (docker/compose.gpu.yaml, which adds the GPU, validated only: this host has none);
#   - docker/aiter-api-watcher.service under a real systemd (PID 1 of a container made from the
#     image plus systemd and logrotate): installed by the commands of its header with
#     config/examples/systemd.json, it polls as a dynamic user with its state in /var/lib and its
#     log in /var/log, reloads, rotates with docker/aiter-api-watcher.logrotate and stops with
#     exit 0; with the shipped config/aiter.json (relative paths, under read-only /etc) it exits 2
#     and stays failed, with no restart.
# The default base of docker/Dockerfile (a ROCm image) is not built here: no registry is reachable.
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
  # (grep finds none after a clean run: not a failure of the run.)
  findmnt -rn -o TARGET | { grep "^$work/" || true; } | sort -r | while read -r mount; do umount -l "$mount" || true; done
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
  env -u RENDER_GID docker-compose -f docker/compose.yaml config -q ||
    fail "docker/compose.yaml is not valid without RENDER_GID (static mode needs no GPU)"
  RENDER_GID=109 docker-compose -f docker/compose.yaml -f docker/compose.gpu.yaml config -q ||
    fail "docker/compose.yaml with docker/compose.gpu.yaml is not valid"
  if env -u RENDER_GID docker-compose -f docker/compose.yaml -f docker/compose.gpu.yaml config -q 2>/dev/null; then
    fail "docker/compose.gpu.yaml accepted an unset RENDER_GID"
  fi
  say "docker/compose.yaml: valid without a GPU; docker/compose.gpu.yaml over it: valid, requires RENDER_GID"
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
  say "docker/run.sh: the daemon detached (named aiter-api-watcher), then a one-off run beside it"
  make_watch_dir "$work/daemon" "$(id -u):$(id -g)"
  env -u AAW_NAME DOCKER=$docker_bin AAW_IMAGE=$image AAW_DETACH=1 docker/run.sh "$work/daemon" >/dev/null 2>&1 ||
    fail "docker/run.sh AAW_DETACH=1 did not start the daemon"
  [ "$(docker inspect -f '{{.State.Running}} {{.HostConfig.RestartPolicy.Name}}' aiter-api-watcher)" = "true unless-stopped" ] ||
    fail "the detached daemon is not running as aiter-api-watcher with --restart unless-stopped"
  say "runtime mode inside, started by docker/run.sh (setup.py develop in the venv, then inspect)"
  make_watch_dir "$work/runtime" "$(id -u):$(id -g)" ', "sandbox": {"kind": "auto", "network": false}'
  local out code=0
  out=$(env -u AAW_NAME -u AAW_DETACH DOCKER=$docker_bin AAW_IMAGE=$image docker/run.sh "$work/runtime" \
    compare --config /watch/aiter_api_watcher_config.json --extractor runtime "$first" "$second" 2>&1) || code=$?
  echo "$out" | sed 's/^/    /'
  [ "$code" -eq 1 ] || fail "runtime compare exited $code, expected 1 (changes found)"
  grep -q "API change detected for wpkg.scale between $first and $second (breaking)" <<<"$out" ||
    fail "runtime compare did not report the breaking change"
  [ -x "$work/runtime/aiter-api-watcher-state/venv/bin/python" ] || fail "no venv in state_dir"
  [ "$(docker inspect -f '{{.State.Running}}' aiter-api-watcher)" = true ] || fail "the detached daemon stopped"
  docker exec aiter-api-watcher aiter-api-watcher status --config /watch/aiter_api_watcher_config.json --check \
    >/dev/null || fail "the detached daemon has not polled"
  docker rm -f aiter-api-watcher >/dev/null
}

# docker/compose.yaml as shipped, in static mode on this host without a GPU and without RENDER_GID:
# the image tagged with the name compose.yaml gives it, nothing built or pulled.
test_compose() {
  say "docker-compose up (static mode, no GPU, no RENDER_GID)"
  make_watch_dir "$work/compose" 10001:10001
  docker tag "$image" aiter-api-watcher
  local compose=(env -u RENDER_GID AAW_WATCH_DIR="$work/compose" docker-compose -p aawtest -f docker/compose.yaml)
  "${compose[@]}" up -d --no-build >"$work/compose.log" 2>&1 || { cat "$work/compose.log"; fail "docker-compose up"; }
  local polled=""
  for _ in $(seq 1 60); do
    "${compose[@]}" exec -T watcher aiter-api-watcher status --config /watch/aiter_api_watcher_config.json --check \
      >/dev/null 2>&1 && { polled=1; break; }
    sleep 1
  done
  [ -n "$polled" ] || { "${compose[@]}" logs --tail 20 2>&1 | sed 's/^/    /'; fail "compose's watcher did not poll within 60 s"; }
  "${compose[@]}" down -t 60 >>"$work/compose.log" 2>&1 || fail "docker-compose down"
  grep -q "Stopping on request" "$work/compose/aiter_api_watcher.log" || fail "compose's watcher: no 'Stopping on request' in its log"
  say "compose: polled with no GPU, stopped on request; state and log in AAW_WATCH_DIR"
}

# The systemd unit as shipped, under a real systemd: PID 1 of a container made from the image
# plus systemd and logrotate. Not --privileged (this host does not grant every capability):
# CAP_SYS_ADMIN for the unit's namespaces and mounts, a private cgroup namespace, /run on tmpfs.
systemd_container=aaw-test-systemd
sx() { docker exec "$systemd_container" "$@"; }
unit_state() {
  sx systemctl show -p ActiveState,SubState,Result,ExecMainStatus,NRestarts aiter-api-watcher.service | sort | tr '\n' ' '
}
unit_journal() { sx journalctl -u aiter-api-watcher.service --no-pager -n "${1:-20}" -o cat | sed 's/^/    /'; }
# The installed config with repository_url pointed at the local repository (no network).
point_unit_config() {
  sx python3 -c 'import json; p = "/etc/aiter-api-watcher/config.json"; c = json.load(open(p))
c["repository_url"] = "/srv/aiter.git"; json.dump(c, open(p, "w"), indent=2)'
}

# Waits up to 10 s for "Reopened log files" in the log file $1.
wait_reopened() {
  for _ in $(seq 1 20); do
    sx grep -q 'Reopened log files' "$1" 2>/dev/null && return 0
    sleep 0.5
  done
  return 1
}

build_systemd_image() {
  local dockerfile=$work/systemd.Dockerfile
  cat >"$dockerfile" <<EOF
FROM $image
USER root
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
      systemd systemd-sysv logrotate \\
    && rm -rf /var/lib/apt/lists/*
HEALTHCHECK NONE
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/lib/systemd/systemd"]
CMD []
EOF
  docker build --network host -t aaw-test/systemd - <"$dockerfile" >"$work/systemd-build.log" 2>&1 ||
    { tail -20 "$work/systemd-build.log"; fail "the systemd image"; }
}

test_systemd() {
  local begin=$SECONDS
  say "docker/aiter-api-watcher.service under systemd: the image plus systemd and logrotate"
  build_systemd_image
  say "systemd image built in $((SECONDS - begin))s"
  # The watched repository (the modules config/examples/systemd.json monitors), readable by the
  # unit's dynamic user.
  scripts/test-operator-files.sh make-aiter-repo "$work/systemd-src"
  mkdir -p "$work/systemd-srv"
  git clone -q --bare "$work/systemd-src" "$work/systemd-srv/aiter.git"
  chmod -R a+rX "$work/systemd-srv"
  docker run -d --name "$systemd_container" --network none --cap-add SYS_ADMIN --cgroupns private \
    --tmpfs /run --tmpfs /run/lock -v "$root:/src:ro" -v "$work/systemd-srv:/srv:ro" aaw-test/systemd >/dev/null
  # `is-system-running --wait` fails at once while systemd's socket is not there yet.
  local booted=""
  for _ in $(seq 1 120); do
    booted=$(sx systemctl is-system-running 2>&1 || true)
    [[ "$booted" == running || "$booted" == degraded ]] && break
    sleep 0.5
  done
  case "$booted" in
    running | degraded) say "systemd is $booted (PID 1 of the container)" ;;
    *)
      docker logs --tail 20 "$systemd_container" 2>&1 | sed 's/^/    /'
      fail "systemd did not boot: '$booted'"
      ;;
  esac

  # The local repository belongs to root, not to the dynamic user: git refuses it without this
  # (a repository_url on GitHub needs nothing of the kind).
  sx git config --system --add safe.directory /srv/aiter.git
  # Installed as its header says, from the repository root; repository_url pointed at the local
  # repository before the first systemctl command starts the unit.
  local line command pointed=""
  while read -r line; do
    command=${line//sudo /}
    if [[ "$command" == *systemctl* ]] && [ -z "$pointed" ]; then
      point_unit_config
      pointed=1
    fi
    say "  # $command"
    sx sh -c "cd /src && $command" >/dev/null 2>&1 || fail "the unit's install command failed: $command"
  done < <(sed -n 's/^#   sudo //p' docker/aiter-api-watcher.service)
  [ -n "$pointed" ] || fail "the unit's header has no systemctl command"

  local polled=""
  for _ in $(seq 1 120); do
    sx aiter-api-watcher status --config /etc/aiter-api-watcher/config.json --check >/dev/null 2>&1 && {
      polled=1
      break
    }
    sleep 0.5
  done
  [ -n "$polled" ] || { unit_journal; fail "the unit did not poll within 60 s: $(unit_state)"; }
  [ "$(sx systemctl is-active aiter-api-watcher.service)" = active ] || fail "the unit is not active: $(unit_state)"
  [ "$(sx systemctl is-enabled aiter-api-watcher.service)" = enabled ] || fail "the unit is not enabled"
  sx test -L /var/lib/aiter-api-watcher || fail "/var/lib/aiter-api-watcher is not StateDirectory's link into /var/lib/private"
  sx test -s /var/lib/private/aiter-api-watcher/state.db || fail "no state.db in /var/lib/aiter-api-watcher"
  [ "$(sx stat -c %u /var/lib/private/aiter-api-watcher/state.db)" != 0 ] || fail "state.db belongs to root, not the dynamic user"
  sx test -s /var/log/aiter-api-watcher/aiter_api_watcher.log || fail "nothing in /var/log/aiter-api-watcher/aiter_api_watcher.log"
  [ "$(sx ls -A /etc/aiter-api-watcher | tr '\n' ' ')" = "config.json env " ] ||
    fail "/etc/aiter-api-watcher holds $(sx ls -A /etc/aiter-api-watcher | tr '\n' ' '), expected config.json env"
  say "the unit polled, active as a dynamic user: state in /var/lib/aiter-api-watcher, log in /var/log/aiter-api-watcher"

  # reload = SIGHUP: the log is reopened; logrotate's postrotate sends it too, after which the log
  # is a new file. Each reopen is waited for before the next step, so neither stands for the other.
  local pid log=/var/log/aiter-api-watcher/aiter_api_watcher.log
  pid=$(sx systemctl show -p MainPID --value aiter-api-watcher.service)
  sx systemctl reload aiter-api-watcher.service || fail "systemctl reload"
  wait_reopened "$log" || fail "systemctl reload: the log was not reopened"
  sx logrotate -f /etc/logrotate.d/aiter-api-watcher || fail "logrotate -f /etc/logrotate.d/aiter-api-watcher"
  sx grep -q 'Reopened log files' "$log.1" || fail "logrotate did not rotate the log to $log.1"
  wait_reopened "$log" || fail "the log was not reopened after logrotate's SIGHUP"
  [ "$(sx systemctl show -p MainPID --value aiter-api-watcher.service)" = "$pid" ] || fail "reload restarted the daemon"
  say "reload and logrotate: the same process, the log rotated and reopened"

  sx systemctl stop aiter-api-watcher.service
  [ "$(sx systemctl show -p Result --value aiter-api-watcher.service)" = success ] ||
    fail "systemctl stop: $(unit_state), expected Result=success (exit 0 on SIGTERM)"
  say "stop: exit 0"

  # The shipped config/aiter.json installed as the old header said: its relative state_dir and log
  # file land in read-only /etc. Exit 2, and no restart: failed, not auto-restart every 30 s.
  sx install -m 644 /src/config/aiter.json /etc/aiter-api-watcher/config.json || fail "install config/aiter.json"
  point_unit_config
  sx systemctl start aiter-api-watcher.service || fail "systemctl start"
  local state=""
  for _ in $(seq 1 40); do
    state=$(unit_state)
    [[ "$state" == *SubState=failed* || "$state" == *SubState=auto-restart* ]] && break
    sleep 0.5
  done
  [ "$state" = "ActiveState=failed ExecMainStatus=2 NRestarts=0 Result=exit-code SubState=failed " ] ||
    { unit_journal; fail "a config error (relative paths under /etc): $state, expected failed with exit 2 and no restart"; }
  local journal
  journal=$(unit_journal 100)
  grep -q "error: cannot open log file '/etc/aiter-api-watcher/" <<<"$journal" ||
    { echo "$journal" | tail -20; fail "the journal does not say why the unit failed"; }
  say "config/aiter.json under /etc: exit 2, failed, not restarted ($state)"
  docker rm -f "$systemd_container" >/dev/null
  say "systemd checks took $((SECONDS - begin))s"
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
test_compose
test_systemd
say "all image checks passed"
