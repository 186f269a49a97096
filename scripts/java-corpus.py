#!/usr/bin/env python3
"""Real-world corpus for the Java SPTs: real Java classes with their real JUnit 5 tests, and a run
of every Java transform over them that counts applications and broken outputs.

    scripts/java-corpus.py build --repo DIR [--max 60]     # pair classes with tests that pass
    scripts/java-corpus.py run [--seeds 0,1] [--transforms a,b] [--jobs 2]

DIR is a checkout in the Maven layout (src/main/java, src/test/java), e.g. TheAlgorithms/Java;
it stays outside this repository. `build` installs Debian's junit5 (idempotent), and keeps a
class `src/main/java/P/X.java` with its test `src/test/java/P/XTest.java` when X compiles on its
own (it needs nothing but the JDK), the test compiles against it and JUnit, every test passes,
and two runs agree. The pairs are copied to out/java-corpus/pairs/ with a manifest.

`run` applies each Java transform (through `equimorph apply`, the real WebAssembly component)
to each class with each seed, compiles the rewrite with its test, and runs the test class. An
output is *broken* when it compiles and a test fails (the issue's definition); one that does
not compile is counted as *not compiling*. Results go to out/java-corpus/results.jsonl and a
per-transform table to out/java-corpus/summary.md.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "out" / "java-corpus"
JUNIT = Path("/usr/share/java/junit-platform-console-standalone.jar")
BIN = ROOT / "target" / "release" / "equimorph"


def ensure_junit():
    if not JUNIT.is_file():
        subprocess.run([str(ROOT / "scripts" / "ensure-apt.sh"), "junit5"], check=True)


def compile_and_test(main_src, test_src, cls, test_cls, timeout=60):
    """Compiles the class and its test in a fresh directory and runs the test class: returns
    ("ok"|"compile"|"fail"|"timeout", detail)."""
    with tempfile.TemporaryDirectory(prefix="equimorph-jcorpus-") as d:
        d = Path(d)
        (d / "src").mkdir()
        (d / "src" / f"{cls}.java").write_text(main_src)
        (d / "src" / f"{test_cls}.java").write_text(test_src)
        out = d / "classes"
        r = subprocess.run(["javac", "-nowarn", "-proc:none", "-encoding", "UTF-8", "-cp", str(JUNIT),
                            "-d", str(out), str(d / "src" / f"{cls}.java"), str(d / "src" / f"{test_cls}.java")],
                           capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            return "compile", r.stderr[-400:]
        pkg = re.search(r"^\s*package\s+([\w.]+)\s*;", test_src, re.M)
        fq = f"{pkg.group(1)}.{test_cls}" if pkg else test_cls
        try:
            r = subprocess.run(["java", "-jar", str(JUNIT), "--disable-banner", "--details=summary",
                                "--disable-ansi-colors", "-cp", str(out), "--select-class", fq],
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timeout", ""
        found = re.search(r"(\d+) tests successful", r.stdout)
        failed = re.search(r"(\d+) tests failed", r.stdout)
        if r.returncode == 0 and found and int(found.group(1)) > 0:
            return "ok", found.group(1)
        return "fail", (failed.group(0) if failed else r.stdout[-400:])


def build(args):
    ensure_junit()
    repo = Path(args.repo)
    tests = sorted((repo / "src" / "test" / "java").rglob("*Test.java"))
    pairs_dir = OUT / "pairs"
    if pairs_dir.exists():
        shutil.rmtree(pairs_dir)
    pairs_dir.mkdir(parents=True)
    kept = []
    skipped = {}

    def consider(test):
        rel = test.relative_to(repo / "src" / "test" / "java")
        cls = test.name[: -len("Test.java")]
        main = repo / "src" / "main" / "java" / rel.parent / f"{cls}.java"
        if not main.is_file():
            return None, "no class under test"
        main_src, test_src = main.read_text(errors="replace"), test.read_text(errors="replace")
        if re.search(r"^import\s+(?!java\.|javax\.|org\.junit\.|static\s+org\.junit\.|static\s+java\.)", test_src + main_src, re.M):
            return None, "imports a library"
        first = compile_and_test(main_src, test_src, cls, test.stem)
        if first[0] != "ok":
            return None, f"original: {first[0]}"
        second = compile_and_test(main_src, test_src, cls, test.stem)
        if second != first:
            return None, "flaky"
        return {"class": cls, "test": test.stem, "path": str(rel.parent / f"{cls}.java"),
                "tests": int(first[1])}, None

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # In batches, so that a large repository stops as soon as --max pairs are kept.
        batch = 4 * args.jobs
        for start in range(0, len(tests), batch):
            if len(kept) >= args.max:
                break
            chunk = tests[start:start + batch]
            for test, (entry, why) in zip(chunk, pool.map(consider, chunk)):
                if entry is None:
                    skipped[why] = skipped.get(why, 0) + 1
                    continue
                if len(kept) >= args.max:
                    break
                rel = test.relative_to(repo / "src" / "test" / "java")
                dest = pairs_dir / f"{len(kept):03d}"
                dest.mkdir()
                shutil.copy(repo / "src" / "main" / "java" / entry["path"], dest / f"{entry['class']}.java")
                shutil.copy(test, dest / f"{entry['test']}.java")
                entry["dir"] = dest.name
                kept.append(entry)
                print(f"kept {rel.parent / entry['class']} ({entry['tests']} tests)", file=sys.stderr)
    with open(OUT / "manifest.jsonl", "w") as f:
        for e in kept:
            f.write(json.dumps(e) + "\n")
    print(f"{len(kept)} classes kept; skipped: {skipped}", file=sys.stderr)


def java_transforms():
    r = subprocess.run([str(BIN), "transforms", "list", "--json"], capture_output=True, text=True, check=True)
    return [t["name"] for t in json.loads(r.stdout) if t.get("language") == "java"]


def run(args):
    ensure_junit()
    entries = [json.loads(l) for l in open(OUT / "manifest.jsonl")]
    names = args.transforms.split(",") if args.transforms else java_transforms()
    seeds = [int(s) for s in args.seeds.split(",")]
    jobs = [(e, t, s) for e in entries for t in names for s in seeds]

    def one(job):
        e, t, seed = job
        d = OUT / "pairs" / e["dir"]
        main_src = (d / f"{e['class']}.java").read_text()
        test_src = (d / f"{e['test']}.java").read_text()
        r = subprocess.run([str(BIN), "apply", "--transform", t, "--seed", str(seed),
                            str(d / f"{e['class']}.java")], capture_output=True, text=True)
        if r.returncode != 0:
            return {"class": e["class"], "transform": t, "seed": seed, "outcome": "error", "detail": r.stderr[-300:]}
        if r.stdout == main_src:
            return {"class": e["class"], "transform": t, "seed": seed, "outcome": "not applicable"}
        status, detail = compile_and_test(r.stdout, test_src, e["class"], e["test"])
        outcome = {"ok": "equivalent", "compile": "not compiling", "fail": "broken", "timeout": "broken"}[status]
        return {"class": e["class"], "transform": t, "seed": seed, "outcome": outcome, "detail": detail}

    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for res in pool.map(one, jobs):
            results.append(res)
            if res["outcome"] in ("broken", "not compiling", "error"):
                print(f"{res['outcome']}: {res['transform']} seed {res['seed']} on {res['class']}: {res.get('detail', '')[:200]}", file=sys.stderr)
    with open(OUT / "results.jsonl", "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    lines = ["| transform | applied | equivalent | broken | not compiling | errors |", "|---|---|---|---|---|---|"]
    totals = [0, 0, 0, 0, 0]
    for t in names:
        rs = [r for r in results if r["transform"] == t]
        row = [sum(r["outcome"] != "not applicable" for r in rs)] + [
            sum(r["outcome"] == o for r in rs) for o in ("equivalent", "broken", "not compiling", "error")]
        totals = [a + b for a, b in zip(totals, row)]
        lines.append(f"| {t} | " + " | ".join(map(str, row)) + " |")
    lines.append("| **all** | " + " | ".join(map(str, totals)) + " |")
    summary = (f"Java corpus: {len(entries)} classes with their JUnit tests, seeds {seeds}.\n\n" + "\n".join(lines) + "\n")
    (OUT / "summary.md").write_text(summary)
    print(summary)
    return 1 if totals[2] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--repo", required=True)
    b.add_argument("--max", type=int, default=60)
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    r = sub.add_parser("run")
    r.add_argument("--seeds", default="0,1")
    r.add_argument("--transforms", default="")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    sys.exit(build(a) if a.cmd == "build" else run(a))


if __name__ == "__main__":
    main()
