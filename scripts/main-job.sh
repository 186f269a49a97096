#!/usr/bin/env bash
# The main job: attack every fixture task with the default detector (all-MiniLM-L6-v2) and the
# built-in transforms, then say where the report is. Resumable: rerunning continues the run.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${EQUIMORPH_OUT:-$ROOT/out/fixtures}"
"$ROOT/target/release/equimorph" transforms list
"$ROOT/target/release/equimorph" attack "$ROOT/fixtures/tasks.jsonl" --out "$OUT" "$@"
