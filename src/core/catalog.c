/* The counter catalog: every provider's groups and counters, one descriptor type for all five
 * APIs. Counters of a group are contiguous, so a group is (first_counter, counter_count). */
#include <stdlib.h>
#include <string.h>

#include "core/instance.h"

uint32_t perfq__counter_uuid(const char *provider, const char *group, const char *counter)
{
    /* FNV-1a, 32 bits, over "provider/group/counter": the same on every run and machine. */
    const char *parts[3] = {provider, group, counter};
    uint32_t h = 2166136261u;
    for (int i = 0; i < 3; i++) {
        if (i) {
            h ^= '/';
            h *= 16777619u;
        }
        for (const unsigned char *p = (const unsigned char *)parts[i]; p && *p; p++) {
            h ^= *p;
            h *= 16777619u;
        }
    }
    return h;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int grow(void **array, uint32_t *cap, uint32_t count, size_t elem, int fixed)
{
    if (count < *cap)
        return 0;
    if (fixed)
        return -1;   /* a deferred provider adding more than it declared: never move entries */
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void *n = realloc(*array, ncap * elem);
    if (!n)
        return -1;
    *array = n;
    *cap = ncap;
    return 0;
}

perfq_status_t perfq_catalog_add_group(struct perfq_catalog *catalog,
                                       const struct perfq_group_desc *group,
                                       const char *unavailable_reason, uint32_t *group_index)
{
    if (!catalog || !group || !group->name || !group->description)
        return PERFQ_EINVAL;
    for (uint32_t i = 0; i < catalog->group_count; i++)
        if (strcmp(catalog->groups[i].name, group->name) == 0)
            return PERFQ_EINVAL;  /* group names are unique in the catalog */
    if (grow((void **)&catalog->groups, &catalog->group_cap, catalog->group_count,
             sizeof(*catalog->groups), catalog->fixed))
        return PERFQ_ENOMEM;
    struct perfq_group_entry *g = &catalog->groups[catalog->group_count];
    memset(g, 0, sizeof(*g));
    g->name = strdup(group->name);
    g->description = strdup(group->description);
    g->reason = dup_or_null(unavailable_reason);
    if (!g->name || !g->description || (unavailable_reason && !g->reason)) {
        free(g->name);
        free(g->description);
        free(g->reason);
        return PERFQ_ENOMEM;
    }
    g->provider = catalog->provider;
    g->info = (perfq_group_info_t){
        .name = g->name,
        .provider = catalog->provider_name,
        .description = g->description,
        .scope = group->scope,
        .max_active = group->max_active,
        .first_counter = catalog->counter_count,
        .counter_count = 0,
        .available = unavailable_reason == NULL,
        .unavailable_reason = g->reason,
    };
    if (group_index)
        *group_index = catalog->group_count;
    catalog->group_count++;
    return PERFQ_OK;
}

perfq_status_t perfq_catalog_add_counter(struct perfq_catalog *catalog, uint32_t group_index,
                                         const struct perfq_counter_desc *counter,
                                         const char *unavailable_reason)
{
    if (!catalog || !counter || !counter->name || !counter->description || !counter->category)
        return PERFQ_EINVAL;
    /* Contiguity: counters go to the group added last. */
    if (catalog->group_count == 0 || group_index != catalog->group_count - 1)
        return PERFQ_EINVAL;
    if ((unsigned)counter->unit >= PERFQ_UNIT_COUNT ||
        (unsigned)counter->storage >= PERFQ_STORAGE_COUNT ||
        (unsigned)counter->intel_type >= PERFQ_INTEL_TYPE_COUNT)
        return PERFQ_EINVAL;
    struct perfq_group_entry *g = &catalog->groups[group_index];
    for (uint32_t i = g->info.first_counter; i < catalog->counter_count; i++)
        if (strcmp(catalog->counters[i].name, counter->name) == 0)
            return PERFQ_EINVAL;
    if (grow((void **)&catalog->counters, &catalog->counter_cap, catalog->counter_count,
             sizeof(*catalog->counters), catalog->fixed))
        return PERFQ_ENOMEM;
    struct perfq_counter_entry *c = &catalog->counters[catalog->counter_count];
    memset(c, 0, sizeof(*c));
    /* A counter of an unavailable group is unavailable for the group's reason. */
    const char *reason = unavailable_reason ? unavailable_reason : g->reason;
    size_t full_len = strlen(g->name) + 1 + strlen(counter->name) + 1;
    c->name = strdup(counter->name);
    c->full_name = malloc(full_len);
    c->category = strdup(counter->category);
    c->description = strdup(counter->description);
    c->reason = dup_or_null(reason);
    if (!c->name || !c->full_name || !c->category || !c->description || (reason && !c->reason)) {
        free(c->name);
        free(c->full_name);
        free(c->category);
        free(c->description);
        free(c->reason);
        return PERFQ_ENOMEM;
    }
    memcpy(c->full_name, g->name, strlen(g->name));
    c->full_name[strlen(g->name)] = '/';
    memcpy(c->full_name + strlen(g->name) + 1, counter->name, strlen(counter->name) + 1);
    c->desc = counter;
    c->provider = catalog->provider;
    c->info = (perfq_counter_info_t){
        .name = c->name,
        .full_name = c->full_name,
        .category = c->category,
        .description = c->description,
        .group = group_index,
        .unit = counter->unit,
        .storage = counter->storage,
        .intel_type = counter->intel_type,
        .min = counter->min,
        .max = counter->max,
        .denominator = counter->denominator ? counter->denominator : 1,
        .uuid = perfq__counter_uuid(catalog->provider_name, g->name, counter->name),
        .available = reason == NULL,
        .unavailable_reason = c->reason,
    };
    catalog->counter_count++;
    g->info.counter_count++;
    return PERFQ_OK;
}

perfq_status_t perfq_catalog_add_table(struct perfq_catalog *catalog,
                                       const struct perfq_group_desc *group,
                                       const struct perfq_counter_desc *counters, size_t count,
                                       const char *unavailable_reason)
{
    uint32_t g;
    perfq_status_t st = perfq_catalog_add_group(catalog, group, unavailable_reason, &g);
    for (size_t i = 0; st == PERFQ_OK && i < count; i++)
        st = perfq_catalog_add_counter(catalog, g, &counters[i], NULL);
    return st;
}

perfq_status_t perfq__catalog_disable_group(struct perfq_catalog *catalog, uint32_t group,
                                            const char *reason)
{
    struct perfq_group_entry *g = &catalog->groups[group];
    if (!g->info.available)
        return PERFQ_OK;
    char *r = strdup(reason);
    if (!r)
        return PERFQ_ENOMEM;
    free(g->reason);
    g->reason = r;
    g->info.available = 0;
    g->info.unavailable_reason = r;
    for (uint32_t i = 0; i < g->info.counter_count; i++) {
        struct perfq_counter_entry *c = &catalog->counters[g->info.first_counter + i];
        char *cr = strdup(reason);
        if (!cr)
            return PERFQ_ENOMEM;
        free(c->reason);
        c->reason = cr;
        c->info.available = 0;
        c->info.unavailable_reason = cr;
    }
    return PERFQ_OK;
}

void perfq__catalog_truncate(struct perfq_catalog *catalog, uint32_t groups, uint32_t counters)
{
    for (uint32_t i = groups; i < catalog->group_count; i++) {
        free(catalog->groups[i].name);
        free(catalog->groups[i].description);
        free(catalog->groups[i].reason);
    }
    for (uint32_t i = counters; i < catalog->counter_count; i++) {
        struct perfq_counter_entry *c = &catalog->counters[i];
        free(c->name);
        free(c->full_name);
        free(c->category);
        free(c->description);
        free(c->reason);
    }
    if (groups < catalog->group_count)
        catalog->group_count = groups;
    if (counters < catalog->counter_count)
        catalog->counter_count = counters;
}

perfq_status_t perfq__catalog_reserve(struct perfq_catalog *catalog, uint32_t groups,
                                      uint32_t counters)
{
    uint32_t gcap = catalog->group_count + groups, ccap = catalog->counter_count + counters;
    if (gcap > catalog->group_cap) {
        void *n = realloc(catalog->groups, gcap * sizeof(*catalog->groups));
        if (!n)
            return PERFQ_ENOMEM;
        catalog->groups = n;
        catalog->group_cap = gcap;
    }
    if (ccap > catalog->counter_cap) {
        void *n = realloc(catalog->counters, ccap * sizeof(*catalog->counters));
        if (!n)
            return PERFQ_ENOMEM;
        catalog->counters = n;
        catalog->counter_cap = ccap;
    }
    return PERFQ_OK;
}

void perfq__catalog_free(struct perfq_catalog *catalog)
{
    perfq__catalog_truncate(catalog, 0, 0);
    free(catalog->groups);
    free(catalog->counters);
    memset(catalog, 0, sizeof(*catalog));
}
