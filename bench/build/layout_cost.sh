#!/bin/sh
# Usage: bench/build/layout_cost.sh [REV]   (BENCHMARKS.md "Build")
# The same sources (REV, default HEAD) built from clean build folders,
# `cmake -G Ninja` + `ninja -j2` with the checkout's venv (.venv, or $PYTHON):
#   per-library: -DMBARRIER_UNITY_CORE=OFF, one translation unit per library,
#                the shared precompiled header;
#   unity-core:  -DMBARRIER_UNITY_CORE=ON (the default, the install's build),
#                two translation units (cmake/UnityCore.cmake).
# VARIANTS="unity-core" builds only that one. Prints the CPU (user + sys)
# and the wall time of each ninja, and the load average after.
set -e
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
REV=${1:-HEAD}; D=$(mktemp -d /tmp/layout.XXXX)
PY=${PYTHON:-$ROOT/.venv/bin/python}
for v in ${VARIANTS:-per-library unity-core}; do
  mkdir -p $D/$v && git -C "$ROOT" archive "$REV" | tar -xf - -C $D/$v
  case $v in per-library) opt=OFF ;; unity-core) opt=ON ;; *) echo "unknown variant $v"; exit 2 ;; esac
  cmake -S $D/$v -B $D/$v-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$PY" \
    -DMBARRIER_UNITY_CORE=$opt > $D/$v.cfg 2>&1
  /usr/bin/time -f "$v $REV: %U s user + %S s sys, %e s wall" ninja -C $D/$v-build -j2 > $D/$v.log 2>&1 \
    || { tail -20 $D/$v.log; exit 1; }
  grep "s wall" $D/$v.log
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf $D
