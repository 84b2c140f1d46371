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
    int fixed;                    /* room reserved: adding beyond the caps fails, never moves */
};

/* The counts readers may use: group_count and counter_count grow once after perfq_open, when
 * the deferred providers are listed (instance.c), published counters last; entries below them
 * never change. Read the counters' count first when both are needed. */
static inline uint32_t perfq__catalog_groups(const struct perfq_catalog *c)
{
    return __atomic_load_n(&c->group_count, __ATOMIC_ACQUIRE);
}

static inline uint32_t perfq__catalog_counters(const struct perfq_catalog *c)
{
    return __atomic_load_n(&c->counter_count, __ATOMIC_ACQUIRE);
}

struct perfq_provider_slot {
    const struct perfq_provider_ops *ops;
    void *state;                  /* NULL when probe failed (or not probed yet) */
    void *arg;                    /* perfq__open_with's, for a deferred probe */
    int deferred;                 /* not probed yet: listed at the first whole-catalog call */
};

struct perfq {
    /* Entries are immutable once perfq_open returns; the deferred providers' are appended
     * once, under deferred_lock, in room reserved at open (perfq__catalog_complete). */
    struct perfq_catalog catalog;
    struct perfq_provider_slot *providers;
    size_t provider_count;
    pthread_mutex_t deferred_lock;      /* serialises the deferred providers' probe */
    int deferred_pending;               /* atomic: 1 while some provider is deferred */
    char *disable;                      /* PERFQ_DISABLE as it was at open (NULL: unset) */
    /* References (atomic): the caller's until perfq_close, and one per measurement. The
     * providers and the catalog are freed with the last, so that a measurement destroyed after
     * perfq_close still finds its sessions' providers (issue 14, item 9). */
    unsigned refs;
    unsigned fork_generation;           /* perfq__fork_generation() at open */
};

void perfq__catalog_free(struct perfq_catalog *catalog);
/* Frees the entries at and above (groups, counters): a failed enumerate's partial additions. */
void perfq__catalog_truncate(struct perfq_catalog *catalog, uint32_t groups, uint32_t counters);
/* Reserves room for `groups` and `counters` more entries (deferred providers). */
perfq_status_t perfq__catalog_reserve(struct perfq_catalog *catalog, uint32_t groups,
                                      uint32_t counters);
/* Probes the deferred providers not probed yet and publishes their groups: the whole catalog. */
perfq_status_t perfq__catalog_complete(const perfq_t *pq);
/* Is id a counter of the catalog (listing the deferred providers when it is beyond those so
 * far)? Entries below the count it saw are then safe to read. */
int perfq__catalog_has_counter(const perfq_t *pq, perfq_counter_id_t id);
/* Marks a group (and its counters) unavailable with a reason, after enumeration. */
perfq_status_t perfq__catalog_disable_group(struct perfq_catalog *catalog, uint32_t group,
                                            const char *reason);

/* How many fork()s lie between the process that runs and the first one that loaded perfq
 * (a pthread_atfork child handler counts them). An instance, measurement or sampler made in an
 * earlier generation is the parent's: its file descriptors are copies of the parent's (perf's
 * counters, shared with it), its locks may have been held by threads the child does not have,
 * its process counters (rusage, CPU clocks) restart in the child. There it answers
 * PERFQ_ESTATE, and is freed without a provider call (perfq.h, "fork"). */
unsigned perfq__fork_generation(void);
/* Was an object stamped with generation made before a fork() this process is the child of? */
int perfq__made_before_fork(unsigned generation);

/* 0 where target is a PID that no process has (kill(pid, 0): ESRCH); 1 otherwise (SELF,
 * PROCESS, a process that exists, also one of another user or a zombie). */
int perfq__pid_exists(const perfq_target_t *target);

/* A measurement's reference on its instance; the last unref frees the instance. */
perfq_t *perfq__instance_ref(perfq_t *pq);
void perfq__instance_unref(perfq_t *pq);

/* The built-in providers (src/providers/registry.c). */
extern const struct perfq_provider_ops *const perfq__builtin_providers[];
extern const size_t perfq__builtin_provider_count;

#endif
