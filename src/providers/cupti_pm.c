/*
 * CUPTI PM sampling for the "cupti" provider (cupti_pm.h). The sequence is CUPTI's own (its
 * pm_sampling sample): cuInit, cuptiProfilerInitialize, per device the chip name and counter
 * availability, a host object that turns metric names into a config image (one pass required),
 * then cuptiPmSamplingEnable/SetConfig/Start on the device, and cuptiPmSamplingDecodeData into a
 * counter data image, evaluated sample by sample with cuptiProfilerHostEvaluateToGpuValues.
 * PM sampling counts the whole device (every context and process), so any program on the GPU
 * (GL, OpenCL, CUDA) is seen, with no injection into it.
 *
 * Sample timestamps are CUPTI's (cuptiGetTimestamp's clock); each device's offset to
 * CLOCK_MONOTONIC is taken when sampling starts, from a cuptiGetTimestamp call bracketed by two
 * clock_gettime calls (error: half the bracket, a few microseconds).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfq/perfq.h"
#include "providers/cupti_lib.h"
#include "providers/cupti_pm.h"

const char *const perfq__cupti_metrics[CUPTI_METRICS] = {
    "sm__cycles_active.avg", "dram__bytes_read.sum", "dram__bytes_write.sum",
    "smsp__inst_executed.sum",
};

#define HW_BUFFER_BYTES (64u << 20)
/* The counter data image holds the samples of one decode period and a few more (a late decoder
 * decodes the rest in further rounds): it is re-initialised after every decode, at a cost
 * proportional to its size (H100: 4-7 us per sample slot, docs/nvidia-providers.md). */
static uint32_t samples_per_decode(void);

static struct perfq_cupti_fns F;   /* the CUDA and CUPTI lists */

struct pm_device {
    CUpti_Profiler_Host_Object *host;
    CUpti_PmSampling_Object *pm;
    uint8_t *availability;
    uint8_t *config;
    size_t config_size;
    uint8_t *counter_data;
    size_t counter_data_size;
    int64_t offset;              /* CLOCK_MONOTONIC - CUPTI timestamp, ns */
    unsigned users;
    double sum[CUPTI_METRICS];   /* running sums up to newest_t */
    uint64_t newest_t;           /* end of the newest decoded sample (monotonic ns) */
    uint64_t samples, lost;
    unsigned open;               /* sessions between begin and end (perfq__cupti_interval) */
    /* PERFQ_CUPTI_PROFILE=1: the decoder's thread CPU time per CUPTI call kind, printed on
     * stderr when the device stops (what decides its cost: docs/nvidia-providers.md). */
    double cpu_decode, cpu_info, cpu_eval, cpu_eval1, cpu_reset;
    uint64_t decodes, evaluated, skipped, evaluated1;
    uint64_t bracket;            /* the offset's clock_gettime bracket, ns */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tick = PTHREAD_COND_INITIALIZER;
static unsigned lib_users;
static int lib_state;            /* 0: not tried; 1: ready; -1: failed (reason kept) */
static char lib_reason[256];
static struct cupti_global G;
static struct pm_device D[CUPTI_MAX_DEVICES];
static char reason_text[CUPTI_MAX_DEVICES][CUPTI_METRICS][160];
static pthread_t thread;
static int running, stopping;
static int wake_now;             /* a starter waits for a first sample: decode again at once */
static struct cupti_anchor *pending;
/* Defaults from the GPU machine (H100, bench/cuda/cupti_dram.cu, PERFQ_CUPTI_PROFILE=1): CUPTI's
 * decode costs about 0.75 ms per call and 30 us per sample, the image's re-initialisation about
 * 4-7 us per slot, the evaluation 11 us per sample; 1 ms samples decoded every 100 ms cost about
 * 4.5 % of a core with an interval open (10 ms samples: about 1.3 %, but the SM metrics lose
 * nearly all their counts at that period; docs/nvidia-providers.md). */
static uint64_t interval_ns = 1000000, decode_ns = 100000000;
static int profile;              /* PERFQ_CUPTI_PROFILE */

static uint32_t samples_per_decode(void)
{
    uint64_t n = decode_ns / interval_ns + 16;
    return n > 4096 ? 4096u : (uint32_t)n;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A host object with `n` metrics added; CUPTI_SUCCESS or the first refusal (*call names it). */
static CUptiResult host_with(unsigned d, const char *const *metrics, size_t n,
                             CUpti_Profiler_Host_Object **host, const char **call)
{
    CUpti_Profiler_Host_Initialize_Params init = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_Initialize_Params, pHostObject), NULL,
        CUPTI_PROFILER_TYPE_PM_SAMPLING, G.dev[d].chip, D[d].availability, NULL};
    *call = "cuptiProfilerHostInitialize";
    CUptiResult rc = F.cuptiProfilerHostInitialize(&init);
    if (rc != CUPTI_SUCCESS)
        return rc;
    *host = init.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics), NULL, *host,
        (const char **)metrics, n};
    *call = "cuptiProfilerHostConfigAddMetrics";
    rc = F.cuptiProfilerHostConfigAddMetrics(&add);
    if (rc != CUPTI_SUCCESS)
        perfq__cupti_host_free(&F, host);
    return rc;
}

/* The config image of the whole metric set into D[d] (and the pass count). */
static CUptiResult make_config(unsigned d, const char **call)
{
    CUptiResult rc = host_with(d, perfq__cupti_metrics, CUPTI_METRICS, &D[d].host, call);
    if (rc != CUPTI_SUCCESS)
        return rc;
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize), NULL,
        D[d].host, 0};
    *call = "cuptiProfilerHostGetConfigImageSize";
    if ((rc = F.cuptiProfilerHostGetConfigImageSize(&sz)) != CUPTI_SUCCESS)
        return rc;
    free(D[d].config);
    D[d].config = malloc(sz.configImageSize ? sz.configImageSize : 1);
    if (!D[d].config)
        return CUPTI_ERROR_NOT_INITIALIZED;
    D[d].config_size = sz.configImageSize;
    CUpti_Profiler_Host_GetConfigImage_Params img = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage), NULL,
        D[d].host, D[d].config_size, D[d].config};
    *call = "cuptiProfilerHostGetConfigImage";
    if ((rc = F.cuptiProfilerHostGetConfigImage(&img)) != CUPTI_SUCCESS)
        return rc;
    CUpti_Profiler_Host_GetNumOfPasses_Params passes = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses), NULL,
        D[d].config_size, D[d].config, 0};
    *call = "cuptiProfilerHostGetNumOfPasses";
    if ((rc = F.cuptiProfilerHostGetNumOfPasses(&passes)) != CUPTI_SUCCESS)
        return rc;
    G.dev[d].passes = passes.numOfPasses;
    return CUPTI_SUCCESS;
}

static void set_all_reasons(unsigned d, const char *text)
{
    for (int m = 0; m < CUPTI_METRICS; m++) {
        snprintf(reason_text[d][m], sizeof(reason_text[d][m]), "%s", text);
        G.dev[d].reason[m] = reason_text[d][m];
    }
}

static void pm_disable(unsigned d)
{
    if (!D[d].pm)
        return;
    CUpti_PmSampling_Disable_Params p = {
        PERFQ_CUPTI_SIZE(CUpti_PmSampling_Disable_Params, pPmSamplingObject), NULL, D[d].pm};
    F.cuptiPmSamplingDisable(&p);
    D[d].pm = NULL;
}

static CUptiResult pm_enable(unsigned d)
{
    CUpti_PmSampling_Enable_Params p = {
        PERFQ_CUPTI_SIZE(CUpti_PmSampling_Enable_Params, pPmSamplingObject), NULL, d, NULL};
    CUptiResult rc = F.cuptiPmSamplingEnable(&p);
    if (rc == CUPTI_SUCCESS)
        D[d].pm = p.pPmSamplingObject;
    return rc;
}

/* One device: chip, availability, each metric alone, the set's passes, and one trial enable
 * (which is where the driver refuses a user without permission, or a device whose counters
 * another process holds). Every failure is kept per counter. */
static void probe_device(unsigned d)
{
    char text[160];
    CUpti_Device_GetChipName_Params chip = {
        PERFQ_CUPTI_SIZE(CUpti_Device_GetChipName_Params, pChipName), NULL, d, NULL};
    CUptiResult rc = F.cuptiDeviceGetChipName(&chip);
    if (rc != CUPTI_SUCCESS) {
        perfq__cupti_explain(&F, text, sizeof(text), "cuptiDeviceGetChipName", rc);
        set_all_reasons(d, text);
        return;
    }
    snprintf(G.dev[d].chip, sizeof(G.dev[d].chip), "%s", chip.pChipName);
    CUpti_PmSampling_GetCounterAvailability_Params av = {
        PERFQ_CUPTI_SIZE(CUpti_PmSampling_GetCounterAvailability_Params,
                         pCounterAvailabilityImage), NULL, d, 0, NULL};
    rc = F.cuptiPmSamplingGetCounterAvailability(&av);
    if (rc == CUPTI_SUCCESS) {
        size_t bytes = av.counterAvailabilityImageSize;
        D[d].availability = malloc(bytes ? bytes : 1);
        av.pCounterAvailabilityImage = D[d].availability;
        rc = D[d].availability ? F.cuptiPmSamplingGetCounterAvailability(&av)
                               : CUPTI_ERROR_NOT_INITIALIZED;
    }
    if (rc != CUPTI_SUCCESS) {
        perfq__cupti_explain(&F, text, sizeof(text), "cuptiPmSamplingGetCounterAvailability", rc);
        set_all_reasons(d, text);
        return;
    }
    for (int m = 0; m < CUPTI_METRICS; m++) {
        CUpti_Profiler_Host_Object *h = NULL;
        const char *call;
        rc = host_with(d, &perfq__cupti_metrics[m], 1, &h, &call);
        perfq__cupti_host_free(&F, &h);
        if (rc != CUPTI_SUCCESS) {
            perfq__cupti_explain(&F, reason_text[d][m], sizeof(reason_text[d][m]), call, rc);
            G.dev[d].reason[m] = reason_text[d][m];
        }
    }
    const char *call;
    rc = make_config(d, &call);
    perfq__cupti_host_free(&F, &D[d].host);
    if (rc != CUPTI_SUCCESS) {
        perfq__cupti_explain(&F, text, sizeof(text), call, rc);
        set_all_reasons(d, text);
        return;
    }
    if (G.dev[d].passes != 1) {
        snprintf(text, sizeof(text), "the metric set needs %zu passes on %s; PM sampling "
                 "cannot replay", G.dev[d].passes, G.dev[d].chip);
        set_all_reasons(d, text);
        return;
    }
    rc = pm_enable(d);
    pm_disable(d);
    if (rc != CUPTI_SUCCESS) {
        perfq__cupti_explain(&F, text, sizeof(text), "cuptiPmSamplingEnable", rc);
        set_all_reasons(d, text);
    }
}

static int init_library(char *reason, size_t size)
{
    int count;
    if (perfq__cupti_load_cuda(&F, 0, reason, size) ||
        perfq__cupti_load_cupti(&F, 0, reason, size) ||
        perfq__cupti_init_driver(&F, &count, reason, size))
        return -1;
    G.device_count = count > CUPTI_MAX_DEVICES ? CUPTI_MAX_DEVICES : (unsigned)count;
    for (unsigned d = 0; d < G.device_count; d++)
        probe_device(d);
    const char *iv = getenv("PERFQ_CUPTI_INTERVAL_US");
    if (iv && atol(iv) >= 10 && atol(iv) <= 1000000)
        interval_ns = (uint64_t)atol(iv) * 1000u;
    const char *pv = getenv("PERFQ_CUPTI_PROFILE");
    profile = pv && *pv && strcmp(pv, "0") != 0;
    const char *dv = getenv("PERFQ_CUPTI_DECODE_MS");
    if (dv && atol(dv) >= 1 && atol(dv) <= 1000)
        decode_ns = (uint64_t)atol(dv) * 1000000u;
    return 0;
}

int perfq__cupti_acquire(const struct cupti_global **g, char *reason, size_t size)
{
    pthread_mutex_lock(&lock);
    if (lib_state == 0)
        lib_state = init_library(lib_reason, sizeof(lib_reason)) ? -1 : 1;
    int ok = lib_state == 1;
    if (ok) {
        lib_users++;
        *g = &G;
    } else {
        snprintf(reason, size, "%s", lib_reason);
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

void perfq__cupti_release(void)
{
    pthread_mutex_lock(&lock);
    if (lib_users)
        lib_users--;
    pthread_mutex_unlock(&lock);
}

/* ---- the decoder thread ------------------------------------------------------------------ */

static CUptiResult counter_data_reset(unsigned d)
{
    CUpti_PmSampling_CounterDataImage_Initialize_Params p = {
        PERFQ_CUPTI_SIZE(CUpti_PmSampling_CounterDataImage_Initialize_Params, pCounterData),
        NULL, D[d].pm, D[d].counter_data_size, D[d].counter_data};
    return F.cuptiPmSamplingCounterDataImageInitialize(&p);
}

/* Applies one decoded sample [t0, t1] with values v. A sample counts whole for an interval it
 * overlaps: a begin anchor inside it takes the sums before it, an end anchor inside it the sums
 * including it. Where in a sample the work happened is not known, and prorating by time lost
 * up to 48 % of a 0.76 ms copy that sat inside one 1 ms sample (GPU machine, H100); so an
 * interval is widened to whole samples, at most one sampling period (100 us) at each end.
 * Anchors before the sample (a gap) take the sums before it. Under lock. */
static void apply(unsigned d, uint64_t t0, uint64_t t1, const double *v)
{
    struct pm_device *dev = &D[d];
    if (dev->samples++ == 0) {
        /* The first sample after Start undercounts the SM metrics (H100: 1-24 % of a copy's
         * instructions when it held the whole copy): dropped. perfq__cupti_start waits for it,
         * so no interval of a session can overlap it. */
        dev->newest_t = t1;
        return;
    }
    if (t0 < dev->newest_t)
        t0 = dev->newest_t;       /* never count a stretch twice */
    if (t1 < t0)
        t1 = t0;
    for (struct cupti_anchor *a = pending; a; a = a->next) {
        if (!(a->pending & (1u << d)) || a->t > t1)
            continue;
        double f = a->t <= t0 ? 0 : a->is_end ? 1 : 0;
        for (int m = 0; m < CUPTI_METRICS; m++)
            a->value[d][m] = dev->sum[m] + f * v[m];
        a->lost[d] = dev->lost;
        a->pending &= ~(1u << d);
    }
    for (int m = 0; m < CUPTI_METRICS; m++)
        dev->sum[m] += v[m];
    dev->newest_t = t1;
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether device d's samples must be evaluated now: an interval of it open, or an anchor of
 * it pending. Under lock. */
static int needed(unsigned d)
{
    if (D[d].open)
        return 1;
    for (const struct cupti_anchor *a = pending; a; a = a->next)
        if (a->pending & (1u << d))
            return 1;
    return 0;
}

/* Decodes what the hardware buffer holds; called without the lock (CUPTI work), takes it to
 * apply. A sample no interval needs is skipped unevaluated: applied as zeros, which changes no
 * difference between two anchors (an anchor posted since the check, on a clock edge, resolves
 * as for any sample: a begin takes the sums before it). A failed decode marks the device lost. */
static void decode_device(unsigned d)
{
    struct pm_device *dev = &D[d];
    double c0 = 0, c1 = 0;
    for (int round = 0; round < 64; round++) {
        CUpti_PmSampling_DecodeData_Params dp = {
            PERFQ_CUPTI_SIZE(CUpti_PmSampling_DecodeData_Params, overflow), NULL, dev->pm,
            dev->counter_data, dev->counter_data_size, 0, 0};
        if (profile)
            c0 = thread_cpu();
        CUptiResult rc = F.cuptiPmSamplingDecodeData(&dp);
        if (profile) {
            c1 = thread_cpu();
            dev->cpu_decode += c1 - c0;
            dev->decodes++;
        }
        if (rc != CUPTI_SUCCESS) {
            pthread_mutex_lock(&lock);
            dev->lost++;
            pthread_mutex_unlock(&lock);
            return;
        }
        CUpti_PmSampling_GetCounterDataInfo_Params info = {
            PERFQ_CUPTI_SIZE(CUpti_PmSampling_GetCounterDataInfo_Params, numCompletedSamples),
            NULL, dev->counter_data, dev->counter_data_size, 0, 0, 0};
        if (F.cuptiPmSamplingGetCounterDataInfo(&info) != CUPTI_SUCCESS)
            info.numCompletedSamples = 0;
        for (size_t i = 0; i < info.numCompletedSamples; i++) {
            CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
                PERFQ_CUPTI_SIZE(CUpti_PmSampling_CounterData_GetSampleInfo_Params,
                                 endTimestamp),
                NULL, dev->pm, dev->counter_data, dev->counter_data_size, i, 0, 0};
            double v[CUPTI_METRICS] = {0};
            CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
                PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues),
                NULL, dev->host, dev->counter_data, dev->counter_data_size, i,
                (const char **)perfq__cupti_metrics, CUPTI_METRICS, v};
            if (profile)
                c0 = thread_cpu();
            rc = F.cuptiPmSamplingCounterDataGetSampleInfo(&si);
            if (profile)
                dev->cpu_info += (c1 = thread_cpu()) - c0;
            pthread_mutex_lock(&lock);
            /* The first sample is dropped unevaluated too (apply). */
            int evaluate = dev->samples > 0 && needed(d);
            pthread_mutex_unlock(&lock);
            if (rc == CUPTI_SUCCESS && evaluate) {
                rc = F.cuptiProfilerHostEvaluateToGpuValues(&ev);
                if (profile) {
                    c0 = thread_cpu();
                    dev->cpu_eval += c0 - c1;
                    dev->evaluated++;
                    if (dev->evaluated % 16 == 0) {   /* one metric alone, for comparison */
                        double one = 0;
                        CUpti_Profiler_Host_EvaluateToGpuValues_Params e1 = ev;
                        e1.numMetrics = 1;
                        e1.pMetricValues = &one;
                        F.cuptiProfilerHostEvaluateToGpuValues(&e1);
                        dev->cpu_eval1 += thread_cpu() - c0;
                        dev->evaluated1++;
                    }
                }
            } else if (profile && rc == CUPTI_SUCCESS) {
                dev->skipped++;
            }
            pthread_mutex_lock(&lock);
            if (rc != CUPTI_SUCCESS) {
                dev->lost++;
            } else {
                uint64_t t0 = (uint64_t)((int64_t)si.startTimestamp + dev->offset);
                uint64_t t1 = (uint64_t)((int64_t)si.endTimestamp + dev->offset);
                apply(d, t0, t1, v);
            }
            pthread_mutex_unlock(&lock);
        }
        if (profile)
            c0 = thread_cpu();
        counter_data_reset(d);
        if (profile)
            dev->cpu_reset += thread_cpu() - c0;
        if (dp.overflow) {
            pthread_mutex_lock(&lock);
            dev->lost++;
            pthread_mutex_unlock(&lock);
        }
        if (dp.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
            break;
    }
}

static void *decoder_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        unsigned active = 0;
        for (unsigned d = 0; d < G.device_count; d++)
            if (D[d].users && D[d].pm)
                active |= 1u << d;
        pthread_mutex_unlock(&lock);
        for (unsigned d = 0; d < G.device_count; d++)
            if (active & (1u << d))
                decode_device(d);
        pthread_mutex_lock(&lock);
        pthread_cond_broadcast(&tick);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + decode_ns;
        until.tv_sec += (time_t)(ns / 1000000000u);
        until.tv_nsec = (long)(ns % 1000000000u);
        while (!stopping && !wake_now &&
               pthread_cond_timedwait(&tick, &lock, &until) != ETIMEDOUT)
            ;
        wake_now = 0;
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

static pthread_condattr_t cond_attr;
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;

static void init_cond(void)
{
    /* Waits are deadlines on CLOCK_MONOTONIC, like every time in this file. */
    pthread_condattr_init(&cond_attr);
    pthread_condattr_setclock(&cond_attr, CLOCK_MONOTONIC);
    pthread_cond_destroy(&tick);
    pthread_cond_init(&tick, &cond_attr);
}

static void device_stop(unsigned d)
{
    struct pm_device *dev = &D[d];
    if (profile && dev->decodes) {
        uint64_t n = dev->evaluated + dev->skipped;
        fprintf(stderr, "perfq cupti: device %u decoder CPU: %llu decodes %.1f us each; %llu "
                "samples (%llu evaluated, %llu skipped): sample info %.2f us each, evaluate "
                "(4 metrics) %.1f us each, 1 metric alone %.1f us; image reset %.1f us per "
                "decode; CLOCK_MONOTONIC offset bracket %llu ns\n", d,
                (unsigned long long)dev->decodes,
                1e6 * dev->cpu_decode / (double)dev->decodes, (unsigned long long)n,
                (unsigned long long)dev->evaluated, (unsigned long long)dev->skipped,
                n ? 1e6 * dev->cpu_info / (double)n : 0.0,
                dev->evaluated ? 1e6 * dev->cpu_eval / (double)dev->evaluated : 0.0,
                dev->evaluated1 ? 1e6 * dev->cpu_eval1 / (double)dev->evaluated1 : 0.0,
                1e6 * dev->cpu_reset / (double)dev->decodes, (unsigned long long)dev->bracket);
    }
    dev->cpu_decode = dev->cpu_info = dev->cpu_eval = dev->cpu_eval1 = dev->cpu_reset = 0;
    dev->decodes = dev->evaluated = dev->skipped = dev->evaluated1 = 0;
    if (dev->pm) {
        CUpti_PmSampling_Stop_Params sp = {
            PERFQ_CUPTI_SIZE(CUpti_PmSampling_Stop_Params, pPmSamplingObject), NULL, dev->pm};
        F.cuptiPmSamplingStop(&sp);
    }
    pm_disable(d);
    perfq__cupti_host_free(&F, &dev->host);
    free(dev->counter_data);
    dev->counter_data = NULL;
}

/* First user of a device: config, enable, set config, counter data, start. Under lock (the
 * decoder thread does not touch a device with users == 0). */
static int device_start(unsigned d)
{
    struct pm_device *dev = &D[d];
    char text[160];
    const char *call = "cuptiPmSamplingEnable";
    CUptiResult rc = make_config(d, &call);
    if (rc == CUPTI_SUCCESS && (call = "cuptiPmSamplingEnable", rc = pm_enable(d)) ==
        CUPTI_SUCCESS) {
        CUpti_PmSampling_SetConfig_Params sc = {
            PERFQ_CUPTI_SIZE(CUpti_PmSampling_SetConfig_Params, hwBufferAppendMode), NULL,
            dev->pm, dev->config_size, dev->config, HW_BUFFER_BYTES, interval_ns,
            CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
            CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST};
        call = "cuptiPmSamplingSetConfig";
        rc = F.cuptiPmSamplingSetConfig(&sc);
    }
    if (rc == CUPTI_SUCCESS) {
        CUpti_PmSampling_GetCounterDataSize_Params ds = {
            PERFQ_CUPTI_SIZE(CUpti_PmSampling_GetCounterDataSize_Params, counterDataSize), NULL,
            dev->pm, (const char **)perfq__cupti_metrics, CUPTI_METRICS,
            samples_per_decode(), 0};
        call = "cuptiPmSamplingGetCounterDataSize";
        rc = F.cuptiPmSamplingGetCounterDataSize(&ds);
        if (rc == CUPTI_SUCCESS) {
            dev->counter_data = malloc(ds.counterDataSize ? ds.counterDataSize : 1);
            dev->counter_data_size = ds.counterDataSize;
            call = "cuptiPmSamplingCounterDataImageInitialize";
            rc = dev->counter_data ? counter_data_reset(d) : CUPTI_ERROR_NOT_INITIALIZED;
        }
    }
    if (rc == CUPTI_SUCCESS) {
        uint64_t before = now_ns(), ts = 0;
        F.cuptiGetTimestamp(&ts);
        uint64_t after = now_ns();
        dev->offset = (int64_t)(before + (after - before) / 2) - (int64_t)ts;
        dev->bracket = after - before;
        CUpti_PmSampling_Start_Params st = {
            PERFQ_CUPTI_SIZE(CUpti_PmSampling_Start_Params, pPmSamplingObject), NULL, dev->pm};
        call = "cuptiPmSamplingStart";
        rc = F.cuptiPmSamplingStart(&st);
        dev->newest_t = before;
        dev->samples = 0;
    }
    if (rc == CUPTI_SUCCESS)
        return PERFQ_OK;
    /* Kept for the device: later instances list its counters unavailable with this. */
    perfq__cupti_explain(&F, text, sizeof(text), call, rc);
    set_all_reasons(d, text);
    device_stop(d);
    if (rc == CUPTI_ERROR_HARDWARE_BUSY)
        return PERFQ_EBUSY;
    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
        rc == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        return PERFQ_ENOTSUP;
    return PERFQ_ESYS;
}

int perfq__cupti_start(unsigned need)
{
    pthread_once(&cond_once, init_cond);
    pthread_mutex_lock(&lock);
    int st = PERFQ_OK;
    unsigned started = 0;
    for (unsigned d = 0; d < G.device_count && st == PERFQ_OK; d++) {
        if (!(need & (1u << d)))
            continue;
        if (D[d].users == 0)
            st = device_start(d);
        if (st == PERFQ_OK) {
            D[d].users++;
            started |= 1u << d;
        }
    }
    if (st == PERFQ_OK && !running) {
        stopping = 0;
        if (pthread_create(&thread, NULL, decoder_main, NULL) == 0)
            running = 1;
        else
            st = PERFQ_ESYS;
    }
    /* Wait for the (dropped) first sample of each device started here: begin anchors then
     * fall after it. The thread is woken at once rather than at its next period. */
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += 2 + (time_t)((interval_ns + decode_ns) / 1000000000u);
    for (unsigned d = 0; d < G.device_count && st == PERFQ_OK; d++)
        while ((started & (1u << d)) && D[d].samples == 0 && running) {
            wake_now = 1;
            pthread_cond_broadcast(&tick);
            if (pthread_cond_timedwait(&tick, &lock, &until) == ETIMEDOUT) {
                st = PERFQ_ESYS;
                break;
            }
        }
    pthread_mutex_unlock(&lock);
    if (st != PERFQ_OK)
        perfq__cupti_stop(started);
    return st;
}

void perfq__cupti_stop(unsigned need)
{
    pthread_mutex_lock(&lock);
    unsigned users = 0;
    for (unsigned d = 0; d < G.device_count; d++) {
        if ((need & (1u << d)) && D[d].users && --D[d].users == 0) {
            /* The thread may be decoding it: stop it with the thread parked. */
            stopping = running;
            pthread_cond_broadcast(&tick);
            pthread_t t = thread;
            int was_running = running;
            running = 0;
            pthread_mutex_unlock(&lock);
            if (was_running)
                pthread_join(t, NULL);
            pthread_mutex_lock(&lock);
            device_stop(d);
            memset(D[d].sum, 0, sizeof(D[d].sum));
        }
        users += D[d].users;
    }
    if (users && !running) {
        stopping = 0;
        if (pthread_create(&thread, NULL, decoder_main, NULL) == 0)
            running = 1;
    }
    pthread_mutex_unlock(&lock);
}

static void unlink_locked(struct cupti_anchor *a)
{
    for (struct cupti_anchor **l = &pending; *l; l = &(*l)->next)
        if (*l == a) {
            *l = a->next;
            break;
        }
    a->posted = 0;
}

void perfq__cupti_interval(unsigned need, int open)
{
    pthread_mutex_lock(&lock);
    for (unsigned d = 0; d < CUPTI_MAX_DEVICES; d++)
        if (need & (1u << d)) {
            if (open)
                D[d].open++;
            else if (D[d].open)
                D[d].open--;
        }
    pthread_mutex_unlock(&lock);
}

void perfq__cupti_anchor_post(struct cupti_anchor *a, int is_end)
{
    pthread_mutex_lock(&lock);
    if (a->posted)
        unlink_locked(a);
    a->t = now_ns();
    a->is_end = is_end;
    a->pending = a->need;
    a->next = pending;
    pending = a;
    a->posted = 1;
    pthread_mutex_unlock(&lock);
}

int perfq__cupti_anchor_wait(struct cupti_anchor *a, int wait)
{
    pthread_mutex_lock(&lock);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += 2;
    int rc = 0;
    while (a->pending) {
        if (!wait || !running) {
            rc = running ? 1 : -1;
            break;
        }
        /* A waiting result has the thread decode now, not at its next period. */
        wake_now = 1;
        pthread_cond_broadcast(&tick);
        if (pthread_cond_timedwait(&tick, &lock, &until) == ETIMEDOUT) {
            rc = a->pending ? -1 : 0;
            break;
        }
    }
    if (rc == 0 && a->posted)
        unlink_locked(a);
    pthread_mutex_unlock(&lock);
    return rc;
}

void perfq__cupti_anchor_cancel(struct cupti_anchor *a)
{
    pthread_mutex_lock(&lock);
    if (a->posted)
        unlink_locked(a);
    pthread_mutex_unlock(&lock);
}

void perfq__cupti_anchor_read(const struct cupti_anchor *a, struct cupti_anchor *out)
{
    pthread_mutex_lock(&lock);
    memcpy(out, a, sizeof(*out));
    pthread_mutex_unlock(&lock);
}

void perfq__cupti_read_now(unsigned need, double value[CUPTI_MAX_DEVICES][CUPTI_METRICS],
                           uint64_t lost[CUPTI_MAX_DEVICES])
{
    pthread_mutex_lock(&lock);
    for (unsigned d = 0; d < G.device_count; d++)
        if (need & (1u << d)) {
            memcpy(value[d], D[d].sum, sizeof(D[d].sum));
            lost[d] = D[d].lost;
        }
    pthread_mutex_unlock(&lock);
}
