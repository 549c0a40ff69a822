#!/usr/bin/env bash
# The Python helpers' unit tests alone, without building anything: edit src/python/*.py, run this.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHONPATH=src/python:tests/python PYTHONDONTWRITEBYTECODE=1 exec /usr/bin/python3 -m unittest discover \
  -s tests/python -t tests/python "$@"
