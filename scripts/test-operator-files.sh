#!/usr/bin/env bash
# The operator files as shipped, in seconds, without docker or an image build (ctest runs it;
# scripts/test-image.sh starts the unit under a real systemd and runs compose and docker/run.sh):
#   - docker/aiter-api-watcher.service: the directives that keep it out of a restart loop and its
#     state out of /etc, the files its install header names, `systemd-analyze verify` silent on it
#     (in a temporary root holding the unit, the binary and systemd's own units);
#   - config/examples/systemd.json against the unit and docker/aiter-api-watcher.logrotate: its
#     state_dir is the unit's StateDirectory, its log file in the LogsDirectory and rotated;
#   - the daemon exits 2 (the code the unit does not restart on) when its config's relative paths
#     land in a directory it cannot write, as the shipped config/aiter.json does under /etc;
#   - every config/*.json and config/examples/*.json passes `check-config` against a local
#     repository holding the modules they monitor (repository_url pointed at it, an absolute
#     state_dir moved into the temporary directory); the consumer-check example's `check` from
#     the consumer's .github/ binds the consumer's call;
#   - docker/compose.yaml valid with no GPU and no RENDER_GID (static mode), docker/compose.gpu.yaml
#     over it adds the devices and groups and requires RENDER_GID (`docker-compose config`);
#   - docker/run.sh, with DOCKER a script that records its arguments: a one-off run has no fixed
#     container name, the detached daemon is named aiter-api-watcher, AAW_NAME names either.
#
#   scripts/test-operator-files.sh [BINARY]       BINARY: default $AAW_BIN, else build/aiter-api-watcher
#   scripts/test-operator-files.sh make-aiter-repo DIR
#                                                 (a git repository with the modules the configs monitor)
#
# Exits 0 when every check passed, 1 when one failed, 77 (ctest: SKIP_RETURN_CODE) when none
# failed but one was skipped for a missing tool (systemd-analyze: package systemd; docker-compose);
# AAW_REQUIRE_ALL=1 makes a skip a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s%N)

# A package named aiter with every function config/aiter.json and the examples monitor, at the
# paths their import statements name (one re-exported from a submodule, as aiter does).
make_aiter_repo() {
  local repo=$1
  git init -q -b main "$repo"
  mkdir -p "$repo/aiter/ops"
  cat >"$repo/aiter/__init__.py" <<'PY'
from .ops.gemm import gemm_a8w8_CK


def fmoe_fp8_blockscale_g1u1(out, a, gate, down, topk_ids, topk_weight, fc_scale_blkn=128):
    pass
PY
  cat >"$repo/aiter/fused_moe_bf16_asm.py" <<'PY'
def moe_sorting_ck(topk_ids, topk_weights, num_experts, model_dim, moebuf_dtype):
    pass


def asm_moe(hidden_states, w1, w2, topk_weight, topk_ids, fc1_scale=None):
    pass


def ck_moe_2stages(a1, w1, w2, topk_weight, topk_ids, quant_type=0):
    pass
PY
  : >"$repo/aiter/ops/__init__.py"
  printf 'def gemm_a8w8_CK(XQ, WQ, x_scale, w_scale, bias=None, dtype=None):\n    pass\n' >"$repo/aiter/ops/gemm.py"
  printf 'def shuffle_weight(x, layout=(16, 16), use_int4=False):\n    return x\n' >"$repo/aiter/ops/shuffle.py"
  git -C "$repo" add -A
  git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m "aiter's monitored functions"
}

if [ "${1:-}" = make-aiter-repo ]; then
  [ $# -eq 2 ] || { echo "usage: $0 make-aiter-repo DIR" >&2; exit 2; }
  make_aiter_repo "$2"
  exit 0
fi

bin=${1:-${AAW_BIN:-$root/build/aiter-api-watcher}}
failures=0
skips=0
say() { echo "test-operator-files: $*"; }
ok() { say "ok: $*"; }
# begin; ...; ! passed || ok "...": ok only when the check recorded no failure since begin.
begin() { failures_before=$failures; }
passed() { [ "$failures" -eq "$failures_before" ]; }
fail() {
  echo "test-operator-files: FAILED: $*" >&2
  failures=$((failures + 1))
}
skip() {
  say "SKIPPED: $*"
  skips=$((skips + 1))
}
[ -x "$bin" ] || { echo "test-operator-files: FAILED: no binary at $bin (build it, or pass its path)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/aaw-operator-files.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

unit=docker/aiter-api-watcher.service
logrotate_file=docker/aiter-api-watcher.logrotate
# `KEY=VALUE` lines of a section-less read of the unit: the value of KEY, the last one wins.
unit_value() { sed -n "s/^$1=//p" "$unit" | tail -1; }

# --- the unit -------------------------------------------------------------------------------------
check_unit_directives() {
  begin
  local want key value
  for want in DynamicUser=yes StateDirectory=aiter-api-watcher LogsDirectory=aiter-api-watcher \
    WorkingDirectory=/var/lib/aiter-api-watcher Restart=on-failure RestartPreventExitStatus=2 \
    ProtectSystem=strict "ExecStart=/usr/local/bin/aiter-api-watcher watch --config /etc/aiter-api-watcher/config.json"; do
    key=${want%%=*}
    value=$(unit_value "$key")
    [ "$key=$value" = "$want" ] || fail "$unit: $key is '$value', expected '${want#*=}'"
  done
  # The header's install commands: each file they name exists; the config is the systemd example.
  local header
  header=$(sed -n 's/^#   sudo //p' "$unit")
  grep -q '^install -D -m 644 config/examples/systemd.json /etc/aiter-api-watcher/config.json$' <<<"$header" ||
    fail "$unit: the install header does not install config/examples/systemd.json as /etc/aiter-api-watcher/config.json"
  grep -q 'systemctl enable --now aiter-api-watcher$' <<<"$header" || fail "$unit: no 'systemctl enable --now' in the header"
  local path
  while read -r path; do
    [ -f "$path" ] || fail "$unit: its header installs $path, which is not in the repository"
  done < <(grep -o '\b\(config\|docker\)/[A-Za-z0-9_./-]*' <<<"$header")
  ! passed || ok "$unit: RestartPreventExitStatus=2, StateDirectory, LogsDirectory, the header installs config/examples/systemd.json"
}

# systemd-analyze verify checks the ExecStart binary and the units named by After=/Wants= in the
# root it is given: a temporary one with the unit, a stand-in for the binary, /bin/kill and
# systemd's own units. It exits 0 on a misspelt key or an unparsable value, only saying so: any
# output is a failure.
check_unit_verify() {
  if ! command -v systemd-analyze >/dev/null; then
    skip "systemd-analyze verify: no systemd-analyze (apt-get install systemd)"
    return
  fi
  local vroot=$work/verify-root units=/usr/lib/systemd/system
  [ -d "$units" ] || units=/lib/systemd/system
  mkdir -p "$vroot/usr/local/bin" "$vroot/usr/bin" "$vroot/usr/lib/systemd" "$vroot/etc/systemd/system"
  ln -s usr/bin "$vroot/bin"
  ln -s usr/lib "$vroot/lib"
  cp -a "$units" "$vroot/usr/lib/systemd/system"
  cp "$(readlink -f /bin/kill)" "$vroot/usr/bin/kill"
  printf '#!/bin/sh\n' >"$vroot/usr/local/bin/aiter-api-watcher"
  chmod 755 "$vroot/usr/local/bin/aiter-api-watcher"
  cp "$unit" "$vroot/etc/systemd/system/"
  local out code=0
  out=$(systemd-analyze verify --root="$vroot" /etc/systemd/system/aiter-api-watcher.service 2>&1) || code=$?
  if [ "$code" -ne 0 ] || [ -n "$out" ]; then
    fail "systemd-analyze verify $unit (exit $code): $out"
  else
    ok "systemd-analyze verify $unit: silent"
  fi
}

# --- the systemd example against the unit and logrotate -----------------------------------------
json_value() { /usr/bin/python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v.get(k, "") if isinstance(v, dict) else ""
print(v)' "$1" "$2"; }

check_systemd_example() {
  begin
  local example=config/examples/systemd.json state_dir log_file pattern
  [ -f "$example" ] || { fail "$example: missing"; return; }
  state_dir=$(json_value "$example" state_dir)
  log_file=$(json_value "$example" log.file)
  [ "$state_dir" = "/var/lib/$(unit_value StateDirectory)" ] ||
    fail "$example: state_dir '$state_dir' is not the unit's StateDirectory /var/lib/$(unit_value StateDirectory)"
  [ "$(dirname "$log_file")" = "/var/log/$(unit_value LogsDirectory)" ] ||
    fail "$example: log.file '$log_file' is not in the unit's LogsDirectory /var/log/$(unit_value LogsDirectory)"
  pattern=$(sed -n 's/^\(\/[^ ]*\) {$/\1/p' "$logrotate_file")
  # shellcheck disable=SC2053  # the logrotate pattern is a glob on purpose
  [[ "$log_file" == $pattern ]] || fail "$logrotate_file: '$pattern' does not rotate $example's log.file '$log_file'"
  grep -q "systemctl kill --kill-who=main --signal=HUP aiter-api-watcher.service" "$logrotate_file" ||
    fail "$logrotate_file: its postrotate does not send SIGHUP to aiter-api-watcher.service"
  ! passed || ok "$example: state_dir is the StateDirectory, log.file in the LogsDirectory and rotated by $logrotate_file"
}

# The shipped config/aiter.json has relative paths: under /etc/aiter-api-watcher, where the unit's
# ProtectSystem=strict leaves nothing writable, the daemon must exit 2 (RestartPreventExitStatus).
# As another user than root here: a read-only directory stands for /etc.
check_exit_2_on_read_only_config_dir() {
  local dir=$work/etc-aiter-api-watcher run=() code=0 out
  mkdir -p "$dir"
  point_config config/aiter.json "$dir/config.json" "$work/aiter.git" keep
  chmod 555 "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null || { skip "exit 2 on a read-only config directory: no setpriv"; return; }
    run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
  out=$(timeout 60 "${run[@]}" "$bin" watch --once --config "$dir/config.json" 2>&1) || code=$?
  chmod 755 "$dir"
  if [ "$code" -ne 2 ]; then
    fail "watch with config/aiter.json in a read-only directory exited $code, expected 2: $out"
  else
    ok "config/aiter.json in a read-only directory (as under /etc): watch exits 2: ${out%%$'\n'*}"
  fi
}

# --- every config against a local repository --------------------------------------------------------
# point_config SRC DST REPOSITORY [keep]: SRC with repository_url set to REPOSITORY and, unless
# keep, an absolute state_dir and log.file moved under $work/abs (the test writes nothing outside).
point_config() {
  /usr/bin/python3 - "$@" "$work/abs" <<'PY'
import json, sys
src, dst, repository, *rest = sys.argv[1:]
keep, abs_root = (rest[0] == "keep", rest[1]) if len(rest) == 2 else (False, rest[0])
config = json.load(open(src))
config["repository_url"] = repository
if not keep:
    if config.get("state_dir", "").startswith("/"):
        config["state_dir"] = abs_root + config["state_dir"]
    log = config.get("log", {})
    if log.get("file", "").startswith("/"):
        log["file"] = abs_root + log["file"]
json.dump(config, open(dst, "w"), indent=2)
PY
}

check_configs() {
  local config name dir out code
  for config in config/*.json config/examples/*.json; do
    [ -f "$config" ] || continue
    name=$(basename "$config" .json)
    dir=$work/configs/$name
    case "$name" in
      # Where its workflow puts it: .github/ of the consumer's checkout, whose root is consumer.path.
      consumer-check) dir=$work/configs/consumer/.github ;;
    esac
    mkdir -p "$dir"
    point_config "$config" "$dir/config.json" "$work/aiter.git"
    code=0
    out=$("$bin" check-config --config "$dir/config.json" 2>&1) || code=$?
    if [ "$code" -ne 0 ] || ! grep -q '^ok$' <<<"$out"; then
      fail "check-config $config exited $code:"$'\n'"$out"
      continue
    fi
    if grep -q 'warning' <<<"$out"; then
      fail "check-config $config warns:"$'\n'"$out"
      continue
    fi
    case "$name" in
      webhook)
        grep -q '^notify: webhook (' <<<"$out" || fail "$config: check-config names no webhook: $out" ;;
      systemd)
        grep -q "^state_dir: $work/abs/var/lib/aiter-api-watcher$" <<<"$out" || fail "$config: state_dir: $out" ;;
    esac
    ok "check-config $config: $(grep -c '^  ok ' <<<"$out") functions found, valid"
  done
  check_consumer_example
}

# consumer-check.json from the consumer's .github/: consumer.path ".." is the checkout, whose call
# of shuffle_weight binds against the local aiter.
check_consumer_example() {
  local consumer=$work/configs/consumer out code=0
  [ -f "$consumer/.github/config.json" ] || { fail "config/examples/consumer-check.json: missing"; return; }
  mkdir -p "$consumer/app"
  printf 'from aiter.ops.shuffle import shuffle_weight\n\n\ndef prepare(w):\n    return shuffle_weight(w, layout=(16, 16))\n' \
    >"$consumer/app/ops.py"
  out=$("$bin" check --config "$consumer/.github/config.json" --no-blame 2>&1) || code=$?
  if [ "$code" -ne 0 ] || ! grep -q 'binds app/ops.py:5' <<<"$out"; then
    fail "check with config/examples/consumer-check.json exited $code, expected 0 and app/ops.py:5 binding:"$'\n'"$out"
  else
    ok "check with config/examples/consumer-check.json from the consumer's .github/: app/ops.py:5 binds"
  fi
}

# --- compose ------------------------------------------------------------------------------------------
check_compose() {
  local compose=()
  if command -v docker-compose >/dev/null; then
    compose=(docker-compose)
  elif docker compose version >/dev/null 2>&1; then
    compose=(docker compose)
  else
    skip "compose files: neither docker-compose nor docker compose (apt-get install docker-compose)"
    return
  fi
  [ -f docker/compose.gpu.yaml ] || fail "docker/compose.gpu.yaml: missing (the GPU override for runtime mode)"
  local out code=0
  out=$(env -u RENDER_GID AAW_WATCH_DIR="$work/watch" "${compose[@]}" -f docker/compose.yaml config 2>&1) || code=$?
  if [ "$code" -ne 0 ]; then
    fail "docker/compose.yaml without RENDER_GID (static mode) exited $code: $out"
  elif grep -q -e 'devices:' -e 'group_add:' -e '/dev/kfd' <<<"$out"; then
    fail "docker/compose.yaml asks for GPU devices or groups without the GPU override: $out"
  else
    ok "docker/compose.yaml: valid with no RENDER_GID, no devices (static mode)"
  fi
  [ -f docker/compose.gpu.yaml ] || return 0
  code=0
  out=$(RENDER_GID=4242 AAW_WATCH_DIR="$work/watch" "${compose[@]}" -f docker/compose.yaml -f docker/compose.gpu.yaml config 2>&1) ||
    code=$?
  if [ "$code" -ne 0 ]; then
    fail "docker/compose.yaml with docker/compose.gpu.yaml exited $code: $out"
  else
    local want
    begin
    for want in /dev/kfd /dev/dri video "'4242'" 'seccomp=unconfined'; do
      grep -q -- "- $want\$" <<<"$out" || fail "compose.yaml + compose.gpu.yaml: no '- $want' in: $out"
    done
    ! passed || ok "docker/compose.yaml + docker/compose.gpu.yaml: /dev/kfd, /dev/dri, video and RENDER_GID"
  fi
  if env -u RENDER_GID "${compose[@]}" -f docker/compose.yaml -f docker/compose.gpu.yaml config -q >/dev/null 2>&1; then
    fail "docker/compose.gpu.yaml accepted an unset RENDER_GID"
  else
    ok "docker/compose.gpu.yaml: refuses an unset RENDER_GID"
  fi
}

# --- docker/run.sh ------------------------------------------------------------------------------------
check_run_sh() {
  local fake=$work/fake-docker dir=$work/run-dir
  begin
  mkdir -p "$dir"
  echo '{}' >"$dir/aiter_api_watcher_config.json"
  # One argument a line, the whole call after a line "--".
  cat >"$fake" <<'SH'
#!/bin/sh
{ echo --; for a in "$@"; do printf '%s\n' "$a"; done; } >>"$FAKE_DOCKER_LOG"
SH
  chmod 755 "$fake"
  run_sh() {
    env -u AAW_NAME -u AAW_DETACH -u AAW_IMAGE FAKE_DOCKER_LOG="$work/docker.log" DOCKER="$fake" "$@" \
      docker/run.sh "$dir" "${run_args[@]}" </dev/null 2>/dev/null
  }
  # The value after --name in the last call, or "(none)".
  last_name() {
    awk '/^--$/ { n = "(none)"; want = 0; next } want { n = $0; want = 0 } $0 == "--name" { want = 1 } END { print n }' \
      "$work/docker.log"
  }
  last_has() { awk '/^--$/ { found = 0; next } $0 == w { found = 1 } END { exit !found }' w="$1" "$work/docker.log"; }
  local run_args=()
  run_sh AAW_DETACH=1 || fail "docker/run.sh AAW_DETACH=1 failed"
  [ "$(last_name)" = aiter-api-watcher ] || fail "the detached daemon is named '$(last_name)', expected aiter-api-watcher"
  { last_has --detach && last_has unless-stopped; } || fail "the detached daemon: no --detach --restart unless-stopped"
  last_has --rm && fail "the detached daemon has --rm"
  run_args=(compare --config /watch/aiter_api_watcher_config.json A B)
  run_sh || fail "docker/run.sh compare failed"
  [ "$(last_name)" = "(none)" ] ||
    fail "a one-off run is named '$(last_name)': it conflicts with the detached daemon (docker names it)"
  last_has --rm || fail "a one-off run has no --rm"
  run_sh AAW_NAME=mine || fail "docker/run.sh AAW_NAME=mine failed"
  [ "$(last_name)" = mine ] || fail "AAW_NAME=mine: a one-off run is named '$(last_name)'"
  run_args=()
  run_sh AAW_NAME=daemon2 AAW_DETACH=1 || fail "docker/run.sh AAW_NAME=daemon2 AAW_DETACH=1 failed"
  [ "$(last_name)" = daemon2 ] || fail "AAW_NAME=daemon2 AAW_DETACH=1: named '$(last_name)'"
  ! passed || ok "docker/run.sh: the detached daemon is aiter-api-watcher, a one-off run unnamed (--rm), AAW_NAME names either"
}

# --- the Dockerfile's base ------------------------------------------------------------------------------
check_dockerfile() {
  begin
  grep -q '^ARG BASE=' docker/Dockerfile || fail "docker/Dockerfile: no ARG BASE"
  grep -q -- '--build-arg BASE=' scripts/test-image.sh || fail "scripts/test-image.sh does not build with --build-arg BASE"
  grep -q 'not built by CI' docker/Dockerfile || fail "docker/Dockerfile: its header does not say which base CI builds"
  ! passed || ok "docker/Dockerfile: ARG BASE, the base CI builds named in its header"
}

make_aiter_repo "$work/aiter-src" >/dev/null
git clone -q --bare "$work/aiter-src" "$work/aiter.git"
chmod -R a+rX "$work"

check_unit_directives
check_unit_verify
check_systemd_example
check_exit_2_on_read_only_config_dir
check_configs
check_compose
check_run_sh
check_dockerfile

elapsed=$((($(date +%s%N) - started) / 1000000))
elapsed="$((elapsed / 1000)).$(printf '%03d' $((elapsed % 1000)))"
if [ "$failures" -gt 0 ]; then
  say "$failures check(s) FAILED (${elapsed}s)"
  exit 1
fi
if [ "$skips" -gt 0 ]; then
  say "passed, but $skips check(s) skipped (${elapsed}s)"
  [ "${AAW_REQUIRE_ALL:-0}" = 1 ] && { say "AAW_REQUIRE_ALL=1: a skip is a failure"; exit 1; }
  exit 77
fi
say "all checks passed (${elapsed}s)"
