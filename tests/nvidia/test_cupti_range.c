/*
 * The "cupti-range" provider: CUPTI's range profiler through the C API, for a CUDA program's own
 * work between begin and end.
 * Everywhere: the catalog tells the truth (without the driver: one group "cupti-range",
 * unavailable with the reason, and no measurement). Where libcupti is (the development machines
 * have the CUDA toolkit without a driver; CI has neither: then this part says so): the pass
 * counts CUPTI's host side gives for GH100 (each metric alone 1, the six main ones together 1,
 * all thirteen together 2), which decide what a measurement may hold.
 * With an NVIDIA GPU (the GPU machine), on every CUDA device in turn through its own group and
 * its primary context (another device's group refused with PERFQ_EINVAL): a copy kernel of
 * 2 x 1 GiB (driver API, the PTX below,
 * made by nvcc -ptx -arch=compute_75 from the kernel in the comment) measured twice: DRAM bytes
 * read within 2% of 1 GiB, written within 6% (the H100's 50 MB L2 is 4.7% of it: dirty lines of
 * earlier work written back inside the range, or of the copy's last ones after it), the same
 * instruction count both times, GPU time within the
 * host's interval, passes 1; all thirteen metrics refused with PERFQ_EPASSES where they take more
 * than one pass; a thread without a current context refused with PERFQ_ESTATE.
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "perfq/perfq.h"
#include "providers/cupti_range.h"
#include "../test_util.h"

static const char *const all[] = {
    "gpu__time_duration.sum", "sm__cycles_elapsed.avg", "sm__cycles_active.avg",
    "dram__bytes_read.sum", "dram__bytes_write.sum", "smsp__inst_executed.sum",
    "l1tex__t_bytes.sum", "lts__t_bytes.sum", "sm__warps_active.avg",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "sm__inst_executed_pipe_tensor.sum",
};
#define N_ALL (sizeof(all) / sizeof(all[0]))

/* extern "C" __global__ void copy(const float4 *in, float4 *out, unsigned long long n)
 * { for (i = global thread index; i < n; i += grid size) out[i] = in[i]; } */
static const char copy_ptx[] =
    ".version 9.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    "	// .globl	copy\n"
    ".visible .entry copy(\n"
    "	.param .u64 copy_param_0,\n"
    "	.param .u64 copy_param_1,\n"
    "	.param .u64 copy_param_2\n"
    ")\n"
    "{\n"
    "	.reg .pred 	%p<3>;\n"
    "	.reg .b32 	%r<13>;\n"
    "	.reg .b64 	%rd<18>;\n"
    "	ld.param.u64 	%rd8, [copy_param_0];\n"
    "	ld.param.u64 	%rd9, [copy_param_1];\n"
    "	ld.param.u64 	%rd10, [copy_param_2];\n"
    "	mov.u32 	%r1, %ctaid.x;\n"
    "	mov.u32 	%r2, %ntid.x;\n"
    "	cvt.u64.u32 	%rd1, %r2;\n"
    "	mul.wide.u32 	%rd11, %r1, %r2;\n"
    "	mov.u32 	%r3, %tid.x;\n"
    "	cvt.u64.u32 	%rd12, %r3;\n"
    "	add.s64 	%rd17, %rd11, %rd12;\n"
    "	setp.ge.u64 	%p1, %rd17, %rd10;\n"
    "	@%p1 bra 	$L__BB0_3;\n"
    "	mov.u32 	%r4, %nctaid.x;\n"
    "	cvt.u64.u32 	%rd13, %r4;\n"
    "	mul.lo.s64 	%rd3, %rd13, %rd1;\n"
    "	cvta.to.global.u64 	%rd4, %rd8;\n"
    "	cvta.to.global.u64 	%rd5, %rd9;\n"
    "$L__BB0_2:\n"
    "	shl.b64 	%rd14, %rd17, 4;\n"
    "	add.s64 	%rd15, %rd4, %rd14;\n"
    "	add.s64 	%rd16, %rd5, %rd14;\n"
    "	ld.global.v4.u32 	{%r5, %r6, %r7, %r8}, [%rd15];\n"
    "	st.global.v4.u32 	[%rd16], {%r5, %r6, %r7, %r8};\n"
    "	add.s64 	%rd17, %rd17, %rd3;\n"
    "	setp.lt.u64 	%p2, %rd17, %rd10;\n"
    "	@%p2 bra 	$L__BB0_2;\n"
    "$L__BB0_3:\n"
    "	ret;\n"
    "}\n";

static int have_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    return h != NULL;   /* kept open: CUDA stays loaded for the process's life */
}

static void test_catalog(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    uint32_t n;
    assert_int_equal(perfq_group_count(pq, &n), PERFQ_OK);
    int groups = 0;
    for (uint32_t i = 0; i < n; i++) {
        perfq_group_info_t g;
        assert_int_equal(perfq_group_info(pq, i, &g), PERFQ_OK);
        if (strncmp(g.name, "cupti-range", 11) != 0)
            continue;
        groups++;
        assert_int_equal(g.counter_count, N_ALL + 1);
        assert_int_equal(g.scope, PERFQ_SCOPE_GPU_TIMELINE);
        printf("%s: %s%s%s\n", g.name, g.description, g.available ? "" : "; unavailable: ",
               g.available ? "" : g.unavailable_reason);
        if (strcmp(g.name, "cupti-range") == 0) {
            assert_int_equal(g.available, 0);
            assert_false(have_driver() && strstr(g.unavailable_reason, "libcuda.so.1 not found"));
            perfq_counter_id_t id;
            assert_int_equal(perfq_counter_find(pq, "cupti-range/dram__bytes_read.sum", &id),
                             PERFQ_OK);
            perfq_measurement_t *m = NULL;
            assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_ENOTSUP);
        } else {
            assert_non_null(strstr(g.description, "passes here"));
        }
    }
    assert_true(groups >= 1);
    assert_string_equal(perfq_status_string(PERFQ_EPASSES),
                        "the counters need more than one pass over the work: split them into "
                        "measurements of one pass each");
    perfq_close(&pq);
}

/* libcupti's host side loads libnvperf_host.so with RTLD_DEEPBIND, which the sanitizers'
 * runtimes refuse (they abort the process): the pass counts run in the plain builds. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#endif

static void test_passes(void **state)
{
    (void)state;
    size_t p = 0;
    char reason[256];
#ifdef UNDER_SANITIZER
    if (!have_driver()) {
        printf("pass counts not checked under a sanitizer: libcupti loads libnvperf_host.so "
               "with RTLD_DEEPBIND, which the sanitizer runtime refuses (the plain build "
               "checks them)\n");
        return;
    }
#endif
    if (perfq__cupti_range_passes("GH100", all, 1, &p, reason, sizeof(reason)) != 0 &&
        strstr(reason, "libcupti not found")) {
        fprintf(stderr, "pass counts not checked: %s\n", reason);
        assert_true(test_may_lack("libcupti"));
        return;
    }
    for (size_t i = 0; i < N_ALL; i++) {
        assert_int_equal(perfq__cupti_range_passes("GH100", &all[i], 1, &p, reason,
                                                   sizeof(reason)), 0);
        assert_int_equal(p, 1);
    }
    assert_int_equal(perfq__cupti_range_passes("GH100", all, 6, &p, reason, sizeof(reason)), 0);
    assert_int_equal(p, 1);
    assert_int_equal(perfq__cupti_range_passes("GH100", all, N_ALL, &p, reason, sizeof(reason)),
                     0);
    assert_int_equal(p, 2);
    /* A metric the chip does not have: CUPTI's refusal, named. */
    const char *bogus = "perfq__no_such_metric.sum";
    assert_int_equal(perfq__cupti_range_passes("GH100", &bogus, 1, &p, reason, sizeof(reason)),
                     -1);
    printf("GH100: each metric alone 1 pass, the first six 1, all %zu 2; a bogus metric: %s\n",
           N_ALL, reason);
    /* What the probe lists for a device of a chip (host side; the probe's own code, run
     * under its lock as there): where the driver is, its devices' tables are the probe's. */
    if (have_driver())
        return;
    const char *desc, *why;
    for (size_t m = 0; m < N_ALL; m++) {
        assert_int_equal(perfq__cupti_range_describe("GH100", m, &desc, &why), 2);
        assert_string_equal(why, "");
        assert_non_null(strstr(desc, "(range profiler; 1 pass alone on GH100)"));
    }
    assert_int_equal(perfq__cupti_range_describe("GH100", N_ALL, &desc, &why), 2);
    assert_non_null(strstr(desc, "PERFQ_EPASSES"));
    /* A chip CUPTI does not know: every metric unavailable with CUPTI's refusal, no count. */
    assert_int_equal(perfq__cupti_range_describe("NOCHIP", 0, &desc, &why), 0);
    printf("an unknown chip: %s\n", why);
    assert_non_null(strstr(why, "cuptiProfilerHost"));
}

/* ---- the GPU machine ---------------------------------------------------------------------- */

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction;
typedef unsigned long long CUdeviceptr;
static struct {
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDeviceGetCount)(int *);
    CUresult (*cuDeviceGet)(int *, int);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, int);
    CUresult (*cuDevicePrimaryCtxRelease_v2)(int);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree_v2)(CUdeviceptr);
    CUresult (*cuMemsetD8_v2)(CUdeviceptr, unsigned char, size_t);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, void *, void **, void **);
} C;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void copy_on_device(perfq_t *pq, int ordinal, int devices);

static void *no_context(void *arg)
{
    perfq_t *pq = arg;
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, "cupti-range-gpu0/dram__bytes_read.sum", &id),
                     PERFQ_OK);
    perfq_measurement_t *m = NULL;
    return (void *)(intptr_t)perfq_measurement_create(pq, &id, 1, NULL, &m);
}

static void test_known_copy(void **state)
{
    (void)state;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        assert_true(test_may_lack("libcuda.so.1"));   /* the measured copy needs the driver */
        return;
    }
#define SYM(name) assert_non_null(*(void **)&C.name = dlsym(h, #name))
    SYM(cuInit); SYM(cuDeviceGetCount); SYM(cuDeviceGet); SYM(cuDevicePrimaryCtxRetain);
    SYM(cuDevicePrimaryCtxRelease_v2); SYM(cuCtxSetCurrent); SYM(cuCtxSynchronize);
    SYM(cuModuleLoadData); SYM(cuModuleUnload); SYM(cuModuleGetFunction); SYM(cuMemAlloc_v2);
    SYM(cuMemFree_v2); SYM(cuMemsetD8_v2); SYM(cuLaunchKernel);
    assert_int_equal(C.cuInit(0), 0);
    int devices = 0;
    assert_int_equal(C.cuDeviceGetCount(&devices), 0);
    assert_true(devices >= 1);
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    /* Every device (the two-GPU machine: both), each through its own group and context. */
    for (int d = 0; d < devices && d < 8; d++)
        copy_on_device(pq, d, devices);
    perfq_close(&pq);
}

static void copy_on_device(perfq_t *pq, int ordinal, int devices)
{
    int dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    assert_int_equal(C.cuDeviceGet(&dev, ordinal), 0);
    assert_int_equal(C.cuDevicePrimaryCtxRetain(&ctx, dev), 0);
    assert_int_equal(C.cuCtxSetCurrent(ctx), 0);
    assert_int_equal(C.cuModuleLoadData(&mod, copy_ptx), 0);
    assert_int_equal(C.cuModuleGetFunction(&fn, mod, "copy"), 0);
    const size_t bytes = (size_t)1 << 30;
    CUdeviceptr in, out;
    assert_int_equal(C.cuMemAlloc_v2(&in, bytes), 0);
    assert_int_equal(C.cuMemAlloc_v2(&out, bytes), 0);
    assert_int_equal(C.cuMemsetD8_v2(in, 1, bytes), 0);
    assert_int_equal(C.cuMemsetD8_v2(out, 0, bytes), 0);
    assert_int_equal(C.cuCtxSynchronize(), 0);

    enum { TIME, ELAPSED, ACTIVE, READ, WRITE, INST, PASSES, N };
    const char *names[N] = {"gpu__time_duration.sum", "sm__cycles_elapsed.avg",
                            "sm__cycles_active.avg", "dram__bytes_read.sum",
                            "dram__bytes_write.sum", "smsp__inst_executed.sum", "passes"};
    perfq_counter_id_t ids[N], every[N_ALL];
    for (int i = 0; i < N; i++) {
        char full[96];
        snprintf(full, sizeof(full), "cupti-range-gpu%d/%s", ordinal, names[i]);
        assert_int_equal(perfq_counter_find(pq, full, &ids[i]), PERFQ_OK);
    }
    for (size_t i = 0; i < N_ALL; i++) {
        char full[96];
        snprintf(full, sizeof(full), "cupti-range-gpu%d/%s", ordinal, all[i]);
        assert_int_equal(perfq_counter_find(pq, full, &every[i]), PERFQ_OK);
    }
    /* Another device's group, this device's context current: refused. */
    perfq_measurement_t *m = NULL;
    if (devices > 1) {
        char other[96];
        perfq_counter_id_t oid;
        snprintf(other, sizeof(other), "cupti-range-gpu%d/dram__bytes_read.sum",
                 (ordinal + 1) % devices);
        assert_int_equal(perfq_counter_find(pq, other, &oid), PERFQ_OK);
        assert_int_equal(perfq_measurement_create(pq, &oid, 1, NULL, &m), PERFQ_EINVAL);
        printf("device %d: %s with this device's context current: PERFQ_EINVAL\n", ordinal,
               other);
    }
    /* Another thread, no current context: refused. */
    pthread_t t;
    void *st;
    assert_int_equal(pthread_create(&t, NULL, no_context, pq), 0);
    pthread_join(t, &st);
    assert_int_equal((int)(intptr_t)st, PERFQ_ESTATE);
    /* All thirteen: as many passes as CUPTI counts for this chip; more than one is refused. */
    perfq_group_info_t g;
    perfq_counter_info_t ci;
    assert_int_equal(perfq_counter_info(pq, ids[0], &ci), PERFQ_OK);
    assert_int_equal(perfq_group_info(pq, ci.group, &g), PERFQ_OK);
    const char *p = strstr(g.description, "together take ");
    assert_non_null(p);
    int set_passes = atoi(p + strlen("together take "));
    perfq_status_t s = perfq_measurement_create(pq, every, N_ALL, NULL, &m);
    printf("device %d: all %zu metrics (%d passes here): %s\n", ordinal, N_ALL, set_passes,
           perfq_status_string(s));
    assert_int_equal(s, set_passes > 1 ? PERFQ_EPASSES : PERFQ_OK);
    if (m)
        perfq_measurement_destroy(&m);

    assert_int_equal(perfq_measurement_create(pq, ids, N, NULL, &m), PERFQ_OK);
    unsigned long long n = bytes / 16;
    void *args[] = {&in, &out, &n};
    double inst0 = 0;
    for (int round = 0; round < 2; round++) {
        double t0 = now_ns();
        assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
        assert_int_equal(C.cuLaunchKernel(fn, 132 * 8, 1, 1, 256, 1, 1, 0, NULL, args, NULL), 0);
        assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
        double t1 = now_ns();
        perfq_value_t v[N];
        assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, N), PERFQ_OK);
        double rd = (double)v[READ].v.u64, wr = (double)v[WRITE].v.u64;
        printf("device %d round %d: copy of 2 x %zu bytes: dram read %.0f (%+.3f%%), write %.0f (%+.3f%%), "
               "%llu warp instructions, GPU time %.3f ms (host interval %.3f ms), SM cycles "
               "elapsed %.0f, active %.0f, %llu pass\n", ordinal, round, bytes, rd,
               100 * (rd / (double)bytes - 1), wr, 100 * (wr / (double)bytes - 1),
               (unsigned long long)v[INST].v.u64, (double)v[TIME].v.u64 / 1e6, (t1 - t0) / 1e6,
               v[ELAPSED].v.f64, v[ACTIVE].v.f64, (unsigned long long)v[PASSES].v.u64);
        for (int i = 0; i < N; i++)
            assert_int_equal(v[i].flags, 0);
        assert_true(fabs(rd / (double)bytes - 1) < 0.02);
        assert_true(fabs(wr / (double)bytes - 1) < 0.06);
        assert_true(v[TIME].v.u64 > 0 && (double)v[TIME].v.u64 < t1 - t0);
        assert_true(v[ACTIVE].v.f64 > 0 && v[ACTIVE].v.f64 <= v[ELAPSED].v.f64);
        assert_int_equal(v[PASSES].v.u64, 1);
        if (round == 0)
            inst0 = (double)v[INST].v.u64;
        else
            assert_true((double)v[INST].v.u64 == inst0);   /* the same kernel: the same count */
        assert_true(inst0 > 0);
    }
    perfq_measurement_destroy(&m);
    C.cuMemFree_v2(in);
    C.cuMemFree_v2(out);
    C.cuModuleUnload(mod);
    C.cuCtxSetCurrent(NULL);
    C.cuDevicePrimaryCtxRelease_v2(dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog),
        cmocka_unit_test(test_passes),
        cmocka_unit_test(test_known_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
