# perfq list, NVIDIA groups only (run-device.sh): each group's header, description and
# group-level reason, then per group how many counters it lists and how many are unavailable.
/^[^ ]/ { g = $1; nv = g ~ /^(cupti|nvml|gpm)/; if (nv) { print; order[++k] = g } next }
!nv { next }
/^  [^ ]/ { print; next }
/^    [^ ]/ { n[g]++; next }
/^      unavailable/ { u[g]++ }
END {
    for (i = 1; i <= k; i++)
        printf "%-22s %d counters, %d unavailable\n", order[i], n[order[i]], u[order[i]]
}
