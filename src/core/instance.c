/* The library instance: probing providers, the catalog's read side, lookup by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/instance.h"

#define REASON_SIZE 256

/* PERFQ_DISABLE="a,b": group or provider names whose groups are marked unavailable. */
static int named_in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

static perfq_status_t apply_disable_list(perfq_t *pq)
{
    const char *list = getenv("PERFQ_DISABLE");
    if (!list || !*list)
        return PERFQ_OK;
    for (uint32_t i = 0; i < pq->catalog.group_count; i++) {
        const perfq_group_info_t *g = &pq->catalog.groups[i].info;
        if (named_in_list(list, g->name) || named_in_list(list, g->provider)) {
            perfq_status_t st = perfq__catalog_disable_group(&pq->catalog, i,
                                                             "disabled by PERFQ_DISABLE");
            if (st != PERFQ_OK)
                return st;
        }
    }
    return PERFQ_OK;
}

static perfq_status_t add_provider(perfq_t *pq, const struct perfq_provider_ops *ops, void *arg)
{
    struct perfq_provider_slot *slot = &pq->providers[pq->provider_count];
    char reason[REASON_SIZE] = "";
    slot->ops = ops;
    slot->state = NULL;
    perfq_status_t st = ops->probe(arg, &slot->state, reason, sizeof(reason));
    if (st != PERFQ_OK) {
        slot->state = NULL;
        if (!reason[0])
            snprintf(reason, sizeof(reason), "%s", perfq_status_string(st));
    }
    pq->catalog.provider = (uint32_t)pq->provider_count;
    pq->catalog.provider_name = ops->name;
    pq->provider_count++;
    return ops->enumerate(slot->state, &pq->catalog, st == PERFQ_OK ? NULL : reason);
}

/* A layer's provider replaces the built-in of the same name (the built-in only lists what the
 * layer counts: providers/gl_memory.c), so that a group is never in one catalog twice. */
static int replaced(const struct perfq_provider_ops *builtin,
                    const struct perfq_provider_ops *const *extra, size_t n_extra)
{
    for (size_t i = 0; i < n_extra; i++)
        if (extra[i] && strcmp(extra[i]->name, builtin->name) == 0)
            return 1;
    return 0;
}

perfq_status_t perfq__open_with(const struct perfq_provider_ops *const *extra,
                                void *const *extra_args, size_t n_extra, int builtins,
                                perfq_t **out)
{
    if (!out || (n_extra && !extra))
        return PERFQ_EINVAL;
    perfq_t *pq = calloc(1, sizeof(*pq));
    size_t n_builtin = builtins ? perfq__builtin_provider_count : 0;
    if (!pq)
        return PERFQ_ENOMEM;
    pq->providers = calloc(n_builtin + n_extra + 1, sizeof(*pq->providers));
    if (!pq->providers) {
        free(pq);
        return PERFQ_ENOMEM;
    }
    pq->refs = 1;
    perfq_status_t st = PERFQ_OK;
    for (size_t i = 0; i < n_builtin && st == PERFQ_OK; i++)
        if (!replaced(perfq__builtin_providers[i], extra, n_extra))
            st = add_provider(pq, perfq__builtin_providers[i], NULL);
    for (size_t i = 0; i < n_extra && st == PERFQ_OK; i++)
        st = add_provider(pq, extra[i], extra_args ? extra_args[i] : NULL);
    if (st == PERFQ_OK)
        st = apply_disable_list(pq);
    if (st != PERFQ_OK) {
        perfq_close(&pq);
        return st;
    }
    *out = pq;
    return PERFQ_OK;
}

perfq_status_t perfq_open(perfq_t **out)
{
    return perfq__open_with(NULL, NULL, 0, 1, out);
}

perfq_t *perfq__instance_ref(perfq_t *pq)
{
    __atomic_add_fetch(&pq->refs, 1, __ATOMIC_RELAXED);
    return pq;
}

void perfq__instance_unref(perfq_t *pq)
{
    if (__atomic_sub_fetch(&pq->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    for (size_t i = 0; i < pq->provider_count; i++) {
        struct perfq_provider_slot *slot = &pq->providers[i];
        if (slot->state && slot->ops->close)
            slot->ops->close(slot->state);
    }
    perfq__catalog_free(&pq->catalog);
    free(pq->providers);
    free(pq);
}

/* Drops the caller's reference: measurements still open keep the instance (see perfq.h). */
perfq_status_t perfq_close(perfq_t **ppq)
{
    if (!ppq || !*ppq)
        return PERFQ_EINVAL;
    perfq_t *pq = *ppq;
    *ppq = NULL;
    perfq__instance_unref(pq);
    return PERFQ_OK;
}

perfq_status_t perfq_group_count(const perfq_t *pq, uint32_t *count)
{
    if (!pq || !count)
        return PERFQ_EINVAL;
    *count = pq->catalog.group_count;
    return PERFQ_OK;
}

perfq_status_t perfq_group_info(const perfq_t *pq, uint32_t group, perfq_group_info_t *info)
{
    if (!pq || !info || group >= pq->catalog.group_count)
        return PERFQ_EINVAL;
    *info = pq->catalog.groups[group].info;
    return PERFQ_OK;
}

perfq_status_t perfq_counter_count(const perfq_t *pq, uint32_t *count)
{
    if (!pq || !count)
        return PERFQ_EINVAL;
    *count = pq->catalog.counter_count;
    return PERFQ_OK;
}

perfq_status_t perfq_counter_info(const perfq_t *pq, perfq_counter_id_t id,
                                  perfq_counter_info_t *info)
{
    if (!pq || !info || id >= pq->catalog.counter_count)
        return PERFQ_EINVAL;
    *info = pq->catalog.counters[id].info;
    return PERFQ_OK;
}

const struct perfq_counter_desc *perfq__counter_desc(const perfq_t *pq, perfq_counter_id_t id)
{
    if (!pq || id >= pq->catalog.counter_count)
        return NULL;
    return pq->catalog.counters[id].desc;
}

perfq_status_t perfq_counter_find(const perfq_t *pq, const char *name, perfq_counter_id_t *id)
{
    if (!pq || !name || !id)
        return PERFQ_EINVAL;
    const struct perfq_catalog *c = &pq->catalog;
    int matches = 0;
    perfq_counter_id_t found = 0;
    for (uint32_t i = 0; i < c->counter_count; i++) {
        if (strcmp(c->counters[i].full_name, name) == 0) {
            *id = i;
            return PERFQ_OK;
        }
        if (strcmp(c->counters[i].name, name) == 0) {
            found = i;
            matches++;
        }
    }
    if (matches != 1)
        return PERFQ_ENOTFOUND;
    *id = found;
    return PERFQ_OK;
}

/* Levenshtein distance, capped: names are short. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 127 || lb > 127)
        return (size_t)-1;
    size_t row[128];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

perfq_status_t perfq_counter_suggest(const perfq_t *pq, const char *name, char *buf,
                                     size_t size)
{
    if (!pq || !name || !buf || size == 0)
        return PERFQ_EINVAL;
    const struct perfq_catalog *c = &pq->catalog;
    size_t best = (size_t)-1;
    const char *best_name = NULL;
    int has_group = strchr(name, '/') != NULL;
    for (uint32_t i = 0; i < c->counter_count; i++) {
        const char *candidate = has_group ? c->counters[i].full_name : c->counters[i].name;
        size_t d = edit_distance(name, candidate);
        if (d < best) {
            best = d;
            best_name = c->counters[i].full_name;
        }
    }
    /* "Near": at most a third of the name's length in edits, and at least one. */
    size_t limit = strlen(name) / 3 + 1;
    if (!best_name || best > limit)
        return PERFQ_ENOTFOUND;
    if (strlen(best_name) + 1 > size)
        return PERFQ_ENOSPC;
    memcpy(buf, best_name, strlen(best_name) + 1);
    return PERFQ_OK;
}
