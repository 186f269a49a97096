#!/usr/bin/env bash
# Runs on the GPU machine from the project root, in the command that carries .gpu/main, after
# four back-to-back commands that carried .gpu/p1..p4 and ran `mkdir -p /tmp/stage && cp
# .gpu/pN/* /tmp/stage/` (an idle machine is released, /tmp with it). Needs Python 3 with
# numpy, onnx, safetensors and onnxruntime (CPU), CUDA 13 and cuDNN 9. Writes under $OUT:
# the detector figures (bench-detector, JSON lines), the GPU tests' log, and whole attacks.
# Usage: device.sh [bench|attack|compare|profile|tune|final|pace|all|search|search-tune VARIANT...]
# (final: the GPU tests, the default detector at batch 32 for both shapes, and whole attacks of
# this build with 4 and 8 tasks in flight beside the older build's, if staged)   (compare: an older build, staged as
# .gpu/main/equimorph-old.xz, against this one on the same attack, side by side)
set -uo pipefail
M=$PWD/.gpu/main; S=/tmp/stage; OUT=${OUT:-/tmp/out}; mkdir -p /tmp/ort /tmp/bin /tmp/m "$OUT"
what=${1:-all}
if [ ! -x /tmp/bin/equimorph ]; then
    cp $M/prov.part.* $S/ 2>/dev/null
    cat $S/prov.part.* | xz -d -T0 > /tmp/ort/libonnxruntime_providers_cuda.so
    xz -dc $M/libonnxruntime.so.xz > /tmp/ort/libonnxruntime.so.1.31.1; cp $M/libonnxruntime_providers_shared.so /tmp/ort/
    xz -dc $M/equimorph.xz > /tmp/bin/equimorph; xz -dc $M/detectors-test.xz > /tmp/bin/detectors-test; cp $M/bwrap /tmp/bin/
    [ -f $M/equimorph-old.xz ] && xz -dc $M/equimorph-old.xz > /tmp/bin/equimorph-old
    chmod +x /tmp/bin/*
    for l in $M/lib/*; do b=$(basename $l); [ -e /usr/lib/x86_64-linux-gnu/$b ] || cp $l /usr/lib/x86_64-linux-gnu/; done; ldconfig
    mkdir -p /tmp/home/models /tmp/home/onnxruntime && xz -dc $M/tiny.tar.xz | tar x -C /tmp/home/models
    cp /tmp/ort/libonnxruntime.so.1.31.1 /tmp/home/onnxruntime/
    mkdir -p /tmp/build && xz -dc $M/transforms.tar.xz | tar x -C /tmp/build
fi
export PATH=/tmp/bin:$PATH ORT_DYLIB_PATH=/tmp/ort/libonnxruntime.so.1.31.1 EQUIMORPH_CACHE=/tmp/eqcache \
    EQUIMORPH_TRANSFORMS=/tmp/build/transforms EQUIMORPH_HOME=/tmp/home
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:$(find / -xdev -type d -path "*site-packages/nvidia/*/lib" 2>/dev/null | tr "\n" ":")
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt
# The real all-MiniLM-L6-v2 as its fused fp16 graph, for searches (staged by a command that
# carried .gpu/mini: model_gpu.onnx.xz, equimorph.toml naming it as the model, the tokenizer,
# HumanEval split in two halves, tune.sh).
if [ -f $S/model_gpu.onnx.xz ] && [ ! -f /tmp/mini/model_gpu.onnx ]; then
    mkdir -p /tmp/mini && xz -dc $S/model_gpu.onnx.xz > /tmp/mini/model_gpu.onnx && cp $S/equimorph.toml $S/tokenizer.json /tmp/mini/
fi
if [ "$what" = search ]; then
    # The search comparison on the fixtures and held-out HumanEval tasks (the odd half).
    # Extra arguments go to bench-search.sh (default: the fixtures and the odd half of HumanEval).
    shift; [ $# -gt 0 ] || set -- --real $S/he_odd.jsonl
    EQUIMORPH_BIN=/tmp/bin/equimorph scripts/bench-search.sh "$@" -- --detector onnx:/tmp/mini --device cuda --precision fp16 2>&1 | tee -a $OUT/bench-search.txt
    cp -r out/bench-search $OUT/ 2>/dev/null
    exit 0
fi
if [ "$what" = search-tune ]; then shift; OUT=$OUT bash $S/tune.sh "$@"; exit 0; fi
[ -f /tmp/m/base-rand/model_gpu.onnx ] || python3 scripts/gpu/gen_models.py $M/tokenizer.json /tmp/m > $OUT/gen.log 2>&1 || tail $OUT/gen.log
# HumanEval-length inputs (~200 tokens): the fixture programs joined three at a time.
python3 - > /tmp/he.jsonl <<'PY'
import json
ts = [json.loads(l) for l in open("fixtures/tasks.jsonl") if l.strip()]
for k in range(len(ts)):
    group = [ts[(k + j) % len(ts)] for j in range(3)]
    print(json.dumps(dict(group[0], id=f"joined-{k}", source="\n\n".join(t["source"] for t in group))))
PY
if [ "$what" = bench ] || [ "$what" = all ]; then
    [ -e /work/main ] || { mkdir -p /work && ln -s $PWD /work/main; }
    detectors-test --test-threads 1 cuda_agrees --nocapture 2>&1 | tail -15 > $OUT/gpu-tests.log; cat $OUT/gpu-tests.log
    for m in minilm-rand base-rand; do
        equimorph bench-detector --detector onnx:/tmp/m/$m --input /tmp/he.jsonl --device cuda --repeat 24 --rounds 3 --compare-cpu \
            --precisions fp32,fp16 --shapes exact,fixed --batch-sizes 32,128,256 2>&1 | tee $OUT/bench-$m.txt
        equimorph bench-detector --detector onnx:/tmp/m/$m --input /tmp/he.jsonl --device cuda --repeat 24 --rounds 3 --clients 4 \
            --precisions fp16 --shapes fixed --batch-sizes 128,256 2>&1 | tee $OUT/bench-$m-clients4.txt
    done
fi
# One attack: its candidates/s and stage split, appended to $OUT/attack.txt.
# Usage: attack_once LABEL BINARY DETECTOR ARGS...
attack_once() {
    local label=$1 bin=$2 det=$3; shift 3
    local dir=/tmp/att-$(echo "$label" | tr ' /' '__'); rm -rf $dir
    local t0=$(date +%s.%N)
    $bin attack fixtures/tasks.jsonl --detector $det --iterations 10 --beam 5 --threshold 0.5 --out $dir --quiet "$@" > $dir.log 2>&1
    local t1=$(date +%s.%N)
    python3 - "$dir" "$label" "$t0" "$t1" <<'PY' | tee -a $OUT/attack.txt
import json, sys
d, mode, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
lines = [json.loads(l) for l in open(f"{d}/results.jsonl")]
scored = sum(l.get("counts", {}).get("scored", 0) for l in lines)
sec = {k: sum(l.get("seconds", {}).get(k, 0.0) for l in lines) for k in ("transform", "detector", "oracle")}
tot = sum(sec.values()) or 1.0
print(json.dumps({"mode": mode, "tasks": len(lines), "scored": scored, "wall_s": round(t1 - t0, 2),
                  "candidates_per_s": round(scored / (t1 - t0), 1),
                  "stage_share": {k: round(v / tot, 3) for k, v in sec.items()}}))
PY
}
if [ "$what" = profile ]; then
    # Where a whole attack's time goes: CPU seconds of all its processes against wall time, and
    # the detector's session time (stats.json).
    for inflight in 4 8; do
        python3 - "$inflight" <<'PY' | tee -a $OUT/profile.txt
import json, resource, subprocess, sys, time
n = sys.argv[1]; out = f"/tmp/prof-{n}"
subprocess.run(["rm", "-rf", out])
t = time.time()
subprocess.run(["equimorph", "attack", "fixtures/tasks.jsonl", "--detector", "onnx:/tmp/m/minilm-rand", "--device", "cuda",
                "--tasks-in-flight", n, "--iterations", "10", "--beam", "5", "--threshold", "0.5", "--out", out, "--quiet"],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.time() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
d = json.load(open(f"{out}/stats.json"))["detector"]
print(json.dumps({"tasks_in_flight": int(n), "wall_s": round(wall, 2), "cpu_s": round(r.ru_utime + r.ru_stime, 1),
                  "cores_busy": round((r.ru_utime + r.ru_stime) / wall, 1),
                  "detector_session_s": round(d["inference_seconds"], 2), "tokenize_s": round(d["tokenize_seconds"], 2),
                  "filler_rows": d["filler_rows"], "sequences": d["sequences"], "batches": d["batches"]}))
PY
    done
    equimorph bench-detector --detector onnx:/tmp/m/minilm-rand --input /tmp/he.jsonl --device cuda:0,0 --repeat 24 --rounds 3 \
        --batch-sizes 32 --clients 4 2>&1 | tee -a $OUT/profile.txt
    equimorph bench-detector --detector onnx:/tmp/m/minilm-rand --input /tmp/he.jsonl --device cuda --repeat 24 --rounds 3 \
        --batch-sizes 32 --clients 4 2>&1 | tee -a $OUT/profile.txt
fi
if [ "$what" = final ]; then
    [ -e /work/main ] || { mkdir -p /work && ln -s $PWD /work/main; }
    detectors-test --test-threads 1 cuda_agrees --nocapture 2>&1 | tail -9 | tee $OUT/gpu-tests.log
    attack_once "warm-up (compiles the transforms)" equimorph jaccard --max-queries 10
    for m in minilm-rand base-rand; do
        equimorph bench-detector --detector onnx:/tmp/m/$m --input /tmp/he.jsonl --device cuda --repeat 24 --rounds 3 \
            --batch-sizes 32 --precisions fp32,fp16 --compare-cpu 2>&1 | tee -a $OUT/final.txt
    done
    if [ -x /tmp/bin/equimorph-old ]; then
        rm -rf /tmp/m/minilm-old && mkdir /tmp/m/minilm-old && ln -s /tmp/m/minilm-rand/model.onnx /tmp/m/minilm-rand/tokenizer.json /tmp/m/minilm-old/
        grep -v '^gpu_model' /tmp/m/minilm-rand/equimorph.toml > /tmp/m/minilm-old/equimorph.toml
        attack_once "old build, cuda, batch 128" equimorph-old onnx:/tmp/m/minilm-old --device cuda --batch-size 128
    fi
    attack_once "this build, cuda defaults (4 in flight)" equimorph onnx:/tmp/m/minilm-rand --device cuda
    attack_once "this build, cuda, 8 in flight" equimorph onnx:/tmp/m/minilm-rand --device cuda --tasks-in-flight 8
    attack_once "this build, cuda, fp32 graph, 1 in flight" equimorph onnx:/tmp/m/minilm-rand --device cuda --precision fp32
fi
if [ "$what" = pace ]; then
    # The whole attack's pace with this build (issue 42): the GPU tests, the detector alone, then
    # guided (the default) against beam on the same settings, and guided at attack's own defaults.
    [ -e /work/main ] || { mkdir -p /work && ln -s $PWD /work/main; }
    detectors-test --test-threads 1 cuda_agrees 2>&1 | grep -E "^test |test result" | tee $OUT/gpu-tests.log
    equimorph bench-detector --detector onnx:/tmp/m/minilm-rand --input /tmp/he.jsonl --device cuda --repeat 24 --rounds 3 \
        --batch-sizes 32 --precisions fp16 2>&1 | tee -a $OUT/pace.txt
    attack_once "warm-up (compiles the transforms)" equimorph jaccard --max-queries 10
    attack_once "guided, beam 5, 10 iterations" equimorph onnx:/tmp/m/minilm-rand --device cuda
    attack_once "beam, beam 5, 10 iterations" equimorph onnx:/tmp/m/minilm-rand --device cuda --search beam
    attack_once "guided, 16 in flight" equimorph onnx:/tmp/m/minilm-rand --device cuda --tasks-in-flight 16
fi
if [ "$what" = tune ]; then
    # Tasks in flight for a whole attack; the default detector figures.
    attack_once "warm-up (compiles the transforms)" equimorph jaccard --max-queries 10
    for inflight in 4 8 12; do
        attack_once "$inflight in flight" equimorph onnx:/tmp/m/minilm-rand --device cuda --tasks-in-flight $inflight
    done
    for m in minilm-rand base-rand; do
        equimorph bench-detector --detector onnx:/tmp/m/$m --input /tmp/he.jsonl --device cuda --repeat 24 --rounds 3 \
            --batch-sizes 32 --compare-cpu 2>&1 | tee -a $OUT/attack.txt
    done
fi
if [ "$what" = compare ]; then
    # The older build reads equimorph.toml strictly: a copy of the model without `gpu_model`.
    rm -rf /tmp/m/minilm-old && mkdir /tmp/m/minilm-old && ln -s /tmp/m/minilm-rand/model.onnx /tmp/m/minilm-rand/tokenizer.json /tmp/m/minilm-old/
    grep -v '^gpu_model' /tmp/m/minilm-rand/equimorph.toml > /tmp/m/minilm-old/equimorph.toml
    for round in 1 2; do
        attack_once "old build, cuda, batch 128 ($round)" equimorph-old onnx:/tmp/m/minilm-old --device cuda --batch-size 128
        attack_once "this build, cuda defaults ($round)" equimorph onnx:/tmp/m/minilm-rand --device cuda
    done
    attack_once "this build, cuda, 8 in flight" equimorph onnx:/tmp/m/minilm-rand --device cuda --tasks-in-flight 8
    attack_once "this build, cuda, 16 in flight" equimorph onnx:/tmp/m/minilm-rand --device cuda --tasks-in-flight 16
    attack_once "this build, jaccard (no model), 4 in flight" equimorph jaccard --tasks-in-flight 4
    attack_once "this build, jaccard (no model), 1 in flight" equimorph jaccard --tasks-in-flight 1
fi
if [ "$what" = attack ] || [ "$what" = all ]; then
    # precision, batch layout, tasks in flight, batch size
    for mode in "fp32 exact 1 128" "fp16 fixed 1 32" "fp16 fixed 4 32" "fp16 fixed 6 32" "fp16 fixed 4 64" "fp16 fixed 8 32"; do
        set -- $mode
        attack_once "$mode" equimorph onnx:/tmp/m/minilm-rand --device cuda --precision $1 --batch-shapes $2 \
            --tasks-in-flight $3 --batch-size $4
    done
    strip() { python3 -c "import json,sys; [print(json.dumps({k: v for k, v in json.loads(l).items() if k not in ('seconds',)}, sort_keys=True)) for l in open(sys.argv[1])]" "$1"; }
    for n in 4_32 6_32 8_32; do
        if cmp -s <(strip /tmp/att-fp16_fixed_1_32/results.jsonl) <(strip /tmp/att-fp16_fixed_$n/results.jsonl); then
            echo "results (timings aside) identical with 1 and $n (tasks in flight-batch) " | tee -a $OUT/attack.txt
        else
            echo "results DIFFER between 1 and $n (tasks in flight-batch)" | tee -a $OUT/attack.txt
        fi
    done
fi
