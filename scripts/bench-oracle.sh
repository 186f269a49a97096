#!/usr/bin/env bash
# Oracle-heavy benchmark: `validate` of the 41 fixtures and an attack that checks every candidate
# (Jaccard detector, so the sandbox dominates), for each binary given (default: this build),
# alternated over ROUNDS rounds so that machine noise hits every binary alike. Compare an older
# build side by side: scripts/bench-oracle.sh /path/to/old/equimorph target/release/equimorph
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export EQUIMORPH_TRANSFORMS="${EQUIMORPH_TRANSFORMS:-$ROOT/build/transforms}"
export EQUIMORPH_HOME="${EQUIMORPH_HOME:-$ROOT/.equimorph}"
TASKS="$ROOT/fixtures/tasks.jsonl"
BINS=("$@")
[ ${#BINS[@]} -gt 0 ] || BINS=("$ROOT/target/release/equimorph")
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
seconds() { local s e; s=$(date +%s.%N); "$@" >"$TMP/out" 2>&1; e=$(date +%s.%N); python3 -c "print(f'{$e - $s:.2f}')"; }
for round in $(seq 1 "${ROUNDS:-3}"); do
    for i in "${!BINS[@]}"; do
        bin="${BINS[$i]}"
        val=$(seconds "$bin" validate "$TASKS" --quiet)
        att=$(seconds "$bin" attack "$TASKS" --out "$TMP/run-$i-$round" --detector jaccard --threshold 0.5 \
            --beam 3 --iterations 3 --oracle-order all --quiet)
        runs=$(grep -o "oracle: [0-9]* program runs" "$TMP/out" || true)
        echo "round $round, $bin: validate ${val} s; attack (every candidate checked) ${att} s; ${runs}"
    done
done
