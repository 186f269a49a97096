#!/usr/bin/env bash
# Attack benchmark on the fixtures with the default model: candidates/s end to end, oracle
# checks per iteration with the lazy and the naive (--oracle-order all) oracle, the split of task
# time between transforms, detector and oracle, the detector's own split (tokenizer, session
# runs, copies) and peak memory (GNU time). Prints one line per mode. Extra arguments go to
# every attack (e.g. --device cuda --tasks-in-flight 8).
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
sec = {k: sum(l["seconds"].get(k, 0.0) for l in lines) for k in ("transform", "detector", "oracle")}
total = sum(sec.values()) or 1.0
det = json.load(open(f"{d}/stats.json"))["detector"]
checks = sum(l["counts"]["oracle_checked"] for l in lines)
iters = sum(l["iterations"] for l in lines)
print(f"{order:>4}: {scored} candidates in {wall:.1f} s = {scored / wall:.1f} candidates/s; "
      f"{checks / max(iters, 1):.2f} oracle checks per iteration; detector {100 * s['detector_share']:.1f} % of search time; "
      f"L = {s['mean_distance']:.4f} ± {s['std_distance']:.4f}; peak RSS {peak_kb / 1024:.0f} MiB")
print(f"      task time: transforms {100 * sec['transform'] / total:.1f} %, detector {100 * sec['detector'] / total:.1f} %, "
      f"oracle {100 * sec['oracle'] / total:.1f} %; detector: tokenizer {det.get('tokenize_seconds', 0):.1f} s, "
      f"session runs {det['inference_seconds']:.1f} s, copies {det.get('copy_seconds', 0):.1f} s, "
      f"{det['sequences']} sequences + {det.get('filler_rows', 0)} filler rows in {det['batches']} batches")
PY
done
