#!/bin/bash
# dev helper (not committed): compile correct kernels, check all
B=/work/venv-base/bin
for f in ${@:-*.mlir}; do
  if [[ $f != *.bug-* ]]; then
    out=$($B/mbarrier-compile $f --chip ${CHIP:-sm_90a} --emit ptx -o /tmp/i30h.ptx 2>&1) || echo "COMPILE FAIL $f: $out"
    [ -n "$out" ] && echo "COMPILE DIAG $f: $out"
  fi
  echo "== $f"; $B/mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers --mbarrier-check-sync $f -o /dev/null 2>&1 | grep -E 'error|warning' | head -5
done
