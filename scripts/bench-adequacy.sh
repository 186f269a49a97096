#!/usr/bin/env bash
# Test adequacy benchmark: mutation score of the single-sample problems (fixtures/adequacy),
# wall time of `tests grow` on all of them, and what the grown tests are worth (in-sample and
# held-out shares of non-equivalent mutants rejected, false alarms) by examples/adequacy_eval.
# Usage: scripts/bench-adequacy.sh [TASKS.jsonl HIDDEN.jsonl]
# KEEP_OUT=DIR keeps the grown task files there; EQUIMORPH_EVAL_SURVIVORS=1 lists survivors.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
TASKS="${1:-fixtures/adequacy/stdin.jsonl}"
HIDDEN="${2:-fixtures/adequacy/hidden.jsonl}"
cargo build --release --bin equimorph --example adequacy_eval >/dev/null
BIN=target/release/equimorph
OUT="$(mktemp -d)"
echo "== tests score ($TASKS)"
$BIN tests score "$TASKS" --quiet | tail -7
echo "== tests grow"
START=$(date +%s%N)
$BIN tests grow "$TASKS" --out "$OUT/grown.jsonl" --quiet | tail -7
END=$(date +%s%N)
echo "grow wall time: $(( (END - START) / 1000000 )) ms on $(nproc) core(s)"
echo "== what the grown tests are worth"
target/release/examples/adequacy_eval "$OUT/grown.jsonl" "$HIDDEN"
echo "== held out: grow without the third solution of each problem, judge it"
grep -v '/2"' "$TASKS" > "$OUT/two.jsonl"
$BIN tests grow "$OUT/two.jsonl" --out "$OUT/grown-two.jsonl" --quiet | grep "grown for"
target/release/examples/adequacy_eval "$OUT/grown-two.jsonl" "$HIDDEN" "$TASKS"
[ -n "${KEEP_OUT:-}" ] && cp "$OUT"/grown*.jsonl "$KEEP_OUT"/ || true
rm -rf "$OUT"
