#!/usr/bin/env bash
# Prepares, on a CPU machine, what a GPU measurement carries to a lent device machine that has
# no network and takes at most 64 MiB per command (see scripts/gpu/device.sh). Run from the
# project root after `make run` and `cargo test --release --no-run` (OLD_BIN=… also packs an
# older equimorph for `device.sh compare`). Writes the ignored folder
# .gpu/: p1 p2 p3 p4 (onnxruntime-gpu's CUDA provider, xz, split in 48 MB parts so that one
# part and the tracked tree stay under the 64 MiB a command carries) and main (the runtime library,
# equimorph, the detectors test binary, bwrap, the transforms, tiny models, the tokenizer).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ORT_VERSION=1.31.1
mkdir -p .git/info && { grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude; }
rm -rf .gpu/main && mkdir -p .gpu/p1 .gpu/p2 .gpu/p3 .gpu/p4 .gpu/main/lib .gpu/wheel
W=.gpu/wheel
if [ ! -f $W/prov.part.3 ] || [ -f $W/prov.part.4 ] || [ "$(stat -c %s $W/prov.part.0 2>/dev/null)" != 48000000 ]; then
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 -d $W "onnxruntime-gpu==$ORT_VERSION"
    (cd $W && rm -rf onnxruntime && unzip -q onnxruntime_gpu-*.whl -x 'onnxruntime/capi/libonnxruntime_providers_tensorrt.so')
    xz -T0 -6 -c $W/onnxruntime/capi/libonnxruntime_providers_cuda.so > $W/prov.xz   # 284 MB -> 186 MB
    rm -f $W/prov.part.*
    split -b 48000000 -d -a 1 $W/prov.xz $W/prov.part.
fi
for k in 0 1 2 3; do rm -f .gpu/p$((k + 1))/*; cp $W/prov.part.$k .gpu/p$((k + 1))/; done
xz -T0 -c $W/onnxruntime/capi/libonnxruntime.so.$ORT_VERSION > .gpu/main/libonnxruntime.so.xz
cp $W/onnxruntime/capi/libonnxruntime_providers_shared.so .gpu/main/
xz -T0 -c target/release/equimorph > .gpu/main/equimorph.xz
# An older build to compare against (device.sh compare): OLD_BIN=path/to/equimorph.
if [ -n "${OLD_BIN:-}" ]; then xz -T0 -c "$OLD_BIN" > .gpu/main/equimorph-old.xz; fi
# The GPU tests (detectors::cuda_*) live in the integration test binary.
test=$(ls -t target/release/deps/integration-* | grep -v '\.d$' | head -1)
xz -T0 -c "$test" > .gpu/main/detectors-test.xz
cp /usr/bin/bwrap .gpu/main/; cp /lib/x86_64-linux-gnu/{libselinux.so.1,libcap.so.2,libpcre2-8.so.0} .gpu/main/lib/
tar cf - -C build transforms | xz -T0 > .gpu/main/transforms.tar.xz
tar cf - -C .equimorph/models tiny-embedding tiny-cross tiny-siamese | xz -T0 > .gpu/main/tiny.tar.xz
cp .equimorph/models/minilm/tokenizer.json .gpu/main/
du -sh .gpu/*
