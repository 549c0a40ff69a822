#!/usr/bin/env bash
# usage: bench/skeleton_corpus.sh REPO_GIT OUT_DIR
# Writes every distinct .py blob of REPO_GIT's first-parent history to OUT_DIR (one file per blob,
# named by its id), then checks that the skeleton of each one (src/extract/python_skeleton) is
# summarised exactly as its whole text is (PythonSkeletonCorpusTest in build/tests/aaw_tests).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: bench/skeleton_corpus.sh REPO_GIT OUT_DIR" >&2; exit 2; }
repo=$1 out=$2
[ -x build/tests/aaw_tests ] || scripts/build.sh
mkdir -p "$out"
git --git-dir "$repo" log --first-parent --format= --raw --no-abbrev HEAD -- '*.py' |
  awk '$4 !~ /^0+$/ { print $4 }' | sort -u |
  git --git-dir "$repo" cat-file --batch |
  /usr/bin/python3 -c '
import sys
out, data = sys.argv[1], sys.stdin.buffer
while True:
    header = data.readline().split()
    if not header:
        break
    blob, size = header[0].decode(), int(header[2])
    with open("%s/%s.py" % (out, blob), "wb") as f:
        f.write(data.read(size))
    data.read(1)
' "$out"
echo "$(ls "$out" | wc -l) distinct .py blobs in $out"
AAW_SKELETON_CORPUS=$out build/tests/aaw_tests --gtest_filter='PythonSkeletonCorpusTest.*'
