#!/usr/bin/env bash
# The wheel as a user meets it (`make wheel-test`, part of `make test`): a fresh virtualenv, a
# fresh home (so a fresh user cache), none of equimorph's variables, a working directory outside
# the source tree; then `pip install` of the wheel, `equimorph setup` (twice: the second finds
# everything in place), `transforms list`, an attack with the default model on three fixture
# tasks, and `check` of the winner and of a wrong program. Prints the wheel's size and the time
# of each step. pip's own cache is kept, so a rerun downloads nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WHEEL="$(ls "$ROOT"/target/wheels/equimorph-*.whl 2>/dev/null | head -n1)"
[ -n "$WHEEL" ] || { echo "test-wheel: no wheel in target/wheels (run \`make wheel\`)" >&2; exit 2; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$HOME/.cache/pip}"
export HOME="$WORK/home"
unset EQUIMORPH_HOME EQUIMORPH_CACHE EQUIMORPH_TRANSFORMS EQUIMORPH_SCRIPT_RUNNER ORT_DYLIB_PATH XDG_CACHE_HOME
mkdir -p "$HOME"
cd "$WORK"
fail() { echo "test-wheel: FAILED: $*" >&2; exit 1; }
step_start=0
step() { step_start=$(date +%s%N); echo "test-wheel: $*" >&2; }
took() {
    local ms=$(( ($(date +%s%N) - step_start) / 1000000 ))
    printf 'test-wheel: %-28s %4d.%d s\n' "$1" $((ms / 1000)) $((ms % 1000 / 100)) >&2
}

size=$(stat -c %s "$WHEEL")
printf 'test-wheel: wheel %s, %d.%d MB\n' "$(basename "$WHEEL")" $((size / 1000000)) $((size % 1000000 / 100000)) >&2
step "python3 -m venv + pip install"
python3 -m venv venv
venv/bin/pip install -q --disable-pip-version-check "$WHEEL"
took "pip install"
EQ="$WORK/venv/bin/equimorph"
[ -x "$EQ" ] || fail "no equimorph in the virtualenv's bin"

step "equimorph setup"
"$EQ" setup > setup1.txt
took "equimorph setup (first)"
cat setup1.txt >&2
grep -q "^ONNX Runtime   installed: $HOME/.cache/equimorph/onnxruntime/" setup1.txt || fail "setup did not install ONNX Runtime in the user's cache"
grep -q "^default model  installed: $HOME/.cache/equimorph/models/minilm" setup1.txt || fail "setup did not export the default model"
step "equimorph setup again"
"$EQ" setup > setup2.txt
took "equimorph setup (again)"
grep -q "^ONNX Runtime   present" setup2.txt && grep -q "^default model  present" setup2.txt || fail "a second setup redid its work: $(cat setup2.txt)"

step "equimorph transforms list"
"$EQ" transforms list > list.txt
[ "$(grep -c component list.txt)" -ge 60 ] || fail "fewer than 60 transforms listed"
# Into a file, not a pipe: `grep -q` leaves at its first match, and equimorph, writing the rest
# of the page to a closed pipe, ends with 141, which pipefail made a failure of this check.
"$EQ" transforms show var-rename > show.txt || fail "transforms show failed"
grep -q "^file: $WORK/venv/share/equimorph/transforms/var-rename.wasm" show.txt \
    || fail "transforms do not come from the installed share directory: $(grep '^file:' show.txt)"

step "equimorph attack (3 tasks, default model)"
head -n 3 "$ROOT/fixtures/tasks.jsonl" > tasks.jsonl
"$EQ" attack tasks.jsonl --out run --iterations 3 --quiet > attack.txt 2>&1 || { cat attack.txt >&2; fail "attack failed"; }
took "equimorph attack"
grep -q '"detector": "minilm"' run/run.json || fail "the attack did not use the default model"
[ "$(grep -c '"status":"ok"' run/results.jsonl)" -eq 3 ] || fail "not every task was attacked: $(cat attack.txt)"

step "equimorph check"
venv/bin/python - <<'PY'
import json
line = json.loads(open("run/results.jsonl").readline())
open("winner.py", "w").write(line["best"])
open("wrong.py", "w").write("print(42)\n")
open("id.txt", "w").write(line["id"])
PY
"$EQ" check tasks.jsonl --id "$(cat id.txt)" --candidate winner.py > /dev/null || fail "the winner is not equivalent"
set +e
"$EQ" check tasks.jsonl --id "$(cat id.txt)" --candidate wrong.py > /dev/null
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a wrong program was not judged not equivalent (exit $rc)"
took "equimorph check (two)"
echo "test-wheel: ok" >&2
