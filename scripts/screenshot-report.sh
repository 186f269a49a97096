#!/usr/bin/env bash
# Screenshots a run's report.html with headless Chromium (Debian's, as `make test` installs it):
#   scripts/screenshot-report.sh [RUN_DIR] [PNG]
# Defaults: out/fixtures (what `make run` writes) and docs/images/report.png (the README's).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUN="${1:-$ROOT/out/fixtures}"
PNG="${2:-$ROOT/docs/images/report.png}"
[ -f "$RUN/report.html" ] || { echo "no $RUN/report.html: run \`make run\` first" >&2; exit 2; }
command -v chromium >/dev/null || "$ROOT/scripts/ensure-apt.sh" chromium
PROFILE="$(mktemp -d)"
trap 'rm -rf "$PROFILE"' EXIT
mkdir -p "$(dirname "$PNG")"
# The flags keep a closed network quiet (no background fetches) and a root user allowed.
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --force-device-scale-factor=1 --window-size="${WIDTH:-1200},${HEIGHT:-1040}" \
    --user-data-dir="$PROFILE" --screenshot="$PNG" "file://$(cd "$RUN" && pwd)/report.html" 2>/dev/null
[ -s "$PNG" ] || { echo "chromium wrote no screenshot" >&2; exit 1; }
echo "wrote $PNG" >&2
