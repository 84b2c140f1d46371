/*
 * Threads stress (issue 13): several threads, each with its own GL context (EGL, llvmpipe here)
 * and its own OpenCL queue with cl_codeplay_performance_counters (PoCL here), beginning, ending
 * and reading GL_INTEL_performance_query and GL_ANGLE_timer_query queries and counted OpenCL
 * commands, while another thread samples through EGL_BRCM_performance_counters and the C API's
 * sampler. Run under ThreadSanitizer and ASan by scripts/test-all.sh.
 *
 * What always holds, whatever the scheduling: every call succeeds (no GL error, no EGL or
 * OpenCL error, no perfq error), every INTEL result has the query's data size, every ANGLE
 * result is available after glFinish, every OpenCL write reports exactly its bytes, and the
 * BRCM Draw Calls read with reset by the sampler add up to exactly the draws the workers made
 * while counting was started (reset is atomic with counting). No timing is asserted.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CL/cl.h>

#include "gl_test.h"
#include "perfq/cl_codeplay_performance_counters.h"
#include "perfq/egl_brcm_performance_counters.h"
#include "perfq/perfq.h"

#define WORKERS 3
#define ROUNDS 40
#define DRAWS_PER_ROUND 3
#define CL_BYTES 4096

static atomic_int failures;
#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            atomic_fetch_add(&failures, 1);                                         \
        }                                                                           \
    } while (0)

static EGLDisplay dpy;
static enum glt_kind kind;
static cl_context clctx;
static cl_device_id cldev;
static cl_uint uuid_bytes, uuid_duration;
static pthread_barrier_t started;
static atomic_int workers_left = WORKERS;
static atomic_llong draws_made;

static struct glt_brcm brcm;

/* One INTEL query of each type the context lists, begun, ended and read (WAIT). */
static void intel_round(struct glt *t)
{
    GLuint id = 0;
    gl.glGetFirstPerfQueryIdINTEL(&id);
    CHECK(id != 0, "no INTEL query type");
    for (; id; gl.glGetNextPerfQueryIdINTEL(id, &id)) {
        char name[256];
        GLuint size = 0, counters = 0, instances = 0, caps = 0;
        gl.glGetPerfQueryInfoINTEL(id, sizeof name, name, &size, &counters, &instances, &caps);
        GLuint h = 0;
        gl.glCreatePerfQueryINTEL(id, &h);
        if (!h)
            continue;   /* a type of a single instance, held by another user: allowed */
        gl.glBeginPerfQueryINTEL(h);
        glt_draw_triangles(t, DRAWS_PER_ROUND);
        gl.glEndPerfQueryINTEL(h);
        unsigned char *data = malloc(size ? size : 1);
        GLuint written = 0;
        gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data, &written);
        CHECK(written == size, "INTEL %s: %u bytes of %u", name, written, size);
        free(data);
        gl.glDeletePerfQueryINTEL(h);
    }
}

static void angle_round(struct glt *t)
{
    GLuint q[2];
    gl.glGenQueriesANGLE(2, q);
    gl.glQueryCounterANGLE(q[1], GL_TIMESTAMP_ANGLE);
    gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, q[0]);
    glt_draw_triangles(t, DRAWS_PER_ROUND);
    gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
    gl.glFinish();
    GLuint avail = 0;
    GLuint64 ns = 0, stamp = 0;
    gl.glGetQueryObjectui64vANGLE(q[0], GL_QUERY_RESULT_ANGLE, &ns);
    gl.glGetQueryObjectui64vANGLE(q[1], GL_QUERY_RESULT_ANGLE, &stamp);
    gl.glGetQueryObjectuivANGLE(q[0], GL_QUERY_RESULT_AVAILABLE_ANGLE, &avail);
    CHECK(avail == GL_TRUE, "ANGLE result not available after glFinish and a result read");
    CHECK(stamp > 0, "ANGLE timestamp 0");
    gl.glDeleteQueriesANGLE(2, q);
}

static cl_command_queue counter_queue(void)
{
    cl_performance_counter_desc_codeplay descs[2] = {{uuid_bytes, NULL}, {uuid_duration, NULL}};
    cl_performance_counter_config_codeplay config = {2, descs};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    cl_int err = CL_INVALID_VALUE;
    cl_command_queue q = clCreateCommandQueueWithProperties(clctx, cldev, props, &err);
    CHECK(err == CL_SUCCESS && q, "counter queue: %d", err);
    return q;
}

static void cl_round(cl_command_queue q, cl_mem buf, const char *host)
{
    cl_event ev = NULL;
    cl_int err = clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, CL_BYTES, host, 0, NULL, &ev);
    CHECK(err == CL_SUCCESS, "clEnqueueWriteBuffer: %d", err);
    if (err != CL_SUCCESS)
        return;
    CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS, "clWaitForEvents");
    cl_performance_counter_result_codeplay r[2];
    size_t size = 0;
    err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY,
                                  sizeof r, r, &size);
    CHECK(err == CL_SUCCESS && size == sizeof r, "counter results: %d, %zu bytes", err, size);
    CHECK(r[0].uint64 == CL_BYTES, "Bytes Transferred %llu", (unsigned long long)r[0].uint64);
    clReleaseEvent(ev);
}

static void *worker(void *arg)
{
    (void)arg;
    struct glt t;
    int rc = glt_create(&t, dpy, kind, 64, 64);
    CHECK(rc == 0, "glt_create: %d", rc);
    cl_command_queue q = counter_queue();
    cl_int err;
    cl_mem buf = clCreateBuffer(clctx, CL_MEM_READ_WRITE, CL_BYTES, NULL, &err);
    CHECK(buf, "clCreateBuffer: %d", err);
    static const char host[CL_BYTES];
    pthread_barrier_wait(&started);   /* the sampler counts from here */
    if (rc == 0 && q && buf) {
        for (int r = 0; r < ROUNDS; r++) {
            intel_round(&t);
            angle_round(&t);
            cl_round(q, buf, host);
        }
        GLenum e = glt_error();
        CHECK(e == GL_NO_ERROR, "GL error 0x%x", e);
    }
    gl.glFinish();
    /* Draws made on this context (every INTEL type and the ANGLE query draw each round). */
    GLuint id = 0, types = 0;
    for (gl.glGetFirstPerfQueryIdINTEL(&id); id; gl.glGetNextPerfQueryIdINTEL(id, &id))
        types++;
    atomic_fetch_add(&draws_made, (long long)ROUNDS * (types + 1));
    if (buf)
        clReleaseMemObject(buf);
    if (q)
        clReleaseCommandQueue(q);
    if (rc == 0)
        glt_destroy(&t);
    atomic_fetch_sub(&workers_left, 1);
    return NULL;
}

struct record {
    uint32_t group, counter;
    uint64_t value;
};

/* The draws counted since the last reset, read and reset in one call. */
static uint64_t brcm_draws(EGLint drv, EGLint draw)
{
    struct record r[16];
    EGLint bytes = 0;
    CHECK(brcm.GetData(sizeof r, r, &bytes, EGL_TRUE), "eglGetPerfCounterDataBRCM: 0x%x",
          eglGetError());
    for (EGLint i = 0; i < bytes / (EGLint)sizeof r[0]; i++)
        if (r[i].group == (uint32_t)drv && r[i].counter == (uint32_t)draw)
            return r[i].value;
    return 0;
}

/* The sampler: EGL_BRCM (Driver Counters, read with reset) and the C API's sampler (host
 * counters), read until every worker is done. */
static void *sampler(void *arg)
{
    uint64_t *brcm_total = arg;
    EGLint drv = glt_brcm_group(&brcm, "Driver Counters");
    EGLint draw = glt_brcm_counter(&brcm, drv, "Draw Calls");
    CHECK(drv >= 0 && draw >= 0, "BRCM Driver Counters/Draw Calls");
    CHECK(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM), "acquire: 0x%x", eglGetError());
    CHECK(brcm.Choose(EGL_TRUE, drv, 1, &draw), "choose: 0x%x", eglGetError());
    CHECK(brcm.SetCounting(EGL_START_COUNTERS_BRCM), "start: 0x%x", eglGetError());

    perfq_t *pq = NULL;
    perfq_sampler_t *s = NULL;
    perfq_counter_id_t ids[2];
    CHECK(perfq_open(&pq) == PERFQ_OK, "perfq_open");
    CHECK(perfq_counter_find(pq, "clock/process-cpu-time", &ids[0]) == PERFQ_OK, "find");
    CHECK(perfq_counter_find(pq, "rusage/minor-faults", &ids[1]) == PERFQ_OK, "find");
    CHECK(perfq_sampler_create(pq, NULL, &s) == PERFQ_OK, "sampler_create");
    CHECK(perfq_sampler_choose(s, ids, 2, 1) == PERFQ_OK, "sampler_choose");
    CHECK(perfq_sampler_start(s) == PERFQ_OK, "sampler_start");
    /* Values come in catalog order: where the CPU time is. */
    perfq_counter_id_t order[2] = {0, 0};
    size_t chosen = 0;
    CHECK(perfq_sampler_counters(s, order, 2, &chosen) == PERFQ_OK && chosen == 2, "counters");
    int cpu_at = order[0] == ids[0] ? 0 : 1;

    pthread_barrier_wait(&started);
    uint64_t total = 0, cpu = 0;
    long reads = 0;
    while (atomic_load(&workers_left) > 0) {
        total += brcm_draws(drv, draw);
        perfq_value_t v[2];
        CHECK(perfq_sampler_read(s, PERFQ_SAMPLER_RESET, v, 2) == PERFQ_OK, "sampler_read");
        cpu += v[cpu_at].v.u64;
        reads++;
        usleep(1000);
    }
    total += brcm_draws(drv, draw);
    CHECK(brcm.SetCounting(EGL_STOP_COUNTERS_BRCM), "stop: 0x%x", eglGetError());
    CHECK(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM), "release: 0x%x", eglGetError());
    CHECK(perfq_sampler_stop(s) == PERFQ_OK, "sampler_stop");
    CHECK(perfq_sampler_destroy(&s) == PERFQ_OK, "sampler_destroy");
    perfq_close(&pq);
    printf("sampler: %ld reads, process CPU %.1f ms, BRCM draws %llu\n", reads, cpu / 1e6,
           (unsigned long long)total);
    CHECK(cpu > 0, "no process CPU time counted");
    *brcm_total = total;
    return NULL;
}

static int cl_open(void)
{
    cl_platform_id platform;
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0) {
        fprintf(stderr, "no OpenCL platform: skipped\n");
        return GLT_SKIP;
    }
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &cldev, NULL) != CL_SUCCESS) {
        fprintf(stderr, "no OpenCL device: skipped\n");
        return GLT_SKIP;
    }
    cl_int err;
    clctx = clCreateContext(NULL, 1, &cldev, NULL, NULL, &err);
    if (!clctx)
        return fprintf(stderr, "clCreateContext: %d\n", err), 1;
    size_t size = 0;
    if (clGetDeviceInfo(cldev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL, &size) ||
        !size)
        return fprintf(stderr, "no codeplay counters (OPENCL_LAYERS=%s)\n",
                       getenv("OPENCL_LAYERS")), 1;
    cl_performance_counter_codeplay *c = malloc(size);
    clGetDeviceInfo(cldev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, size, c, NULL);
    for (size_t i = 0; i < size / sizeof *c; i++) {
        if (strcmp(c[i].name, "Bytes Transferred") == 0)
            uuid_bytes = c[i].uuid;
        if (strcmp(c[i].name, "Command Duration") == 0)
            uuid_duration = c[i].uuid;
    }
    free(c);
    return uuid_bytes && uuid_duration ? 0 : 1;
}

int main(int argc, char **argv)
{
    char domain[64];
    snprintf(domain, sizeof domain, "test-stress-threads-%d", (int)getpid());
    setenv("PERFQ_LOCK_NAME", domain, 1);   /* apart from other perfq users of the machine */
    kind = glt_kind_from_args(argc, argv);
    int rc = glt_open_display(&dpy);
    if (rc)
        return rc;
    if ((rc = cl_open()) != 0)
        return rc;
    glt_brcm_load(&brcm);
    pthread_barrier_init(&started, NULL, WORKERS + 1);
    pthread_t th[WORKERS], st;
    uint64_t brcm_total = 0;
    pthread_create(&st, NULL, sampler, &brcm_total);
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(th[i], NULL);
    pthread_join(st, NULL);
    long long made = atomic_load(&draws_made);
    printf("%d workers x %d rounds: draws made %lld, BRCM Draw Calls %llu, failures %d\n",
           WORKERS, ROUNDS, made, (unsigned long long)brcm_total, atomic_load(&failures));
    CHECK((long long)brcm_total == made, "BRCM counted %llu draws of %lld",
          (unsigned long long)brcm_total, made);
    clReleaseContext(clctx);
    return atomic_load(&failures) ? 1 : 0;
}
