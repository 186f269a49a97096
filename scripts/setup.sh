#!/usr/bin/env bash
# Installs what equimorph needs on a fresh Debian machine (idempotent, quick when done):
# Debian packages for sandboxing and for building the WebAssembly guests.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
command -v python3 >/dev/null || "$ROOT/scripts/ensure-apt.sh" python3
"$ROOT/scripts/ensure-apt.sh" bubblewrap
"$ROOT/scripts/setup-models.sh"
