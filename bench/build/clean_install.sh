#!/bin/sh
# Usage: bench/build/clean_install.sh REV  (BENCHMARKS.md "Build": time it as a whole process)
# clean clone of REV into a fresh dir, fresh venv, pip install --no-cache-dir .
set -e
REV=$1; D=$(mktemp -d /tmp/inst.XXXX)
git clone -q "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)" $D/src && cd $D/src && git checkout -q $REV
python3 -m venv $D/v
$D/v/bin/pip install -q --no-cache-dir . > $D/log 2>&1 || { tail -5 $D/log; exit 1; }
rm -rf $D
