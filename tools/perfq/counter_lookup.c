/* Counter names given on the command line: found, or a clear message: unknown (with a near
 * name), ambiguous (a bare name that several groups have: every candidate listed), or not
 * available here (with the reason). */
#include <string.h>

#include "cli.h"

/* A bare name (no '/') that more than one group has: prints the candidates, returns 1. */
static int report_ambiguous(perfq_t *pq, const char *name)
{
    if (strchr(name, '/'))
        return 0;
    uint32_t n = 0, matches = 0;
    perfq_counter_count(pq, &n);
    for (uint32_t i = 0; i < n; i++) {
        perfq_counter_info_t info;
        if (perfq_counter_info(pq, i, &info) == PERFQ_OK && strcmp(info.name, name) == 0)
            matches++;
    }
    if (matches < 2)
        return 0;
    fprintf(stderr, "perfq: counter name '%s' is ambiguous: it is in %u groups; give one of",
            name, matches);
    for (uint32_t i = 0, k = 0; i < n; i++) {
        perfq_counter_info_t info;
        if (perfq_counter_info(pq, i, &info) == PERFQ_OK && strcmp(info.name, name) == 0)
            fprintf(stderr, "%s '%s'", k++ ? "," : "", info.full_name);
    }
    fprintf(stderr, "\n");
    return 1;
}

int cli_find_counter(perfq_t *pq, const char *name, perfq_counter_id_t *id)
{
    if (perfq_counter_find(pq, name, id) != PERFQ_OK) {
        char near[256];
        if (report_ambiguous(pq, name))
            return -1;
        if (perfq_counter_suggest(pq, name, near, sizeof(near)) == PERFQ_OK)
            fprintf(stderr, "perfq: unknown counter '%s'; did you mean '%s'? "
                    "('perfq list' shows them all)\n", name, near);
        else
            fprintf(stderr, "perfq: unknown counter '%s' ('perfq list' shows them all)\n",
                    name);
        return -1;
    }
    perfq_counter_info_t info;
    perfq_counter_info(pq, *id, &info);
    if (!info.available) {
        fprintf(stderr, "perfq: counter '%s' is not available here: %s\n", info.full_name,
                info.unavailable_reason);
        return -1;
    }
    return 0;
}

int cli_counter_is_counting(const perfq_counter_info_t *ci)
{
    return ci->storage != PERFQ_STORAGE_BOOL32 &&
           (ci->intel_type == PERFQ_INTEL_EVENT || ci->intel_type == PERFQ_INTEL_DURATION_RAW);
}
