#!/usr/bin/env bash
# The main job: apply every transform to every fixture program and show what changed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/target/release/equimorph"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$BIN" transforms list
python3 - "$ROOT/fixtures/tasks.jsonl" "$TMP" <<'PY'
import json, sys, os
for line in open(sys.argv[1]):
    t = json.loads(line)
    open(os.path.join(sys.argv[2], t["id"] + ".py"), "w").write(t["source"])
PY
names="$("$BIN" transforms list --json | python3 -c 'import json,sys; print(",".join(t["name"] for t in json.load(sys.stdin)))')"
changed=0; total=0
for f in "$TMP"/*.py; do
    total=$((total + 1))
    if "$BIN" apply --transform "$names" --seed 7 "$f" >"$f.out" 2>"$f.err"; then
        if ! cmp -s "$f" "$f.out"; then
            changed=$((changed + 1))
            echo "=== $(basename "$f" .py): $(diff "$f" "$f.out" | grep -c '^[<>]') lines differ"
        fi
    else
        echo "=== $(basename "$f" .py): FAILED: $(cat "$f.err")"
    fi
done
echo "main job: $changed of $total fixture programs rewritten by the chain $names"
