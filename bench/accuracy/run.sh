#!/usr/bin/env bash
# Accuracy of static extraction on real packages' whole histories against runtime truth, and
# aiter's vLLM surface. Repositories are bare clones given as arguments (fetch them; their code is
# never committed here):
#   bench/accuracy/run.sh BIN PKGS_DIR [AITER_GIT]
# AAW_ACCURACY_EXTRACTOR=static+import judges the tool with import confirmation (default: static).
# PKGS_DIR holds bare clones click.git attrs.git packaging.git pluggy.git requests.git toolz.git tenacity.git
# pyparsing.git networkx.git (function lists are in bench/accuracy/functions/; toolz and pyparsing are on
# master; pyparsing is judged on its last 500 first-parent commits and networkx on its last 400, the
# others on their whole history);
# AITER_GIT, when given, is a clean bare clone of ROCm/aiter main.
# Truth is cached under bench/accuracy/.cache/ (importing ~6,200 commits takes minutes once).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "$1"); pkgs=$(realpath "$2"); aiter=${3:-}
# One package a line: its name, then accuracy.py's options for it.
while read -r name options; do
  [ -d "$pkgs/$name.git" ] || { echo "skipping $name: no $pkgs/$name.git"; continue; }
  # shellcheck disable=SC2086 # options are words
  python3 "$here/accuracy.py" --binary "$bin" --repo "$pkgs/$name.git" --functions "$here/functions/$name.json" \
    --show 3 --extractor "${AAW_ACCURACY_EXTRACTOR:-static}" $options </dev/null
done <<'PACKAGES'
click
attrs
packaging
pluggy
requests
toolz --branch master
tenacity
pyparsing --branch master --last 500
networkx --last 400
PACKAGES
[ -n "$aiter" ] || exit 0
aiter=$(realpath "$aiter")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$here" "$aiter" "$work" <<'PY'
import json, sys
here, aiter, work = sys.argv[1:]
for name in ("aiter-vllm-surface", "aiter-legacy-paths"):
    functions = json.load(open("%s/%s.json" % (here, name)))["functions_to_monitor"]
    json.dump({"repository_url": aiter, "functions_to_monitor": functions, "state_dir": work + "/" + name,
               "log": {"file": ""}}, open("%s/%s.json" % (work, name), "w"))
PY
# The states at main (compare's "new" side: show reads only what a watch recorded).
summary='import json,sys,collections
d=json.load(sys.stdin); states=[(f["function_path"], f["new"]) for f in d["functions"]]
c=collections.Counter(s["status"] + (" (unverified)" if s.get("unverified") else "") for _, s in states)
print("  %d functions at main: %s" % (len(states), dict(c)))
for path, s in states:
    if s["status"] != "ok" or s.get("unverified"):
        print("    %s: %s" % (path, (s.get("unverified") or s.get("detail", ""))[:120]))'
echo "aiter: what vLLM calls"
"$bin" compare --config "$work/aiter-vllm-surface.json" main~1 main --format json 2>/dev/null | python3 -c "$summary" || true
echo "aiter: vLLM's legacy import paths across 4c2a3025 (the commit that moved aiter/ops/triton/*)"
parent=$(git --git-dir="$aiter" rev-parse 4c2a3025~1); commit=$(git --git-dir="$aiter" rev-parse 4c2a3025)
"$bin" compare --config "$work/aiter-legacy-paths.json" "$parent" "$commit" --format json 2>/dev/null | python3 -c '
import json,sys,collections
d=json.load(sys.stdin)
removed=[f["import_statement"] for f in d["functions"] if any(c["kind"]=="function_removed" for c in f["changes"])]
print("  %d functions, %d reported removed" % (len(d["functions"]), len(removed)))
for r in removed: print("    removed:", r)' || true
