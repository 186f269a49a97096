#!/usr/bin/env bash
# Builds every guest crate under transforms/ for wasm32-unknown-unknown and turns each into a
# component: build/transforms/<name>.wasm (the default set) and build/test-transforms/ (the
# test-only hostile guest). Uses rustup's wasm32 target when installed, otherwise Debian's
# rustc-web with -Zbuild-std (see ../shared/TOOLCHAIN.md). Idempotent; a rebuild takes seconds.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/build/transforms"
TEST_OUT="$ROOT/build/test-transforms"
WASM_TARGET_DIR="$ROOT/build/wasm-target"
mkdir -p "$OUT" "$TEST_OUT"

TARGET=wasm32-unknown-unknown
if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    CARGO=(cargo)
    BUILD_STD=()
else
    "$ROOT/scripts/ensure-apt.sh" rustc-web cargo-web rust-web-src lld-22 clang-19
    CARGO=(env RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 /usr/bin/cargo)
    BUILD_STD=(-Zbuild-std=std,panic_abort)
fi

# tree-sitter-python's C sources need the wasm libc headers shipped by tree-sitter-language.
(cd "$ROOT/transforms" && "${CARGO[@]}" fetch --quiet)
TS_LANG="$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -maxdepth 2 -type d -name 'tree-sitter-language-0.1.*' | sort | tail -n1)"
if [ -z "$TS_LANG" ] || [ ! -d "$TS_LANG/wasm/include" ]; then
    echo "build-transforms: cannot find tree-sitter-language's wasm headers in the cargo registry" >&2
    exit 1
fi

export CC_wasm32_unknown_unknown=clang-19
export AR_wasm32_unknown_unknown=llvm-ar-19
# tree-sitter-cpp's scanner uses wchar_t and C11's static_assert, which that mini libc's
# headers do not declare where the scanner includes them: both are supplied here.
export CFLAGS_wasm32_unknown_unknown="-I$TS_LANG/wasm/include -include wchar.h -Dstatic_assert=_Static_assert"
if ! command -v clang-19 >/dev/null 2>&1; then
    "$ROOT/scripts/ensure-apt.sh" clang-19 lld-22
fi

echo "build-transforms: compiling guests for $TARGET" >&2
(cd "$ROOT/transforms" && "${CARGO[@]}" build --quiet --release --target "$TARGET" "${BUILD_STD[@]}" \
    --target-dir "$WASM_TARGET_DIR" --workspace --exclude equimorph-sdk)

(cd "$ROOT" && cargo build --quiet --release -p componentize)
ARGS=()
for crate_dir in "$ROOT"/transforms/*/; do
    name="$(basename "$crate_dir")"
    case "$name" in sdk|wit|target) continue ;; esac
    [ -f "$crate_dir/Cargo.toml" ] || continue
    module="$WASM_TARGET_DIR/$TARGET/release/${name//-/_}.wasm"
    if [ "$name" = hostile ]; then dest="$TEST_OUT/$name.wasm"; else dest="$OUT/$name.wasm"; fi
    ARGS+=("$module" "$dest")
    # The crate's leading //! doc comment is the SPT's documentation (`transforms show`).
    sed -n '/^\/\/!/!q; s/^\/\/! \{0,1\}//p' "$crate_dir/src/lib.rs" > "${dest%.wasm}.md"
done
"$ROOT/target/release/componentize" "${ARGS[@]}"
"$ROOT/scripts/build-script-runner.sh"
echo "build-transforms: $(ls "$OUT"/*.wasm | wc -l) components in build/transforms, $(ls "$TEST_OUT" | wc -l) in build/test-transforms" >&2
