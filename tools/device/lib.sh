# What the steps of tools/device/run.sh share (sourced; $OUT and $status are set).

# The GPU, the driver, the clocks and the Python packages, into $OUT/device.txt.
device_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
  python3 -c "import cuda.bindings, numpy; print('cuda-bindings', cuda.bindings.__version__, 'numpy', numpy.__version__)" \
    2>&1 | tee -a "$OUT/device.txt"
}

# run_manifest DIR [ARGS...]: the GPU suite's runner on a built manifest folder.
run_manifest() { python3 test/gpu/suite/run_manifest.py "$@"; }

# sanitize LOG TIMEOUT TOOLS DIR [ARGS...]: compute-sanitizer with each of
# TOOLS (comma-separated) on run_manifest.py DIR, appended to LOG, each
# tool's exit status after its output. Fails if any tool failed. API errors
# are not reported: the runtime asks cuModuleGetGlobal for the debug-wait
# record (python/mbarrier_dialect/runtime.py), and "not found" is its answer
# for a cubin without debug waits; every other call's status the runtime
# checks itself (a failing call raises CudaError and fails the kernel).
sanitize() {
  local log=$1 limit=$2 tools=$3 rc=0 one; shift 3
  : > "$log"
  for tool in ${tools//,/ }; do
    echo "-- $tool" >> "$log"
    timeout "$limit" compute-sanitizer --tool "$tool" --target-processes all --print-limit 20 --report-api-errors no \
      python3 test/gpu/suite/run_manifest.py "$@" >> "$log" 2>&1
    one=$?; [ $one = 0 ] || rc=1
    echo "$tool exit $one" >> "$log"
  done
  return $rc
}
