/* The library instance and its catalog: shared by the core's files only. */
#ifndef PERFQ_CORE_INSTANCE_H
#define PERFQ_CORE_INSTANCE_H

#include <pthread.h>

#include "core/provider.h"

struct perfq_group_entry {
    perfq_group_info_t info;      /* its strings point at the owned copies below */
    char *name, *description, *reason;
    uint32_t provider;
};

struct perfq_counter_entry {
    perfq_counter_info_t info;
    char *name, *full_name, *category, *description, *reason;
    const struct perfq_counter_desc *desc;
    uint32_t provider;
};

struct perfq_catalog {
    struct perfq_group_entry *groups;
    uint32_t group_count, group_cap;
    struct perfq_counter_entry *counters;
    uint32_t counter_count, counter_cap;
    uint32_t provider;            /* the provider now enumerating */
    const char *provider_name;
};

struct perfq_provider_slot {
    const struct perfq_provider_ops *ops;
    void *state;                  /* NULL when probe failed */
};

struct perfq {
    struct perfq_catalog catalog;       /* immutable once perfq_open returns */
    struct perfq_provider_slot *providers;
    size_t provider_count;
    /* References (atomic): the caller's until perfq_close, and one per measurement. The
     * providers and the catalog are freed with the last, so that a measurement destroyed after
     * perfq_close still finds its sessions' providers (issue 14, item 9). */
    unsigned refs;
};

void perfq__catalog_free(struct perfq_catalog *catalog);
/* Marks a group (and its counters) unavailable with a reason, after enumeration. */
perfq_status_t perfq__catalog_disable_group(struct perfq_catalog *catalog, uint32_t group,
                                            const char *reason);

/* A measurement's reference on its instance; the last unref frees the instance. */
perfq_t *perfq__instance_ref(perfq_t *pq);
void perfq__instance_unref(perfq_t *pq);

/* The built-in providers (src/providers/registry.c). */
extern const struct perfq_provider_ops *const perfq__builtin_providers[];
extern const size_t perfq__builtin_provider_count;

#endif
