#!/usr/bin/env bash
# Attack benchmark on the fixtures with the default model: candidates/s end to end, oracle
# checks per iteration with the lazy and the naive (--oracle-order all) oracle, the share of
# wall time in the detector, and peak memory (GNU time). Prints one line per mode.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/target/release/equimorph"
"$ROOT/scripts/ensure-apt.sh" time
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
for order in lazy all; do
    /usr/bin/time -f "%M %e" -o "$TMP/time-$order" "$BIN" attack "$ROOT/fixtures/tasks.jsonl" --out "$TMP/$order" \
        --oracle-order "$order" --quiet "$@" >/dev/null
    read -r peak_kb wall < "$TMP/time-$order"
    python3 - "$TMP/$order" "$order" "$peak_kb" "$wall" <<'PY'
import json, sys
d, order, peak_kb, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
lines = [json.loads(l) for l in open(f"{d}/results.jsonl")]
s = json.load(open(f"{d}/summary.json"))
scored = sum(l["counts"]["scored"] for l in lines)
checks = sum(l["counts"]["oracle_checked"] for l in lines)
iters = sum(l["iterations"] for l in lines)
print(f"{order:>4}: {scored} candidates in {wall:.1f} s = {scored / wall:.1f} candidates/s; "
      f"{checks / max(iters, 1):.2f} oracle checks per iteration; detector {100 * s['detector_share']:.1f} % of search time; "
      f"L = {s['mean_distance']:.4f} ± {s['std_distance']:.4f}; peak RSS {peak_kb / 1024:.0f} MiB")
PY
done
