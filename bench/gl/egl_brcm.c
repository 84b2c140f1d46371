/*
 * EGL_BRCM_performance_counters costs, side by side in one run (issue 9):
 *  1. eglGetPerfCounterDataBRCM of 8 counters with reset, against perfq_sampler_read with
 *     PERFQ_SAMPLER_RESET of the same 8 catalog counters through the C API directly (target:
 *     ratio <= 1.2). The 8: Driver Counters (5), Host CPU/CPU Time, host/task-clock,
 *     host/context-switches. Blocks of each alternate so that drift of a shared machine hits
 *     both; medians of the per-call block times are compared.
 *  2. eglSetPerfCountingBRCM(ACQUIRE) and (RELEASE), each timed alone (target: < 50 us each),
 *     beside perfq_counters_acquire/release.
 * No GL context is needed: the extension's functions take no display.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/provider.h"
#include "gl/providers/driver_counters.h"
#include "gl_test.h"
#include "perfq/perfq.h"

#define BLOCKS 31
#define CALLS 5000
#define CYCLES 2000

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(void)
{
    char domain[64];
    snprintf(domain, sizeof domain, "bench-egl-brcm-%d", (int)getpid());
    setenv("PERFQ_LOCK_NAME", domain, 1);

    /* The EGL side: acquire, choose the 8, start. */
    const struct glt_brcm brcm = {eglGetPerfCounterConstantBRCM, eglGetPerfCounterGroupInfoBRCM,
                                  eglGetPerfCounterInfoBRCM, eglSetPerfCountingBRCM,
                                  eglChoosePerfCountersBRCM, eglGetPerfCounterDataBRCM};
    EGLint drv = glt_brcm_group(&brcm, "Driver Counters"),
           cpu = glt_brcm_group(&brcm, "Host CPU"), host = glt_brcm_group(&brcm, "host");
    EGLint tc = host >= 0 ? glt_brcm_counter(&brcm, host, "task-clock") : -1,
           cs = host >= 0 ? glt_brcm_counter(&brcm, host, "context-switches") : -1;
    if (drv < 0 || cpu < 0 || tc < 0 || cs < 0) {
        fprintf(stderr, "bench: missing a group (host perf events refused here?)\n");
        return 1;
    }
    EGLint host_list[] = {tc, cs};
    if (!eglSetPerfCountingBRCM(EGL_ACQUIRE_COUNTERS_BRCM) ||
        !eglChoosePerfCountersBRCM(EGL_TRUE, drv, 0, NULL) ||
        !eglChoosePerfCountersBRCM(EGL_TRUE, cpu, 0, NULL) ||
        !eglChoosePerfCountersBRCM(EGL_TRUE, host, 2, host_list) ||
        !eglSetPerfCountingBRCM(EGL_START_COUNTERS_BRCM)) {
        fprintf(stderr, "bench: EGL setup failed (0x%x)\n", eglGetError());
        return 1;
    }
    EGLint bytes = 0;
    eglGetPerfCounterDataBRCM(0, NULL, &bytes, EGL_FALSE);
    if (bytes != 8 * 16) {
        fprintf(stderr, "bench: %d bytes of records, expected 128\n", bytes);
        return 1;
    }

    /* The C API side: the same 8 catalog counters in an instance with the same providers. */
    const struct perfq_provider_ops *ops[] = {&perfq_gl_driver_counters_provider};
    void *args[] = {NULL};
    perfq_t *pq;
    perfq_sampler_t *s;
    const char *names[] = {"Driver Counters/Draw Calls", "Driver Counters/Clears",
                           "Driver Counters/Swaps", "Driver Counters/Buffer Bytes Uploaded",
                           "Driver Counters/Texture Bytes Uploaded", "clock/process-cpu-time",
                           "host/task-clock", "host/context-switches"};
    perfq_counter_id_t ids[8];
    if (perfq__open_with(ops, args, 1, 1, &pq) != PERFQ_OK ||
        perfq_sampler_create(pq, NULL, &s) != PERFQ_OK)
        return 1;
    for (int i = 0; i < 8; i++)
        if (perfq_counter_find(pq, names[i], &ids[i]) != PERFQ_OK) {
            fprintf(stderr, "bench: no counter %s\n", names[i]);
            return 1;
        }
    if (perfq_sampler_choose(s, ids, 8, 1) != PERFQ_OK || perfq_sampler_start(s) != PERFQ_OK)
        return 1;

    unsigned char records[8 * 16];
    perfq_value_t values[8];
    double egl[BLOCKS], api[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < CALLS; i++)
            eglGetPerfCounterDataBRCM(sizeof records, records, &bytes, EGL_TRUE);
        uint64_t t1 = now_ns();
        for (int i = 0; i < CALLS; i++)
            perfq_sampler_read(s, PERFQ_SAMPLER_RESET, values, 8);
        uint64_t t2 = now_ns();
        egl[b] = (double)(t1 - t0) / CALLS;
        api[b] = (double)(t2 - t1) / CALLS;
    }
    double me = median(egl, BLOCKS), ma = median(api, BLOCKS);
    printf("GetData, 8 counters with reset: %.0f ns per call; C API sampler read+reset of the "
           "same 8: %.0f ns; ratio %.3f (target <= 1.2)\n", me, ma, me / ma);
    perfq_sampler_destroy(&s);
    perfq_close(&pq);
    eglSetPerfCountingBRCM(EGL_RELEASE_COUNTERS_BRCM);

    /* Acquire and release, each timed alone, in blocks. */
    double acq[BLOCKS], rel[BLOCKS], capi_acq[BLOCKS], capi_rel[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
        uint64_t ta = 0, tr = 0, ca = 0, cr = 0;
        for (int i = 0; i < CYCLES / BLOCKS + 1; i++) {
            uint64_t t0 = now_ns();
            eglSetPerfCountingBRCM(EGL_ACQUIRE_COUNTERS_BRCM);
            uint64_t t1 = now_ns();
            eglSetPerfCountingBRCM(EGL_RELEASE_COUNTERS_BRCM);
            uint64_t t2 = now_ns();
            perfq_counters_acquire();
            uint64_t t3 = now_ns();
            perfq_counters_release();
            uint64_t t4 = now_ns();
            ta += t1 - t0;
            tr += t2 - t1;
            ca += t3 - t2;
            cr += t4 - t3;
        }
        int n = CYCLES / BLOCKS + 1;
        acq[b] = (double)ta / n;
        rel[b] = (double)tr / n;
        capi_acq[b] = (double)ca / n;
        capi_rel[b] = (double)cr / n;
    }
    printf("Acquire %.2f us, Release %.2f us per call (target < 50 us each); "
           "perfq_counters_acquire %.2f us, perfq_counters_release %.2f us\n",
           median(acq, BLOCKS) / 1e3, median(rel, BLOCKS) / 1e3, median(capi_acq, BLOCKS) / 1e3,
           median(capi_rel, BLOCKS) / 1e3);
    return 0;
}
