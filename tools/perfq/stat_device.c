/*
 * perfq stat's device counters (docs/perfq-stat.md, "Device counters"): every available counter
 * of the NVIDIA providers nvml and gpm (nvml-gpuN, gpm-gpuN). They count the device, whoever
 * uses it, so they work for any command.
 *
 * When NVML starts. NVML's start (31 ms of wall, 23 ms of CPU on an H100) contends with CMD's
 * own driver start in the NVIDIA kernel driver: run beside it, it made the GL example's own
 * time 16-18 ms and the OpenCL example's 18-41 ms longer on the H100 (docs/perfq-stat.md,
 * "Defaults"). So the thread waits for CMD's driver start to be over before it starts
 * NVML, until whichever comes first: the layers' first frame or OpenCL command reaches perfq
 * (the program has a context and has used it), or PERFQ_STAT_DEVICE_DELAY_MS after CMD's
 * start (default STAT_DEVICE_DELAY_MS; 0: at once, as before), for a program that sends none
 * (no layers, no GL or OpenCL) or sends it late. The counters begin when NVML is ready and are read at CMD's exit with
 * perfq_measurement_sample, which does not wait for a sample after the end: they cover from
 * their begin (reported relative to CMD's start) to the sampler's newest sample at CMD's exit
 * (at most one fast period, 20 ms, before it; nvml-gpuN/sample-age says how far).
 *
 * A CMD that ends before they began gets no device counters and a note saying so: before
 * NVML's start, the thread leaves without starting it; during it, perfq does not wait for it
 * (it leaves with _exit, the thread still inside NVML: no exit handler or destructor runs
 * beside it, and the kernel takes what NVML had opened). With --device (explicit_) the counters
 * are listed all the same, "not counted", with the reasons of those missing: NVML is started
 * (or waited for) at CMD's exit for that. Once they were counted, perfq leaves after its report
 * without stopping NVML's sampler or shutting NVML down (about 5 ms of wall on the H100,
 * docs/perfq-stat.md): cmd_stat.c ends with _exit there.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "stat_device.h"

/* NVML starts no sooner than this after CMD's start (PERFQ_STAT_DEVICE_DELAY_MS). 200 until
 * 2026-11-29: NVML's start then still ran beside a short program's commands and teardown in the
 * kernel driver, and cost the 0.4 s OpenCL example 6% of its wall on the H200 (docs/perfq-stat.md,
 * "Device counters from 1 s"). A program that runs less than this has no device counters by
 * default (--device: from its start). */
#define STAT_DEVICE_DELAY_MS 1000
/* Past the delay, how long NVML waits for the first frame or OpenCL command of a CMD that loaded
 * a layer and sent neither yet. */
#define STAT_DEVICE_FIRST_WAIT_MS 800
/* How often the waiting thread looks at the layers' records (the drain reads them every
 * 20 ms). */
#define STAT_DEVICE_POLL_NS 5000000u

struct stat_device {
    perfq_t *pq;
    int explicit_;
    struct stat_collect *collect;   /* the layers' records, or NULL */
    uint64_t t0;                 /* CMD's start (stat_device_released; until then, about it) */
    uint64_t delay_ns;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;                    /* CMD exited: do not begin any more */
    int starting;                /* the thread has begun NVML's start */
    int finished;                /* the thread has returned */
    int left;                    /* stat_device_stop did not join it: the thread owns d */
    int absent;                  /* no libnvidia-ml.so.1: no device counters, nothing said */
    int findable;                /* nvml_findable's answer at the start (1 with --device) */
    int failed;                  /* the measurement could not be begun (CMD still ran) */
    enum stat_device_cause cause;
    uint64_t start_ns;           /* when NVML's start began */
    perfq_measurement_t *m;      /* begun (under lock) */
    perfq_counter_id_t *ids;     /* available ones first */
    size_t n, n_measured;
    perfq_value_t *values;
    uint64_t begin_ns;
};

static int stopped(struct stat_device *d)
{
    pthread_mutex_lock(&d->lock);
    int s = d->stop;
    pthread_mutex_unlock(&d->lock);
    return s;
}

int stat_device_counter(const perfq_group_info_t *gi, const perfq_counter_info_t *ci)
{
    if (gi->scope != PERFQ_SCOPE_DEVICE || !gi->provider ||
        (strcmp(gi->provider, "nvml") != 0 && strcmp(gi->provider, "gpm") != 0))
        return 0;
    /* NVML's PCIe throughput: each of its two reads blocks NVML's sampler about 20 ms (the
     * fast gauges wait meanwhile), the first at once when the counters begin, and perfq's exit
     * joins the sampler, so a short CMD's run could end waiting for one. GPM's pcie-tx and
     * pcie-rx (from GPM samples, 52 us each) stay; NVML's are counted when named with -e. */
    return !(strcmp(gi->provider, "nvml") == 0 &&
             (strcmp(ci->name, "pcie-tx") == 0 || strcmp(ci->name, "pcie-rx") == 0));
}

static uint64_t env_delay_ns(void)
{
    const char *v = getenv("PERFQ_STAT_DEVICE_DELAY_MS");
    char *end;
    unsigned long ms = v && *v ? strtoul(v, &end, 10) : STAT_DEVICE_DELAY_MS;
    if (v && *v && (*end || ms > 600000))
        ms = STAT_DEVICE_DELAY_MS;
    return (uint64_t)ms * 1000000u;
}

double stat_device_delay_s(void)
{
    return (double)env_delay_ns() / 1e9;
}

/* Waits until the delay passed and CMD's driver start is over, or CMD exited. Returns 1 to start
 * NVML now (d->starting set), 0 when CMD exited. Past the delay, a CMD whose processes loaded a
 * layer (they use GL, EGL or OpenCL) and sent no frame or OpenCL command yet is still in its
 * driver start (an OpenCL or CUDA start takes about 0.2 s on the H100): NVML waits for that
 * first frame or command, at most STAT_DEVICE_FIRST_WAIT_MS more. */
static int wait_for_start(struct stat_device *d)
{
    pthread_mutex_lock(&d->lock);
    int waited = 0;   /* past the delay, for a first frame or command */
    for (;;) {
        if (d->stop)
            break;
        uint64_t now = cli_monotonic_ns(), until = d->t0 + d->delay_ns;
        uint64_t give_up = until + STAT_DEVICE_FIRST_WAIT_MS * 1000000ull;
        uint64_t frames = 0, commands = 0;
        if (d->collect)
            stat_collect_progress(d->collect, &frames, &commands);
        int in_driver_start = d->collect && stat_collect_attached(d->collect) && !frames &&
                              !commands;
        if (!d->delay_ns || (now >= until && (!in_driver_start || now >= give_up))) {
            d->cause = !d->delay_ns ? STAT_DEVICE_AT_ONCE
                     : !waited ? STAT_DEVICE_DELAY
                     : frames ? STAT_DEVICE_FIRST_FRAME
                     : commands ? STAT_DEVICE_FIRST_COMMAND : STAT_DEVICE_NO_FIRST;
            d->starting = 1;
            d->start_ns = now;
            break;
        }
        if (now >= until) {
            waited = 1;
            until = give_up;
        }
        if (d->collect && until - now > STAT_DEVICE_POLL_NS)
            until = now + STAT_DEVICE_POLL_NS;
        struct timespec ts = {(time_t)(until / 1000000000u), (long)(until % 1000000000u)};
        pthread_cond_timedwait(&d->wake, &d->lock, &ts);
    }
    int go = d->starting;
    pthread_mutex_unlock(&d->lock);
    return go;
}

static void finish(struct stat_device *d)
{
    pthread_mutex_lock(&d->lock);
    d->finished = 1;
    pthread_cond_broadcast(&d->wake);
    pthread_mutex_unlock(&d->lock);
}

static void *device_main(void *arg)
{
    struct stat_device *d = arg;
    /* Without the library there are no device counters and nothing to say about them. It is
     * loaded when NVML starts, not before: a CMD that ends first leaves perfq without it (3 ms
     * of CPU on the H200). Loading it starts nothing in the driver; it stays loaded (the nvml
     * provider opens the same one). Where CMD ended first and only the dlopen can tell whether
     * the library is there (nvml_findable), it is made then, so that a machine without NVML
     * still gets no note. */
    int go = wait_for_start(d);
    if (!d->explicit_ && (go || d->findable < 0) &&
        !dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL)) {
        pthread_mutex_lock(&d->lock);
        d->absent = 1;
        pthread_mutex_unlock(&d->lock);
        finish(d);
        return NULL;
    }
    if (!go && !d->explicit_) {
        finish(d);
        return NULL;
    }
    /* Deferred providers (perfq.h): NVML's are probed here, CUPTI's not (cupti-gpuN: -e). A
     * failure leaves their groups out or unavailable, as for any provider. */
    perfq_catalog_probe(d->pq, "nvml");
    /* CMD already ended: the counters are listed (not counted), without GPM's probe. */
    if (!stopped(d))
        perfq_catalog_probe(d->pq, "gpm");
    uint32_t count = 0;
    perfq_catalog_probed(d->pq, NULL, &count);
    d->ids = calloc(count ? count : 1, sizeof(*d->ids));
    if (!d->ids) {
        finish(d);
        return NULL;
    }
    /* Available ones first, then (--device only) the unavailable ones, for their reason. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t id = 0; id < count; id++) {
            perfq_counter_info_t ci;
            perfq_group_info_t gi;
            if (perfq_counter_info(d->pq, id, &ci) != PERFQ_OK ||
                perfq_group_info(d->pq, ci.group, &gi) != PERFQ_OK || !stat_device_counter(&gi, &ci))
                continue;
            if (pass == 0 ? ci.available : !ci.available && d->explicit_)
                d->ids[d->n++] = id;
        }
        if (pass == 0)
            d->n_measured = d->n;
    }
    perfq_measurement_t *m = NULL;
    int tried = d->n_measured && !stopped(d);
    if (tried && perfq_measurement_create(d->pq, d->ids, d->n_measured, NULL, &m) == PERFQ_OK &&
        perfq_measurement_begin(m) != PERFQ_OK)
        perfq_measurement_destroy(&m);
    uint64_t t = cli_monotonic_ns();
    pthread_mutex_lock(&d->lock);
    d->failed = tried && !m;
    if (m && !d->stop) {
        d->m = m;
        d->begin_ns = t;
        m = NULL;
    }
    pthread_mutex_unlock(&d->lock);
    if (m)
        perfq_measurement_destroy(&m);   /* CMD ended while it began: it covers none of it */
    finish(d);
    return NULL;
}

/* Are the NVIDIA providers disabled (PERFQ_DISABLE)? */
static int nvml_disabled(perfq_t *pq)
{
    uint32_t groups = 0;
    perfq_catalog_probed(pq, &groups, NULL);
    for (uint32_t g = 0; g < groups; g++) {
        perfq_group_info_t gi;
        /* A disabled deferred provider is listed at perfq_open, unavailable, never probed. */
        if (perfq_group_info(pq, g, &gi) == PERFQ_OK && gi.provider &&
            strcmp(gi.provider, "nvml") == 0)
            return 1;
    }
    return 0;
}

/* Would dlopen("libnvidia-ml.so.1") find it? 1 yes, 0 no, -1 only the dlopen can tell. Found
 * as the dynamic loader finds it, without loading it: LD_LIBRARY_PATH's folders
 * (cli_library_path_find), the linker cache, then the default directories; none of those
 * means no NVIDIA driver. The dlopen that found out searched every hwcaps folder of the default
 * directories where NVML is absent (84 failed opens and stats, about 1 ms here), and where it
 * is there, loading it cost 3 ms of perfq's CPU on the H200 and 2% of a 0.1 s program's wall
 * even where NVML never started (docs/perfq-stat.md, "NVML loaded when it starts"). A library
 * only in a hwcaps folder of a default directory and left out of the cache (ldconfig not run)
 * is missed: the NVIDIA driver's installers run ldconfig. */
static int nvml_findable(void)
{
    static const char soname[] = "libnvidia-ml.so.1";
    const char *preload = getenv("LD_PRELOAD");
    char found[PATH_MAX];
    if (preload && strstr(preload, "nvidia-ml"))
        return -1;
    int in_path = cli_library_path_find(soname, found, sizeof(found));
    if (in_path != 0)
        return in_path;
    int cached = cli_linker_cache(soname, found, sizeof(found));
    if (cached != 0)
        return cached;
    static const char *const dirs[] = {
        "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
    };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(found, sizeof(found), "%s/%s", dirs[i], soname);
        if (access(found, F_OK) == 0)
            return 1;
    }
    return 0;
}

struct stat_device *stat_device_start(perfq_t *pq, int explicit_, struct stat_collect *collect)
{
    /* Without the library (or with the providers disabled) there are no device counters and
     * nothing to say about them (device_main's dlopen, when this cannot tell). */
    if (!explicit_ && nvml_disabled(pq))
        return NULL;
    int findable = explicit_ ? 1 : nvml_findable();
    if (findable == 0)
        return NULL;
    struct stat_device *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->findable = findable;
    d->pq = pq;
    d->explicit_ = explicit_;
    d->collect = collect;
    /* --device asks for them: from CMD's start, unless the delay is set. */
    d->delay_ns = explicit_ && !getenv("PERFQ_STAT_DEVICE_DELAY_MS") ? 0 : env_delay_ns();
    d->t0 = cli_monotonic_ns();
    pthread_mutex_init(&d->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&d->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&d->thread, NULL, device_main, d) != 0) {
        pthread_cond_destroy(&d->wake);
        pthread_mutex_destroy(&d->lock);
        free(d);
        return NULL;
    }
    return d;
}

void stat_device_stop(struct stat_device *d, int may_leave)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    d->stop = 1;
    pthread_cond_broadcast(&d->wake);
    perfq_measurement_t *m = d->m;
    /* NVML is still starting and nobody asked for the reasons: not waited for. */
    d->left = may_leave && !m && d->starting && !d->finished && !d->explicit_;
    pthread_mutex_unlock(&d->lock);
    if (d->left) {
        /* Never joined: detached, so that a thread that ends before perfq does is no leak
         * (ThreadSanitizer's report, and its exit status, in CI). */
        pthread_detach(d->thread);
        return;
    }
    /* Read first (at CMD's exit), join after. d->n_measured was written before d->m (the lock
     * orders them). */
    perfq_value_t *values = NULL;
    int read = 0;
    if (m && (values = calloc(d->n_measured, sizeof(*values)))) {
        read = perfq_measurement_sample(m, values, d->n_measured) == PERFQ_OK;
        /* A provider that cannot be read while counting: its result after the end. */
        if (!read)
            read = perfq_measurement_end(m) == PERFQ_OK &&
                   perfq_measurement_result(m, PERFQ_RESULT_WAIT, values, d->n_measured) ==
                       PERFQ_OK;
    }
    pthread_join(d->thread, NULL);
    if (!values)
        values = calloc(d->n_measured ? d->n_measured : 1, sizeof(*values));
    if (!values) {
        d->n = d->n_measured = 0;   /* out of memory: none reported */
    } else if (!read) {
        /* Never begun (CMD ended first), or unreadable: not counted. */
        for (size_t i = 0; i < d->n_measured; i++) {
            memset(&values[i], 0, sizeof(values[i]));
            values[i].flags = PERFQ_VALUE_NOT_COUNTED;
        }
    }
    d->values = values;
    /* The measurement stays open (its sampler too) until stat_device_free, or until perfq
     * leaves with stat_device_leave. */
}

int stat_device_counting(const struct stat_device *d)
{
    return d && d->m;
}

int stat_device_must_leave(const struct stat_device *d)
{
    return d && (d->m || d->left);
}

void stat_device_result(const struct stat_device *d, const perfq_counter_id_t **ids,
                        size_t *n, size_t *n_measured, const perfq_value_t **values,
                        uint64_t *begin_ns)
{
    int some = d && !d->left && !d->absent;
    *ids = some ? d->ids : NULL;
    *n = some ? d->n : 0;
    *n_measured = some ? d->n_measured : 0;
    *values = some ? d->values : NULL;
    *begin_ns = some ? d->begin_ns : 0;
}

void stat_device_released(struct stat_device *d, uint64_t t0)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    d->t0 = t0;
    pthread_cond_broadcast(&d->wake);
    pthread_mutex_unlock(&d->lock);
}

enum stat_device_cause stat_device_cause(const struct stat_device *d, uint64_t *start_ns)
{
    /* After stat_device_stop: d->starting and what goes with it no longer change. */
    *start_ns = d && d->starting ? d->start_ns : 0;
    if (!d)
        return STAT_DEVICE_NONE;
    /* CMD ended while NVML was starting: the thread still runs, and may yet find the library
     * absent (d->absent is then its to write, not read here). */
    if (d->left)
        return d->cause;
    if (d->absent)
        return STAT_DEVICE_NONE;
    /* NVML was probed and has none to count (no device, refused), or they could not be begun:
     * the rows (--device) say why, no note about when. */
    if ((!d->n_measured && (d->starting || d->explicit_)) || d->failed)
        return STAT_DEVICE_NONE;
    return d->starting ? d->cause : STAT_DEVICE_NOT_STARTED;
}

void stat_device_free(struct stat_device **d)
{
    if (!d || !*d)
        return;
    if ((*d)->left) {
        *d = NULL;   /* the thread still uses it: perfq leaves with _exit */
        return;
    }
    perfq_measurement_destroy(&(*d)->m);
    pthread_cond_destroy(&(*d)->wake);
    pthread_mutex_destroy(&(*d)->lock);
    free((*d)->ids);
    free((*d)->values);
    free(*d);
    *d = NULL;
}
