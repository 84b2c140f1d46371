/* Counter names given on the command line: found, or a clear message with a near name. */
#include "cli.h"

int cli_find_counter(perfq_t *pq, const char *name, perfq_counter_id_t *id)
{
    if (perfq_counter_find(pq, name, id) != PERFQ_OK) {
        char near[256];
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
