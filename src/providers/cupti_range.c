/*
 * Provider "cupti-range": hardware metrics of a CUDA program's own work between a
 * measurement's begin and end, from CUPTI's range profiler (cupti_range_profiler.h): begin
 * pushes a user range on the calling thread's current CUDA context, end pops it, and the
 * metrics count the work the context ran inside it (the range profiler serialises the
 * context's work at the range's edges). One group per CUDA device, "cupti-range-gpuN".
 *
 * C API only, for CUDA programs (a layer cannot push ranges into another API's work): the
 * measurement is created, begun and ended on a thread whose current context is on the group's
 * device (cuCtxGetCurrent), target PERFQ_TARGET_SELF.
 *
 * Passes: the range profiler can measure only as many counters at once as the hardware has;
 * more need the work replayed. perfq measures one pass: a set that needs more is refused at
 * create with PERFQ_EPASSES (the group description says how many passes the whole group
 * takes, each counter's description how many it takes alone), and each group's "passes"
 * counter reads the measured set's pass count. No build-time dependency: libcuda.so.1 and
 * libcupti are opened with dlopen, as for PM sampling (cupti_lib.h). docs/nvidia-providers.md.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/provider.h"
#include "providers/builtin_providers.h"
#include "providers/cupti_lib.h"
#include "providers/cupti_range.h"

#define RANGE_MAX_DEVICES 8
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CODE_PASSES 0xffu   /* the "passes" counter; others: the metric's index */

/* The metrics, all single-pass alone; on GH100 the first six together take one pass and all
 * of them two (docs/nvidia-providers.md). */
static const struct perfq_counter_desc metrics[] = {
    {"gpu__time_duration.sum", "Time", "GPU time of the range's work", PERFQ_UNIT_NANOSECONDS,
     PERFQ_STORAGE_UINT64, PERFQ_INTEL_DURATION_RAW, 0, 0, 1, 0, 0},
    {"sm__cycles_elapsed.avg", "SM", "SM cycles elapsed in the range, averaged over the SMs",
     PERFQ_UNIT_CYCLES, PERFQ_STORAGE_FLOAT64, PERFQ_INTEL_EVENT, 0, 0, 1, 1, 0},
    {"sm__cycles_active.avg", "SM", "SM cycles with at least one warp in flight, averaged over "
     "the SMs", PERFQ_UNIT_CYCLES, PERFQ_STORAGE_FLOAT64, PERFQ_INTEL_EVENT, 0, 0, 1, 2, 0},
    {"dram__bytes_read.sum", "DRAM", "Bytes read from device memory", PERFQ_UNIT_BYTES,
     PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 3, 0},
    {"dram__bytes_write.sum", "DRAM", "Bytes written to device memory", PERFQ_UNIT_BYTES,
     PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 4, 0},
    {"smsp__inst_executed.sum", "SM", "Warp instructions executed", PERFQ_UNIT_GENERIC,
     PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 5, 0},
    {"l1tex__t_bytes.sum", "Cache", "Bytes requested from the L1/texture caches",
     PERFQ_UNIT_BYTES, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 6, 0},
    {"lts__t_bytes.sum", "Cache", "Bytes requested from the L2 cache", PERFQ_UNIT_BYTES,
     PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 7, 0},
    {"sm__warps_active.avg", "SM", "Warps in flight per cycle, averaged over the SMs, summed "
     "over the range's cycles", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_FLOAT64, PERFQ_INTEL_EVENT, 0,
     0, 1, 8, 0},
    {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "SM", "Thread FFMA instructions "
     "executed (predicated on)", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0,
     0, 1, 9, 0},
    {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "SM", "Thread FADD instructions "
     "executed (predicated on)", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0,
     0, 1, 10, 0},
    {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "SM", "Thread FMUL instructions "
     "executed (predicated on)", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0,
     0, 1, 11, 0},
    {"sm__inst_executed_pipe_tensor.sum", "SM", "Warp instructions executed on the tensor "
     "pipes", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 12, 0},
};
#define N_METRICS ARRAY_SIZE(metrics)

static const struct perfq_counter_desc passes_desc = {
    "passes", "Profiler", "Passes over the work the measurement's counters need together: 1 "
    "for every measurement that can be created (perfq refuses more with PERFQ_EPASSES)",
    PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_RAW, 0, 0, 1, CODE_PASSES, 0};

static struct perfq_cupti_fns F;   /* all four lists */

struct range_device {
    char chip[32];
    size_t set_passes;                   /* all metrics together (0: unknown) */
    size_t passes[N_METRICS];            /* each alone */
    char reason[N_METRICS][160];         /* empty: available */
    struct perfq_counter_desc descs[N_METRICS + 1];
    char text[N_METRICS][320];           /* descriptions with the pass counts */
};

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static int lib_state;                    /* 0 not tried, 1 ready, -1 failed */
static char lib_reason[256];
static unsigned device_count;
static struct range_device devs[RANGE_MAX_DEVICES];

/* CUPTI alone (no driver needed): enough to count passes on a named chip. */
static int load_cupti(char *reason, size_t size)
{
    return perfq__cupti_load_cupti(&F, 1, reason, size);
}

/* The range profiler's config image of `n` metrics on `chip` (availability may be NULL: every
 * counter of the chip) and its pass count. On success *host and *config belong to the caller.
 * CUPTI_SUCCESS, or the refusal with *call naming the call. */
static CUptiResult make_config(const char *chip, const uint8_t *availability,
                               const char *const *names, size_t n,
                               CUpti_Profiler_Host_Object **host, uint8_t **config,
                               size_t *config_size, size_t *passes, const char **call)
{
    *host = NULL;
    *config = NULL;
    CUpti_Profiler_Host_Initialize_Params init = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_Initialize_Params, pHostObject), NULL,
        CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, availability, NULL};
    *call = "cuptiProfilerHostInitialize";
    CUptiResult rc = F.cuptiProfilerHostInitialize(&init);
    if (rc != CUPTI_SUCCESS)
        return rc;
    *host = init.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics), NULL, *host,
        (const char **)names, n};
    *call = "cuptiProfilerHostConfigAddMetrics";
    if ((rc = F.cuptiProfilerHostConfigAddMetrics(&add)) != CUPTI_SUCCESS)
        goto fail;
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize), NULL,
        *host, 0};
    *call = "cuptiProfilerHostGetConfigImageSize";
    if ((rc = F.cuptiProfilerHostGetConfigImageSize(&sz)) != CUPTI_SUCCESS)
        goto fail;
    *config = malloc(sz.configImageSize ? sz.configImageSize : 1);
    *call = "malloc";
    if (!*config) {
        rc = CUPTI_ERROR_NOT_INITIALIZED;
        goto fail;
    }
    *config_size = sz.configImageSize;
    CUpti_Profiler_Host_GetConfigImage_Params img = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage), NULL, *host,
        *config_size, *config};
    *call = "cuptiProfilerHostGetConfigImage";
    if ((rc = F.cuptiProfilerHostGetConfigImage(&img)) != CUPTI_SUCCESS)
        goto fail;
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses), NULL,
        *config_size, *config, 0};
    *call = "cuptiProfilerHostGetNumOfPasses";
    if ((rc = F.cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS)
        goto fail;
    *passes = np.numOfPasses;
    return CUPTI_SUCCESS;
fail:
    free(*config);
    *config = NULL;
    perfq__cupti_host_free(&F, host);
    return rc;
}

/* Passes of a metric set on a chip, from CUPTI's host side alone (no driver, no GPU), with
 * libcupti loaded. 0 and *passes, or -1 with the reason. */
static int passes_of(const char *chip, const char *const *names, size_t n, size_t *passes,
                     char *reason, size_t size)
{
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;
    size_t config_size = 0;
    const char *call;
    CUptiResult rc = make_config(chip, NULL, names, n, &host, &config, &config_size, passes,
                                 &call);
    if (rc != CUPTI_SUCCESS) {
        perfq__cupti_explain(&F, reason, size, call, rc);
        return -1;
    }
    free(config);
    perfq__cupti_host_free(&F, &host);
    return 0;
}

/* The same for tests (cupti_range.h), loading libcupti first where nothing has. Not called with
 * lib_lock held (the probe, which holds it, calls passes_of). */
int perfq__cupti_range_passes(const char *chip, const char *const *names, size_t n,
                              size_t *passes, char *reason, size_t size)
{
    pthread_mutex_lock(&lib_lock);
    int ok = F.cuptiProfilerHostInitialize || load_cupti(reason, size) == 0;
    pthread_mutex_unlock(&lib_lock);
    return ok ? passes_of(chip, names, n, passes, reason, size) : -1;
}

/* Device d's table from its chip's name (host side only); text: why the chip is unknown. */
static void describe_device(unsigned d, const char *text)
{
    struct range_device *dev = &devs[d];
    const char *names[N_METRICS];
    for (size_t m = 0; m < N_METRICS; m++) {
        names[m] = metrics[m].name;
        dev->descs[m] = metrics[m];
        dev->descs[m].code2 = d;
        dev->reason[m][0] = 0;
        dev->passes[m] = 0;
        if (text[0]) {
            snprintf(dev->reason[m], sizeof(dev->reason[m]), "%s", text);
            continue;
        }
        if (passes_of(dev->chip, &names[m], 1, &dev->passes[m], dev->reason[m],
                      sizeof(dev->reason[m])) != 0)
            continue;   /* the chip lacks it: unavailable, CUPTI's refusal as the reason */
        if (dev->passes[m] != 1)
            snprintf(dev->reason[m], sizeof(dev->reason[m]), "needs %zu passes alone on %.31s",
                     dev->passes[m], dev->chip);
        snprintf(dev->text[m], sizeof(dev->text[m]),
                 "%s (range profiler; %zu pass%s alone on %.31s)", metrics[m].description,
                 dev->passes[m], dev->passes[m] == 1 ? "" : "es", dev->chip);
        dev->descs[m].description = dev->text[m];
    }
    dev->descs[N_METRICS] = passes_desc;
    dev->descs[N_METRICS].code2 = d;
    char ignore[160];
    dev->set_passes = 0;
    if (!text[0] && passes_of(dev->chip, names, N_METRICS, &dev->set_passes, ignore,
                              sizeof(ignore)) != 0)
        dev->set_passes = 0;
}

static void probe_device(unsigned d)
{
    CUpti_Device_GetChipName_Params chip = {
        PERFQ_CUPTI_SIZE(CUpti_Device_GetChipName_Params, pChipName), NULL, d, NULL};
    CUptiResult rc = F.cuptiDeviceGetChipName(&chip);
    char text[160] = "";
    if (rc != CUPTI_SUCCESS)
        perfq__cupti_explain(&F, text, sizeof(text), "cuptiDeviceGetChipName", rc);
    else
        snprintf(devs[d].chip, sizeof(devs[d].chip), "%s", chip.pChipName);
    describe_device(d, text);
}

/* Test hook (cupti_range.h): what the probe lists for a device of this chip, host side only. */
size_t perfq__cupti_range_describe(const char *chip, size_t m, const char **description,
                                   const char **reason)
{
    char why[160];
    size_t p;
    pthread_mutex_lock(&lib_lock);
    int ok = lib_state != 1 &&
             (F.cuptiProfilerHostInitialize || load_cupti(why, sizeof(why)) == 0);
    if (ok) {   /* device slot 0, free while the driver is not there */
        snprintf(devs[0].chip, sizeof(devs[0].chip), "%s", chip);
        describe_device(0, "");
    }
    pthread_mutex_unlock(&lib_lock);
    if (!ok || m > N_METRICS)
        return 0;
    *description = devs[0].descs[m].description;
    *reason = m < N_METRICS ? devs[0].reason[m] : "";
    p = devs[0].set_passes;
    return p;
}

static int init_library(char *reason, size_t size)
{
    int count;
    if (perfq__cupti_load_cuda(&F, 1, reason, size) || load_cupti(reason, size) ||
        perfq__cupti_init_driver(&F, &count, reason, size))
        return -1;
    device_count = count > RANGE_MAX_DEVICES ? RANGE_MAX_DEVICES : (unsigned)count;
    for (unsigned d = 0; d < device_count; d++)
        probe_device(d);
    return 0;
}

static perfq_status_t range_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    pthread_mutex_lock(&lib_lock);
    if (lib_state == 0)
        lib_state = init_library(lib_reason, sizeof(lib_reason)) ? -1 : 1;
    int ok = lib_state == 1;
    pthread_mutex_unlock(&lib_lock);
    if (!ok) {
        snprintf(reason, size, "%s", lib_reason);
        return PERFQ_ENOTSUP;
    }
    *state = devs;
    return PERFQ_OK;
}

static perfq_status_t range_enumerate(void *state, struct perfq_catalog *catalog,
                                      const char *probe_reason)
{
    char name[32], description[512];
    if (!state) {
        struct perfq_counter_desc all[N_METRICS + 1];
        memcpy(all, metrics, sizeof(metrics));
        all[N_METRICS] = passes_desc;
        struct perfq_group_desc group = {"cupti-range", "Hardware metrics of a CUDA program's "
                                         "own work between begin and end (CUPTI range "
                                         "profiler, C API), one group per CUDA device "
                                         "(cupti-range-gpu0...) where the driver and CUPTI are",
                                         PERFQ_SCOPE_GPU_TIMELINE, 0};
        return perfq_catalog_add_table(catalog, &group, all, N_METRICS + 1, probe_reason);
    }
    perfq_status_t s = PERFQ_OK;
    for (unsigned d = 0; d < device_count && s == PERFQ_OK; d++) {
        const struct range_device *dev = &devs[d];
        snprintf(name, sizeof(name), "cupti-range-gpu%u", d);
        snprintf(description, sizeof(description), "Hardware metrics of the CUDA work of the "
                 "calling thread's context between begin and end on CUDA device %u (%.31s), from "
                 "CUPTI's range profiler (C API; one pass per measurement: all %zu metrics "
                 "together take %zu passes here)", d, dev->chip[0] ? dev->chip : "unknown chip",
                 N_METRICS, dev->set_passes);
        struct perfq_group_desc group = {name, description, PERFQ_SCOPE_GPU_TIMELINE, 0};
        uint32_t gi;
        s = perfq_catalog_add_group(catalog, &group, NULL, &gi);
        for (size_t m = 0; m <= N_METRICS && s == PERFQ_OK; m++)
            s = perfq_catalog_add_counter(catalog, gi, &dev->descs[m],
                                          m < N_METRICS && dev->reason[m][0] ? dev->reason[m]
                                                                             : NULL);
    }
    return s;
}

struct range_session {
    size_t count;                 /* counters asked for */
    int *index;                   /* metric index, or -1 for "passes" */
    const char **names;           /* the metrics measured (no "passes") */
    size_t n_names;
    double *values;               /* per metric, after end */
    CUcontext ctx;
    CUpti_Profiler_Host_Object *host;
    uint8_t *availability, *config, *data;
    size_t config_size, data_size, passes;
    CUpti_RangeProfiler_Object *rp;
    int started, ended, have_values, used;
    perfq_status_t end_status;
};

static CUptiResult enable(struct range_session *s)
{
    CUpti_RangeProfiler_Enable_Params en = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject), NULL, s->ctx,
        NULL};
    CUptiResult rc = F.cuptiRangeProfilerEnable(&en);
    if (rc == CUPTI_SUCCESS)
        s->rp = en.pRangeProfilerObject;
    return rc;
}

static void disable(struct range_session *s)
{
    CUpti_RangeProfiler_Disable_Params dis = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_Disable_Params, pRangeProfilerObject), NULL, s->rp};
    F.cuptiRangeProfilerDisable(&dis);
    s->rp = NULL;
}

static void range_session_close(void *session)
{
    struct range_session *s = session;
    if (s->started) {   /* ended without end: stop the profiler before disabling it */
        CUpti_RangeProfiler_PopRange_Params pop = {
            PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_PopRange_Params, pRangeProfilerObject), NULL,
            s->rp};
        F.cuptiRangeProfilerPopRange(&pop);
        CUpti_RangeProfiler_Stop_Params stop = {
            PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted), NULL, s->rp,
            0, 0, 0};
        F.cuptiRangeProfilerStop(&stop);
    }
    if (s->rp)
        disable(s);
    perfq__cupti_host_free(&F, &s->host);
    free(s->availability);
    free(s->config);
    free(s->data);
    free(s->index);
    free(s->names);
    free(s->values);
    free(s);
}

/* PERFQ_CUPTI_DEBUG=1: each refusal on stderr with the call that made it (the status alone
 * cannot say which). */
static perfq_status_t refused(const char *call, CUptiResult rc);

static perfq_status_t status_of(CUptiResult rc)
{
    if (rc == CUPTI_ERROR_HARDWARE_BUSY)
        return PERFQ_EBUSY;
    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
        rc == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES ||
        rc == CUPTI_ERROR_NOT_SUPPORTED)
        return PERFQ_ENOTSUP;
    return PERFQ_ESYS;
}

static perfq_status_t range_session_open(void *state, const struct perfq_session_request *req,
                                         void **session)
{
    (void)state;
    /* The range is pushed into the calling thread's CUDA context: only the program itself. */
    if (req->target.kind != PERFQ_TARGET_SELF)
        return PERFQ_ENOTSUP;
    CUcontext ctx = NULL;
    CUdevice device = -1;
    if (F.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx ||
        F.cuCtxGetDevice(&device) != CUDA_SUCCESS)
        return PERFQ_ESTATE;   /* no current CUDA context on this thread */
    struct range_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    s->ctx = ctx;
    s->count = req->count;
    s->index = calloc(req->count, sizeof(*s->index));
    s->names = calloc(req->count, sizeof(*s->names));
    s->values = calloc(req->count, sizeof(*s->values));
    if (!s->index || !s->names || !s->values) {
        range_session_close(s);
        return PERFQ_ENOMEM;
    }
    for (size_t i = 0; i < req->count; i++) {
        const struct perfq_counter_desc *c = req->counters[i];
        if ((CUdevice)c->code2 != device) {   /* a group of another device than the context's */
            range_session_close(s);
            return PERFQ_EINVAL;
        }
        if (c->code == CODE_PASSES) {
            s->index[i] = -1;
            continue;
        }
        s->index[i] = (int)s->n_names;
        s->names[s->n_names++] = metrics[c->code].name;
    }
    if (s->n_names == 0) {
        /* Only "passes": nothing to profile; the empty set takes none. */
        *session = s;
        return PERFQ_OK;
    }
    CUpti_Profiler_GetCounterAvailability_Params av = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_GetCounterAvailability_Params, pCounterAvailabilityImage),
        NULL, ctx, 0, NULL};
    CUptiResult rc = F.cuptiProfilerGetCounterAvailability(&av);
    if (rc == CUPTI_SUCCESS) {
        s->availability = malloc(av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize
                                                                 : 1);
        av.pCounterAvailabilityImage = s->availability;
        rc = s->availability ? F.cuptiProfilerGetCounterAvailability(&av)
                             : CUPTI_ERROR_NOT_INITIALIZED;
    }
    const char *call = "cuptiProfilerGetCounterAvailability";
    if (rc == CUPTI_SUCCESS)
        rc = make_config(devs[device].chip, s->availability, s->names, s->n_names, &s->host,
                         &s->config, &s->config_size, &s->passes, &call);
    if (rc != CUPTI_SUCCESS) {
        range_session_close(s);
        return refused(call, rc);
    }
    if (s->passes != 1) {
        range_session_close(s);
        return PERFQ_EPASSES;
    }
    if ((rc = enable(s)) != CUPTI_SUCCESS) {
        range_session_close(s);
        return refused("cuptiRangeProfilerEnable", rc);
    }
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize), NULL,
        s->rp, s->names, s->n_names, 1, 1, 0};
    if ((rc = F.cuptiRangeProfilerGetCounterDataSize(&ds)) != CUPTI_SUCCESS) {
        range_session_close(s);
        return refused("cuptiRangeProfilerGetCounterDataSize", rc);
    }
    s->data_size = ds.counterDataSize;
    s->data = calloc(1, s->data_size ? s->data_size : 1);
    if (!s->data) {
        range_session_close(s);
        return PERFQ_ENOMEM;
    }
    *session = s;
    return PERFQ_OK;
}

static CUptiResult start_range(struct range_session *s)
{
    /* A fresh counter data image per interval, one range of one nesting level, user replay
     * of the single pass. */
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pCounterData),
        NULL, s->rp, s->data_size, s->data};
    CUptiResult rc = F.cuptiRangeProfilerCounterDataImageInitialize(&init);
    CUpti_RangeProfiler_SetConfig_Params cfg = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel), NULL, s->rp,
        s->config_size, s->config, s->data_size, s->data, CUPTI_UserRange, CUPTI_UserReplay, 1,
        1, 1, 0, 1};
    if (rc == CUPTI_SUCCESS)
        rc = F.cuptiRangeProfilerSetConfig(&cfg);
    CUpti_RangeProfiler_Start_Params start = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_Start_Params, pRangeProfilerObject), NULL, s->rp};
    if (rc == CUPTI_SUCCESS)
        rc = F.cuptiRangeProfilerStart(&start);
    if (rc != CUPTI_SUCCESS)
        return rc;
    CUpti_RangeProfiler_PushRange_Params push = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_PushRange_Params, pRangeName), NULL, s->rp,
        "perfq"};
    rc = F.cuptiRangeProfilerPushRange(&push);
    if (rc != CUPTI_SUCCESS) {
        CUpti_RangeProfiler_Stop_Params stop = {
            PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted), NULL, s->rp,
            0, 0, 0};
        F.cuptiRangeProfilerStop(&stop);
    }
    return rc;
}

static perfq_status_t range_begin(void *session)
{
    struct range_session *s = session;
    s->ended = s->have_values = 0;
    if (!s->rp)
        return PERFQ_OK;
    if (s->started)
        return PERFQ_ESTATE;
    CUptiResult rc = start_range(s);
    if (rc != CUPTI_SUCCESS && s->used) {
        /* An object that profiled an interval before and will not configure again: a new
         * one (the counter data image's size depends only on the metrics). */
        disable(s);
        rc = enable(s);
        if (rc == CUPTI_SUCCESS)
            rc = start_range(s);
    }
    if (rc != CUPTI_SUCCESS)
        return refused("cuptiRangeProfiler (begin: image, SetConfig, Start, PushRange)", rc);
    s->started = 1;
    s->used = 1;
    return PERFQ_OK;
}

static perfq_status_t range_end(void *session)
{
    struct range_session *s = session;
    s->ended = 1;
    s->end_status = PERFQ_OK;
    if (!s->rp)
        return PERFQ_OK;
    if (!s->started)
        return s->end_status = PERFQ_ESTATE;
    s->started = 0;
    CUpti_RangeProfiler_PopRange_Params pop = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_PopRange_Params, pRangeProfilerObject), NULL, s->rp};
    CUptiResult rc = F.cuptiRangeProfilerPopRange(&pop);
    CUpti_RangeProfiler_Stop_Params stop = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted), NULL, s->rp, 0, 0,
        0};
    CUptiResult rc2 = F.cuptiRangeProfilerStop(&stop);
    if (rc == CUPTI_SUCCESS)
        rc = rc2;
    /* The range's work must have finished before its counters are decoded: end waits for the
     * context (a range profiler measurement serialises the work it measures anyway). */
    if (rc == CUPTI_SUCCESS && F.cuCtxSynchronize() != CUDA_SUCCESS)
        return s->end_status = PERFQ_ESYS;
    CUpti_RangeProfiler_DecodeData_Params dec = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped), NULL, s->rp,
        0};
    if (rc == CUPTI_SUCCESS)
        rc = F.cuptiRangeProfilerDecodeData(&dec);
    if (rc != CUPTI_SUCCESS)
        return s->end_status = refused("cuptiRangeProfiler (end: PopRange, Stop, DecodeData)", rc);
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        PERFQ_CUPTI_SIZE(CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges), NULL,
        s->data, s->data_size, 0};
    rc = F.cuptiRangeProfilerGetCounterDataInfo(&info);
    if (rc != CUPTI_SUCCESS)
        return s->end_status = refused("cuptiRangeProfilerGetCounterDataInfo", rc);
    if (info.numTotalRanges < 1 || dec.numOfRangeDropped) {
        if (getenv("PERFQ_CUPTI_DEBUG"))
            fprintf(stderr, "perfq cupti-range: %zu ranges decoded, %zu dropped\n",
                    info.numTotalRanges, dec.numOfRangeDropped);
        return PERFQ_OK;   /* no range recorded: the values read "not counted" */
    }
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues), NULL,
        s->host, s->data, s->data_size, 0, s->names, s->n_names, s->values};
    rc = F.cuptiProfilerHostEvaluateToGpuValues(&ev);
    if (rc != CUPTI_SUCCESS)
        return s->end_status = refused("cuptiProfilerHostEvaluateToGpuValues", rc);
    s->have_values = 1;
    return PERFQ_OK;
}

static perfq_status_t range_result(void *session, int wait, perfq_value_t *values)
{
    (void)wait;   /* end decoded the range already */
    struct range_session *s = session;
    if (!s->ended)
        return PERFQ_ESTATE;
    if (s->end_status != PERFQ_OK)
        return s->end_status;
    for (size_t i = 0; i < s->count; i++) {
        perfq_value_t *v = &values[i];
        memset(v, 0, sizeof(*v));
        if (s->index[i] < 0) {
            v->v.u64 = s->passes;
            continue;
        }
        if (!s->have_values) {
            v->flags = PERFQ_VALUE_NOT_COUNTED;
            continue;
        }
        double x = s->values[s->index[i]];
        const char *name = s->names[s->index[i]];
        int is_float = strstr(name, ".avg") != NULL;
        if (is_float)
            v->v.f64 = x;
        else
            v->v.u64 = x > 0 ? (uint64_t)(x + 0.5) : 0;
    }
    return PERFQ_OK;
}

static perfq_status_t refused(const char *call, CUptiResult rc)
{
    const char *debug = getenv("PERFQ_CUPTI_DEBUG");
    if (debug && *debug && strcmp(debug, "0") != 0) {
        char text[256];
        perfq__cupti_explain(&F, text, sizeof(text), call, rc);
        fprintf(stderr, "perfq cupti-range: %s\n", text);
    }
    return status_of(rc);
}

const struct perfq_provider_ops perfq_cupti_range_provider = {
    .name = "cupti-range",
    .probe = range_probe,
    .enumerate = range_enumerate,
    .session_open = range_session_open,
    .begin = range_begin,
    .sample = NULL,
    .end = range_end,
    .result = range_result,
    .session_close = range_session_close,
    .close = NULL,
    /* Its probe initialises CUDA and CUPTI (seconds): probed when the whole catalog is read. */
    .deferred_max_groups = RANGE_MAX_DEVICES,
    .deferred_max_counters = RANGE_MAX_DEVICES * (N_METRICS + 1),
};
