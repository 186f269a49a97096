#!/usr/bin/env python3
"""Per-SPT applicability, correctness and strength on a task file.

    scripts/spt_table.py [TASKS] [--seeds 0,1,2] [--detector minilm] [--out out/spt-table] [--pairs K]

For every task and every transform of the default set, applies the transform alone with each
seed (through `equimorph apply`, the real component), keeps the distinct rewrites, asks the
oracle (`equimorph check`) whether each behaves like the original, and scores every correct one
against the original with the detector (`equimorph score`). Writes `table.md` and `rows.jsonl`:

- applicable: tasks where some seed rewrote the program;
- correct: tasks where some rewrite passed the oracle; broken: rewrites that failed it;
- strength: mean distance L = 1 - M of one correct application (averaged over tasks);
- per task: how many SPTs apply correctly (mean and minimum, for function tasks and scripts).

With `--pairs K`, the K strongest SPTs are also composed two at a time (A then B, seed 0 each):
`pairs.md` lists, per pair, the tasks where the composition passed the oracle, its mean distance
and its mean gain over the stronger of the two alone on the same task.
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = str(ROOT / "target" / "release" / "equimorph")


def names() -> list[str]:
    out = subprocess.run([BIN, "transforms", "list"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines()[1:] if line.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tasks", nargs="?", default=str(ROOT / "fixtures" / "tasks.jsonl"))
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--detector", default="minilm")
    ap.add_argument("--out", default=str(ROOT / "out" / "spt-table"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--pairs", type=int, default=0, help="also compose the K strongest SPTs in pairs")
    args = ap.parse_args()
    tasks = [json.loads(l) for l in Path(args.tasks).read_text().splitlines() if l.strip()]
    spts = names()
    seeds = args.seeds.split(",")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="spt-table-"))

    def per_task(task):
        tid = task["id"]
        safe = tid.replace("/", "_")
        orig = work / f"{safe}.orig.py"
        orig.write_text(task["source"])
        rows = []
        for spt in spts:
            seen = {}
            for seed in seeds:
                p = subprocess.run([BIN, "apply", "--transform", spt, "--seed", seed, str(orig)],
                                   capture_output=True, text=True)
                if p.returncode == 0 and "not applicable" not in p.stderr and p.stdout != task["source"]:
                    seen.setdefault(p.stdout, seed)
            verdicts = []
            for i, (text, seed) in enumerate(seen.items()):
                cand = work / f"{safe}.{spt}.{i}.py"
                cand.write_text(text)
                c = subprocess.run([BIN, "check", args.tasks, "--id", tid, "--candidate", str(cand)],
                                   capture_output=True, text=True)
                verdicts.append((str(cand), c.returncode))
            rows.append({"task": tid, "function": "test_code" in task, "spt": spt,
                         "rewrites": len(seen), "verdicts": verdicts})
        correct = [v[0] for r in rows for v in r["verdicts"] if v[1] == 0]
        distances = {}
        if correct:
            s = subprocess.run([BIN, "score", "--json", "--detector", args.detector, str(orig), *correct],
                               capture_output=True, text=True, check=True)
            d = json.loads(s.stdout)["distance"][0]
            distances = dict(zip(correct, d[1:]))
        for r in rows:
            r["distances"] = [distances[v[0]] for v in r["verdicts"] if v[0] in distances]
        return rows

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        all_rows = [r for rows in pool.map(per_task, tasks) for r in rows]
    with (out / "rows.jsonl").open("w") as f:
        for r in all_rows:
            f.write(json.dumps(r) + "\n")

    lines = ["| SPT | applicable tasks | correct tasks | broken rewrites / rewrites | strength (mean L of one application) |",
             "|---|---|---|---|---|"]
    for spt in spts:
        mine = [r for r in all_rows if r["spt"] == spt]
        applicable = sum(1 for r in mine if r["rewrites"])
        correct = sum(1 for r in mine if any(v[1] == 0 for v in r["verdicts"]))
        rewrites = sum(len(r["verdicts"]) for r in mine)
        broken = sum(1 for r in mine for v in r["verdicts"] if v[1] == 1)
        per_task = [statistics.mean(r["distances"]) for r in mine if r["distances"]]
        strength = f"{statistics.mean(per_task):.3f}" if per_task else "-"
        lines.append(f"| {spt} | {applicable}/{len(tasks)} | {correct}/{len(tasks)} | {broken}/{rewrites} | {strength} |")
    lines.append("")
    for label, is_function in (("function tasks", True), ("stdin/stdout scripts", False)):
        counts = []
        for t in tasks:
            if ("test_code" in t) != is_function:
                continue
            counts.append(sum(1 for r in all_rows if r["task"] == t["id"] and any(v[1] == 0 for v in r["verdicts"])))
        if counts:
            lines.append(f"Correct and applicable SPTs per program, {label} ({len(counts)}): "
                         f"mean {statistics.mean(counts):.1f}, min {min(counts)}, max {max(counts)}")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if args.pairs:
        pairs(args, tasks, all_rows, spts, work, out)
    return 0


def pairs(args, tasks, all_rows, spts, work, out):
    """Composes the `--pairs` strongest SPTs two at a time and writes `pairs.md`."""
    strength = {}
    single = {}  # (task, spt) -> best distance of one correct application
    for r in all_rows:
        if r["distances"]:
            single[(r["task"], r["spt"])] = max(r["distances"])
    for spt in spts:
        per_task = [d for (t, s), d in single.items() if s == spt]
        if per_task:
            strength[spt] = statistics.mean(per_task)
    top = sorted(strength, key=lambda s: -strength[s])[: args.pairs]
    combos = [(a, b) for i, a in enumerate(top) for b in top[i + 1:]]

    def per_task(task):
        tid = task["id"]
        safe = tid.replace("/", "_")
        orig = work / f"{safe}.orig.py"
        found = []
        for a, b in combos:
            p = subprocess.run([BIN, "apply", "--transform", f"{a},{b}", "--seed", "0", str(orig)],
                               capture_output=True, text=True)
            if p.returncode != 0 or p.stdout == task["source"]:
                continue
            cand = work / f"{safe}.{a}.{b}.py"
            cand.write_text(p.stdout)
            c = subprocess.run([BIN, "check", args.tasks, "--id", tid, "--candidate", str(cand)],
                               capture_output=True, text=True)
            if c.returncode == 0:
                found.append((a, b, str(cand)))
        if not found:
            return []
        s = subprocess.run([BIN, "score", "--json", "--detector", args.detector, str(orig),
                            *[f[2] for f in found]], capture_output=True, text=True, check=True)
        d = json.loads(s.stdout)["distance"][0][1:]
        return [(tid, a, b, dist) for (a, b, _), dist in zip(found, d)]

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = [r for rows in pool.map(per_task, tasks) for r in rows]
    lines = [f"Pairs of the {len(top)} strongest SPTs (A then B, seed 0), by mean distance:", "",
             "| A | B | correct tasks | mean L of A∘B | mean gain over the stronger alone |",
             "|---|---|---|---|---|"]
    table = []
    for a, b in combos:
        mine = [r for r in results if r[1] == a and r[2] == b]
        if not mine:
            continue
        gains = [dist - max(single.get((t, a), 0.0), single.get((t, b), 0.0)) for t, _, _, dist in mine]
        table.append((statistics.mean(r[3] for r in mine), a, b, len(mine), statistics.mean(gains)))
    for mean_l, a, b, n, gain in sorted(table, reverse=True):
        lines.append(f"| {a} | {b} | {n}/{len(tasks)} | {mean_l:.3f} | {gain:+.3f} |")
    (out / "pairs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
