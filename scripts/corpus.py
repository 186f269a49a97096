#!/usr/bin/env python3
"""Real-world corpus for the SPT library: real Python files whose doctests pass, and a run of
every transform over them that counts applications and broken outputs.

    scripts/corpus.py build [--min 300]          # collect files, keep those whose doctests pass
    scripts/corpus.py run [--seeds 0,1] [--transforms a,b]   # apply every SPT, re-run doctests

`build` installs pinned pure-Python packages into .equimorph/corpus-venv (idempotent) and takes
the standard library's and those packages' modules that contain doctests. A file is kept when
its doctests run (more than zero examples), all pass, two runs give the same result, and a run
takes less than 10 s.

`run` applies each transform (through `equimorph apply`, i.e. the real WebAssembly component)
to each file with each seed. An output is *broken* when it does not compile, its module no
longer imports, or its doctests no longer give the same result as the original's copy loaded
the same way (one interpreter per file imports the package once and forks a child per
variant). Files whose copy does not reproduce the manifest's result (doctests that depend on
the file's location) are reported as "not checked". Results go
to out/corpus/results.jsonl and a per-transform table to out/corpus/summary.md.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".equimorph" / "corpus-venv"
MANIFEST = ROOT / "out" / "corpus" / "manifest.jsonl"
OUT = ROOT / "out" / "corpus"
PACKAGES = [
    "boltons==25.0.0",
    "pydash==8.0.5",
    "toolz==1.0.0",
    "more-itertools==10.7.0",
    "sortedcontainers==2.4.0",
    "networkx==3.4.2",
    "python-dateutil==2.9.0.post0",
    "natsort==8.4.0",
    "tabulate==0.9.0",
    "mpmath==1.3.0",
    "inflection==0.5.1",
    "pyparsing==3.2.3",
    "babel==2.17.0",
    "sympy==1.13.3",
]
# Packages with many more doctested modules than the rest: every Nth module is taken, so that
# no single code base dominates the corpus.
SAMPLE_EVERY = {"sympy": 6}
# Directories of the standard library that are tests, tools or need a display.
STDLIB_SKIP = {"test", "tests", "idlelib", "tkinter", "turtledemo", "site-packages", "lib2to3", "ensurepip"}
TIMEOUT_S = 60
# Files whose doctests take longer than this are left out: the run checks every file once per
# transform and seed.
SLOW_S = 10.0



# Runs in one interpreter per corpus file: imports the real module once, then for each path on
# stdin forks a child that loads that path as the module and runs its doctests; prints one JSON
# line per path.
FORK_CHECKER = r"""
import doctest, importlib, importlib.util, json, os, signal, sys
name, package_dir, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3])
importlib.import_module(name)
extra = {"nx": importlib.import_module("networkx")} if name.startswith("networkx") else {}
def child(path):
    def expire(*_):
        raise TimeoutError("timeout")
    signal.signal(signal.SIGALRM, expire)
    signal.alarm(timeout)
    locations = [package_dir] if package_dir else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    if "." in name:
        parent, _, leaf = name.rpartition(".")
        setattr(sys.modules[parent], leaf, mod)
    if name.startswith("networkx"):
        importlib.import_module("networkx.utils.backends")._registered_algorithms.clear()
    spec.loader.exec_module(mod)
    r = doctest.testmod(mod, extraglobs=extra, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=False)
    return {"attempted": r.attempted, "failed": r.failed}
for line in sys.stdin:
    path = line.strip()
    if not path:
        continue
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            result = child(path)
        except BaseException as e:
            result = {"error": (type(e).__name__ + ": " + str(e))[:300]}
        os.write(w, json.dumps(result).encode())
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    os.waitpid(pid, 0)
    data = b"".join(chunks).decode() or json.dumps({"error": "the check died"})
    print(data, flush=True)
"""

def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv() -> None:
    stamp = VENV / ".packages"
    wanted = "\n".join(PACKAGES)
    if stamp.exists() and stamp.read_text() == wanted:
        return
    base = os.environ.get("PYTHON", "python3")
    subprocess.run([base, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(venv_python()), "-m", "pip", "install", "--quiet", *PACKAGES], check=True)
    stamp.write_text(wanted)


def module_name(root: Path, path: Path) -> tuple[str, str]:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    package_dir = ""
    if parts[-1] == "__init__":
        parts = parts[:-1]
        package_dir = str(path.parent)
    return ".".join(parts), package_dir


def check(source_path: Path, name: str, package_dir: str) -> dict:
    """Runs the doctests of `source_path` loaded as module `name`; never raises."""
    return check_many({"module": name, "package_dir": package_dir}, [source_path])[0]


def candidates() -> list[tuple[Path, Path]]:
    """(root, file) pairs: standard-library and installed-package modules with doctests."""
    out = []
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.rglob("*.py")):
        rel = path.relative_to(stdlib)
        if STDLIB_SKIP & set(rel.parts[:-1]) or rel.parts[0] in STDLIB_SKIP:
            continue
        out.append((stdlib, path))
    site = next(VENV.glob("lib/python3*/site-packages"))
    for path in sorted(site.rglob("*.py")):
        rel = path.relative_to(site)
        if rel.parts[0] in {"pip", "setuptools", "pkg_resources", "_distutils_hack"} or "tests" in rel.parts:
            continue
        out.append((site, path))
    result = []
    seen_per_package: dict[str, int] = {}
    for root, path in out:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if ">>> " in text:
            package = path.relative_to(root).parts[0]
            n = seen_per_package.get(package, 0)
            seen_per_package[package] = n + 1
            if n % SAMPLE_EVERY.get(package, 1) == 0:
                result.append((root, path))
    return result


def build(args) -> int:
    ensure_venv()
    found = candidates()
    print(f"corpus: {len(found)} files with doctest examples; running them", file=sys.stderr)

    def judge(item):
        root, path = item
        name, package_dir = module_name(root, path)
        started = time.time()
        first = check(path, name, package_dir)
        if time.time() - started > SLOW_S:
            return None
        if "error" in first or first["attempted"] == 0 or first["failed"]:
            return None
        if check(path, name, package_dir) != first:
            return None
        return {"path": str(path), "module": name, "package_dir": package_dir, "attempted": first["attempted"]}

    kept = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(judge, found):
            if row:
                kept.append(row)
    MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    with MANIFEST.open("w") as f:
        for row in kept:
            f.write(json.dumps(row) + "\n")
    lines = sum(len(Path(r["path"]).read_text(encoding="utf-8").splitlines()) for r in kept)
    print(f"corpus: kept {len(kept)} files ({lines} lines, {sum(r['attempted'] for r in kept)} doctest examples) in {MANIFEST}")
    if len(kept) < args.min:
        print(f"corpus: fewer than {args.min} files", file=sys.stderr)
        return 1
    return 0


def transform_names(binary: str) -> list[str]:
    out = subprocess.run([binary, "transforms", "list"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines()[1:] if line.strip()]


def check_many(row: dict, paths: list[Path]) -> list[dict]:
    """Runs the doctests of each of `paths` as module `row["module"]`: one interpreter imports
    the package once, then forks a child per path (a fresh copy of the imported state each time)."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": "0", "HOME": tempfile.gettempdir()}
    with tempfile.TemporaryDirectory() as cwd:
        try:
            p = subprocess.run(
                [str(venv_python()), "-c", FORK_CHECKER, row["module"], row["package_dir"], str(TIMEOUT_S)],
                input="\n".join(str(x) for x in paths) + "\n", capture_output=True, text=True,
                timeout=TIMEOUT_S * len(paths) + 60, cwd=cwd, env=env,
            )
        except subprocess.TimeoutExpired:
            return [{"error": "timeout"}] * len(paths)
    results = []
    for line in p.stdout.splitlines():
        try:
            results.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    if len(results) != len(paths):
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        return [{"error": f"checker failed: {tail[:300]}"}] * len(paths)
    return results


def run(args) -> int:
    ensure_venv()
    rows = [json.loads(l) for l in MANIFEST.read_text().splitlines() if l.strip()]
    if args.limit:
        rows = rows[: args.limit]
    names = args.transforms.split(",") if args.transforms else transform_names(args.equimorph)
    seeds = [int(s) for s in args.seeds.split(",")]
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"corpus: {len(rows)} files x {len(names)} transforms x {len(seeds)} seeds", file=sys.stderr)

    def per_file(row):
        path = Path(row["path"])
        out = []
        variants = []  # (result index, source)
        for name in names:
            for seed in seeds:
                base = {"path": row["path"], "transform": name, "seed": seed}
                p = subprocess.run(
                    [args.equimorph, "apply", "--transform", name, "--seed", str(seed), str(path)],
                    capture_output=True, text=True, timeout=120,
                )
                if p.returncode != 0:
                    out.append({**base, "outcome": "error", "detail": p.stderr.strip()[-300:]})
                elif "not applicable" in p.stderr:
                    out.append({**base, "outcome": "not-applicable"})
                else:
                    try:
                        compile(p.stdout, str(path), "exec")
                        out.append({**base, "outcome": "pending"})
                        variants.append((len(out) - 1, p.stdout))
                    except SyntaxError as e:
                        out.append({**base, "outcome": "broken", "detail": f"does not compile: {e}"})
        if not variants:
            return out
        with tempfile.TemporaryDirectory() as d:
            # The reference is the untransformed file loaded the same way (from a temporary
            # directory), so doctests that depend on the file's location compare like for like.
            files = []
            for i, text in [(-1, path.read_text(encoding="utf-8"))] + variants:
                sub = Path(d) / str(i + 1)
                sub.mkdir()
                f = sub / path.name
                f.write_text(text, encoding="utf-8")
                files.append(f)
            got = check_many(row, files)
        reference, results = got[0], got[1:]
        usable = reference == {"attempted": row["attempted"], "failed": 0}
        for (i, _), r in zip(variants, results):
            if not usable:
                out[i] = {**out[i], "outcome": "skipped", "detail": f"reference from a copy: {json.dumps(reference)}"}
            elif r == reference:
                out[i] = {**out[i], "outcome": "ok"}
            else:
                out[i] = {**out[i], "outcome": "broken", "detail": json.dumps(r)}
        return out

    started = time.time()
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool, (OUT / "results.jsonl").open("w") as f:
        for i, rs in enumerate(pool.map(per_file, rows), 1):
            for r in rs:
                results.append(r)
                f.write(json.dumps(r) + "\n")
            f.flush()
            if i % 10 == 0:
                print(f"corpus: {i}/{len(rows)} files ({time.time() - started:.0f} s)", file=sys.stderr)
    table = ["| SPT | applied | applicable files | broken | broken % of applied | errors | not checked |", "|---|---|---|---|---|---|---|"]
    total_applied = total_broken = 0
    for name in names:
        mine = [r for r in results if r["transform"] == name]
        applied = [r for r in mine if r["outcome"] in ("ok", "broken")]
        broken = [r for r in mine if r["outcome"] == "broken"]
        errors = [r for r in mine if r["outcome"] == "error"]
        skipped = [r for r in mine if r["outcome"] == "skipped"]
        files = len({r["path"] for r in applied})
        total_applied += len(applied)
        total_broken += len(broken)
        pct = 100.0 * len(broken) / len(applied) if applied else 0.0
        table.append(f"| {name} | {len(applied)} | {files}/{len(rows)} | {len(broken)} | {pct:.2f} | {len(errors)} | {len(skipped)} |")
    pct = 100.0 * total_broken / total_applied if total_applied else 0.0
    table.append(f"| **all** | {total_applied} | | {total_broken} | {pct:.2f} | | |")
    (OUT / "summary.md").write_text("\n".join(table) + "\n")
    print("\n".join(table))
    for r in results:
        if r["outcome"] in ("broken", "error"):
            print(f"{r['outcome']}: {r['transform']} seed {r['seed']} {r['path']}: {r.get('detail', '')}", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="collect the corpus")
    b.add_argument("--min", type=int, default=300, help="fail when fewer files are kept")
    r = sub.add_parser("run", help="apply every SPT to every corpus file")
    r.add_argument("--seeds", default="0,1")
    r.add_argument("--transforms", default="", help="comma-separated names (default: all)")
    r.add_argument("--limit", type=int, default=0, help="only the first N files")
    r.add_argument("--equimorph", default=str(ROOT / "target" / "release" / "equimorph"))
    for p in (b, r):
        p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    return build(args) if args.cmd == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
