#!/usr/bin/env bash
# Installs every Debian package that building and testing aiter-api-watcher needs, plus the
# packages named as arguments (scripts/test.sh asks for chromium, scripts/test-image.sh for docker.io and debootstrap).
# Idempotent: installs only what is missing, and refreshes the package lists only when needed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libgit2-dev libcurl4-openssl-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
  pybind11-dev libcli11-dev libsqlite3-dev python3-dev python3-venv
  libjemalloc-dev googletest libgtest-dev libgmock-dev time bubblewrap python3-jsonschema python3-yaml
)
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# A fresh image often ships without package lists; without them apt-get install finds nothing.
if [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ] || \
   ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
