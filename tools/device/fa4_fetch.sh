#!/usr/bin/env bash
# FlashAttention-4 (flash-attn-4, the CuTe DSL Hopper kernels) and its CuTe DSL runtime
# for the GPU machine, which reaches no package index (after the project's anchors'
# fetch script, the same pins), for step attention-fa4 (tools/device/steps/attention.sh):
#   bash tools/device/fa4_fetch.sh OUTDIR    (OUTDIR git-ignored, e.g. .gpu/fa4)
# writes OUTDIR/small/*.whl (~10 MB) and the CUDA-13 library as one xz archive (~64 MB)
# cut in two, OUTDIR/big1/part1 (56 MB) and OUTDIR/big2/part2: the archive and the
# checkout exceed one device call's 64 MiB, so part1 goes in a call of its own.
set -euo pipefail
out=${1:?usage: fa4_fetch.sh OUTDIR}
py=${PY_VERSION:-3.12}            # the GPU machine's Python
mkdir -p "$out/big1" "$out/big2" "$out/small" "$out/tmp"
pip download -q --no-deps -d "$out/small" \
  flash-attn-4==4.0.0b36 nvidia-cutlass-dsl==4.8.1 quack-kernels==0.6.5 einops
pip download -q --no-deps --only-binary=:all: --python-version "$py" \
  --platform manylinux_2_28_x86_64 -d "$out/small" \
  nvidia-cutlass-dsl-libs-base==4.8.1 nvidia-cutlass-dsl-libs-core==4.8.1 \
  apache-tvm-ffi torch-c-dlpack-ext protobuf
pip download -q --no-deps --only-binary=:all: --python-version "$py" \
  --platform manylinux_2_28_x86_64 -d "$out/tmp" nvidia-cutlass-dsl-libs-cu13==4.8.1
( cd "$out/tmp" && mkdir -p x && cd x \
  && python3 -m zipfile -e ../nvidia_cutlass_dsl_libs_cu13-*.whl . \
  && tar cf - . | xz -T0 -9 > ../cute13.tar.xz )
head -c 56000000 "$out/tmp/cute13.tar.xz" > "$out/big1/part1"
tail -c +56000001 "$out/tmp/cute13.tar.xz" > "$out/big2/part2"
rm -rf "$out/tmp"
ls -la "$out/big1" "$out/big2" "$out/small"
