#!/bin/bash
# Runs the GL_INTEL_performance_query tests from a build folder without meson (the GPU machine
# has no meson): every test program on desktop GL core and compatibility and on GLES, then
# benchmark (2).
#   tests/gl/intel/run-device.sh BUILD_DIR
# Prints each program's cmocka summary and exit status, and a last line "N passed, M failed,
# K skipped" (exit status 77 counts as skipped). Each program gets TIMEOUT seconds (default 120,
# meson's limit for these tests; exit 124 past it), so that one slow program cannot use up the
# device call: on the NVIDIA driver intel-cycles ran past 45 s on every kind (2026-11-26,
# docs/gl-layer-performance.md; since 45dfe9c it takes 28 s on compat there).
build=${1:-build-intel}
dir="$build/tests/gl/intel"
passed=0 failed=0 skipped=0
run() {   # name, program, args...
    local name=$1; shift
    local out rc t0=$SECONDS
    out=$(timeout "${TIMEOUT:-120}" "$@" 2>&1); rc=$?
    echo "--- $name: exit $rc, $((SECONDS - t0)) s"
    printf '%s\n' "$out" | grep -E 'renderer:|GPU time|CPU Time|quad:|types |type "|PASSED|FAILED  \]|SKIPPED  \] [0-9]|ERROR|LINE|skipped' | head -20
    if [ $rc -eq 0 ]; then passed=$((passed + 1))
    elif [ $rc -eq 77 ]; then skipped=$((skipped + 1))
    else failed=$((failed + 1)); printf '%s\n' "$out" | tail -30; fi
}
for t in query-types; do
    run "intel-$t" "$dir/test-intel-$t"
done
for t in errors counts nested threads cycles datasize; do
    run "intel-$t" "$dir/test-intel-$t" --core   # without an argument the tests take compat
    run "intel-$t-compat" "$dir/test-intel-$t" --compat
    run "intel-$t-gles" "$dir/test-intel-$t" --gles
done
run intel-no-queries "$dir/test-intel-no-queries"
for k in --core --compat --gles; do
    run "intel-preload$k" env LD_PRELOAD="$PWD/$build/src/gl/libperfq-gl.so" \
        "$dir/test-intel-preload" $k
done
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
bench=$(find "$build/bench" -name 'bench-intel-pipeline-statistics' -type f 2>/dev/null | head -1)
if [ -n "$bench" ]; then
    echo "--- benchmark (2), default timer path"
    PERFQ_GL_DEBUG=1 "$bench" 21 200 2>&1 | grep -v checksum
    echo "--- benchmark (2), PERFQ_GL_TIMER=query"
    PERFQ_GL_TIMER=query "$bench" 21 200
fi
[ $failed -eq 0 ]
