#!/usr/bin/env python3
"""What `tests grow` is worth on function tasks with thin tests: HumanEval cut to one assert.

    scripts/bench-grow-humaneval.py kit --humaneval HumanEval.jsonl[.gz] --out DIR [--n 40] [--seed 0]
    scripts/bench-grow-humaneval.py eval --kit DIR --grown GROWN.jsonl [--per-task]

`kit` writes DIR/thin.jsonl (HumanEval records whose `check` keeps only its first assert) and
DIR/mutants.jsonl: mutants of each canonical solution made by this script's own operators
(independent of equimorph's: comparison, arithmetic and boolean operators swapped, integer
constants moved by one, conditions negated, a returned value replaced by None, slices and
subscripts shifted), kept when the full HumanEval test rejects them and the thin one lets them
through. Then grow the thin kit with `equimorph tests grow DIR/thin.jsonl --format humaneval
--out GROWN.jsonl`, and `eval` prints the share of those mutants the grown tests reject
(a call test rejects a mutant when the mutant's printed value differs or it fails), and the
tasks left with nothing grown.
"""
import argparse, ast, copy, gzip, json, os, random, subprocess, sys, tempfile


def runs_ok(program, timeout=10):
    with tempfile.TemporaryDirectory(prefix="bench-grow-") as d:
        path = os.path.join(d, "p.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(program)
        try:
            r = subprocess.run([sys.executable, path], cwd=d, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, b""
        return r.returncode == 0, r.stdout


def thin(test):
    """The test with `check` keeping its statements up to and including its first assert."""
    tree = ast.parse(test)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            body = []
            for s in node.body:
                body.append(s)
                if isinstance(s, ast.Assert):
                    break
            node.body = body
    return ast.unparse(tree)


SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
         ast.Mod: ast.FloorDiv, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
         ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.And: ast.Or, ast.Or: ast.And,
         ast.In: ast.NotIn, ast.NotIn: ast.In}


def mutants(source):
    """Every single-site mutant of `source` (unparsed), without repeats."""
    tree = ast.parse(source)
    sites = []
    for node in ast.walk(tree):
        for field in ("op",):
            if isinstance(getattr(node, field, None), tuple(SWAPS)):
                sites.append(("op", node))
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in SWAPS:
                    sites.append(("cmp", node, i))
        if isinstance(node, ast.Constant) and type(node.value) is int:
            sites.append(("inc", node))
            sites.append(("dec", node))
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            sites.append(("not", node))
        if isinstance(node, ast.Return) and node.value is not None:
            sites.append(("none", node))
    out, seen = [], {source}
    for k in range(len(sites)):
        t = copy.deepcopy(tree)
        nodes = list(ast.walk(t))
        orig_nodes = list(ast.walk(tree))
        site = sites[k]
        node = nodes[orig_nodes.index(site[1])]
        if site[0] == "op":
            node.op = SWAPS[type(node.op)]()
        elif site[0] == "cmp":
            node.ops[site[2]] = SWAPS[type(node.ops[site[2]])]()
        elif site[0] == "inc":
            node.value += 1
        elif site[0] == "dec":
            node.value -= 1
        elif site[0] == "not":
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        elif site[0] == "none":
            node.value = ast.Constant(value=None)
        try:
            text = ast.unparse(ast.fix_missing_locations(t))
        except Exception:
            continue
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def kit(args):
    opener = gzip.open if args.humaneval.endswith(".gz") else open
    records = [json.loads(l) for l in opener(args.humaneval, "rt", encoding="utf-8") if l.strip()]
    rng = random.Random(args.seed)
    chosen = sorted(rng.sample(range(len(records)), args.n))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "thin.jsonl"), "w") as thin_f, \
         open(os.path.join(args.out, "mutants.jsonl"), "w") as mut_f:
        for i in chosen:
            r = records[i]
            program = r["prompt"] + r["canonical_solution"]
            full = f"{program}\n\n{r['test']}\n\ncheck({r['entry_point']})\n"
            thin_test = thin(r["test"])
            if not runs_ok(full)[0] or not runs_ok(f"{program}\n\n{thin_test}\n\ncheck({r['entry_point']})\n")[0]:
                print(f"{r['task_id']}: the canonical solution fails its tests, skipped", file=sys.stderr)
                continue
            thin_f.write(json.dumps(dict(r, test=thin_test)) + "\n")
            kept = []
            ms = mutants(program)
            rng.shuffle(ms)
            for m in ms[: args.max_mutants]:
                through = runs_ok(f"{m}\n\n{thin_test}\n\ncheck({r['entry_point']})\n")[0]
                if through and not runs_ok(f"{m}\n\n{r['test']}\n\ncheck({r['entry_point']})\n")[0]:
                    kept.append(m)
            mut_f.write(json.dumps({"task_id": r["task_id"], "mutants": kept}) + "\n")
            print(f"{r['task_id']}: {len(kept)} of {min(len(ms), args.max_mutants)} mutants survive the thin test and fail the full one", file=sys.stderr)


def evaluate(args):
    muts = {json.loads(l)["task_id"]: json.loads(l)["mutants"] for l in open(os.path.join(args.kit, "mutants.jsonl"))}
    total = rejected = 0
    empty = []
    for line in open(args.grown):
        t = json.loads(line)
        tid = t.get("task_id") or t.get("id")
        calls = [c for c in t.get("tests", []) if c.get("call") and c.get("grown")]
        if not calls:
            empty.append(tid)
        through = 0
        for m in muts.get(tid, []):
            total += 1
            for c in calls:
                ok, out = runs_ok(f"{m}\n\n{c['call']}\n")
                if not ok or out.decode("utf-8", "replace") != c["output"]:
                    rejected += 1
                    break
            else:
                through += 1
        if args.per_task and muts.get(tid):
            print(f"{tid}: {through} of {len(muts[tid])} mutants let through by {len(calls)} grown call(s)")
    share = rejected / total if total else float("nan")
    print(f"mutants the thin test lets through (non-equivalent): {total}; rejected by grown tests: {rejected} ({share:.3f})")
    print(f"tasks with nothing grown: {len(empty)} {' '.join(empty)}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("kit")
    k.add_argument("--humaneval", required=True)
    k.add_argument("--out", required=True)
    k.add_argument("--n", type=int, default=40)
    k.add_argument("--seed", type=int, default=0)
    k.add_argument("--max-mutants", type=int, default=30)
    e = sub.add_parser("eval")
    e.add_argument("--kit", required=True)
    e.add_argument("--grown", required=True)
    e.add_argument("--per-task", action="store_true", help="also print, per task, the mutants its grown calls let through")
    a = p.parse_args()
    kit(a) if a.cmd == "kit" else evaluate(a)


if __name__ == "__main__":
    main()
