#!/usr/bin/env bash
# Peak RSS of `attack` over 100 and over 1,000 tasks (the fixture tasks repeated under new ids),
# same settings, and the oracle cache's size and hit rate at the end of each run. A flat run
# keeps the 1,000-task peak within 1.3x of the 100-task one. Run after `make transforms host`.
# Usage: scripts/bench-memory.sh [DETECTOR]   (default jaccard; minilm is slower)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/target/release/equimorph"
DETECTOR="${1:-jaccard}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
for n in 100 1000; do
    python3 - "$ROOT/fixtures/tasks.jsonl" "$WORK/tasks-$n.jsonl" "$n" <<'PY'
import json, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tasks = [json.loads(l) for l in open(src)]
with open(dst, "w") as f:
    for i in range(n):
        t = dict(tasks[i % len(tasks)])
        t["id"] = f"{t['id']}-{i}"
        f.write(json.dumps(t) + "\n")
PY
    python3 - "$BIN" "$WORK/tasks-$n.jsonl" "$WORK/out-$n" "$DETECTOR" "$n" <<'PY'
import json, resource, subprocess, sys, time
binary, tasks, out, detector, n = sys.argv[1:6]
start = time.time()
subprocess.run([binary, "attack", tasks, "--out", out, "--detector", detector, "--beam", "2",
                "--iterations", "3", "--quiet"], check=True, stdout=subprocess.DEVNULL)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
o = json.load(open(f"{out}/stats.json"))["oracle"]
checks = o["checks"] + o["cache_hits"]
print(f"{n:>5} tasks: peak RSS {peak:7.1f} MiB, {time.time() - start:6.1f} s; oracle cache "
      f"{o['cache_entries']} decisions, {o['cache_bytes'] / 1024:.0f} KiB, hit rate "
      f"{o['cache_hits'] / max(checks, 1):.1%} of {checks} checks")
PY
done
