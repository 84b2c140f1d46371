#!/bin/sh
# run-fuzzer.sh FUZZER CORPUS OUT SECONDS [LIBFUZZER-OPTIONS]: runs a libFuzzer binary for SECONDS over the corpus
# kept in the repository (read only) and OUT (new inputs it finds; created). Fails on any
# finding (crash, sanitizer report, leak, FUZZ_CHECK) and says the input that caused it.
set -eu
fuzzer=$1 corpus=$2 out=$3 seconds=$4
shift 4
mkdir -p "$out" "$corpus"
# -timeout: one input taking longer than this is a finding (a hang). -error_exitcode: libFuzzer's
# default, 77, is meson's "skipped" (a FUZZ_CHECK finding in CI read as a skip, 2026-11-27).
exec "$fuzzer" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
    -error_exitcode=1 \
    -artifact_prefix="$out/" "$@" "$out" "$corpus"
