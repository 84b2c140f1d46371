/*
 * cl_codeplay_performance_counters driven by call sequences with arbitrary arguments on the
 * installed OpenCL platform (PoCL here) through perfq's OpenCL layer (OPENCL_LAYERS; the test
 * build's layer when unset): the device query with any buffer size, queues created with any
 * counter configuration (listed and unlisted uuids, counts, NULL config or descs, the property
 * twice), counted writes, results read with any buffer size, from events of queues with and
 * without counters and from user events. Checked against the spec and docs/opencl-layer.md:
 * size queries and too-small buffers (CL_INVALID_VALUE, nothing written), exactly the value
 * written otherwise; a configuration is accepted exactly when it is valid; results are one per
 * enabled counter and Bytes Transferred is the write's size; CL_INVALID_VALUE for user events
 * and queues without counters.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include "fuzz_input.h"
#include "perfq/cl_codeplay_performance_counters.h"

static cl_context ctx;
static cl_device_id dev;
static cl_performance_counter_codeplay *counters;
static size_t n_counters;
static cl_mem buf;
static char host[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!getenv("OPENCL_LAYERS"))
        setenv("OPENCL_LAYERS", PERFQ_FUZZ_CL_LAYER, 1);
    cl_platform_id p;
    cl_uint n = 0;
    cl_int err;
    if (clGetPlatformIDs(1, &p, &n) || !n || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
        return fprintf(stderr, "fuzz: no OpenCL platform or device\n"), abort(), 0;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    size_t size = 0;
    if (!ctx || clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL, &size) ||
        !size)
        return fprintf(stderr, "fuzz: no codeplay counters (OPENCL_LAYERS=%s)\n",
                       getenv("OPENCL_LAYERS")), abort(), 0;
    counters = malloc(size);
    clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, size, counters, NULL);
    n_counters = size / sizeof *counters;
    buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
    if (!buf)
        abort();
    return 0;
}

static int listed(cl_uint uuid)
{
    for (size_t i = 0; i < n_counters; i++)
        if (counters[i].uuid == uuid)
            return (int)i + 1;
    return 0;
}

static void device_query(struct fz *f)
{
    static unsigned char out[8192];
    size_t need = n_counters * sizeof *counters, size = 0;
    size_t give = fz_u8(f) < 128 ? need : (size_t)fz_u32(f) % (need + 64);
    if (give > sizeof out - 64)
        give = sizeof out - 64;
    memset(out, FUZZ_CANARY, sizeof out);
    cl_int err = clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, give,
                                 give ? out : NULL, fz_u8(f) & 1 ? &size : NULL);
    if (give && give < need) {
        FUZZ_CHECK(err == CL_INVALID_VALUE, "device info into %zu of %zu: %d", give, need, err);
        FUZZ_CHECK(fz_canary_intact(out, 0, sizeof out), "a short buffer was written");
    } else {
        FUZZ_CHECK(err == CL_SUCCESS, "device info: %d", err);
        FUZZ_CHECK(fz_canary_intact(out, give ? need : 0, sizeof out), "written past %zu", need);
    }
}

struct queue {
    cl_command_queue q;
    size_t n;                  /* counters enabled */
    cl_uint uuids[8];
};

static void create_queue(struct fz *f, struct queue *out)
{
    cl_performance_counter_desc_codeplay descs[8];
    cl_uint count = fz_u8(f) % 9;
    int valid = count > 0;
    for (cl_uint i = 0; i < count; i++) {
        uint8_t sel = fz_u8(f);
        descs[i].uuid = sel < 220 ? counters[sel % n_counters].uuid : fz_u32(f);
        descs[i].data = NULL;
        valid &= listed(descs[i].uuid) != 0;
    }
    cl_performance_counter_config_codeplay config = {count, descs};
    uint8_t shape = fz_u8(f);
    cl_queue_properties props[8];
    int k = 0;
    if (shape & 1) {
        props[k++] = CL_QUEUE_PROPERTIES;
        props[k++] = fz_u8(f) & 1 ? CL_QUEUE_PROFILING_ENABLE : 0;
    }
    props[k++] = CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY;
    if (shape & 2) {
        props[k++] = 0;        /* a NULL config */
        valid = 0;
    } else if (shape & 4) {
        config.descs = NULL;   /* NULL descs */
        props[k++] = (cl_queue_properties)(uintptr_t)&config;
        valid = 0;
    } else {
        props[k++] = (cl_queue_properties)(uintptr_t)&config;
    }
    if (shape & 8 && !(shape & 2)) {   /* the property twice */
        props[k++] = CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY;
        props[k++] = (cl_queue_properties)(uintptr_t)&config;
        valid = 0;
    }
    props[k] = 0;
    cl_int err = CL_OUT_OF_RESOURCES;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    FUZZ_CHECK((q != NULL) == (err == CL_SUCCESS), "queue %p with %d", (void *)q, err);
    FUZZ_CHECK(valid ? err == CL_SUCCESS : err == CL_INVALID_VALUE,
               "config count %u shape 0x%x (valid %d): %d", count, shape, valid, err);
    if (q) {
        /* The list the program passed, as it passed it. */
        cl_queue_properties back[16];
        size_t size = 0;
        FUZZ_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof back, back,
                                         &size) == CL_SUCCESS, "properties array");
        FUZZ_CHECK(size == (size_t)(k + 1) * sizeof props[0] && !memcmp(back, props, size),
                   "properties array differs (%zu bytes)", size);
        out->q = q;
        out->n = count;
        for (cl_uint i = 0; i < count; i++)
            out->uuids[i] = descs[i].uuid;
    }
}

static void counted_write(struct fz *f, const struct queue *q, cl_command_queue plain)
{
    size_t bytes = 1 + fz_u32(f) % sizeof host;
    cl_event ev = NULL;
    cl_command_queue on = q->q ? q->q : plain;
    cl_int err = clEnqueueWriteBuffer(on, buf, CL_TRUE, 0, bytes, host, 0, NULL, &ev);
    FUZZ_CHECK(err == CL_SUCCESS, "write: %d", err);
    cl_performance_counter_result_codeplay r[8 + 4];
    size_t need = q->q ? q->n * sizeof r[0] : 0, size = 0;
    size_t give = fz_u8(f) < 128 ? need : fz_u8(f) % (sizeof r + 1);
    memset(r, FUZZ_CANARY, sizeof r);
    err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY, give,
                                  give ? r : NULL, &size);
    if (!q->q) {
        FUZZ_CHECK(err == CL_INVALID_VALUE, "results of a queue without counters: %d", err);
    } else if (give && give < need) {
        FUZZ_CHECK(err == CL_INVALID_VALUE, "results into %zu of %zu: %d", give, need, err);
    } else {
        FUZZ_CHECK(err == CL_SUCCESS && size == need, "results: %d, %zu of %zu", err, size,
                   need);
        if (give)
            for (size_t i = 0; i < q->n; i++) {
                int c = listed(q->uuids[i]) - 1;
                if (!strcmp(counters[c].name, "Bytes Transferred"))
                    FUZZ_CHECK(r[i].uint64 == bytes, "Bytes Transferred %llu of %zu",
                               (unsigned long long)r[i].uint64, bytes);
            }
    }
    FUZZ_CHECK(fz_canary_intact(r, err == CL_SUCCESS && give ? need : 0, sizeof r),
               "results written past %zu", need);
    clReleaseEvent(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    struct queue qs[3];
    memset(qs, 0, sizeof qs);
    cl_int err;
    cl_command_queue plain = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    FUZZ_CHECK(plain, "plain queue: %d", err);
    for (int calls = 0; fz_more(&f) && calls < 24; calls++) {
        struct queue *q = &qs[fz_u8(&f) % 3];
        switch (fz_u8(&f) % 5) {
        case 0:
            device_query(&f);
            break;
        case 1:
            if (q->q)
                clReleaseCommandQueue(q->q);
            memset(q, 0, sizeof *q);
            create_queue(&f, q);
            break;
        case 2: {
            cl_event user = clCreateUserEvent(ctx, &err);
            cl_performance_counter_result_codeplay r[8];
            err = clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY,
                                          sizeof r, r, NULL);
            FUZZ_CHECK(err == CL_INVALID_VALUE, "results of a user event: %d", err);
            clSetUserEventStatus(user, CL_COMPLETE);
            clReleaseEvent(user);
            break;
        }
        default:
            counted_write(&f, q, plain);
            break;
        }
    }
    for (int i = 0; i < 3; i++)
        if (qs[i].q)
            clReleaseCommandQueue(qs[i].q);
    clReleaseCommandQueue(plain);
    return 0;
}
