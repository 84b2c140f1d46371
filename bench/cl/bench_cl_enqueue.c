/*
 * What the OpenCL layer costs per enqueue: a small clEnqueueWriteBuffer (64 bytes, with an
 * event the program then releases) on a queue with counters under the layer, against the same
 * enqueue on a plain queue without the layer, side by side in one run.
 *
 * The loader reads OPENCL_LAYERS once per process, so the two sides are two processes: this
 * program runs itself as a child per side ("--side without|passthrough|counters"), alternating
 * the sides round after round so that drift of a shared machine hits all alike, and compares
 * the medians. Each child times blocks of calls and reports its median ns per call.
 *   without      no layer; a queue without profiling (what the program would have done)
 *   passthrough  the layer loaded; the same queue (no counters): the layer's pass-through cost
 *   profiling    no layer; the program's own queue with CL_QUEUE_PROFILING_ENABLE: what the
 *                driver's event timestamps cost, which the counters below need
 *   counters     the layer loaded; a queue with "Command Duration" and "Bytes Transferred"
 *                (the layer turns on driver profiling underneath: its cost is counted here)
 *   bytes        the layer loaded; a queue with "Bytes Transferred" only (no profiling needed)
 * Two shapes: "blocking" (CL_TRUE: one command's full round trip) and "pipelined" (non-blocking,
 * clFinish every 64: the enqueue path alone dominates).
 * A last child ("--side stub") isolates the layer's own CPU work: it loads the layer with
 * dlopen, initialises it over a stub driver whose enqueue returns at once (fresh event handles,
 * as a driver's), and times enqueue+release through the layer against the stub called directly.
 * Prints ns per call and the ratios counters/without and passthrough/without (target: the
 * counters overhead under 10% of a blocking write on PoCL).
 * Environment: PERFQ_CL_LAYER (the layer; default: the build tree's), PERFQ_BENCH_CL_PLATFORM
 * (a part of the platform name).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfq/cl_codeplay_performance_counters.h"

#ifndef PERFQ_CL_LAYER_PATH
#define PERFQ_CL_LAYER_PATH "libperfq-cl.so"
#endif

#define ROUNDS 7
#define BLOCKS 15
#define CALLS 2000
#define PIPELINE 64

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int fail(const char *what, cl_int err)
{
    fprintf(stderr, "bench_cl_enqueue: %s: %d\n", what, err);
    return 1;
}

/* One side, in a child process: prints "blocking_ns pipelined_ns" on stdout. */
static int run_side(const char *side)
{
    cl_uint n = 0;
    if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0)
        return fail("no OpenCL platform", 0);
    cl_platform_id ps[16], platform = NULL;
    clGetPlatformIDs(n < 16 ? n : 16, ps, NULL);
    const char *want = getenv("PERFQ_BENCH_CL_PLATFORM");
    for (cl_uint i = 0; i < n && i < 16 && !platform; i++) {
        char name[256] = "";
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (!want || strcasestr(name, want))
            platform = ps[i];
    }
    if (!platform)
        return fail("no platform matches PERFQ_BENCH_CL_PLATFORM", 0);
    cl_device_id dev;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    if (err)
        return fail("clGetDeviceIDs", err);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (!ctx)
        return fail("clCreateContext", err);
    cl_queue_properties plain[] = {0};
    cl_queue_properties profiling[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_performance_counter_codeplay counters[16];
    size_t size = 0;
    cl_performance_counter_desc_codeplay descs[2];
    cl_performance_counter_config_codeplay config = {2, descs};
    cl_queue_properties with[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                  (cl_queue_properties)(uintptr_t)&config, 0};
    const cl_queue_properties *props = plain;
    int bytes_only = strcmp(side, "bytes") == 0;
    if (strcmp(side, "counters") == 0 || bytes_only) {
        err = clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, sizeof(counters),
                              counters, &size);
        if (err || size < 2 * sizeof(counters[0]))
            return fail("the layer is not loaded (CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY)", err);
        /* counters: Command Duration, Bytes Transferred; bytes: Bytes Transferred alone. */
        const char *want_names[2] = {bytes_only ? "Bytes Transferred" : "Command Duration",
                                     "Bytes Transferred"};
        config.count = bytes_only ? 1 : 2;
        for (cl_uint k = 0; k < config.count; k++) {
            descs[k].uuid = 0;
            descs[k].data = NULL;
            for (size_t i = 0; i < size / sizeof(counters[0]); i++)
                if (!strcmp(counters[i].name, want_names[k]))
                    descs[k].uuid = counters[i].uuid;
            if (!descs[k].uuid)
                return fail("counter missing", 0);
        }
        props = with;
    } else if (strcmp(side, "profiling") == 0) {
        props = profiling;
    }
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    if (!q)
        return fail("clCreateCommandQueueWithProperties", err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    if (!buf)
        return fail("clCreateBuffer", err);
    static char host[64];
    double results[2];
    for (int shape = 0; shape < 2; shape++) {
        double per_call[BLOCKS];
        for (int b = -2; b < BLOCKS; b++) {   /* two warm-up blocks */
            uint64_t t0 = now_ns();
            for (int i = 0; i < CALLS; i++) {
                cl_event ev;
                err = clEnqueueWriteBuffer(q, buf, shape == 0 ? CL_TRUE : CL_FALSE, 0,
                                           sizeof(host), host, 0, NULL, &ev);
                if (err)
                    return fail("clEnqueueWriteBuffer", err);
                clReleaseEvent(ev);
                if (shape == 1 && i % PIPELINE == PIPELINE - 1)
                    clFinish(q);
            }
            clFinish(q);
            if (b >= 0)
                per_call[b] = (double)(now_ns() - t0) / CALLS;
        }
        results[shape] = median(per_call, BLOCKS);
    }
    printf("%.1f %.1f\n", results[0], results[1]);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}

/* --- the layer over a stub driver: its own cost, without a driver's noise ---------------- */

static uintptr_t next_event = 0x100000;

static cl_int CL_API_CALL stub_device_info(cl_device_id d, cl_device_info p, size_t size,
                                           void *value, size_t *ret)
{
    (void)d;
    if (p != CL_DEVICE_EXTENSIONS)
        return CL_INVALID_VALUE;
    if (value && size)
        *(char *)value = '\0';
    if (ret)
        *ret = 1;
    return CL_SUCCESS;
}

static cl_command_queue CL_API_CALL stub_create_queue(cl_context c, cl_device_id d,
                                                      const cl_queue_properties *p, cl_int *err)
{
    (void)c;
    (void)d;
    (void)p;
    *err = CL_SUCCESS;
    return (cl_command_queue)(uintptr_t)0x2000;
}

static cl_int CL_API_CALL stub_write(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                                     size_t size, const void *ptr, cl_uint n, const cl_event *wl,
                                     cl_event *ev)
{
    (void)q, (void)b, (void)blocking, (void)off, (void)size, (void)ptr, (void)n, (void)wl;
    if (ev)
        *ev = (cl_event)(next_event += 48);   /* heap-like, fresh handles */
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_release_event(cl_event e)
{
    (void)e;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_release_queue(cl_command_queue q)
{
    (void)q;
    return CL_SUCCESS;
}

typedef cl_int (*init_layer_fn)(cl_uint, const cl_icd_dispatch *, cl_uint *,
                                const cl_icd_dispatch **);

static double time_calls(const cl_icd_dispatch *d, cl_command_queue q)
{
    double per_call[BLOCKS];
    static char host[64];
    for (int b = -2; b < BLOCKS; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < CALLS * 10; i++) {
            cl_event ev;
            d->clEnqueueWriteBuffer(q, NULL, CL_TRUE, 0, sizeof(host), host, 0, NULL, &ev);
            d->clReleaseEvent(ev);
        }
        if (b >= 0)
            per_call[b] = (double)(now_ns() - t0) / (CALLS * 10);
    }
    return median(per_call, BLOCKS);
}

static int run_stub(const char *layer)
{
    static cl_icd_dispatch stub;
    stub.clGetDeviceInfo = stub_device_info;
    stub.clCreateCommandQueueWithProperties = stub_create_queue;
    stub.clEnqueueWriteBuffer = stub_write;
    stub.clReleaseEvent = stub_release_event;
    stub.clReleaseCommandQueue = stub_release_queue;
    void *h = dlopen(layer, RTLD_NOW | RTLD_LOCAL);
    init_layer_fn init = h ? (init_layer_fn)dlsym(h, "clInitLayer") : NULL;
    const cl_icd_dispatch *d = NULL;
    cl_uint n = 0;
    if (!init || init(sizeof(stub) / sizeof(void *), &stub, &n, &d) != CL_SUCCESS)
        return fail("clInitLayer over the stub", 0);
    cl_device_id dev = (cl_device_id)(uintptr_t)0x3000;
    cl_performance_counter_codeplay counters[16];
    size_t size = 0;
    if (d->clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, sizeof(counters),
                           counters, &size) != CL_SUCCESS || size < 2 * sizeof(counters[0]))
        return fail("counters over the stub", 0);
    cl_performance_counter_desc_codeplay descs[2] = {{counters[0].uuid, NULL},
                                                     {counters[1].uuid, NULL}};
    cl_performance_counter_config_codeplay config = {2, descs};
    cl_queue_properties with[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                  (cl_queue_properties)(uintptr_t)&config, 0};
    cl_int err;
    cl_command_queue q = d->clCreateCommandQueueWithProperties(NULL, dev, with, &err);
    if (!q)
        return fail("queue over the stub", err);
    double layered = time_calls(d, q), direct = time_calls(&stub, q);
    printf("%.1f %.1f\n", layered, direct);
    d->clReleaseCommandQueue(q);
    return 0;
}

/* Runs one side as a child and reads its two numbers. */
static int child(const char *self, const char *side, const char *layer, double out[2])
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        if (strcmp(side, "without") == 0 || strcmp(side, "profiling") == 0 ||
            strcmp(side, "stub") == 0)
            unsetenv("OPENCL_LAYERS");
        else
            setenv("OPENCL_LAYERS", layer, 1);
        execl(self, self, "--side", side, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    int got = f ? fscanf(f, "%lf %lf", &out[0], &out[1]) : 0;
    if (f)
        fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    return got == 2 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *layer = getenv("PERFQ_CL_LAYER");
    if (!layer || !*layer)
        layer = PERFQ_CL_LAYER_PATH;
    if (argc == 3 && strcmp(argv[1], "--side") == 0)
        return strcmp(argv[2], "stub") == 0 ? run_stub(layer) : run_side(argv[2]);
    if (access(layer, R_OK) != 0) {
        fprintf(stderr, "bench_cl_enqueue: no layer at %s (set PERFQ_CL_LAYER)\n", layer);
        return 1;
    }
    enum { SIDES = 5 };
    const char *sides[SIDES] = {"without", "passthrough", "profiling", "counters", "bytes"};
    double v[SIDES][2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        for (int s = 0; s < SIDES; s++) {
            double out[2];
            if (child("/proc/self/exe", sides[s], layer, out) != 0) {
                fprintf(stderr, "bench_cl_enqueue: side %s failed\n", sides[s]);
                return 1;
            }
            v[s][0][r] = out[0];
            v[s][1][r] = out[1];
        }
    }
    printf("clEnqueueWriteBuffer, 64 bytes, with an event released after; median of %d rounds "
           "of %d blocks of %d calls\n", ROUNDS, BLOCKS, CALLS);
    printf("layer: %s\n", layer);
    const char *shapes[2] = {"blocking", "pipelined"};
    for (int k = 0; k < 2; k++) {
        double m[SIDES];
        for (int s = 0; s < SIDES; s++)
            m[s] = median(v[s][k], ROUNDS);
        printf("%-9s  without layer %8.1f ns | layer, no counters %8.1f ns | no layer, "
               "program profiling %8.1f ns | layer, counters %8.1f ns\n",
               shapes[k], m[0], m[1], m[2], m[3]);
        printf("%-9s  ratio counters/without %.3f (overhead %+.1f%%, %+.1f ns; of which driver "
               "profiling %+.1f ns, layer %+.1f ns)   passthrough/without %.3f\n",
               shapes[k], m[3] / m[0], (m[3] / m[0] - 1) * 100, m[3] - m[0], m[2] - m[0],
               m[3] - m[2], m[1] / m[0]);
        printf("%-9s  bytes-only counters (no profiling) %8.1f ns: ratio %.3f (overhead %+.1f%%, "
               "%+.1f ns)\n", shapes[k], m[4], m[4] / m[0], (m[4] / m[0] - 1) * 100, m[4] - m[0]);
    }
    double stub[2];
    if (child("/proc/self/exe", "stub", layer, stub) != 0) {
        fprintf(stderr, "bench_cl_enqueue: side stub failed\n");
        return 1;
    }
    printf("layer alone (stub driver): enqueue+release %.1f ns through the layer, %.1f ns direct: "
           "%+.1f ns of layer work per counted command\n", stub[0], stub[1], stub[0] - stub[1]);
    return 0;
}
