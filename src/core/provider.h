/*
 * The provider vtable: where numbers come from (DESIGN.md layer 1).
 *
 * A provider fills one `struct perfq_provider_ops` in one file and is listed once in
 * registry.c (or handed to perfq__open_with() by a layer that owns its instances, like the GL
 * layer per context). The engine calls, in order:
 *   probe      once at perfq_open: can this source run here? Returns its state, or a reason.
 *              Not called for a provider that PERFQ_DISABLE names (enumerate is, with the
 *              reason "disabled by PERFQ_DISABLE"). A deferred provider (below) is probed at
 *              the first call that needs the whole catalog instead.
 *   enumerate  once after probe, also when probe failed: adds its groups and counters to the
 *              catalog, each marked available or not (with the reason).
 *   session_open / begin / sample / end / result / session_close  per measurement, with the
 *              subset of this provider's counters that the measurement asked for.
 *   close      once at perfq_close.
 * Values are written in the order of the session's counters. Nothing is invented: a counter
 * that cannot be read is reported unavailable at enumerate time.
 */
#ifndef PERFQ_CORE_PROVIDER_H
#define PERFQ_CORE_PROVIDER_H

#include "perfq/perfq.h"

struct perfq_catalog;

/* A group as data (libpfm4 style: const tables in the provider's file). */
struct perfq_group_desc {
    const char *name;
    const char *description;
    perfq_scope_t scope;
    uint32_t max_active;      /* 0: no limit */
};

/* A counter as data. `code` and `code2` are the provider's own (a perf event type and config,
 * a GL query target...): the engine never reads them. */
struct perfq_counter_desc {
    const char *name;
    const char *category;
    const char *description;
    perfq_unit_t unit;
    perfq_storage_t storage;
    perfq_intel_type_t intel_type;
    uint64_t min;
    uint64_t max;
    uint64_t denominator;     /* 0 is read as 1 */
    uint64_t code;
    uint64_t code2;
};

/* What a session is asked to count: counters of this provider only. */
struct perfq_session_request {
    const struct perfq_counter_desc *const *counters;
    const uint32_t *groups;   /* catalog group index of each counter */
    size_t count;
    perfq_target_t target;
};

struct perfq_provider_ops {
    const char *name;
    /* arg: what perfq__open_with() was given for this provider (NULL for built-ins). On
     * failure returns a negative status and writes a reason; enumerate is still called. */
    perfq_status_t (*probe)(void *arg, void **state, char *reason, size_t reason_size);
    /* state is NULL when probe failed; probe_reason is then its reason. */
    perfq_status_t (*enumerate)(void *state, struct perfq_catalog *catalog,
                                const char *probe_reason);
    perfq_status_t (*session_open)(void *state, const struct perfq_session_request *request,
                                   void **session);
    perfq_status_t (*begin)(void *session);
    /* NULL when values exist only after end (GPU timeline). */
    perfq_status_t (*sample)(void *session, perfq_value_t *values);
    perfq_status_t (*end)(void *session);
    /* wait: block until ready; else PERFQ_NOT_READY while pending. */
    perfq_status_t (*result)(void *session, int wait, perfq_value_t *values);
    void (*session_close)(void *session);
    void (*close)(void *state);
    /* Deferred probing, for a provider whose probe is expensive (NVML's and CUPTI's initialise
     * the driver: 30 ms to 0.6 s of CPU on an H100). Nonzero: perfq_open neither probes nor
     * lists it; it is probed and its groups are appended to the catalog at the first call that
     * needs it (perfq.h, perfq_open). Its groups are named NAME or NAME-... (a full counter
     * name finds its provider by that). Its enumerate adds at most max_groups groups and
     * max_counters counters, on success and on failure alike: the catalog's room is reserved
     * at open, so that entries never move while other threads read them. */
    uint32_t deferred_max_groups, deferred_max_counters;
};

/* Catalog building, for enumerate. reason NULL: available. Strings are copied. */
PERFQ_API perfq_status_t perfq_catalog_add_group(struct perfq_catalog *catalog,
                                                 const struct perfq_group_desc *group,
                                                 const char *unavailable_reason,
                                                 uint32_t *group_index);
PERFQ_API perfq_status_t perfq_catalog_add_counter(struct perfq_catalog *catalog,
                                                   uint32_t group_index,
                                                   const struct perfq_counter_desc *counter,
                                                   const char *unavailable_reason);

/* A group and all its counters, each available unless the group is: the common case of a
 * provider whose counters stand or fall together. */
PERFQ_API perfq_status_t perfq_catalog_add_table(struct perfq_catalog *catalog,
                                       const struct perfq_group_desc *group,
                                       const struct perfq_counter_desc *counters, size_t count,
                                       const char *unavailable_reason);

/* Opens an instance with the built-in providers plus `n_extra` more (layers use this for
 * providers that need state the layer owns, e.g. a GL context's function table). An extra
 * provider replaces the built-in one of the same name (one that only lists, unavailable, what
 * the layer counts). */
PERFQ_API perfq_status_t perfq__open_with(const struct perfq_provider_ops *const *extra,
                                          void *const *extra_args, size_t n_extra, int builtins,
                                          perfq_t **out);

/* The catalog uuid rule: FNV-1a 32 over "provider/group/counter". Stable across runs. */
uint32_t perfq__counter_uuid(const char *provider, const char *group, const char *counter);

/* The provider descriptor behind a counter (for layers that map catalog ids to their data). */
PERFQ_API const struct perfq_counter_desc *perfq__counter_desc(const perfq_t *pq,
                                                          perfq_counter_id_t id);

#endif
