#!/bin/bash
# The NVIDIA checks of issue 11 on the GPU machine (no meson there), from a carried build:
#   . .device/enter.sh; bash DIR/run-device.sh DIR/build
# perfq list's NVIDIA groups; test-cupti, test-nvml, test-intel-nvidia (real NVML and CUPTI,
# then against the fake NVML); test-cl-nvidia (the OpenCL layer's per-command NVIDIA counters);
# test-cupti-range (CUPTI's range profiler through the C API); bench-nvml; bench/cuda's cupti-dram (DRAM bytes of a known copy within 2 %,
# PM sampling perturbation); perfq stat of a CUDA program with no layer; the counters held by
# another process; an unprivileged user; on a machine of several GPUs, perfq stat of every
# device's counters. Prints each step's exit status and a last line
# "N passed, M failed, K skipped". ONLY=REGEX runs the steps whose name matches, SKIP=REGEX leaves
# those out; LOG_DIR=DIR keeps each step's whole output there (the console gets its last 40 lines).
build=${1:-build}
passed=0 failed=0 skipped=0
# A LOG_DIR that does not exist yet is made (tee would fail on every step and keep no log).
[ -n "${LOG_DIR:-}" ] && mkdir -p "$LOG_DIR"
# The carried libraries perfq serve opens (libmicrohttpd and what it needs), after the system's.
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$(dirname "$build")/lib
step() {   # name, command...
    local name=$1; shift
    if [ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]]; then return; fi
    if [ -n "${SKIP:-}" ] && [[ $name =~ $SKIP ]]; then return; fi
    echo "=== $name"
    local log=/dev/null t0=$SECONDS
    [ -n "${LOG_DIR:-}" ] && log=$LOG_DIR/$(echo "$name" | tr -c 'A-Za-z0-9\n-' _ | cut -c1-60).log
    timeout 120 "$@" 2>&1 | tee "$log" | grep -vE '^\[ (RUN|       OK) ' | tail -40
    local rc=${PIPESTATUS[0]}
    echo "--- $name: exit $rc, $((SECONDS - t0)) s"
    if [ "$rc" -eq 0 ]; then passed=$((passed + 1))
    elif [ "$rc" -eq 77 ]; then skipped=$((skipped + 1))
    else failed=$((failed + 1)); fi
}
nvidia-smi -L
gpus=$(nvidia-smi -L | grep -c '^GPU ')
perfq=$build/tools/perfq/perfq
# Every NVIDIA group with its description and how many of its counters are available.
step "perfq list (NVIDIA groups)" sh -c "$perfq list | awk -f $(dirname "$0")/nvidia-groups.awk"
step test-cupti "$build/tests/nvidia/test-cupti"
step test-nvml "$build/tests/nvidia/test-nvml"
step "test-cupti-range (range profiler, C API)" env PERFQ_CUPTI_DEBUG=1 \
    "$build/tests/nvidia/test-cupti-range"
step "test-intel-nvidia (real NVML, CUPTI)" "$build/tests/gl/intel/test-intel-nvidia"
step "test-intel-nvidia --fake" env LD_LIBRARY_PATH="$build/tests/nvidia:$LD_LIBRARY_PATH" \
    "$build/tests/gl/intel/test-intel-nvidia" --fake
# ocl-icd first: CUDA's own libOpenCL.so.1 (first on enter.sh's path) loads no layers.
step "test-cl-nvidia (per-command energy, power, clocks)" env \
    LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH" \
    OPENCL_LAYERS="$build/src/cl/libperfq-cl.so" "$build/tests/nvidia/test-cl-nvidia"
# GL_NV_query_resource's accounting through the layer on the NVIDIA driver (issue 8), and the
# Driver Counters the same storage calls feed (EGL_BRCM_performance_counters).
step nvres-engine "$build/tests/gl/test-nvres-engine"
for kind in compat core gles; do
    step "nv-query-resource-$kind" "$build/tests/gl/test-nv-query-resource" --$kind
    step "egl-brcm-$kind" "$build/tests/gl/test-egl-brcm" --$kind
done
step "bench-nvml (read cost, sampler CPU)" "$build/bench/bench-nvml"
step "cupti-dram (accuracy, perturbation)" env PERFQ_CUPTI_PROFILE=1 "$build/bench/cuda/cupti-dram"
step "perfq stat of a CUDA program, no layer" "$perfq" stat \
    -e cupti-gpu0/dram__bytes_read.sum,cupti-gpu0/dram__bytes_write.sum,cupti-gpu0/smsp__inst_executed.sum,nvml-gpu0/energy \
    -- "$build/bench/cuda/cupti-dram" --plain
# Every device's counters over a CUDA program that works on device 0 only (the plain copies):
# device 0 reads about 10 GiB, the others about none.
if [ "$gpus" -gt 1 ]; then
    events=""
    for d in $(seq 0 $((gpus - 1))); do
        events="$events${events:+,}nvml-gpu$d/energy,nvml-gpu$d/gpu-utilization,gpm-gpu$d/sm-activity,cupti-gpu$d/dram__bytes_read.sum"
    done
    step "perfq stat, every device (work on device 0)" "$perfq" stat \
        -e "$events" -- "$build/bench/cuda/cupti-dram" --plain
fi
# Another process holds the device's PM sampling: this one's catalog says so per counter.
"$perfq" stat -e cupti-gpu0/dram__bytes_read.sum -- sleep 4 >/dev/null 2>&1 &
holder=$!
sleep 2
step "counters held by another process" sh -c "$perfq list | grep -A5 '^cupti-gpu0'"
wait $holder
# An unprivileged user (the driver's profiling restriction, where it is on).
if command -v setpriv >/dev/null; then
    step "unprivileged user" setpriv --reuid=65534 --regid=65534 --clear-groups \
        sh -c "$perfq list | grep -A5 '^cupti'"
fi
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
