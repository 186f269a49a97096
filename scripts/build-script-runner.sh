#!/usr/bin/env bash
# Builds the script-runner component (CPython + transforms/script-runner/runner.py, world
# `script-runner` of transforms/wit) into build/script-runner/runner.wasm with componentize-py,
# installed in its own virtualenv. Idempotent: rebuilds only when its inputs change (~15 s).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HOME_DIR="${EQUIMORPH_HOME:-$ROOT/.equimorph}"
VENV="$HOME_DIR/componentize-py"
VERSION=0.25.1
OUT_DIR="$ROOT/build/script-runner"
OUT="$OUT_DIR/runner.wasm"
mkdir -p "$OUT_DIR"

if ! "$VENV/bin/componentize-py" --version 2>/dev/null | grep -q "$VERSION"; then
    echo "build-script-runner: installing componentize-py $VERSION" >&2
    python3 -m venv "$VENV" 2>/dev/null || { "$ROOT/scripts/ensure-apt.sh" python3-venv; python3 -m venv "$VENV"; }
    "$VENV/bin/pip" install -q --disable-pip-version-check "componentize-py==$VERSION"
fi

SHIM_SRC="$ROOT/tools/deterministic-random/detrand.c"
SHIM="$HOME_DIR/detrand.so"
if [ ! -f "$SHIM" ] || [ "$SHIM_SRC" -nt "$SHIM" ]; then
    command -v cc >/dev/null || "$ROOT/scripts/ensure-apt.sh" gcc libc6-dev
    cc -O2 -shared -fPIC -o "$SHIM.tmp" "$SHIM_SRC" -ldl && mv "$SHIM.tmp" "$SHIM"
fi

STAMP="$(cat "$ROOT/transforms/script-runner/runner.py" "$ROOT"/transforms/wit/*.wit "$SHIM_SRC" | sha256sum | cut -c1-32)-$VERSION"
if [ -f "$OUT" ] && [ "$(cat "$OUT_DIR/stamp" 2>/dev/null)" = "$STAMP" ]; then
    exit 0
fi
echo "build-script-runner: building $OUT" >&2
# The interpreter is snapshotted after pre-initialisation, string-hash secret included, and
# componentize-py ignores PYTHONHASHSEED: deterministic randomness for this one process pins
# the secret, so sets of strings iterate in the same order in every build, on every machine.
(cd "$ROOT/transforms" && LD_PRELOAD="$SHIM" "$VENV/bin/componentize-py" -d wit -w script-runner \
    componentize -p script-runner runner -o "$OUT.tmp" >/dev/null)
mv "$OUT.tmp" "$OUT"
echo "$STAMP" > "$OUT_DIR/stamp"
