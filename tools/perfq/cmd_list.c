/* perfq list [--json]: the whole catalog, available or not. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

static void print_text(perfq_t *pq)
{
    uint32_t groups;
    perfq_group_count(pq, &groups);
    for (uint32_t g = 0; g < groups; g++) {
        perfq_group_info_t gi;
        perfq_group_info(pq, g, &gi);
        printf("%s  [provider %s, scope %s%s]\n  %s\n", gi.name, gi.provider,
               perfq_scope_name(gi.scope), gi.max_active ? ", limited" : "", gi.description);
        if (gi.max_active)
            printf("  at most %u counters active at once\n", gi.max_active);
        if (!gi.available)
            printf("  unavailable: %s\n", gi.unavailable_reason);
        for (uint32_t c = 0; c < gi.counter_count; c++) {
            perfq_counter_info_t ci;
            perfq_counter_info(pq, gi.first_counter + c, &ci);
            printf("    %-36s %-7s %-7s %-13s %s\n", ci.full_name, perfq_unit_name(ci.unit),
                   perfq_storage_name(ci.storage), perfq_intel_type_name(ci.intel_type),
                   ci.description);
            /* A counter of an unavailable group shares the group's reason, printed above. */
            if (!ci.available && gi.available)
                printf("      unavailable: %s\n", ci.unavailable_reason);
        }
        printf("\n");
    }
}

static void print_json(perfq_t *pq)
{
    uint32_t groups;
    perfq_group_count(pq, &groups);
    printf("{\"version\": \"%s\", \"groups\": [", PERFQ_VERSION_STRING);
    for (uint32_t g = 0; g < groups; g++) {
        perfq_group_info_t gi;
        perfq_group_info(pq, g, &gi);
        printf("%s\n  {\"name\": ", g ? "," : "");
        json_string(stdout, gi.name);
        printf(", \"provider\": ");
        json_string(stdout, gi.provider);
        printf(", \"description\": ");
        json_string(stdout, gi.description);
        printf(", \"scope\": \"%s\", \"max_active\": %u, \"available\": %s, \"reason\": ",
               perfq_scope_name(gi.scope), gi.max_active, gi.available ? "true" : "false");
        json_string(stdout, gi.unavailable_reason);
        printf(", \"counters\": [");
        for (uint32_t c = 0; c < gi.counter_count; c++) {
            perfq_counter_info_t ci;
            perfq_counter_info(pq, gi.first_counter + c, &ci);
            printf("%s\n    {\"name\": ", c ? "," : "");
            json_string(stdout, ci.full_name);
            printf(", \"category\": ");
            json_string(stdout, ci.category);
            printf(", \"description\": ");
            json_string(stdout, ci.description);
            printf(", \"unit\": \"%s\", \"unit_code\": %d, \"storage\": \"%s\", "
                   "\"intel_type\": \"%s\", \"min\": %" PRIu64 ", \"max\": %" PRIu64
                   ", \"denominator\": %" PRIu64 ", \"uuid\": %" PRIu32
                   ", \"available\": %s, \"reason\": ",
                   perfq_unit_name(ci.unit), (int)ci.unit, perfq_storage_name(ci.storage),
                   perfq_intel_type_name(ci.intel_type), ci.min, ci.max, ci.denominator,
                   ci.uuid, ci.available ? "true" : "false");
            json_string(stdout, ci.unavailable_reason);
            printf("}");
        }
        printf("]}");
    }
    printf("\n]}\n");
}

int cmd_list(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            fprintf(stderr, "perfq list: unknown option '%s' (usage: perfq list [--json])\n",
                    argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    perfq_t *pq;
    perfq_status_t st = perfq_open(&pq);
    if (st != PERFQ_OK) {
        fprintf(stderr, "perfq: cannot open the library: %s\n", perfq_status_string(st));
        return 1;
    }
    if (json)
        print_json(pq);
    else
        print_text(pq);
    perfq_close(&pq);
    return 0;
}
