#!/bin/bash
# bench/stat_cmd_time.sh PERFQ ROUNDS VARIANT... -- CMD [ARGS]
# CMD's own time under `perfq stat` options, side by side: each VARIANT is a string of perfq
# stat options ("--no-layers", "--no-layers --no-device", "" for the defaults), optionally
# after VAR=VALUE words (its environment) and a "base:" prefix (run $PERFQ_BASE, another
# build of perfq, instead), or "bare" (CMD alone). The variants run in an order that rotates every round; for each the script prints the
# median over rounds of CMD's own elapsed time (perfq's JSON "elapsed_ns": from CMD's exec to
# its exit; for "bare" the whole run), of the whole run's wall time (what a user waits for) and
# of "device_begin_ns" (when the device counters began, after CMD's start; "null": never).
# Used for the device counters' cost (docs/perfq-stat.md, "Device counters without a wait").
set -u
perfq=$1 rounds=$2
shift 2
variants=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do variants+=("$1"); shift; done
shift
nv=${#variants[@]}
tmp=$(mktemp -d)
json=$tmp/stat.json
now() { date +%s%N; }
"$@" >/dev/null 2>&1   # warm the caches
for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < nv; k++)); do
        v=$(((r + k) % nv))
        opts=${variants[$v]}
        t0=$(now)
        if [ "$opts" = bare ]; then
            "$@" >/dev/null 2>&1
            t1=$(now)
            echo "$(((t1 - t0))) $(((t1 - t0))) -" >>"$tmp/v$v"
        else
            # "base:" runs $PERFQ_BASE (another build) instead; leading VAR=VALUE words are
            # put into its environment.
            p=$perfq
            case $opts in base:*) p=$PERFQ_BASE; opts=${opts#base:} ;; esac
            envs=() args=()
            for w in $opts; do
                if [ ${#args[@]} -eq 0 ] && [[ $w == *=* ]]; then envs+=("$w"); else args+=("$w"); fi
            done
            rm -f "$json"
            env "${envs[@]}" "$p" stat "${args[@]}" --json -o "$json" -- "$@" >/dev/null 2>&1
            t1=$(now)
            e=$(grep -o '"elapsed_ns": [0-9]*' "$json" | grep -o '[0-9]*$')
            b=$(grep -o '"device_begin_ns": [0-9a-z]*' "$json" | sed 's/.*: //')
            echo "${e:-0} $((t1 - t0)) ${b:--}" >>"$tmp/v$v"
        fi
    done
done
med() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "$1: $rounds rounds, medians (CMD's own elapsed / whole run's wall / device counters' begin after CMD's start)"
for ((v = 0; v < nv; v++)); do
    e=$(cut -d' ' -f1 "$tmp/v$v" | med)
    w=$(cut -d' ' -f2 "$tmp/v$v" | med)
    b=$(cut -d' ' -f3 "$tmp/v$v" | grep -v '^[-n]' | med)
    nulls=$(cut -d' ' -f3 "$tmp/v$v" | grep -c '^null')
    printf '  %-28s CMD %8.1f ms  run %8.1f ms  device begin %s%s\n' "${variants[$v]:-(default)}" \
        "$(echo "$e" | awk '{print $1 / 1e6}')" "$(echo "$w" | awk '{print $1 / 1e6}')" \
        "$( [ -n "$b" ] && echo "$b" | awk '{printf "%.1f ms", $1 / 1e6}' || echo -)" \
        "$( [ "$nulls" -gt 0 ] && echo " (never in $nulls runs)")"
    printf '    CMD ms per round:' ; awk '{printf " %.1f", $1 / 1e6}' "$tmp/v$v"; echo
done
rm -rf "$tmp"
