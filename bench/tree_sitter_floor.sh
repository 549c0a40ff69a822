#!/usr/bin/env bash
# Whether a Python parser on the C side would parse faster than CPython's: times tree-sitter's
# Python grammar over the same blobs as bench/parse_floor.py (every distinct blob of PATHSPEC in
# the first-parent history, each parsed once as a whole text), and counts those it finds an error
# in, to set beside the blobs CPython refuses.
#
#   bench/tree_sitter_floor.sh AITER_GIT [PATHSPEC]
#
# Needs libtree-sitter-dev (Debian 12: 0.20.7, grammars of ABI 13-14), gcc and npm: the grammar is
# tree-sitter-python@0.21.0 from npm's registry (AAW_TREE_SITTER_PYTHON picks another version),
# unpacked in a temporary directory and never kept. A measurement only: nothing of it is built
# into the watcher (docs/performance.md, "The floor").
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/tree_sitter_floor.sh AITER_GIT [PATHSPEC]" >&2; exit 2; }
repo=$(cd "$1" && pwd)
pathspec=${2:-aiter/*.py}
grammar=tree-sitter-python@${AAW_TREE_SITTER_PYTHON:-0.21.0}
[ -f /usr/include/tree_sitter/api.h ] || { echo "bench/tree_sitter_floor.sh: apt-get install libtree-sitter-dev" >&2; exit 2; }
command -v npm >/dev/null || { echo "bench/tree_sitter_floor.sh: npm is needed to fetch $grammar" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$grammar" >/dev/null && tar xzf ./*.tgz)
cat >"$work/parse.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tree_sitter/api.h>
const TSLanguage *tree_sitter_python(void);
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
/* Reads "SIZE\n" then SIZE bytes, for each blob; parses each once. */
int main(void) {
  size_t capacity = 1 << 20, size;
  char *text = malloc(capacity), line[64];
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  double seconds = 0;
  long blobs = 0, errors = 0, bytes = 0;
  while (fgets(line, sizeof line, stdin)) {
    size = strtoul(line, NULL, 10);
    if (size + 1 > capacity) text = realloc(text, capacity = size + 1);
    if (fread(text, 1, size, stdin) != size) return 2;
    double started = cpu();
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, size);
    errors += ts_node_has_error(ts_tree_root_node(tree));
    ts_tree_delete(tree);
    seconds += cpu() - started;
    ++blobs;
    bytes += size;
  }
  printf("| tree-sitter (%s), whole texts | %ld | %.1f | %.2f | %ld with an error |\n", GRAMMAR, blobs,
         bytes / 1e6, seconds, errors);
  return 0;
}
C
gcc -O2 -DGRAMMAR="\"$grammar\"" -I"$work/package/src" -o "$work/parse" "$work/parse.c" \
  "$work/package/src/parser.c" "$work/package/src/scanner.c" -ltree-sitter
echo "| parsed | texts | MB | CPU (s) | refused |"
echo "|---|---|---|---|---|"
/usr/bin/python3 - "$repo" "$pathspec" <<'PY' | "$work/parse"
import sys
sys.path.insert(0, "bench")
from body_statements import distinct_blobs, read_blobs
out = sys.stdout.buffer
for _, data in read_blobs(sys.argv[1], distinct_blobs(sys.argv[1], sys.argv[2])):
    out.write(b"%d\n" % len(data))
    out.write(data)
PY
