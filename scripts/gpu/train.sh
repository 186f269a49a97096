#!/usr/bin/env bash
# Runs on a lent GPU machine from the project root, in the command that carries .gpu/train (made
# by scripts/gpu/stage-train.sh): times `equimorph train --mode full --backend torch` on CUDA,
# in all-MiniLM-L6-v2's shape (6 x 384, window 256) and BERT-base's (12 x 768, window 512,
# CodeBERT's compute) with random weights (speed does not depend on them), and checks that
# CUDA training is deterministic for a seed and agrees with torch on the CPU. Needs Python 3
# with torch (CUDA), safetensors, numpy and onnx. One JSON line per run in $OUT/train.jsonl.
# Usage: train.sh [quick|marginal]   (quick: the MiniLM shape on the small set only; marginal:
# 1 epoch against 6 on the larger set, whose difference is the cost of an epoch without the
# fixed start-up and export)
set -uo pipefail
T=$PWD/.gpu/train; OUT=${OUT:-/tmp/out}; mkdir -p /tmp/bin /tmp/ort /tmp/m /tmp/t "$OUT"
xz -dc $T/equimorph.xz > /tmp/bin/equimorph && chmod +x /tmp/bin/equimorph
for f in $T/libonnxruntime.so.*.xz; do xz -dc "$f" > /tmp/ort/$(basename "$f" .xz); done
export PATH=/tmp/bin:$PATH ORT_DYLIB_PATH=$(ls /tmp/ort/libonnxruntime.so.* | head -1) EQUIMORPH_PYTHON=$(command -v python3)
export EQUIMORPH_CACHE=/tmp/eqcache EQUIMORPH_HOME=/tmp/home
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.is_available())" | tee -a $OUT/gpu.txt
python3 scripts/gpu/gen_models.py $T/tokenizer.json /tmp/m --cpu-only > $OUT/gen.log 2>&1 || tail $OUT/gen.log

# One training run: its wall time, device, epochs and losses, and seconds per 1,000 training
# programs per epoch, appended to $OUT/train.jsonl. Usage: train_once LABEL MODEL AUG EPOCHS [ENV=V...]
train_once() {
    local label=$1 model=$2 aug=$3 epochs=$4; shift 4
    local dir=/tmp/t/$label; rm -rf "$dir"
    local t0=$(date +%s.%N)
    env "$@" equimorph train $T/aug/$aug --out "$dir" --detector onnx:/tmp/m/$model --weights /tmp/m/src/$model \
        --mode full --backend torch --epochs "$epochs" --patience "$epochs" --seed 0 --quiet > "$dir.log" 2>&1 \
        || { echo "{\"label\": \"$label\", \"failed\": true}" | tee -a $OUT/train.jsonl; tail -20 "$dir.log" | tee -a $OUT/failures.log; return; }
    local t1=$(date +%s.%N)
    python3 - "$dir" "$label" "$model" "$aug" "$t0" "$t1" <<'PY' | tee -a $OUT/train.jsonl
import hashlib, json, sys
d, label, model, aug, t0, t1 = sys.argv[1:7]
r = json.load(open(f"{d}/train.json"))
wall = float(t1) - float(t0)
n = r["programs"].get("train", 0)
epochs = len(r["epochs"])
digest = hashlib.sha256(open(f"{d}/src/model.safetensors", "rb").read()).hexdigest()[:16]
print(json.dumps({"label": label, "model": model, "data": aug, "device": r.get("device"), "programs": r["programs"],
                  "epochs": epochs, "wall_s": round(wall, 2), "train_s": round(r["seconds"], 2),
                  "s_per_1000_programs_epoch": round(wall / epochs / n * 1000, 2) if n and epochs else None,
                  "losses": [[round(e["train_loss"], 5), e.get("valid_loss") and round(e["valid_loss"], 5)] for e in r["epochs"]],
                  "best_epoch": r["best_epoch"], "weights_sha256": digest}))
PY
}
if [ "${1:-}" = marginal ]; then
    for m in minilm-rand base-rand; do
        train_once $m-e1 $m aug-12 1; train_once $m-e6 $m aug-12 6
    done
    exit 0
fi
train_once mini-small-cuda minilm-rand aug-4 2
train_once mini-small-cuda-again minilm-rand aug-4 2
train_once mini-small-torchcpu16 minilm-rand aug-4 2 CUDA_VISIBLE_DEVICES=
[ "${1:-}" = quick ] && exit 0
train_once mini-large-cuda minilm-rand aug-12 3
train_once base-large-cuda base-rand aug-12 2
# TF32 matrix products (not the default: the losses then differ from the CPU's in the 3rd digit).
mkdir -p /tmp/tf32 && echo 'import torch; torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.cudnn.allow_tf32 = True' > /tmp/tf32/sitecustomize.py
train_once mini-large-cuda-tf32 minilm-rand aug-12 3 PYTHONPATH=/tmp/tf32
train_once base-large-cuda-tf32 base-rand aug-12 2 PYTHONPATH=/tmp/tf32
