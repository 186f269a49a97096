#!/usr/bin/env python3
"""Task file from a directory of standalone Python files that carry doctests (the layout of
TheAlgorithms/Python: one algorithm per file, `>>>` examples in its docstrings).

    scripts/doctest-tasks.py DIR [--out FILE] [--sample N] [--seed S] [--limit N] [--max-bytes 6000]

Writes equimorph task JSONL (one object per line): `id` (the path relative to DIR), `source`
(the file's text), with --problem-per-directory a `problem` (the file's directory: the files
of one directory then count as solutions of one problem, i.e. clones) and `test_code`, which
is appended after the program and run as one script (pass = exit 0). It runs the module's doctests (`doctest.testmod()` on `__main__`, the program
itself), prints one summary line, and exits 1 when an example fails or fewer examples ran than
the original has: a rewrite that drops a docstring cannot pass by running nothing.

A file is kept when it is at most --max-bytes long, is UTF-8, parses, imports only the
standard library (no relative imports), has at least one `>>>` example, and its program plus
test_code, run twice with plain python3 (string-hash seeds 0 and 1, as the oracle's two
reference runs; stdin at /dev/null, an empty working directory, no network where `unshare -rn`
works), passes both times within --timeout seconds with identical output and reaches the test
code (a main block that exits first, or calls input(), drops the file).

Files are taken in sorted order; --sample N shuffles them with --seed and keeps the first N
that pass (the output is sorted by id); --limit N looks at no more than N files. What was seen,
kept and dropped (by reason) goes to stderr.
"""

import argparse
import ast
import concurrent.futures
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

SUMMARY = "equimorph-doctest:"
SKIP_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", "build", "dist"}
SKIP_FILES = {"__init__.py", "conftest.py", "setup.py"}


def test_code(examples: int) -> str:
    """The harness appended to the program: `examples` is what the original attempts."""
    return (
        "import doctest as _equimorph_dt, sys as _equimorph_sys\n"
        "_equimorph_r = _equimorph_dt.testmod(verbose=False)\n"
        f'print("{SUMMARY} %d attempted, %d failed" % '
        "(_equimorph_r.attempted, _equimorph_r.failed))\n"
        "_equimorph_sys.exit(1 if _equimorph_r.failed or "
        f"_equimorph_r.attempted < {examples} else 0)\n"
    )


def program(source: str, code: str) -> str:
    """What equimorph's oracle runs for a task's test_code (src/oracle/mod.rs)."""
    return f"{source}\n\n{code}"


class Drop(Exception):
    """A file left out, with its reason (a short key) and detail."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def static_checks(path: Path, max_bytes: int) -> str:
    """The file's text, or Drop: too large, not UTF-8, no parse, non-stdlib import, no example."""
    raw = path.read_bytes()
    if len(raw) > max_bytes:
        raise Drop("too large", f"{len(raw)} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Drop("not UTF-8", str(e))
    if "\x00" in text:
        raise Drop("not UTF-8", "NUL byte")
    try:
        tree = ast.parse(text, filename=str(path))
    except (SyntaxError, ValueError) as e:
        raise Drop("does not parse", str(e))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                raise Drop("non-stdlib import", "relative import")
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top != "__future__" and top not in sys.stdlib_module_names:
                raise Drop("non-stdlib import", top)
    if ">>>" not in text:
        raise Drop("no doctest example")
    return text


def run_once(python: list, code: str, timeout: float, hash_seed: int) -> tuple:
    """(exit code or None on timeout, stdout, stderr) of `code` run as a script."""
    with tempfile.TemporaryDirectory(prefix="doctest-tasks-") as tmp:
        script = Path(tmp) / "prog.py"
        script.write_text(code, encoding="utf-8")
        env = dict(os.environ, PYTHONHASHSEED=str(hash_seed), PYTHONDONTWRITEBYTECODE="1",
                   PYTHONIOENCODING="utf-8")
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONSTARTUP", None)
        proc = subprocess.Popen(python + [str(script)], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            code_ = proc.returncode
        except subprocess.TimeoutExpired:
            code_ = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if code_ is None:
            out, err = proc.communicate()
        return code_, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:200] if lines else ""


def attempted_of(stdout: str):
    """The harness's counts (attempted, failed) from its summary line, or None."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(SUMMARY):
            words = line[len(SUMMARY):].split()
            try:
                return int(words[0]), int(words[2])
            except (IndexError, ValueError):
                return None
    return None


def classify_failure(code, out: str, err: str, timeout: float) -> Drop:
    if code is None:
        return Drop("timeout", f"over {timeout:g} s")
    counts = attempted_of(out)
    if counts and counts[1]:
        return Drop("doctests fail", f"{counts[1]} of {counts[0]} examples")
    tail = last_line(err)
    if "EOFError" in tail:
        return Drop("reads stdin", tail)
    if "ModuleNotFoundError" in tail or "ImportError" in tail:
        return Drop("import fails", tail)
    return Drop("doctests fail", tail or f"exit {code}")


def check(path: Path, rel: str, args, python: list) -> dict:
    """The task for one file, or Drop."""
    text = static_checks(path, args.max_bytes)
    # First under hash seed 0 with a harness that demands nothing, to learn how many examples
    # the file has; then the harness the task will carry, under seed 1 (the oracle's two
    # reference runs use both).
    code, out, err = run_once(python, program(text, test_code(0)), args.timeout, 0)
    if code != 0:
        raise classify_failure(code, out, err, args.timeout)
    counts = attempted_of(out)
    if counts is None:
        raise Drop("exits before the tests", "the main block ended the program")
    attempted, failed = counts
    if failed:
        raise Drop("doctests fail", f"{failed} of {attempted}")
    if attempted == 0:
        raise Drop("no doctest example", "doctest found none")
    harness = test_code(attempted)
    code, out2, err = run_once(python, program(text, harness), args.timeout, 1)
    if code != 0:
        raise classify_failure(code, out2, err, args.timeout)
    if out2 != out:
        raise Drop("flaky", "stdout differs between two runs")
    task = {"id": rel, "source": text, "test_code": harness}
    if args.problem_per_directory:
        # Files of one directory solve one problem (project_euler/problem_001/sol1.py, sol2.py):
        # they are each other's clones, which jobs read from `problem`.
        task["problem"] = Path(rel).parent.as_posix() or "."
    return task


def network_free_launcher(python: str) -> list:
    """`unshare -rn python` where that works (no network), else python alone."""
    unshare = shutil.which("unshare")
    if unshare:
        try:
            r = subprocess.run([unshare, "-rn", python, "-c", "pass"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
            if r.returncode == 0:
                return [unshare, "-rn", python]
        except (OSError, subprocess.TimeoutExpired):
            pass
    return [python]


def collect(root: Path) -> list:
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in filenames:
            if name.endswith(".py") and name not in SKIP_FILES and not name.startswith("test_"):
                p = Path(dirpath) / name
                files.append((p.relative_to(root).as_posix(), p))
    files.sort()
    return files


def main() -> int:
    ap = argparse.ArgumentParser(
        description="Make an equimorph task file (JSONL) from standalone Python files with doctests.",
        epilog="Files are judged with plain python3; see the module docstring for the rules.")
    ap.add_argument("dir", help="directory of Python files (e.g. a TheAlgorithms/Python checkout)")
    ap.add_argument("--out", help="task file to write (default: standard output)")
    ap.add_argument("--sample", type=int, metavar="N",
                    help="keep the first N files that pass, in an order shuffled with --seed")
    ap.add_argument("--seed", type=int, default=0, help="shuffle seed for --sample (default 0)")
    ap.add_argument("--limit", type=int, metavar="N", help="look at no more than N files")
    ap.add_argument("--max-bytes", type=int, default=6000, help="largest file kept (default 6000)")
    ap.add_argument("--timeout", type=float, default=5.0,
                    help="seconds one run of a file's doctests may take (default 5)")
    ap.add_argument("--python", default="python3", help="interpreter (default python3)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="files checked at once (default: the number of CPUs)")
    ap.add_argument("--verbose", action="store_true", help="print every dropped file and why")
    ap.add_argument("--problem-per-directory", action="store_true",
                    help="set each task's `problem` to its directory, for corpora whose directories "
                         "hold several solutions of one problem (TheAlgorithms' project_euler)")
    args = ap.parse_args()

    root = Path(args.dir)
    if not root.is_dir():
        ap.error(f"{args.dir} is not a directory")
    for name in ("sample", "limit", "jobs", "max_bytes"):
        value = getattr(args, name)
        if value is not None and value < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.timeout <= 0:
        ap.error("--timeout must be positive")
    python = shutil.which(args.python)
    if python is None:
        ap.error(f"interpreter {args.python} not found")
    launcher = network_free_launcher(python)

    files = collect(root)
    if not files:
        print(f"doctest-tasks: no Python files under {root}", file=sys.stderr)
        return 2
    if args.sample is not None:
        random.Random(args.seed).shuffle(files)
    if args.limit is not None:
        files = files[: args.limit]

    kept, seen = [], 0
    reasons = Counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # In windows of the pool's size, in order, so that --sample keeps the same files
        # whatever the timing.
        step = args.jobs * 2
        for start in range(0, len(files), step):
            window = files[start:start + step]
            futures = [pool.submit(check, p, rel, args, launcher) for rel, p in window]
            for (rel, _), fut in zip(window, futures):
                if args.sample is not None and len(kept) >= args.sample:
                    fut.cancel()
                    continue
                seen += 1
                try:
                    task = fut.result()
                except Drop as d:
                    reasons[d.reason] += 1
                    if args.verbose:
                        print(f"  drop {rel}: {d.reason}" + (f" ({d.detail})" if d.detail else ""),
                              file=sys.stderr)
                    continue
                except OSError as e:
                    reasons["unreadable"] += 1
                    if args.verbose:
                        print(f"  drop {rel}: unreadable ({e})", file=sys.stderr)
                    continue
                kept.append(task)
            if args.sample is not None and len(kept) >= args.sample:
                break

    kept.sort(key=lambda t: t["id"])
    lines = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in kept)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(lines, encoding="utf-8")
    else:
        sys.stdout.write(lines)

    network = "no network" if launcher[0] != python else "network NOT cut off (no unshare -rn)"
    print(f"doctest-tasks: {seen} files seen, {len(kept)} kept, {seen - len(kept)} dropped "
          f"({network}, {len(files)} files {'in the sample order' if args.sample else 'listed'})",
          file=sys.stderr)
    for reason, n in reasons.most_common():
        print(f"  {n:>5}  {reason}", file=sys.stderr)
    if args.sample is not None and len(kept) < args.sample:
        print(f"doctest-tasks: only {len(kept)} of the {args.sample} files asked for pass",
              file=sys.stderr)
    if args.out:
        print(f"doctest-tasks: wrote {args.out}", file=sys.stderr)
    return 0 if kept else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("doctest-tasks: interrupted", file=sys.stderr)
        sys.exit(130)
    except OSError as e:
        print(f"doctest-tasks: {e}", file=sys.stderr)
        sys.exit(2)
