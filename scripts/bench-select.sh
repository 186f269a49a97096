#!/usr/bin/env bash
# Benchmarks `equimorph select`: (candidate, task) evaluations per second on the fixture
# candidate groups (15 scripts) over the fixture tasks, with the default detector and with a
# classic one, each in a fresh output directory (no resume). Run after `make transforms host`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/target/release/equimorph"
TASKS="${1:-$ROOT/fixtures/tasks.jsonl}"
CANDIDATES="$ROOT/fixtures/scripts"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
pairs=$(( $(find "$CANDIDATES" -mindepth 2 -name '*.py' | wc -l) * $(grep -c . "$TASKS") ))
for detector in minilm jaccard; do
    start=$(date +%s.%N)
    "$BIN" select "$CANDIDATES" --tasks "$TASKS" --out "$WORK/$detector" --detector "$detector" --quiet >/dev/null
    end=$(date +%s.%N)
    python3 - "$detector" "$pairs" "$start" "$end" <<'PY'
import sys
detector, pairs, start, end = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
secs = end - start
print(f"select, {detector:8}: {pairs} evaluations in {secs:.1f} s = {pairs / secs:.1f} evaluations/s")
PY
done
