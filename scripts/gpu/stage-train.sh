#!/usr/bin/env bash
# Prepares, on a CPU machine, what a training measurement carries to a lent GPU machine (see
# scripts/gpu/train.sh): one command, no CUDA provider of ONNX Runtime needed, because the
# training steps run in the device's own PyTorch. Run from the project root after `make run`.
# Writes the ignored folder .gpu/train: equimorph and the ONNX Runtime library (xz), the
# tokenizer, and the augment runs to train on (AUGMENT_DIRS, default out/gpu-train/aug-*; made
# here from the fixtures when missing: 4 and 12 verified variants per task).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
BIN=target/release/equimorph
[ -x $BIN ] || { echo "stage-train: $BIN missing: run make run first" >&2; exit 2; }
mkdir -p .git/info && { grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude; }
rm -rf .gpu/train && mkdir -p .gpu/train/aug out/gpu-train
for n in 4 12; do
    d=out/gpu-train/aug-$n
    [ -s $d/variants.jsonl ] || $BIN augment fixtures/tasks.jsonl --variants $n --out $d --quiet
done
for d in ${AUGMENT_DIRS:-out/gpu-train/aug-*}; do
    name=$(basename "$d"); mkdir -p .gpu/train/aug/$name
    cp "$d"/tasks.jsonl "$d"/variants.jsonl .gpu/train/aug/$name/
done
xz -T0 -c $BIN > .gpu/train/equimorph.xz
lib=$(ls .equimorph/onnxruntime/libonnxruntime.so.* | head -1)
xz -T0 -c "$lib" > .gpu/train/$(basename "$lib").xz
cp .equimorph/models/minilm/tokenizer.json .gpu/train/
du -sh .gpu/train
