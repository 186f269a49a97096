#!/usr/bin/env python3
"""False-alarm probe for `tests grow` (stdin): draws inputs from each problem's tests with
examples/input_model and runs every accepted solution on them. An input on which solutions 0
and 1 agree (and exit normally) while another solution differs is one growth could keep (its
keep rules run the solutions it grows on) and that would then reject an accepted solution it
never saw: most often an input outside the problem's constraints.

Usage: scripts/probe-inputs.py TASKS.jsonl [--count N] [--seed S] [--grown GROWN.jsonl] [PROBLEM ...]
With --grown, the inputs a `tests grow` run kept (its output file) are mutated too, by the model
of the problem's own tests: growth mutates what it kept, and a kept input may be read otherwise
than the tests (`1 60` over one row of sixty).
Build first: cargo build --release --example input_model
Runs Python solutions only (one subprocess per solution and input, 3 s each)."""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "target", "release", "examples", "input_model")


def run(source, stdin):
    try:
        r = subprocess.run([sys.executable, "-c", source], input=stdin,
                           capture_output=True, text=True, timeout=3)
        return (r.returncode, r.stdout.strip())
    except subprocess.TimeoutExpired:
        return ("timeout", "")


def tasks_of(path):
    """The tasks of a JSONL file, one per line; exits with the line of any that is no JSON."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{n}: not JSON: {e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks")
    ap.add_argument("problems", nargs="*", help="only these problems")
    ap.add_argument("--count", type=int, default=60, help="inputs drawn per problem")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--grown", help="a `tests grow` output whose inputs are mutated too")
    args = ap.parse_intermixed_args()
    if not os.path.exists(TOOL):
        sys.exit(f"{TOOL} is missing: cargo build --release --example input_model")
    problems = collections.OrderedDict()
    for task in tasks_of(args.tasks):
        problems.setdefault(task.get("problem", task["id"]), []).append(task)
    grown = collections.defaultdict(list)
    for task in tasks_of(args.grown) if args.grown else []:
        name = task.get("problem", task["id"])
        grown[name].extend(t["input"].rstrip("\n") + "\n" for t in task.get("tests", []))
    total = 0
    for name, solutions in problems.items():
        if args.problems and name not in args.problems:
            continue
        if len(solutions) < 3:
            continue
        inputs = [t["input"].rstrip("\n") + "\n" for t in solutions[0].get("tests", [])]
        files = []
        try:
            for texts in (inputs, grown.get(name)):
                if not texts:
                    continue
                with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                    f.write("\n".join(texts))
                files.append(f.name)
            out = subprocess.run([TOOL, *files[:1], str(args.count), str(args.seed), *files[1:]],
                                 capture_output=True, text=True, check=True).stdout
        finally:
            for name_ in files:
                os.unlink(name_)
        drawn = [b for b in out.split("---\n") if b.strip()]
        alarms = []
        for b in drawn:
            results = [run(s["source"], b) for s in solutions]
            first = results[0]
            if first[0] == 0 and results[1] == first and any(r != first for r in results[2:]):
                alarms.append(b)
        total += len(alarms)
        print(f"{name}: {len(drawn)} inputs, {len(alarms)} where solutions 0 and 1 agree "
              "and another differs", flush=True)
        for b in alarms[:3]:
            print("   ", repr(b[:300]))
    print(f"total: {total}")


if __name__ == "__main__":
    main()
