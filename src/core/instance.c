/* The library instance: probing providers, the catalog's read side, lookup by name. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
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

#define DISABLED "disabled by PERFQ_DISABLE"

/* Marks the groups [first, catalog.group_count) that PERFQ_DISABLE names, by their name or
 * their provider's. */
static perfq_status_t apply_disable_list(const char *list, struct perfq_catalog *catalog,
                                         uint32_t first)
{
    if (!list || !*list)
        return PERFQ_OK;
    for (uint32_t i = first; i < catalog->group_count; i++) {
        const perfq_group_info_t *g = &catalog->groups[i].info;
        if (named_in_list(list, g->name) || named_in_list(list, g->provider)) {
            perfq_status_t st = perfq__catalog_disable_group(catalog, i, DISABLED);
            if (st != PERFQ_OK)
                return st;
        }
    }
    return PERFQ_OK;
}

/* Probes slot i's provider (unless PERFQ_DISABLE names it: never probed, its groups listed
 * with that reason) and lets it enumerate into `catalog`. */
static perfq_status_t probe_and_list(perfq_t *pq, size_t i, struct perfq_catalog *catalog)
{
    struct perfq_provider_slot *slot = &pq->providers[i];
    const struct perfq_provider_ops *ops = slot->ops;
    char reason[REASON_SIZE] = "";
    perfq_status_t st = PERFQ_ENOTSUP;
    slot->state = NULL;
    if (named_in_list(pq->disable, ops->name))
        snprintf(reason, sizeof(reason), DISABLED);
    else
        st = ops->probe(slot->arg, &slot->state, reason, sizeof(reason));
    if (st == PERFQ_EMFILE) {
        /* Out of file descriptors is this moment's, not the source's: nothing is listed, the
         * caller fails (perfq_open) or tries again later (a deferred provider). */
        slot->state = NULL;
        return st;
    }
    if (st != PERFQ_OK) {
        slot->state = NULL;
        if (!reason[0])
            snprintf(reason, sizeof(reason), "%s", perfq_status_string(st));
    }
    catalog->provider = (uint32_t)i;
    catalog->provider_name = ops->name;
    return ops->enumerate(slot->state, catalog, st == PERFQ_OK ? NULL : reason);
}

static void add_provider(perfq_t *pq, const struct perfq_provider_ops *ops, void *arg)
{
    struct perfq_provider_slot *slot = &pq->providers[pq->provider_count++];
    slot->ops = ops;
    slot->arg = arg;
    /* A disabled provider costs nothing to list: listed at open, never probed. */
    slot->deferred = ops->deferred_max_groups && !named_in_list(pq->disable, ops->name);
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

/* Every provider but the deferred ones, and room for those. */
static perfq_status_t list_at_open(perfq_t *pq)
{
    uint32_t groups = 0, counters = 0;
    for (size_t i = 0; i < pq->provider_count; i++) {
        struct perfq_provider_slot *slot = &pq->providers[i];
        if (slot->deferred) {
            groups += slot->ops->deferred_max_groups;
            counters += slot->ops->deferred_max_counters;
            pq->deferred_pending = 1;
            continue;
        }
        perfq_status_t st = probe_and_list(pq, i, &pq->catalog);
        if (st != PERFQ_OK)
            return st;
    }
    perfq_status_t st = apply_disable_list(pq->disable, &pq->catalog, 0);
    if (st == PERFQ_OK && pq->deferred_pending)
        st = perfq__catalog_reserve(&pq->catalog, groups, counters);
    return st;
}

/* A deferred provider's groups are named PROVIDER or PROVIDER-... (provider.h): may `group`
 * be one of them? NULL: any group. */
static int may_list(const struct perfq_provider_ops *ops, const char *group, size_t len)
{
    size_t n = strlen(ops->name);
    return !group || (len >= n && strncmp(group, ops->name, n) == 0 &&
                      (len == n || group[n] == '-'));
}

/* The deferred providers that may list `group` (its first len bytes; NULL: all), in order,
 * each into the reserved room of a private copy of the catalog's header (readers see none of
 * it until the counts are published). A provider whose enumerate fails leaves nothing: its
 * entries are freed, its state closed, and the call returns the failure (a later call tries
 * again). */
static perfq_status_t complete_for(const perfq_t *cpq, const char *group, size_t len)
{
    perfq_t *pq = (perfq_t *)cpq;   /* the catalog is logically constant: entries never change */
    if (!__atomic_load_n(&pq->deferred_pending, __ATOMIC_ACQUIRE))
        return PERFQ_OK;
    perfq_status_t st = PERFQ_OK;
    pthread_mutex_lock(&pq->deferred_lock);
    struct perfq_catalog shadow = pq->catalog;
    shadow.fixed = 1;
    int pending = 0;
    for (size_t i = 0; i < pq->provider_count; i++) {
        struct perfq_provider_slot *slot = &pq->providers[i];
        if (!slot->deferred)
            continue;
        if (st != PERFQ_OK || !may_list(slot->ops, group, len)) {
            pending = 1;
            continue;
        }
        uint32_t g0 = shadow.group_count, c0 = shadow.counter_count;
        /* What it declared, within the room reserved at open: never more. */
        shadow.group_cap = g0 + slot->ops->deferred_max_groups;
        shadow.counter_cap = c0 + slot->ops->deferred_max_counters;
        st = probe_and_list(pq, i, &shadow);
        if (st == PERFQ_OK)
            st = apply_disable_list(pq->disable, &shadow, g0);
        if (st != PERFQ_OK) {
            perfq__catalog_truncate(&shadow, g0, c0);
            if (slot->state && slot->ops->close)
                slot->ops->close(slot->state);
            slot->state = NULL;
            pending = 1;
            continue;
        }
        slot->deferred = 0;
    }
    /* Published even after a failure: the providers listed before it are complete. Groups
     * first: a reader that sees a counter sees its group. */
    __atomic_store_n(&pq->catalog.group_count, shadow.group_count, __ATOMIC_RELEASE);
    __atomic_store_n(&pq->catalog.counter_count, shadow.counter_count, __ATOMIC_RELEASE);
    __atomic_store_n(&pq->deferred_pending, pending, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&pq->deferred_lock);
    return st;
}

perfq_status_t perfq__catalog_complete(const perfq_t *pq)
{
    return complete_for(pq, NULL, 0);
}

perfq_status_t perfq_catalog_probe(const perfq_t *pq, const char *provider)
{
    if (!pq)
        return PERFQ_EINVAL;
    if (!provider)
        return perfq__catalog_complete(pq);
    for (size_t i = 0; i < pq->provider_count; i++)
        if (strcmp(pq->providers[i].ops->name, provider) == 0)
            return complete_for(pq, provider, strlen(provider));
    return PERFQ_ENOTFOUND;
}

static unsigned fork_generation;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void after_fork_child(void)
{
    __atomic_add_fetch(&fork_generation, 1, __ATOMIC_RELAXED);
}

static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, after_fork_child);
}

unsigned perfq__fork_generation(void)
{
    return __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);
}

int perfq__made_before_fork(unsigned generation)
{
    return generation != perfq__fork_generation();
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
    const char *list = getenv("PERFQ_DISABLE");
    pq->disable = list && *list ? strdup(list) : NULL;
    if (!pq->providers || (list && *list && !pq->disable)) {
        free(pq->providers);
        free(pq->disable);
        free(pq);
        return PERFQ_ENOMEM;
    }
    pthread_mutex_init(&pq->deferred_lock, NULL);
    pq->refs = 1;
    pthread_once(&fork_once, register_fork_handler);
    pq->fork_generation = perfq__fork_generation();
    for (size_t i = 0; i < n_builtin; i++)
        if (!replaced(perfq__builtin_providers[i], extra, n_extra))
            add_provider(pq, perfq__builtin_providers[i], NULL);
    for (size_t i = 0; i < n_extra; i++)
        add_provider(pq, extra[i], extra_args ? extra_args[i] : NULL);
    perfq_status_t st = list_at_open(pq);
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

int perfq__pid_exists(const perfq_target_t *target)
{
    return target->kind != PERFQ_TARGET_PID || kill((pid_t)target->pid, 0) == 0 ||
           errno != ESRCH;
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
    /* In a fork child: the providers' state is the parent's (NVML, CUPTI sessions): not
     * closed here, only perfq's memory freed. */
    int parents = perfq__made_before_fork(pq->fork_generation);
    for (size_t i = 0; !parents && i < pq->provider_count; i++) {
        struct perfq_provider_slot *slot = &pq->providers[i];
        if (slot->state && slot->ops->close)
            slot->ops->close(slot->state);
    }
    perfq__catalog_free(&pq->catalog);
    pthread_mutex_destroy(&pq->deferred_lock);
    free(pq->disable);
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

perfq_status_t perfq_catalog_probed(const perfq_t *pq, uint32_t *groups, uint32_t *counters)
{
    if (!pq || (!groups && !counters))
        return PERFQ_EINVAL;
    uint32_t c = perfq__catalog_counters(&pq->catalog);
    if (groups)
        *groups = perfq__catalog_groups(&pq->catalog);
    if (counters)
        *counters = c;
    return PERFQ_OK;
}

perfq_status_t perfq_group_count(const perfq_t *pq, uint32_t *count)
{
    if (!pq || !count)
        return PERFQ_EINVAL;
    perfq_status_t st = perfq__catalog_complete(pq);
    if (st != PERFQ_OK)
        return st;
    *count = perfq__catalog_groups(&pq->catalog);
    return PERFQ_OK;
}

/* An index beyond the catalog so far may be a deferred provider's: they are listed first. */
static int beyond(const perfq_t *pq, uint32_t index,
                  uint32_t (*count)(const struct perfq_catalog *))
{
    if (index < count(&pq->catalog))
        return 0;
    return perfq__catalog_complete(pq) != PERFQ_OK || index >= count(&pq->catalog);
}

int perfq__catalog_has_counter(const perfq_t *pq, perfq_counter_id_t id)
{
    return !beyond(pq, id, perfq__catalog_counters);
}

perfq_status_t perfq_group_info(const perfq_t *pq, uint32_t group, perfq_group_info_t *info)
{
    if (!pq || !info || beyond(pq, group, perfq__catalog_groups))
        return PERFQ_EINVAL;
    *info = pq->catalog.groups[group].info;
    return PERFQ_OK;
}

perfq_status_t perfq_counter_count(const perfq_t *pq, uint32_t *count)
{
    if (!pq || !count)
        return PERFQ_EINVAL;
    perfq_status_t st = perfq__catalog_complete(pq);
    if (st != PERFQ_OK)
        return st;
    *count = perfq__catalog_counters(&pq->catalog);
    return PERFQ_OK;
}

perfq_status_t perfq_counter_info(const perfq_t *pq, perfq_counter_id_t id,
                                  perfq_counter_info_t *info)
{
    if (!pq || !info || beyond(pq, id, perfq__catalog_counters))
        return PERFQ_EINVAL;
    *info = pq->catalog.counters[id].info;
    return PERFQ_OK;
}

const struct perfq_counter_desc *perfq__counter_desc(const perfq_t *pq, perfq_counter_id_t id)
{
    if (!pq || beyond(pq, id, perfq__catalog_counters))
        return NULL;
    return pq->catalog.counters[id].desc;
}

/* Ids [from, to) by full name, else by bare name where unique among them (matches counted). */
static int find_in(const struct perfq_catalog *c, uint32_t from, uint32_t to, const char *name,
                   perfq_counter_id_t *id, int *bare_matches)
{
    for (uint32_t i = from; i < to; i++) {
        if (strcmp(c->counters[i].full_name, name) == 0) {
            *id = i;
            return 1;
        }
        if (strcmp(c->counters[i].name, name) == 0) {
            if (!*bare_matches)
                *id = i;
            ++*bare_matches;
        }
    }
    return 0;
}

/* A full name found in the catalog so far costs no probe. A bare name must be unique in the
 * whole catalog, and a full name not found may be a deferred provider's: both list those (all
 * of them, or those whose groups the name may be in) first. */
perfq_status_t perfq_counter_find(const perfq_t *pq, const char *name, perfq_counter_id_t *id)
{
    if (!pq || !name || !id)
        return PERFQ_EINVAL;
    const struct perfq_catalog *c = &pq->catalog;
    int matches = 0;
    perfq_counter_id_t found = 0;
    uint32_t n = perfq__catalog_counters(c);
    if (find_in(c, 0, n, name, &found, &matches))
        goto found;
    /* A full name lists only the deferred providers whose groups it may name. */
    const char *slash = strchr(name, '/');
    complete_for(pq, slash ? name : NULL, slash ? (size_t)(slash - name) : 0);
    uint32_t all = perfq__catalog_counters(c);
    if (find_in(c, n, all, name, &found, &matches))
        goto found;
    if (matches != 1)
        return PERFQ_ENOTFOUND;
found:
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
    perfq__catalog_complete(pq);   /* the nearest of all; a failure leaves the others */
    uint32_t n = perfq__catalog_counters(c);
    for (uint32_t i = 0; i < n; i++) {
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
