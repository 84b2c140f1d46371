/*
 * perfq: performance counters and timer queries for real programs.
 *
 * The C API of libperfq. One library instance (perfq_t) holds a catalog of counter groups and
 * counters, filled by every provider that can run on this machine (a provider that cannot run
 * says why and contributes groups marked unavailable, never invented values): at perfq_open(),
 * or, for a provider whose probe is expensive, at the first call that needs it (perfq_open).
 * A measurement (perfq_measurement_t) counts any set of catalog counters between begin and end.
 *
 * Naming: a counter's full name is "GROUP/COUNTER", for example "host/task-clock" or
 * "proc-io/write-bytes". perfq_counter_find() takes that name; `perfq list` prints every one.
 *
 * Status: every function that can fail returns a perfq_status_t: PERFQ_OK (0) on success,
 * PERFQ_NOT_READY (positive, not an error) when a result is still pending, a negative code on
 * error. Outputs are written only on success unless a function says otherwise, and a call that
 * fails leaves the object as it was (a failed begin keeps the previous result readable).
 *
 * Threads: all functions may be called from any thread. A perfq_t may be shared by threads; a
 * measurement may be used from several threads (calls on one measurement are serialised by
 * its own lock). perfq_close() and perfq_measurement_destroy() must not race with other calls
 * on the same object.
 *
 * Lifetime: each measurement (and sampler) holds a reference to its instance. perfq_close() drops the
 * caller's reference; the instance (its providers and catalog) is freed when the last of its
 * measurements is destroyed, so the measurements, their values and their counter ids stay valid
 * after perfq_close() until perfq_measurement_destroy(). Every measurement must be destroyed.
 */
#ifndef PERFQ_PERFQ_H
#define PERFQ_PERFQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PERFQ_API __attribute__((visibility("default")))
#else
#define PERFQ_API
#endif

/* The version this header is of; perfq_version gives the loaded library's. */
#define PERFQ_VERSION_MAJOR 0
#define PERFQ_VERSION_MINOR 1
#define PERFQ_VERSION_PATCH 0

typedef enum perfq_status {
    PERFQ_OK = 0,
    PERFQ_NOT_READY = 1,      /* result still pending (asynchronous providers) */
    PERFQ_EINVAL = -1,        /* bad argument: NULL pointer, out-of-range index, empty set */
    PERFQ_ENOMEM = -2,        /* allocation failed */
    PERFQ_ENOTFOUND = -3,     /* no counter or group of that name */
    PERFQ_ENOTSUP = -4,       /* counter exists but is unavailable here (see its reason) */
    PERFQ_ESTATE = -5,        /* call not valid in the object's state (end before begin...) */
    PERFQ_EBUSY = -6,         /* resource held: too many active counters, lock owned elsewhere */
    PERFQ_ESYS = -7,          /* a system call or driver call failed */
    PERFQ_ENOSPC = -8,        /* caller's buffer too small; nothing was written */
    PERFQ_EMFILE = -9,        /* out of file descriptors (EMFILE, ENFILE): close some or raise
                               * RLIMIT_NOFILE */
    PERFQ_EPASSES = -10,      /* the counters together need more than one pass over the work
                               * (CUPTI range profiler): measure them in separate measurements;
                               * each group's "passes" counter says how many a set takes */
} perfq_status_t;

/* A static English message for a status; never NULL, also for unknown values. */
PERFQ_API const char *perfq_status_string(perfq_status_t status);

/* The version of the library loaded at run time, as "MAJOR.MINOR.PATCH" (static, never NULL);
 * each of major, minor and patch that is not NULL gets its part. A program built against one
 * header may load another library of the same soname: compare with PERFQ_VERSION_*. */
PERFQ_API const char *perfq_version(int *major, int *minor, int *patch);

/* Units: the numbering of cl_codeplay_performance_counters and VK_KHR_performance_query, plus
 * JOULES (perfq's own, after theirs: neither has an energy unit; the OpenCL layer reports it as
 * the extension's GENERIC, docs/nvidia-providers.md). */
typedef enum perfq_unit {
    PERFQ_UNIT_GENERIC = 0,
    PERFQ_UNIT_PERCENTAGE = 1,
    PERFQ_UNIT_NANOSECONDS = 2,
    PERFQ_UNIT_BYTES = 3,
    PERFQ_UNIT_BYTES_PER_SECOND = 4,
    PERFQ_UNIT_KELVIN = 5,
    PERFQ_UNIT_WATTS = 6,
    PERFQ_UNIT_VOLTS = 7,
    PERFQ_UNIT_AMPS = 8,
    PERFQ_UNIT_HERTZ = 9,
    PERFQ_UNIT_CYCLES = 10,
    PERFQ_UNIT_JOULES = 11,
} perfq_unit_t;
#define PERFQ_UNIT_COUNT 12

/* Storage of a value: the codeplay/Vulkan numbering (0..5), plus BOOL32 for flag counters
 * (GL_INTEL_performance_query's PERFQUERY_COUNTER_DATA_BOOL32_INTEL). */
typedef enum perfq_storage {
    PERFQ_STORAGE_INT32 = 0,
    PERFQ_STORAGE_INT64 = 1,
    PERFQ_STORAGE_UINT32 = 2,
    PERFQ_STORAGE_UINT64 = 3,
    PERFQ_STORAGE_FLOAT32 = 4,
    PERFQ_STORAGE_FLOAT64 = 5,
    PERFQ_STORAGE_BOOL32 = 6,
} perfq_storage_t;
#define PERFQ_STORAGE_COUNT 7

/* Size in bytes of one value of a storage type; 0 for an unknown type. */
PERFQ_API size_t perfq_storage_size(perfq_storage_t storage);

/* GL_INTEL_performance_query counter types. */
typedef enum perfq_intel_type {
    PERFQ_INTEL_EVENT = 0,           /* a count of events */
    PERFQ_INTEL_DURATION_NORM = 1,   /* a duration as a fraction of the interval */
    PERFQ_INTEL_DURATION_RAW = 2,    /* a duration in the counter's unit */
    PERFQ_INTEL_THROUGHPUT = 3,      /* a rate */
    PERFQ_INTEL_RAW = 4,             /* a sampled value (gauge) */
    PERFQ_INTEL_TIMESTAMP = 5,       /* a point in time */
} perfq_intel_type_t;
#define PERFQ_INTEL_TYPE_COUNT 6

/* What a group's counters count. */
typedef enum perfq_scope {
    PERFQ_SCOPE_PROCESS = 0,      /* the measured process (or thread) and its descendants */
    PERFQ_SCOPE_DEVICE = 1,       /* one device (GPU), whoever uses it */
    PERFQ_SCOPE_SYSTEM = 2,       /* the whole machine */
    PERFQ_SCOPE_GPU_TIMELINE = 3, /* work submitted on one GPU context/queue, between its marks */
} perfq_scope_t;
#define PERFQ_SCOPE_COUNT 4

/* Short lowercase names ("ns", "bytes", "uint64", "event", "process"...); NULL if out of range. */
PERFQ_API const char *perfq_unit_name(perfq_unit_t unit);
PERFQ_API const char *perfq_storage_name(perfq_storage_t storage);
PERFQ_API const char *perfq_intel_type_name(perfq_intel_type_t type);
PERFQ_API const char *perfq_scope_name(perfq_scope_t scope);

typedef struct perfq_group_info {
    const char *name;              /* unique in the catalog, e.g. "host" */
    const char *provider;          /* the provider that fills it, e.g. "host" */
    const char *description;
    perfq_scope_t scope;
    uint32_t max_active;           /* most counters of this group active at once; 0: no limit */
    uint32_t first_counter;        /* index of its first counter in the catalog */
    uint32_t counter_count;
    int available;                 /* 1 if its counters can be measured here */
    const char *unavailable_reason;/* why not, when available == 0; else NULL */
} perfq_group_info_t;

typedef struct perfq_counter_info {
    const char *name;              /* within the group, e.g. "task-clock" */
    const char *full_name;         /* "GROUP/NAME", unique in the catalog */
    const char *category;
    const char *description;
    uint32_t group;                /* index of its group */
    perfq_unit_t unit;
    perfq_storage_t storage;
    perfq_intel_type_t intel_type;
    uint64_t min;                  /* smallest value it can take */
    uint64_t max;                  /* largest value it can take; 0: no known bound */
    uint64_t denominator;          /* value/denominator is the quantity in unit (EGL_BRCM); >= 1 */
    uint32_t uuid;                 /* stable: a hash of provider, group and counter names */
    int available;
    const char *unavailable_reason;
} perfq_counter_info_t;

typedef struct perfq perfq_t;
typedef uint32_t perfq_counter_id_t;   /* index in the catalog, 0 .. perfq_counter_count()-1 */

/* Opens a library instance: probes the providers and builds the catalog. PERFQ_EMFILE when
 * the process is out of file descriptors while probing (nothing is opened: try again once some
 * are closed; a source is never listed unavailable for that), PERFQ_ENOMEM.
 * The environment variable PERFQ_DISABLE ("host-hw,proc-io", group or provider names) marks
 * groups unavailable with the reason "disabled by PERFQ_DISABLE"; a provider it names is never
 * probed (its groups are listed under the provider's generic names, e.g. "cupti" rather than
 * "cupti-gpu0"). It is read here, once per instance.
 *
 * Deferred providers: a provider whose probe is expensive (the NVIDIA providers: "nvml" and
 * "gpm" initialise NVML, about 23 ms of CPU and 31 ms on an H100; "cupti" and "cupti-range"
 * initialise CUDA and CUPTI, 0.6 s of CPU) is not probed here. It is probed, and its groups
 * appended after those listed so far, at the first call that needs it: every deferred provider
 * at perfq_group_count, perfq_counter_count, perfq_counter_suggest, perfq_counter_find of a
 * bare name, perfq_group_info, perfq_counter_info, measurement or sampler calls with an index
 * beyond those listed so far, perfq_catalog_probe(pq, NULL); only the providers whose groups
 * it may name (a deferred provider's groups are named PROVIDER or PROVIDER-...) at
 * perfq_counter_find of a full name not listed so far ("nvml-gpu0/energy": "nvml").
 * Ids never change once given; availability is the probe's, as for any provider.
 * perfq_catalog_probed reads the catalog so far without probing. */
PERFQ_API perfq_status_t perfq_open(perfq_t **out);

/* Probes the deferred provider of that name now (nothing when it was probed already), so that
 * its groups are listed; NULL: every deferred provider. PERFQ_ENOTFOUND for a provider this
 * instance does not have. */
PERFQ_API perfq_status_t perfq_catalog_probe(const perfq_t *pq, const char *provider);

/* The numbers of groups and counters listed so far (either pointer may be NULL, not both),
 * probing nothing: ids below them are valid and their info is read without probing a
 * deferred provider (perfq_open). For a tool that wants the cheap sources only, such as
 * `perfq stat`'s default counters. */
PERFQ_API perfq_status_t perfq_catalog_probed(const perfq_t *pq, uint32_t *groups,
                                              uint32_t *counters);

/* Closes an instance and sets *pq to NULL. A second call (with *pq == NULL) returns
 * PERFQ_EINVAL and does nothing. Measurements still open on it are not destroyed: they keep
 * the instance alive and keep working until perfq_measurement_destroy(), which frees the
 * instance with the last of them. The catalog must not be read through *pq after this call. */
PERFQ_API perfq_status_t perfq_close(perfq_t **pq);

PERFQ_API perfq_status_t perfq_group_count(const perfq_t *pq, uint32_t *count);
PERFQ_API perfq_status_t perfq_group_info(const perfq_t *pq, uint32_t group, perfq_group_info_t *info);
PERFQ_API perfq_status_t perfq_counter_count(const perfq_t *pq, uint32_t *count);
PERFQ_API perfq_status_t perfq_counter_info(const perfq_t *pq, perfq_counter_id_t id,
                                  perfq_counter_info_t *info);

/* Finds a counter by its full name "GROUP/COUNTER". A bare counter name is accepted when it
 * is unique across groups. PERFQ_ENOTFOUND when no counter matches, and for a bare name that
 * several groups have (ambiguous: the caller lists the candidates from the catalog, as perfq
 * does). */
PERFQ_API perfq_status_t perfq_counter_find(const perfq_t *pq, const char *name, perfq_counter_id_t *id);

/* Writes the full name of the catalog counter nearest to name (edit distance) into buf, for
 * "did you mean" messages. PERFQ_ENOTFOUND if nothing is near; PERFQ_ENOSPC if buf is
 * smaller than the name and its NUL (nothing written); PERFQ_EINVAL for a NULL pq, name or buf,
 * or a size of 0 (no buffer at all, asked before the search). */
PERFQ_API perfq_status_t perfq_counter_suggest(const perfq_t *pq, const char *name, char *buf,
                                     size_t size);

/* What a measurement counts. */
typedef enum perfq_target_kind {
    PERFQ_TARGET_SELF = 0,   /* the calling thread, plus threads and processes it starts later;
                              * sources that count a process (proc-io, rusage, clock's
                              * process-cpu-time) count the calling process */
    PERFQ_TARGET_PID = 1,    /* process pid (every thread it has at measurement_create), plus
                              * threads and processes they start later */
    PERFQ_TARGET_PROCESS = 2,/* the calling process: every thread it has at measurement_create,
                              * plus threads and processes they start later */
} perfq_target_kind_t;

typedef struct perfq_target {
    perfq_target_kind_t kind;
    pid_t pid;               /* for PERFQ_TARGET_PID */
    /* For PERFQ_TARGET_PID: start counting when pid calls exec (perf_event enable_on_exec);
     * begin must then be called before the exec. /proc io (proc-io), which cannot wait for
     * exec, counts such a process from its start at the first begin (a process made to be
     * measured has done nothing of its own before its exec), whether the exec came before that
     * begin or not. */
    int enable_on_exec;
} perfq_target_t;

typedef struct perfq_measurement perfq_measurement_t;

/* Creates a measurement of n counters (ids from the catalog; no duplicates). target NULL means
 * PERFQ_TARGET_SELF. Fails with PERFQ_ENOTSUP if a counter is unavailable here, PERFQ_EBUSY if a
 * group's max_active would be exceeded, PERFQ_EINVAL if a PID target does not exist,
 * PERFQ_EMFILE when out of file descriptors. Resources (file descriptors) are opened here, so
 * that begin and sample stay cheap. */
PERFQ_API perfq_status_t perfq_measurement_create(perfq_t *pq, const perfq_counter_id_t *ids, size_t n,
                                        const perfq_target_t *target,
                                        perfq_measurement_t **out);

/* Destroys a measurement (ending it if active) and sets *m to NULL; PERFQ_EINVAL when *m is
 * already NULL.
 *
 * fork(): a measurement or sampler made before a fork() is the parent's. In the child every
 * call on it but destroy answers PERFQ_ESTATE (its perf counters are the parent's, shared with
 * it; its process counters, rusage and the CPU clocks, restart in the child, so a difference
 * would be garbage; a lock a parent's thread held may never be released there). Destroy frees
 * the child's memory without touching the counters (an end would stop the parent's): the
 * child's copies of their file descriptors stay open until it execs (they are close-on-exec)
 * or exits. An instance may be used in the child to make new ones. */
PERFQ_API perfq_status_t perfq_measurement_destroy(perfq_measurement_t **m);

/* One counter's value. Which member of v holds it follows the counter's storage type
 * (INT32: i32, INT64: i64, UINT32 and BOOL32: u32, UINT64: u64, FLOAT32: f32, FLOAT64: f64). */
typedef struct perfq_value {
    union {
        int32_t i32;
        int64_t i64;
        uint32_t u32;
        uint64_t u64;
        float f32;
        double f64;
    } v;
    uint32_t flags;            /* PERFQ_VALUE_* */
    uint64_t time_enabled;     /* ns the counter was enabled (multiplexed counters), else 0 */
    uint64_t time_running;     /* ns it was really counting; < time_enabled when multiplexed */
} perfq_value_t;

#define PERFQ_VALUE_SCALED 0x1u      /* multiplexed: value = raw * time_enabled / time_running */
#define PERFQ_VALUE_NOT_COUNTED 0x2u /* the counter never ran (time_running 0): value is 0 */

/* Starts counting from zero. A measurement may be begun again after end. When begin fails the
 * measurement is as before: not active, and after an end, perfq_measurement_result() still
 * returns the previous interval's values (where a GPU-timeline provider's begin already
 * dropped them, it returns begin's error instead). */
PERFQ_API perfq_status_t perfq_measurement_begin(perfq_measurement_t *m);

/* Reads the values counted since begin, without stopping (CPU-timeline counters: one read per
 * provider group). values has room for n entries; the first perfq_measurement_counter_count()
 * are written. PERFQ_ENOSPC (nothing written) when n is smaller than that count. PERFQ_ENOTSUP
 * if a counter of the set can only be read after end (GPU timeline). On any error nothing is
 * written (e.g. PERFQ_ESYS when the target process is gone). */
PERFQ_API perfq_status_t perfq_measurement_sample(perfq_measurement_t *m, perfq_value_t *values, size_t n);

/* Stops counting; the result is then read with perfq_measurement_result(). The measurement is
 * ended also when this fails (e.g. PERFQ_ESYS: a target process already reaped); the result
 * then returns the same error. */
PERFQ_API perfq_status_t perfq_measurement_end(perfq_measurement_t *m);

#define PERFQ_RESULT_NOWAIT 0u
#define PERFQ_RESULT_WAIT 1u

/* The values counted between begin and end, in the order the ids were given; values has room
 * for n entries (PERFQ_ENOSPC when n is smaller than the counter count; nothing written).
 * PERFQ_RESULT_NOWAIT: PERFQ_NOT_READY if some provider has not finished (nothing written);
 * PERFQ_RESULT_WAIT: blocks until ready. PERFQ_ESTATE before the first end. If end failed,
 * the error end returned (nothing written): perfq never reports values it could not read. */
PERFQ_API perfq_status_t perfq_measurement_result(perfq_measurement_t *m, unsigned flags,
                                        perfq_value_t *values, size_t n);

/* The number of counters in a measurement. */
PERFQ_API perfq_status_t perfq_measurement_counter_count(const perfq_measurement_t *m, size_t *n);

/* A value as a double, for printing and rates: the storage member converted. */
PERFQ_API double perfq_value_as_double(const perfq_value_t *value, perfq_storage_t storage);

/*
 * Continuous sampling: a statistics logger's loop (EGL_BRCM_performance_counters, `perfq stat
 * -I`). A sampler holds a chosen set of counters from any groups, counts them while started,
 * and is read again and again, optionally resetting in the same call.
 *
 * - Only counters that can be read while counting (CPU-timeline groups: not
 *   PERFQ_SCOPE_GPU_TIMELINE) can be chosen; others give PERFQ_ENOTSUP, unavailable ones too.
 *   A group's max_active is enforced (PERFQ_EBUSY, nothing changed).
 * - Values are kept in ascending catalog id order (perfq_sampler_counters lists them): a stable
 *   order whatever order they were chosen in.
 * - Counting counters (intel_type EVENT and DURATION_RAW) accumulate while started; stopped ones
 *   keep their values, and start resumes them. Other counters (gauges, flags) read their latest
 *   value and are not changed by a reset.
 * - Read with PERFQ_SAMPLER_RESET is atomic with respect to counting: what is reported is
 *   exactly what is subtracted, so the values of successive reads add up to the whole count
 *   (nothing lost or counted twice between the read and the reset).
 * - Choosing while started resets every chosen counter to zero and counts the new set from
 *   then on (EGL_BRCM's implicit reset); choosing while stopped keeps the values of counters
 *   that stay chosen.
 * - Threads: every call is serialised by the sampler's own lock. With a PERFQ_TARGET_SELF
 *   target, per-thread sources (perf) count the thread that made the sampler's measurement:
 *   the thread that calls start after a choose, or the thread that calls choose while started
 *   (and threads it starts later); a start on another thread after a stop, without a choose
 *   between, keeps counting the thread that was counted. Process-wide sources
 *   (clock/process-cpu-time, rusage, proc-io) count the process.
 *   With PERFQ_TARGET_PROCESS every source counts every thread of the process.
 * - A sampler holds a reference to its instance, as a measurement does: it keeps working after
 *   perfq_close() and must be destroyed by its owner.
 */
typedef struct perfq_sampler perfq_sampler_t;

/* target NULL: PERFQ_TARGET_SELF. The sampler starts empty and stopped. */
PERFQ_API perfq_status_t perfq_sampler_create(perfq_t *pq, const perfq_target_t *target,
                                              perfq_sampler_t **out);
/* Stops and destroys it, sets *s to NULL; PERFQ_EINVAL when *s is already NULL. */
PERFQ_API perfq_status_t perfq_sampler_destroy(perfq_sampler_t **s);

/* enable != 0 adds the n counters to the chosen set (already chosen ones stay as they are);
 * enable == 0 removes them (counters not chosen are ignored). All-or-nothing: on error the
 * set is unchanged. PERFQ_EINVAL for an id outside the catalog. */
PERFQ_API perfq_status_t perfq_sampler_choose(perfq_sampler_t *s, const perfq_counter_id_t *ids,
                                              size_t n, int enable);

/* The chosen counters in value order. *n receives their number; ids (room for cap) may be NULL
 * to ask for the number only. PERFQ_ENOSPC (nothing written to ids) when cap is too small. */
PERFQ_API perfq_status_t perfq_sampler_counters(perfq_sampler_t *s, perfq_counter_id_t *ids,
                                                size_t cap, size_t *n);

/* Starts or resumes counting; PERFQ_OK and nothing changes when already started. */
PERFQ_API perfq_status_t perfq_sampler_start(perfq_sampler_t *s);
/* Stops counting; values are kept. PERFQ_OK when already stopped. */
PERFQ_API perfq_status_t perfq_sampler_stop(perfq_sampler_t *s);
/* 1 while started, 0 while stopped, negative status on a bad argument. */
PERFQ_API int perfq_sampler_running(perfq_sampler_t *s);

#define PERFQ_SAMPLER_RESET 1u

/* Reads the chosen counters' values in value order: values has room for n entries, the first
 * (number of chosen counters) are written; PERFQ_ENOSPC (nothing written, nothing reset) when
 * n is smaller, as perfq_measurement_sample (until 2026-11-30 n had to equal that number, and
 * any other n was PERFQ_EINVAL). With PERFQ_SAMPLER_RESET, resets them to zero in the same
 * step. values may be NULL (with n == 0) for a reset alone. */
PERFQ_API perfq_status_t perfq_sampler_read(perfq_sampler_t *s, unsigned flags,
                                            perfq_value_t *values, size_t n);

/*
 * Machine-wide ownership of the counters (EGL_BRCM_performance_counters: "a system-wide
 * resource. Only one client can be using them at any time"). The owner is a process: any of
 * its threads may release. Ownership ends when the owner releases, exits or is killed (the
 * kernel frees it at the process's death: no stale lock), and is not inherited by fork() or
 * exec(). No privileges are needed, and no other user can break or take it while held: see
 * docs/egl-brcm-performance-counters.md ("Ownership").
 * The environment variable PERFQ_LOCK_NAME, read at each acquire, names a separate ownership
 * domain (tests use it to stay apart from other programs); unset, every perfq process of the
 * machine (of one network namespace) shares one.
 */
/* PERFQ_OK when this process now owns the counters, also when it owned them already;
 * PERFQ_EBUSY when another process owns them; PERFQ_ESYS when the system refuses. */
PERFQ_API perfq_status_t perfq_counters_acquire(void);
/* PERFQ_OK when released; PERFQ_ESTATE when this process does not own them. */
PERFQ_API perfq_status_t perfq_counters_release(void);
/* 1 when this process owns the counters, else 0. */
PERFQ_API int perfq_counters_owned(void);

#ifdef __cplusplus
}
#endif
#endif /* PERFQ_PERFQ_H */
