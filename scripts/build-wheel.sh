#!/usr/bin/env bash
# Builds the equimorph wheel into target/wheels (idempotent; `make wheel`):
#  1. stages what the binary needs beside it under target/wheel-data/equimorph.data/data/share/
#     equimorph (installed to PREFIX/share/equimorph): the built transforms (.wasm and .md), the
#     script runner, models/export.py for `equimorph setup` and models/train_torch.py for
#     `train --backend torch`;
#  2. runs maturin (pinned, in its own virtualenv under .equimorph/) with bindings = "bin".
# Needs `make transforms` first (the Makefile's wheel target depends on it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
MATURIN_VERSION=1.16.0
SHARE=target/wheel-data/equimorph.data/data/share/equimorph
for f in build/transforms build/script-runner/runner.wasm models/export.py models/train_torch.py; do
    [ -e "$f" ] || { echo "build-wheel: $f is missing (run \`make transforms\`)" >&2; exit 2; }
done
rm -rf target/wheel-data
mkdir -p "$SHARE/transforms" "$SHARE/script-runner" "$SHARE/models"
cp build/transforms/*.wasm build/transforms/*.md "$SHARE/transforms/"
cp build/script-runner/runner.wasm "$SHARE/script-runner/"
cp models/export.py models/train_torch.py "$SHARE/models/"

VENV="${EQUIMORPH_HOME:-$ROOT/.equimorph}/wheel-venv"
if ! "$VENV/bin/maturin" --version 2>/dev/null | grep -q " $MATURIN_VERSION\$"; then
    echo "build-wheel: installing maturin $MATURIN_VERSION into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "maturin==$MATURIN_VERSION"
fi
rm -f target/wheels/equimorph-*.whl
"$VENV/bin/maturin" build --release --out target/wheels "$@" >&2
ls target/wheels/equimorph-*.whl
