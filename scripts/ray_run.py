#!/usr/bin/env python3
"""Runs one equimorph job (attack, augment or select) on a Ray cluster, one Ray task per shard.

    .equimorph/venv/bin/python scripts/ray_run.py --address HOST:PORT --shards N --out DIR \\
        [--cpus C] [--gpus G] [--retries R] [--transfer shared|object-store] \\
        -- augment fixtures/tasks.jsonl --variants 10

Shard I (1 ≤ I ≤ N) runs `equimorph <job> ... --shard I/N --out DIR/shards/I` on whichever worker Ray
picks (C CPUs and G GPUs reserved per shard). With --gpus, Ray gives each shard its own GPUs
(CUDA_VISIBLE_DEVICES) and, unless the job names a --device, the shard runs with
`--device cuda:0,…,k-1` (its k GPUs, as the shard sees them); ray_run.json records which
GPUs each shard had. A shard whose command fails is retried (R times;
the job resumes from what the failed try wrote when the directory is shared). When every shard
is done, `equimorph merge DIR DIR/shards/1 ... DIR/shards/N` makes DIR one run, identical
(timing aside) to the same job run in one process.

Transfer of results:
  shared        DIR is on a filesystem every worker mounts at the same path (NFS, Lustre...).
  object-store  each shard writes to a local temporary directory and returns it as a tar.gz
                through Ray's object store; the driver unpacks it under DIR/shards/I.
Inputs (the task file, candidate directories, models, transforms) must be readable on every
worker at the same path. Arguments that name existing files are made absolute before shipping.
"""

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = ("attack", "augment", "select")
# Environment a worker needs to behave like this shell (Ray workers inherit the raylet's).
FORWARDED_ENV = ("EQUIMORPH_", "RAYON_", "OMP_", "CUDA_VISIBLE_DEVICES", "PATH", "HOME")


def parse_args(argv):
    if "--" not in argv:
        sys.exit("ray_run.py: give the job after --, e.g. -- augment tasks.jsonl --variants 10")
    split = argv.index("--")
    p = argparse.ArgumentParser(
        prog="ray_run.py",
        description="Run an equimorph job on a Ray cluster, one Ray task per shard, then merge.",
    )
    p.add_argument("--address", required=True,
                   help="Ray cluster address (HOST:PORT, or 'auto' for the local node's cluster)")
    p.add_argument("--shards", type=int, required=True, help="number of shards N (>= 1)")
    p.add_argument("--out", required=True, help="directory of the merged run (shards in DIR/shards)")
    p.add_argument("--cpus", type=float, default=1.0, help="CPUs reserved per shard (default 1)")
    p.add_argument("--gpus", type=float, default=0.0, help="GPUs reserved per shard (default 0)")
    p.add_argument("--retries", type=int, default=2, help="retries of a failed shard (default 2)")
    p.add_argument("--transfer", choices=("shared", "object-store"), default="shared",
                   help="how shard directories reach the driver (default shared)")
    p.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "equimorph"),
                   help="the equimorph binary, at the same path on every worker")
    args = p.parse_args(argv[:split])
    job = argv[split + 1:]
    if not job or job[0] not in JOBS:
        p.error(f"the job after -- must start with one of {', '.join(JOBS)}")
    for flag in ("--out", "--shard"):
        if any(a == flag or a.startswith(flag + "=") for a in job):
            p.error(f"do not pass {flag} to the job: ray_run.py sets it per shard")
    if args.shards < 1:
        p.error("--shards must be at least 1")
    return args, job


def absolute(job):
    """The job's arguments with paths that exist here made absolute."""
    out = []
    for a in job:
        if not a.startswith("-") and os.path.exists(a):
            out.append(os.path.abspath(a))
        elif a.startswith("onnx:") and os.path.exists(a[5:]):
            out.append("onnx:" + os.path.abspath(a[5:]))
        else:
            out.append(a)
    return out


def pack(directory):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(directory, arcname=".")
    return buf.getvalue()


def unpack(data, directory):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(directory, filter="data")


def gpu_device(job, gpu_ids):
    """The job with `--device cuda:0,…,k-1` for the k GPUs Ray gave the shard (Ray makes them
    the only visible ones, numbered from 0), unless the job names its device."""
    if not gpu_ids or any(a == "--device" or a.startswith("--device=") for a in job):
        return list(job)
    return [*job, "--device", "cuda:" + ",".join(str(i) for i in range(len(gpu_ids)))]


def run_shard(binary, job, index, count, out_dir, transfer, env, use_gpus):
    """Runs one shard on this worker; returns (node, seconds, tar.gz bytes or None, its GPUs,
    its command)."""
    import socket

    import ray

    start = time.time()
    local = tempfile.mkdtemp(prefix=f"equimorph-shard{index}-") if transfer == "object-store" else out_dir
    os.makedirs(local, exist_ok=True)
    gpus = [str(g) for g in ray.get_gpu_ids()] if use_gpus else []
    if use_gpus:
        # Ray's CUDA_VISIBLE_DEVICES for this task, not the driver's.
        env = {k: v for k, v in env.items() if k != "CUDA_VISIBLE_DEVICES"}
    job = gpu_device(job, gpus)
    cmd = [binary, *job, "--shard", f"{index}/{count}", "--out", local, "--quiet"]
    proc = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"shard {index}/{count} on {socket.gethostname()}: exit {proc.returncode}\n"
            f"{' '.join(cmd)}\n{proc.stderr[-4000:]}"
        )
    data = None
    if transfer == "object-store":
        data = pack(local)
        shutil.rmtree(local, ignore_errors=True)
    node = f"{socket.gethostname()}/{ray.get_runtime_context().get_node_id()[:8]}"
    return node, time.time() - start, data, gpus, cmd[1:]


def main(argv):
    args, job = parse_args(argv)
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    import ray

    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"ray_run.py: {binary} is not an executable (build it: make host)")
    job = absolute(job)
    out = os.path.abspath(args.out)
    shards_dir = os.path.join(out, "shards")
    os.makedirs(shards_dir, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV)}
    ray.init(address=args.address, log_to_driver=False, logging_level="warning")
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    cpus = sum(n.get("Resources", {}).get("CPU", 0) for n in nodes)
    print(f"cluster: {len(nodes)} nodes, {cpus:g} CPUs; {args.shards} shards of "
          f"{args.cpus:g} CPU(s){f' and {args.gpus:g} GPU(s)' if args.gpus else ''}", file=sys.stderr)
    remote = ray.remote(
        num_cpus=args.cpus,
        num_gpus=args.gpus,
        max_retries=args.retries,
        retry_exceptions=True,
    )(run_shard)
    # Shards count from 1, as `--shard I/N` does.
    dirs = {i: os.path.join(shards_dir, str(i)) for i in range(1, args.shards + 1)}
    pending = {
        remote.remote(binary, job, i, args.shards, dirs[i], args.transfer, env, args.gpus > 0): i
        for i in dirs
    }
    failed = []
    record = {"job": job, "shards": {}}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        i = pending.pop(ready[0])
        try:
            host, seconds, data, gpus, cmd = ray.get(ready[0])
        except Exception as e:  # the shard failed on every try
            failed.append(i)
            print(f"shard {i}/{args.shards} failed after {args.retries} retries: {e}", file=sys.stderr)
            continue
        if data is not None:
            unpack(data, dirs[i])
        record["shards"][str(i)] = {"node": host, "seconds": seconds, "dir": dirs[i], "gpus": gpus, "command": cmd}
        on_gpus = f" on GPU(s) {','.join(gpus)}" if gpus else ""
        print(f"shard {i}/{args.shards} done on {host}{on_gpus} in {seconds:.1f} s", file=sys.stderr)
    ray.shutdown()
    with open(os.path.join(out, "ray_run.json"), "w") as f:
        json.dump(record, f, indent=2)
    if failed:
        sys.exit(f"ray_run.py: {len(failed)} shard(s) failed ({failed}); rerun the same command "
                 "to retry them (finished shards resume instantly)")
    for name in ("results.jsonl", "tasks.jsonl", "pairs.jsonl"):
        stale = os.path.join(out, name)
        if os.path.exists(stale):
            os.remove(stale)  # a previous merge: merge again from the shards
    merge = subprocess.run([binary, "merge", out, *dirs.values()], env={**os.environ})
    return merge.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
