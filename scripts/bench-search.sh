#!/usr/bin/env bash
# Search comparison: beam (Algorithm 1), guided (the default), guided given the beam's whole
# query budget, greedy and random, on the fixtures and on any real task files given with
# --real (HumanEval.jsonl.gz, CodeContests, your own JSONL), with the same detector, transforms,
# constraints (the window, on by default) and threshold. Prints one table per task set: mean
# worst-case distance L, success rate, detector queries and oracle checks per task, wall time,
# and time to quality (mean best L within 30, 60 and 120 wall seconds of each task's search);
# then `equimorph compare` writes the anytime curves of every run side by side
# (out/bench-search/<set>/compare.{md,html}).
#
#   scripts/bench-search.sh [--real FILE]... [--no-fixtures] [--limit N] [--searches "beam guided ..."] [-- ATTACK ARGS]
#
# --limit N takes the first N tasks of each set; arguments after `--` go to every attack
# (e.g. --detector minilm --device cuda --tasks-in-flight 8).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${EQUIMORPH_BIN:-$ROOT/target/release/equimorph}"
OUT="${EQUIMORPH_BENCH_OUT:-$ROOT/out/bench-search}"
SETS=("$ROOT/fixtures/tasks.jsonl")
LIMIT=""
SEARCHES="beam guided guided-full greedy random"
EXTRA=()
while [ $# -gt 0 ]; do
    case "$1" in
        --real) SETS+=("$2"); shift 2 ;;
        --no-fixtures) SETS=("${SETS[@]:1}"); shift ;;
        --limit) LIMIT="$2"; shift 2 ;;
        --searches) SEARCHES="$2"; shift 2 ;;
        --) shift; EXTRA=("$@"); break ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "bench-search: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -x "$BIN" ] || { echo "bench-search: $BIN missing: run make host" >&2; exit 2; }
mkdir -p "$OUT"

for set in "${SETS[@]}"; do
    [ -e "$set" ] || { echo "bench-search: $set does not exist" >&2; exit 2; }
    name="$(basename "$set")"; name="${name%%.*}"
    dir="$OUT/$name"
    mkdir -p "$dir"
    tasks="$set"
    if [ -n "$LIMIT" ]; then
        # The first N tasks, as JSON lines (gzip or not), in the set's own format.
        tasks="$dir/tasks.${set##*.}"
        case "$set" in
            *.gz) tasks="$dir/tasks.jsonl.gz"; gzip -dc "$set" | head -n "$LIMIT" | gzip > "$tasks" ;;
            *) head -n "$LIMIT" "$set" > "$tasks" ;;
        esac
    fi
    threshold="auto"
    beam_queries=""
    labels=()
    runs=()
    for search in $SEARCHES; do
        args=(--search "$search")
        case "$search" in
            guided-full)
                # The beam's mean queries per task as a hard ceiling, and room to use them.
                [ -n "$beam_queries" ] || { echo "bench-search: guided-full needs beam first" >&2; exit 2; }
                args=(--search guided --beam 5 --queries-per-iteration 15 --max-queries "$beam_queries" \
                      --iterations 200 --patience 12) ;;
        esac
        run="$dir/$search"
        t0=$(date +%s.%N)
        "$BIN" attack "$tasks" --out "$run" --force-new --quiet \
            --threshold "$threshold" "${args[@]}" "${EXTRA[@]}" > "$run.log" 2>&1 \
            || { echo "bench-search: $search on $name failed, see $run.log" >&2; tail -5 "$run.log" >&2; exit 1; }
        python3 -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$t0" "$(date +%s.%N)" > "$run.time"
        # Every search is judged at the first run's (calibrated) threshold.
        if [ "$threshold" = auto ]; then
            threshold="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threshold"])' "$run/run.json")"
        fi
        if [ "$search" = beam ]; then
            beam_queries="$(python3 - "$run/results.jsonl" <<'PY'
import json, sys
q = [json.loads(l)["counts"]["scored"] for l in open(sys.argv[1]) if '"status":"ok"' in l]
print(max(1, round(sum(q) / max(len(q), 1))))
PY
)"
        fi
        labels+=(--label "$search")
        runs+=("$run")
    done
    echo "== $name ($(basename "$tasks")), threshold M < $threshold"
    python3 - "$dir" $SEARCHES <<'PY'
import json, sys
d, searches = sys.argv[1], sys.argv[2:]
print(f"{'search':<12} {'tasks':>5} {'mean L':>7} {'success':>8} {'queries/task':>13} {'oracle/task':>12} {'growth':>7} {'wall s':>7}"
      f" {'L@30s':>6} {'L@60s':>6} {'L@120s':>6}")
base = None

def at(curve, t):
    """Mean best L within t wall seconds per task (summary.json's anytime_seconds)."""
    before = [l for x, l in curve if x <= t]
    return f"{before[-1]:.3f}" if before else "-"

for s in searches:
    lines = [json.loads(l) for l in open(f"{d}/{s}/results.jsonl")]
    ok = [l for l in lines if l["status"] == "ok"]
    n = max(len(ok), 1)
    summary = json.load(open(f"{d}/{s}/summary.json"))
    q = sum(l["counts"]["scored"] for l in ok) / n
    o = sum(l["counts"]["oracle_checked"] for l in ok) / n
    g = sum(l.get("growth") or 0 for l in ok) / n
    wall = float(open(f"{d}/{s}.time").read().split()[-1])
    if s == "beam":
        base = q
    share = f" ({100 * q / base:.0f} %)" if base else ""
    print(f"{s:<12} {len(ok):>5} {summary['mean_distance']:>7.4f} {100 * summary['success_rate']:>7.1f}% "
          f"{q:>7.0f}{share:>6} {o:>12.1f} {g:>6.2f}x {wall:>7.1f}"
          + "".join(f" {at(summary.get('anytime_seconds', []), t):>6}" for t in (30, 60, 120)))
PY
    "$BIN" compare "${runs[@]}" "${labels[@]}" --out "$dir" > /dev/null
    echo "anytime curves: $dir/compare.md, $dir/compare.html"
done
